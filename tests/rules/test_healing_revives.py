"""Healing a defeated combatant above 0 HP brings it back, in every ruleset.

docs/rules.md, "HP": a combatant at 0 HP is defeated and skipped in the order until
revived; healing above 0 HP is such a revival. RULINGS 3: combatants can be defeated
and revived mid-combat without breaking whose turn it is.
"""

from __future__ import annotations

import pytest

from combat.rules.table import Table
from tests.said import said

from .test_flow import RULESETS, add, ok, passes


@pytest.fixture(params=RULESETS)
def ruleset(request) -> str:
    return request.param


def four(ruleset: str) -> tuple[Table, str, str, str, str]:
    """A (20), B (15), C (10), D (5), 10 HP each; combat started, A's turn."""
    t = Table(ruleset, seed=5)
    ids = [add(t, name, initiative=i, hp=10) for name, i in (("A", 20), ("B", 15), ("C", 10))]
    d = add(t, "D", initiative=5, hp=10)
    ok(t.gm("start_combat"))
    return t, *ids, d  # type: ignore[return-value]


def turns_after(t: Table, n: int) -> list[str]:
    return [e["actor"] for e in t.log[n:] if e["kind"] == "turn"]


def test_healing_a_defeated_combatant_revives_it_and_logs_it(ruleset):
    """docs/rules.md, HP: healed above 0 HP, a defeated combatant is back on its feet."""
    t, a, b, c, d = four(ruleset)
    ok(t.gm("damage", actor=c, amount=10))
    assert t.c(c).defeated
    out = ok(t.gm("heal", actor=c, amount=3))
    assert not t.c(c).defeated and t.c(c).hp == 3
    lines = [said(e) for e in out.events]
    assert "C is back on their feet." in lines
    assert out.events[-1]["kind"] == "revived" and out.events[-1]["ruling"]


def test_revived_before_its_place_acts_this_round(ruleset):
    """RULINGS 3: revived while its place is still to come, it takes its turn there."""
    t, a, b, c, d = four(ruleset)
    ok(t.gm("damage", actor=c, amount=10))
    ok(t.gm("heal", actor=c, amount=5))
    n = len(t.log)
    ok(t.gm("end_turn"))  # A
    ok(t.gm("end_turn"))  # B
    assert t.state.turn == c and t.state.round == 1
    assert turns_after(t, n) == [b, c]


def test_revived_after_its_place_waits_for_the_next_round(ruleset):
    """RULINGS 3: revived after its place has gone by, it waits like any latecomer for
    the next round (initiative-passes.md: the next pass)."""
    t, a, b, c, d = four(ruleset)
    ok(t.gm("damage", actor=b, amount=10))
    ok(t.gm("end_turn"))  # A; B is skipped
    assert t.state.turn == c
    ok(t.gm("heal", actor=b, amount=4))
    assert not t.c(b).defeated
    ok(t.gm("end_turn"))  # C
    assert t.state.turn == d and t.state.round == 1
    ok(t.gm("end_turn"))  # D: the round (in Initiative Passes, the pass) ends
    if passes(ruleset):
        assert t.state.pass_no == 2 and t.state.turn == b
    else:
        assert t.state.round == 2 and t.state.turn == a
        ok(t.gm("end_turn"))
        assert t.state.turn == b


def test_healing_a_combatant_who_is_standing_logs_no_revival(ruleset):
    """docs/rules.md, HP: only a defeated combatant is revived."""
    t, a, b, c, d = four(ruleset)
    ok(t.gm("damage", actor=c, amount=4))
    out = ok(t.gm("heal", actor=c, amount=2))
    assert [e["kind"] for e in out.events] == ["heal"]


def test_first_aid_revives_a_defeated_ally():
    """action-ladder.md, Administer: First Aid heals the First Aid level, which brings a
    defeated ally back."""
    t = Table("action_ladder", seed=1)
    stats = {"first_aid": {"dice": "1d20", "bonus": 3}}
    a = add(t, "Ana", side="pc", initiative=20, hp=30, stats=stats)
    b = add(t, "Bo", initiative=10, hp=30)
    ok(t.gm("start_combat"))
    ok(t.gm("damage", actor=b, amount=30))
    assert t.c(b).defeated
    out = ok(t.act(a, "administer", target=b))
    assert t.c(b).hp == 3 and not t.c(b).defeated
    assert "Bo is back on their feet." in [said(e) for e in out.events]
    ok(t.gm("end_turn"))
    assert t.state.turn == b
