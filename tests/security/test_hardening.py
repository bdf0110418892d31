"""Hardening (issue 12, items 11 and 13): log-in throttling, GM sockets that end with their
session, a player's roll under its combatant's name, production secret keys, links kept out
of the access log, no-store on secret pages, sockets per link."""

from __future__ import annotations

import io
import json
import os
import re
import socket as socketlib
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client

from combat.models import Encounter, LogEntry
from tests.said import said

from .conftest import Table, snapshot
from .sockets import build, connect, socket, until_closed

HTMX = {"HTTP_HX_REQUEST": "true"}


# --- a player's roll (item 11) ---------------------------------------------------------------


def test_a_players_roll_is_logged_under_their_combatant(table: Table):
    """Rule: a free roll by a player is logged under the rolling combatant's name."""
    p1 = table.clients["owner"]
    url = f"/p/{table.seat1.token}/command/"
    r = p1.post(url, {"type": "roll", "actor": table.ana, "dice": "1d1+2"}, **HTMX)
    assert r.status_code == 200
    entry = table.enc.log.order_by("-seq").first()
    assert entry is not None
    text = said(entry.events[0])
    assert text.startswith("Ana rolls") and "GM" not in text, text
    page = p1.get(f"/p/{table.seat1.token}/").content.decode()
    assert "Ana rolls 1d1+2" in page and "The GM rolls" not in page


@pytest.mark.parametrize("via", ["page", "api"])
def test_a_players_roll_without_a_combatant_is_refused_in_words(table: Table, via: str):
    before, logged = snapshot(), LogEntry.objects.count()
    if via == "page":
        r = table.clients["owner"].post(
            f"/p/{table.seat1.token}/command/", {"type": "roll", "dice": "1d6"}, **HTMX
        )
        body = r.content.decode()
    else:
        r = table.clients["anonymous"].post(
            f"/api/encounters/{table.enc.pk}/commands",
            {"type": "roll", "dice": "1d6"},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {table.seat1.token}",
        )
        body = r.json()["error"]["message"]
    assert r.status_code == 400
    assert "Say which of your combatants rolls" in body
    assert snapshot() == before and LogEntry.objects.count() == logged


# --- a GM's socket ends with the log-in (item 11) ------------------------------------------


def _gm_client(user: Any) -> tuple[Client, str]:
    client = Client()
    client.force_login(user)
    return client, client.cookies[django_settings.SESSION_COOKIE_NAME].value


async def _gm_on_its_socket() -> tuple[Any, Client, Any]:
    """A table, its GM logged in, and the GM's console socket, connected."""
    t, _, _ = await build()
    client, cookie = await database_sync_to_async(_gm_client)(t.gm_user)
    comm = socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=cookie)
    await connect(comm)
    return t, client, comm


@pytest.mark.django_db(transaction=True)
async def test_logging_out_closes_the_gms_sockets():
    _, client, comm = await _gm_on_its_socket()
    r = await database_sync_to_async(client.post)("/accounts/logout/")
    assert r.status_code in (200, 302)
    frames, code = await until_closed(comm, quiet=3)
    assert code == 4401
    assert any('data-testid="logged-out"' in f and "log in again" in f for f in frames)


@pytest.mark.django_db(transaction=True)
async def test_a_gm_socket_whose_encounter_is_gone_is_told_so_not_logged_out():
    t, _, comm = await _gm_on_its_socket()

    def delete() -> None:
        Encounter.objects.filter(pk=t.enc.pk).delete()

    await database_sync_to_async(delete)()
    await comm.send_to(text_data='{"type": "resync"}')
    frames, code = await until_closed(comm, quiet=3)
    assert code == 4403
    assert any('data-testid="encounter-gone"' in f for f in frames)
    assert not any("logged-out" in f for f in frames)


