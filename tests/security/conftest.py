"""A table for the security tests: everyone who may, or may not, touch an encounter.

The GM (Gina, logged in, with an API token), the owning player (seat 1: Ana and Cid), another
player (seat 2: Bram), a spectator, a revoked link (it controlled Ana and Cid), nobody
(anonymous) and an outsider (Otto, another GM account with his own API token). The encounter
holds Ana, Bram and Cid (PCs), a Goblin (a visible NPC) and a hidden Lurking Troll.

`snapshot()` is everything a refused attempt must leave alone; `Spy` counts broadcasts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from combat import broadcast, services
from combat.access import gm_viewer
from combat.models import ApiToken, Encounter, LogEntry, Seat

SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 4},
    "defend": {"dice": "1d1", "bonus": 0},
}
HIDDEN = "Lurking Troll"
ROLES = ("gm", "owner", "other", "spectator", "revoked", "anonymous", "outsider")


def add(enc: Encounter, **fields: Any) -> str:
    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


@dataclass
class Table:
    enc: Encounter
    seat1: Seat
    seat2: Seat
    revoked: Seat
    ids: dict[str, str]
    gm_user: Any
    outsider_user: Any
    gm_key: str
    outsider_key: str
    clients: dict[str, Client] = field(default_factory=dict)

    def refresh(self) -> Encounter:
        self.enc.refresh_from_db()
        return self.enc

    def __getattr__(self, name: str) -> str:
        ids = self.__dict__.get("ids") or {}
        if name in ids:
            return ids[name]
        raise AttributeError(name)

    def token(self, role: str) -> str | None:
        """The bearer token each role would send to the API."""
        return {
            "gm": self.gm_key,
            "owner": self.seat1.token,
            "other": self.seat2.token,
            "spectator": self.enc.spectator_token,
            "revoked": self.revoked.token,
            "anonymous": None,
            "outsider": self.outsider_key,
        }[role]


def build_table(gm_user, outsider_user, ruleset: str = "action_points") -> Table:
    enc = services.create_encounter(gm_user, "Bridge fight", ruleset, {})
    assert isinstance(enc, Encounter)
    grit = {"grit": 1} if ruleset == "initiative_passes" else {}
    ids = {
        "ana": add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE, **grit),
        "bram": add(enc, name="Bram", side="pc", hp=20, initiative=15, stats=SURE),
        "goblin": add(enc, name="Goblin", side="npc", hp=10, initiative=10, stats=SURE),
        "troll": add(enc, name=HIDDEN, side="npc", hp=40, initiative=5, stats=SURE, hidden=True),
        "cid": add(enc, name="Cid", side="pc", hp=20, initiative=1, stats=SURE),
    }
    seat1 = services.create_seat(enc.pk, "Player 1", [ids["ana"], ids["cid"]])
    seat2 = services.create_seat(enc.pk, "Player 2", [ids["bram"]])
    # Ana's old link: revoked, though it still names her combatants.
    revoked = Seat.objects.create(
        encounter=enc, name="Old link", combatant_ids=[ids["ana"], ids["cid"]], revoked=True
    )
    _, gm_key = ApiToken.issue(gm_user, "GM script")
    _, outsider_key = ApiToken.issue(outsider_user, "Otto's script")
    enc.refresh_from_db()
    return Table(enc, seat1, seat2, revoked, ids, gm_user, outsider_user, gm_key, outsider_key)


def clients_for(t: Table) -> dict[str, Client]:
    gm, outsider = Client(), Client()
    gm.force_login(t.gm_user)
    outsider.force_login(t.outsider_user)
    return {
        "gm": gm,
        "owner": Client(),
        "other": Client(),
        "spectator": Client(),
        "revoked": Client(),
        "anonymous": Client(),
        "outsider": outsider,
    }


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def users(db):
    User = get_user_model()
    gm = User.objects.create_user("gina", password="gm-password-1")
    outsider = User.objects.create_user("otto", password="outsider-password-1")
    # Otto is a GM too, of his own encounter: being a GM somewhere opens nothing here.
    services.create_encounter(outsider, "Otto's own fight", "action_points", {})
    return gm, outsider


@pytest.fixture
def table(users) -> Table:
    t = build_table(*users)
    t.clients = clients_for(t)
    return t


# --- what must not change -------------------------------------------------------------------


def snapshot() -> dict[str, Any]:
    """Every row a refused attempt could touch, as plain data (compare before and after)."""
    return {
        "encounters": [
            (e.pk, e.name, e.version, json.dumps(e.state, sort_keys=True), e.spectator_token)
            for e in Encounter.objects.order_by("pk")
        ],
        "seats": list(Seat.objects.order_by("pk").values_list("pk", "name", "token", "revoked"))
        + [(s.pk, s.combatant_ids) for s in Seat.objects.order_by("pk")],
        "log": list(LogEntry.objects.order_by("pk").values_list("pk", "seq", "undone")),
        "tokens": list(ApiToken.objects.order_by("pk").values_list("pk", "name", "key_hash")),
    }


class Spy:
    """Counts every push the server would make: publish, presence and socket closes."""

    NAMES = ("publish", "publish_presence", "close_seat", "close_spectators", "_send")

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        for name in self.NAMES:
            real = getattr(broadcast, name)
            monkeypatch.setattr(broadcast, name, self._wrap(name, real))

    def _wrap(self, name: str, real: Any) -> Any:
        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            return real(*args, **kwargs)

        return spy

    def count(self) -> int:
        return len(self.calls)

    def publishes(self) -> int:
        return sum(1 for name, _ in self.calls if name == "publish")

    def state_pushes(self) -> int:
        """Pushes of a change (new views, closed sockets), not of who is connected."""
        return sum(
            1 for name, _ in self.calls if name in ("publish", "close_seat", "close_spectators")
        )


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    return Spy(monkeypatch)
