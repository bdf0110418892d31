"""Hardening (issue 12, items 11 and 13): log-in throttling, GM sockets that end with their
session, a player's roll under its combatant's name, production secret keys, links kept out
of the access log, no-store on secret pages, sockets per link."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client

from combat.models import LogEntry

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
    text = entry.events[0]["text"]
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


@pytest.mark.django_db(transaction=True)
async def test_logging_out_closes_the_gms_sockets():
    t, _, _ = await build()
    client, cookie = await database_sync_to_async(_gm_client)(t.gm_user)
    comm = socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=cookie)
    await connect(comm)
    r = await database_sync_to_async(client.post)("/accounts/logout/")
    assert r.status_code in (200, 302)
    frames, code = await until_closed(comm, quiet=3)
    assert code == 4401
    assert any('data-testid="logged-out"' in f and "log in again" in f for f in frames)


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
def test_wrong_passwords_lock_the_log_in_per_address_and_per_user_name(
    users: Any, settings: Any, path: str
):
    for user in users:
        user.is_staff = True  # so that /admin/ would let them in
        user.save()
    limit = settings.AXES_FAILURE_LIMIT
    answers = [_login(path, "gina", f"wrong-{n}", "10.0.0.1").status_code for n in range(limit)]
    assert answers.count(200) == limit - 1 and answers[-1] == 429
    # Now even the right password is refused, in words, from this address...
    locked = _login(path, "gina", "gm-password-1", "10.0.0.1")
    assert locked.status_code == 429
    body = locked.content.decode()
    assert "Too many log-in attempts" in body and f"{limit} wrong passwords" in body
    # ...for this user name from anywhere (an attacker who changes address)...
    assert _login(path, "gina", "gm-password-1", "10.9.9.9").status_code == 429
    # ...and for any user name from this address (one who tries many names).
    assert _login(path, "otto", "outsider-password-1", "10.0.0.1").status_code == 429
    # Another person, elsewhere, logs in as usual.
    assert _login(path, "otto", "outsider-password-1", "10.0.0.2").status_code == 302


def test_a_forged_forwarded_for_does_not_escape_the_lock(users: Any, settings: Any):
    for n in range(settings.AXES_FAILURE_LIMIT):
        Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").post(
            "/accounts/login/", {"username": f"user{n}", "password": "wrong"}
        )
    r = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.200").post(
        "/accounts/login/", {"username": "gina", "password": "gm-password-1"}
    )
    assert r.status_code == 429