@pytest.mark.django_db(transaction=True)
async def test_a_password_change_closes_every_gm_socket_of_the_account():
    """Every session of the account from before the change ends with its sockets; the
    changer stays logged in (Django renews that session) and gets the console on reload."""
    t, _, _ = await build()

    def set_password() -> None:
        t.gm_user.set_password("first-password-1")
        t.gm_user.save()

    await database_sync_to_async(set_password)()
    changer, changer_cookie = await database_sync_to_async(_gm_client)(t.gm_user)
    other, other_cookie = await database_sync_to_async(_gm_client)(t.gm_user)
    sockets = [socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=c) for c in (changer_cookie, other_cookie)]
    for comm in sockets:
        await connect(comm)
    r = await database_sync_to_async(changer.post)(
        "/accounts/password_change/",
        {
            "old_password": "first-password-1",
            "new_password1": "Another-long-passphrase-9",
            "new_password2": "Another-long-passphrase-9",
        },
    )
    assert r.status_code == 302, r.content[:300]
    for comm in sockets:
        frames, code = await until_closed(comm, quiet=3)
        assert code == 4401 and any('data-testid="logged-out"' in f for f in frames)
    console = f"/enc/{t.enc.pk}/"
    assert (await database_sync_to_async(changer.get)(console)).status_code == 200
    gone = await database_sync_to_async(other.get)(console)
    assert gone.status_code == 302 and "/accounts/login/" in gone["Location"]


# --- log-in throttling (item 11) -------------------------------------------------------------


def _login(path: str, username: str, password: str, ip: str) -> Any:
    client = Client(REMOTE_ADDR=ip)
    return client.post(path, {"username": username, "password": password})


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_wrong_passwords_pause_the_guessing_address_not_the_account(
    users: Any, settings: Any, path: str
):
    for user in users:
        user.is_staff = True  # so that /admin/ would let them in
        user.save()
    limit = settings.AXES_FAILURE_LIMIT
    answers = [_login(path, "gina", f"wrong-{n}", "10.0.0.1").status_code for n in range(limit)]
    assert answers.count(200) == limit - 1 and answers[-1] == 429
    # Now even the right password is refused, in words, from the guessing address...
    locked = _login(path, "gina", "gm-password-1", "10.0.0.1")
    assert locked.status_code == 429
    body = locked.content.decode()
    assert "Too many log-in attempts" in body and f"{limit} wrong passwords" in body
    assert "another address is not affected" in body
    # ...but the GM, from their own address, logs in (issue 36: anyone could lock a GM out).
    assert _login(path, "gina", "gm-password-1", "10.9.9.9").status_code == 302
    # Another person, elsewhere, logs in as usual; so does another name from the guessing
    # address, which has not reached the address's own, much higher limit.
    assert _login(path, "otto", "outsider-password-1", "10.0.0.2").status_code == 302
    assert _login(path, "otto", "outsider-password-1", "10.0.0.1").status_code == 302


def test_an_address_guessing_many_names_is_paused(users: Any, settings: Any):
    settings.VTT_LOGIN_ADDRESS_FAILURES = 30
    path = "/accounts/login/"
    answers = [_login(path, f"name{n}", "wrong", "10.0.0.1").status_code for n in range(30)]
    assert answers.count(200) == 29 and answers[-1] == 429
    # The whole address is paused, right passwords included...
    assert _login(path, "otto", "outsider-password-1", "10.0.0.1").status_code == 429
    assert _login(path, "gina", "gm-password-1", "10.0.0.1").status_code == 429
    # ...and nobody else.
    assert _login(path, "gina", "gm-password-1", "10.0.0.9").status_code == 302


def test_logging_in_to_ones_own_account_does_not_wipe_the_addresss_count(users: Any, settings: Any):
    settings.VTT_LOGIN_ADDRESS_FAILURES = 20
    path = "/accounts/login/"
    for n in range(19):
        assert _login(path, f"name{n}", "wrong", "10.0.0.1").status_code == 200
    assert _login(path, "otto", "outsider-password-1", "10.0.0.1").status_code == 302
    assert _login(path, "name99", "wrong", "10.0.0.1").status_code == 429


def test_the_host_lifts_a_pause_with_a_command(users: Any):
    from django.core.management import call_command

    path = "/accounts/login/"
    for n in range(django_settings.AXES_FAILURE_LIMIT):
        _login(path, "gina", f"wrong-{n}", "10.0.0.1")
    assert _login(path, "gina", "gm-password-1", "10.0.0.1").status_code == 429
    out = io.StringIO()
    call_command("axes_reset_username", "gina", stdout=out)
    assert "removed" in out.getvalue()
    assert _login(path, "gina", "gm-password-1", "10.0.0.1").status_code == 302


def test_a_forged_forwarded_for_does_not_escape_the_lock(users: Any, settings: Any):
    for n in range(settings.AXES_FAILURE_LIMIT):
        Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").post(
            "/accounts/login/", {"username": "gina", "password": f"wrong-{n}"}
        )
    r = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.200").post(
        "/accounts/login/", {"username": "gina", "password": "gm-password-1"}
    )
    assert r.status_code == 429


