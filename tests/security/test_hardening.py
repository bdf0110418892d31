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
from .sockets import TIMEOUT, build, connect, socket

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


async def _closed_with(comm: Any) -> tuple[list[str], int | None]:
    frames: list[str] = []
    while True:
        if await comm.receive_nothing(timeout=3):
            return frames, None
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return frames, out.get("code")
        frames.append(out.get("text") or "")


@pytest.mark.django_db(transaction=True)
async def test_logging_out_closes_the_gms_sockets():
    t, _, _ = await build()
    client, cookie = await database_sync_to_async(_gm_client)(t.gm_user)
    comm = socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=cookie)
    await connect(comm)
    r = await database_sync_to_async(client.post)("/accounts/logout/")
    assert r.status_code in (200, 302)
    frames, code = await _closed_with(comm)
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
        frames, code = await _closed_with(comm)
        assert code == 4401 and any('data-testid="logged-out"' in f for f in frames)
    console = f"/enc/{t.enc.pk}/"
    assert (await database_sync_to_async(changer.get)(console)).status_code == 200
    gone = await database_sync_to_async(other.get)(console)
    assert gone.status_code == 302 and "/accounts/login/" in gone["Location"]
