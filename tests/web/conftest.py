"""A table for the view and API tests: a GM, two players (seats), an outsider and a spectator.

Ana (PC, Player 1) acts first, then Bram (PC, Player 2), the Goblin (NPC) and a
hidden Lurking Troll (NPC). Dice are 1d1 so every roll is known.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter, Seat

SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 4},
    "defend": {"dice": "1d1", "bonus": 0},
}
HIDDEN = "Lurking Troll"


@dataclass
class TableFixture:
    enc: Encounter
    gm: Client
    p1: Client
    p2: Client
    outsider: Client
    spectator: Client
    seat1: Seat
    seat2: Seat
    ana: str
    bram: str
    goblin: str
    troll: str

    def refresh(self) -> Encounter:
        self.enc.refresh_from_db()
        return self.enc

    @property
    def player1_url(self) -> str:
        return f"/p/{self.seat1.token}/"

    @property
    def player2_url(self) -> str:
        return f"/p/{self.seat2.token}/"

    @property
    def spectator_url(self) -> str:
        return f"/s/{self.enc.spectator_token}/"

    @property
    def gm_url(self) -> str:
        return f"/enc/{self.enc.pk}/"

    def gm_post(self, **data):
        return self.gm.post(f"/enc/{self.enc.pk}/command/", data, HTTP_HX_REQUEST="true")

    def p1_post(self, **data):
        return self.p1.post(f"{self.player1_url}command/", data, HTTP_HX_REQUEST="true")


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    # The default hasher is slow on purpose; these tests make a few users each.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def known_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "make_rng", lambda: random.Random(7))


# Every die rolls its one face: a fighter whose rolls are all known (Action Ladder stats).
FIGHTER = {
    "AGI": {"dice": "1d1", "bonus": 4},
    "STR": {"dice": "1d1", "bonus": 6},
    "FCS": {"dice": "1d1", "bonus": 3},
    "RES": {"dice": "1d1", "bonus": 2},
    "attack": {"dice": "1d1", "bonus": 0},
    "damage": {"dice": "1d1", "bonus": 4},
    "defend": {"dice": "1d1", "bonus": 0},
}


def gm(enc: Encounter, **command) -> None:
    """A GM command that must be accepted."""
    result = services.run_command(enc.pk, gm_viewer(enc), command)
    assert result.ok, result.refusal


def add(enc: Encounter, **fields) -> str:
    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


def build_table(owner, ruleset: str = "action_points") -> dict:
    enc = services.create_encounter(owner, "Bridge fight", ruleset, {})
    assert isinstance(enc, Encounter)
    ana = add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE)
    bram = add(enc, name="Bram", side="pc", hp=20, initiative=15, stats=SURE)
    goblin = add(enc, name="Goblin", side="npc", hp=10, initiative=10, stats=SURE)
    troll = add(enc, name=HIDDEN, side="npc", hp=40, initiative=5, stats=SURE, hidden=True)
    seat1 = services.create_seat(enc.pk, "Player 1", [ana])
    seat2 = services.create_seat(enc.pk, "Player 2", [bram])
    enc.refresh_from_db()
    return dict(enc=enc, seat1=seat1, seat2=seat2, ana=ana, bram=bram, goblin=goblin, troll=troll)


@pytest.fixture
def gm_user(db):
    return get_user_model().objects.create_user("gina", password="gm-password-1")


@pytest.fixture
def outsider_user(db):
    return get_user_model().objects.create_user("otto", password="outsider-password-1")


@pytest.fixture
def table(gm_user, outsider_user) -> TableFixture:
    parts = build_table(gm_user)
    gm = Client()
    gm.force_login(gm_user)
    outsider = Client()
    outsider.force_login(outsider_user)
    return TableFixture(
        gm=gm, p1=Client(), p2=Client(), outsider=outsider, spectator=Client(), **parts
    )


@pytest.fixture
def fight(table: TableFixture) -> TableFixture:
    """The same table with combat started: Ana's turn."""
    r = table.gm_post(type="start_combat")
    assert r.status_code == 200
    state = table.refresh().state
    assert state["turn"] == table.ana
    return table