# --- production secret key (item 13) --------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "VTT_"))}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "vtt.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "key",
    [
        "short-but-random-Xy7",  # 20 characters
        "ab" * 30,  # long, 2 different characters
        "django-insecure-" + "q8Zr2LmV0pXs9TnK4wYc7BdF1hJ6gE3uAoRiN5",  # Django's own prefix
        # These pass Django's own check, 50 characters and 5 different (issue 36):
        "password" * 7,  # a word repeated
        "abcde" * 10,  # five letters repeated
        "a" * 6 + "b" * 6 + "c" * 6 + "d" * 6 + "e" * 6 + "f" * 6 + "g" * 6 + "h" * 6 + "i" * 6,
    ],
)
def test_a_weak_production_secret_key_is_refused_at_start(key: str):
    run = _settings_with(DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key, DJANGO_ALLOWED_HOSTS="x.org")
    assert run.returncode != 0
    assert "DJANGO_SECRET_KEY is too weak for production" in run.stderr
    assert "at least 50 characters" in run.stderr
    assert key not in run.stderr  # the key itself is never printed


@pytest.mark.parametrize(
    "key",
    [
        "t7Jq2xVbN9pLr4WmZc8KdHs3FgYe6UaR1oXiQ5wTnBvMl0ySkP",
        # `openssl rand -hex 32`: 16 different characters at most.
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
)
def test_a_strong_production_secret_key_is_accepted(key: str):
    run = _settings_with(DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key, DJANGO_ALLOWED_HOSTS="x.org")
    assert run.returncode == 0, run.stderr


def test_generated_keys_always_pass_the_production_rule():
    import secrets

    from django.core.management.utils import get_random_secret_key

    from vtt.envconf import weak_secret_key

    for _ in range(2000):
        assert weak_secret_key(get_random_secret_key()) is None
        assert weak_secret_key(secrets.token_hex(32)) is None
        assert weak_secret_key(secrets.token_urlsafe(50)) is None


# --- Cache-Control on secret pages (item 13) ------------------------------------------------


def test_pages_behind_a_secret_link_are_never_cached(table: Table):
    t = table
    p, s = f"/p/{t.seat1.token}/", f"/s/{t.enc.spectator_token}/"
    answers = {
        "player page": t.clients["owner"].get(p),
        "player summary": t.clients["owner"].get(p + "summary/"),
        "player post": t.clients["owner"].post(
            p + "command/", {"type": "roll", "actor": t.ana, "dice": "1d4"}, **HTMX
        ),
        "spectator page": t.clients["spectator"].get(s),
        "spectator summary": t.clients["spectator"].get(s + "summary/"),
        "revoked link": t.clients["revoked"].get(f"/p/{t.revoked.token}/"),
        "GM console (holds the links)": t.clients["gm"].get(f"/enc/{t.enc.pk}/"),
        "GM's Show link": t.clients["gm"].get(f"/enc/{t.enc.pk}/links/", **HTMX),
    }
    for name, r in answers.items():
        assert "no-store" in r.get("Cache-Control", ""), (name, r.status_code)


def test_api_answers_about_an_encounter_are_never_cached(table: Table):
    """A bearer token's view of the state, the log and the seats' links (issue 36)."""
    t = table
    base = f"/api/encounters/{t.enc.pk}"

    def api(method: str, path: str, token: str, body: Any = None) -> Any:
        extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        if body is None:
            return getattr(Client(), method)(path, **extra)
        return Client().post(path, json.dumps(body), content_type="application/json", **extra)

    answers = {
        "encounters": api("get", "/api/encounters/", t.gm_key),
        "GM state": api("get", base + "/", t.gm_key),
        "player state": api("get", base + "/", t.seat1.token),
        "spectator state": api("get", base + "/", t.enc.spectator_token),
        "log": api("get", base + "/log/", t.gm_key),
        "seats": api("get", base + "/seats/", t.gm_key),
        "command": api("post", base + "/commands/", t.gm_key, {"type": "roll", "dice": "1d4"}),
        "refusal": api("get", base + "/", "vtt_not-a-token"),
    }
    for name, r in answers.items():
        assert r.status_code < 500 and "no-store" in r.get("Cache-Control", ""), name


# --- the proxy's body limit (item 13) -------------------------------------------------------


def test_the_proxys_socket_timeouts_outlast_the_heartbeat_and_the_apps_own(settings: Any):
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    for name in ("proxy_read_timeout", "proxy_send_timeout"):
        found = re.findall(rf"{name}\s+(\d+)s;", deploy)
        assert len(found) == 1, (name, found)
        seconds = int(found[0])
        # Several heartbeats fit in it, and the app's silence limit ends a socket first.
        assert seconds >= 3 * settings.HEARTBEAT_SECONDS, (name, seconds)
        assert seconds > settings.PRESENCE_TIMEOUT_SECONDS, (name, seconds)


def test_the_proxys_body_limit_is_the_largest_request_the_app_takes(settings: Any):
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    limits = re.findall(r"client_max_body_size\s+(\d+)([kmKM]?);", deploy)
    assert len(limits) == 1, limits
    number, unit = limits[0]
    body = int(number) * {"": 1, "k": 1024, "m": 1024 * 1024}[unit.lower()]
    largest_file = max(settings.VTT_IMPORT_MAX_BYTES, settings.VTT_MAP_IMAGE_MAX_BYTES)
    assert body == largest_file + settings.DATA_UPLOAD_MAX_MEMORY_SIZE


# --- links in logs (item 13) ----------------------------------------------------------------


def test_the_redacting_action_logger_hides_every_link():
    from daphne.access import AccessLogGenerator

    from vtt.serve import RedactingActionLogger  # daphne's server: imported here only

    lines = io.StringIO()
    log = RedactingActionLogger(AccessLogGenerator(lines))
    secret = "Qx3-secret_Link9"
    for path in (f"/p/{secret}/", f"/p/{secret}/command/", f"/s/{secret}/summary/?x=1"):
        log(
            "http",
            "complete",
            {"client": "1.2.3.4:5", "method": "GET", "path": path, "status": 200, "size": 10},
        )
    for action in ("connecting", "connected", "rejected", "disconnected"):
        log("websocket", action, {"client": "1.2.3.4:5", "path": f"/ws/p/{secret}/"})
    text = lines.getvalue()
    assert secret not in text and text.count("[link]") == 7, text
    assert "/p/[link]/command/" in text and "/ws/p/[link]/" in text


def test_served_by_make_runs_server_the_access_log_holds_no_link(tmp_path: Path):
    """`python -m vtt.serve` (what `make run` starts): a real daphne, its access log and
    Django's own log lines, after a player and a spectator address were asked for."""
    with socketlib.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    access = tmp_path / "access.log"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "VTT_"))}
    env = {
        **base,
        "DJANGO_SETTINGS_MODULE": "vtt.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "REDIS_URL": "",
    }
    env.pop("REDIS_URL")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vtt.serve",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "--access-log",
            str(access),
            "vtt.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # Not links of ours at all (a '.' is outside their alphabet), so no database is needed.
    secrets = ["Zk9.player-secret", "Zk9.spectator-secret"]
    try:
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        for path in (f"/p/{secrets[0]}/", f"/s/{secrets[1]}/summary/"):
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5)
            assert answer.value.code == 404
            answer.value.close()
        time.sleep(0.5)
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=20)
    log = access.read_text()
    assert "/p/[link]/" in log and "/s/[link]/summary/" in log, log
    assert "Not Found: /p/[link]/" in output, output[-2000:]
    for secret in secrets:
        assert secret not in log and secret not in output


