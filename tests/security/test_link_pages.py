"""No debug page ever meets a player or spectator (issue 12, item 4), revoking asks first,
and `HOST=0.0.0.0 make run` serves the local network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from combat import screens
from combat.management.commands import seed_demo
from combat.models import Seat

from .conftest import Table, snapshot

HTMX = {"HTTP_HX_REQUEST": "true"}
ROOT = Path(__file__).resolve().parents[2]
# What Django's debug pages say; none may reach a player or spectator.
DEBUG_MARKS = ("DEBUG = True", "Traceback", "URLconf", "Django tried these URL patterns")


def dead_addresses(t: Table) -> dict[str, str]:
    return {
        "mistyped player link": "/p/NotALinkOfOurs123/",
        "revoked player link": f"/p/{t.revoked.token}/",
        "its summary": f"/p/{t.revoked.token}/summary/",
        "mistyped spectator link": "/s/NotALinkOfOurs123/",
        "a spectator summary": "/s/NotALinkOfOurs123/summary/",
        "no such page under a live link": f"/p/{t.seat1.token}/no-such-page/",
        "half a link": f"/p/{t.seat1.token[:10]}",
    }


@pytest.mark.parametrize("debug", [True, False])
def test_a_dead_link_gets_the_apps_page_whatever_debug_says(table: Table, settings: Any, debug):
    settings.DEBUG = debug
    for name, path in dead_addresses(table).items():
        r = table.clients["anonymous"].get(path, follow=True)
        body = r.content.decode()
        assert r.status_code == 404, (name, r.status_code)
        assert 'data-testid="link-gone-page"' in body, (name, body[:300])
        assert "This link no longer works" in body and "Ask the GM for a new link" in body
        assert "<title>Link no longer works · VTT</title>" in body
        assert "Your turn" not in body and "Log in" not in body
        assert not any(mark in body for mark in DEBUG_MARKS), name
        assert r["Cache-Control"] == "no-store"


def test_a_server_error_behind_a_link_is_a_plain_page_even_in_debug(
    table: Table, settings: Any, monkeypatch: pytest.MonkeyPatch
):
    settings.DEBUG = True

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(screens, "player_context", broken)
    r = table.clients["owner"].get(f"/p/{table.seat1.token}/")
    body = r.content.decode()
    assert r.status_code == 500
    assert "Something went wrong on the server" in body
    assert "secret internals" not in body and not any(m in body for m in DEBUG_MARKS)


def test_revoking_a_seat_asks_first(table: Table):
    gm, url = table.clients["gm"], f"/enc/{table.enc.pk}/seats/{table.seat2.pk}/revoke/"
    before = snapshot()
    for extra in (HTMX, {}):
        r = gm.post(url, **extra)
        body = r.content.decode()
        assert r.status_code == 200
        assert "Revoke the link of <strong>Player 2</strong>?" in body
        assert f'data-testid="seat-revoke-confirm-{table.seat2.pk}"' in body
        assert snapshot() == before  # asking changed nothing
    r = gm.post(url, {"confirm": "yes"}, **HTMX)
    assert "Seat revoked: its link no longer works." in r.content.decode()
    assert Seat.objects.get(pk=table.seat2.pk).revoked


# --- HOST=0.0.0.0 make run -------------------------------------------------------------------


def test_the_demo_prints_links_for_the_local_network(
    db: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any, settings: Any
):
    settings.DEBUG = True
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.setattr(seed_demo, "lan_addresses", lambda: ["192.168.1.23"])
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "Served to the local network" in out and "not encrypted" in out
    assert "http://192.168.1.23:8123/p/" in out and "http://192.168.1.23:8123/s/" in out
    assert "http://192.168.1.23:8123/accounts/login/" in out


def _allowed_hosts(**env: str) -> list[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "VTT_", "HOST"))}
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); "
            "from django.conf import settings; print(','.join(settings.ALLOWED_HOSTS))",
        ],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "vtt.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip().split(",")


def test_host_0000_lets_phones_on_the_network_in_and_nothing_else_does():
    from vtt.lan import lan_addresses

    lan = lan_addresses()
    assert lan, "this machine has no private network address to test with"
    assert lan[0] in _allowed_hosts(HOST="0.0.0.0")
    assert lan[0] not in _allowed_hosts()
    # An operator's own list wins, and production never widens it.
    assert _allowed_hosts(HOST="0.0.0.0", DJANGO_ALLOWED_HOSTS="table.example") == ["table.example"]
