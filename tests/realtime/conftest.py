"""Sockets against the real ASGI application (origin check, sessions, routing).

These tests commit for real (transaction=True): the broadcast runs on commit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter, Seat
from vtt.asgi import application

ORIGIN = (b"origin", b"http://testserver")
HIDDEN = "Lurking Troll"
SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 4},
    "defend": {"dice": "1d1", "bonus": 0},
}


@dataclass
class Table:
    enc: Encounter
    seat1: Seat
    seat2: Seat
    gm_cookie: str
    outsider_cookie: str
    ana: str
    bram: str
    goblin: str
    troll: str


def _add(enc: Encounter, **fields) -> str:
    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


def _session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


def _build() -> Table:
    User = get_user_model()
    gm = User.objects.create_user("gina")
    outsider = User.objects.create_user("otto")
    enc = services.create_encounter(gm, "Bridge fight", "action_points", {})
    assert isinstance(enc, Encounter)
    ana = _add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE)
    bram = _add(enc, name="Bram", side="pc", hp=20, initiative=15, stats=SURE)
    goblin = _add(enc, name="Goblin", side="npc", hp=10, initiative=10, stats=SURE)
    troll = _add(enc, name=HIDDEN, side="npc", hp=40, initiative=5, stats=SURE, hidden=True)
    seat1 = services.create_seat(enc.pk, "Player 1", [ana])
    seat2 = services.create_seat(enc.pk, "Player 2", [bram])
    enc.refresh_from_db()
    return Table(
        enc, seat1, seat2, _session_cookie(gm), _session_cookie(outsider), ana, bram, goblin, troll
    )


@pytest.fixture(autouse=True)
def known_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "make_rng", lambda: random.Random(7))


@pytest.fixture
async def table() -> Table:
    return await database_sync_to_async(_build)()


def socket(
    path: str, *, cookie: str | None = None, origin: tuple[bytes, bytes] = ORIGIN
) -> WebsocketCommunicator:
    headers = [origin]
    if cookie:
        headers.append((b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


def gm_socket(t: Table, cookie: str | None = None) -> WebsocketCommunicator:
    return socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=cookie or t.gm_cookie)


def player_socket(token: str) -> WebsocketCommunicator:
    return socket(f"/ws/p/{token}/")


def spectator_socket(token: str) -> WebsocketCommunicator:
    return socket(f"/ws/s/{token}/")