# --- sockets per link (item 13) -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["player", "spectator"])
async def test_one_link_holds_a_bounded_number_of_sockets(kind: str):
    t, _, _ = await build()
    from channels.db import database_sync_to_async

    from combat import services
    from combat.consumers import MAX_SOCKETS

    # A seat's cap is fixed; the spectators' is the GM's setting (set here to 20).
    cap = MAX_SOCKETS["player"] if kind == "player" else 20
    if kind == "spectator":
        await database_sync_to_async(services.set_spectator_limit)(t.enc.pk, cap)
    path = f"/ws/p/{t.seat1.token}/" if kind == "player" else f"/ws/s/{t.enc.spectator_token}/"
    open_ = [socket(path) for _ in range(cap)]
    for comm in open_:
        await connect(comm)
    extra = socket(path)
    connected, _ = await extra.connect(timeout=10)
    assert connected
    frames, code = await until_closed(extra)
    assert code == 4409
    sentence = f"link is open on too many screens ({cap}): close one."
    assert len(frames) == 1 and sentence in frames[0], frames
    # The others are untouched, and once one closes a new page gets in.
    await open_[0].disconnect()
    again = socket(path)
    assert "socket-crowded" not in await connect(again)
    for comm in [*open_[1:], again]:
        await comm.disconnect()
