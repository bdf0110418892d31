"""A small table for the plain (no browser) reuse and summary tests."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter
from combat.rules import Encounter as State

SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 2},
    "defend": {"dice": "1d1", "bonus": 0},
}
HIDDEN = "Lurking Troll"


def add(enc: Encounter, **fields: Any) -> str:
    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


def gm(enc: Encounter, **command: Any) -> services.Result:
    result = services.run_command(enc.pk, gm_viewer(enc), command)
    assert result.ok, result.refusal
    return result


def user(name: str) -> Any:
    return get_user_model().objects.create_user(name, password=f"{name}-password-1")


def client_for(u: Any) -> Client:
    c = Client()
    c.force_login(u)
    return c


def encounter(owner: Any, name: str = "Bridge fight", ruleset: str = "action_points") -> Encounter:
    enc = services.create_encounter(owner, name, ruleset, {})
    assert isinstance(enc, Encounter)
    return enc


def names(enc: Encounter) -> list[str]:
    enc.refresh_from_db()
    return [c.name for c in State.from_dict(enc.state).combatants.values()]
