"""Conditions the GM sets by hand, with how long they last, in every ruleset.

RULINGS 5: the GM can change anything on the spot, logged as a ruling. action-ladder.md
names the conditions (Prone, Grappled, Incapacitated, Burning, Bleeding, ...); a GM may
also invent one. docs/rules.md, "Conditions", says how their durations are counted.
"""

from __future__ import annotations

import pytest

from combat.rules.table import Table
from tests.said import said

from .test_flow import RULESETS, add, ok, refused


@pytest.fixture(params=RULESETS)
def ruleset(request) -> str:
    return request.param


def trio(ruleset: str) -> tuple[Table, str, str, str]:
    """A (20), B (15), C (10); combat started, A's turn."""
    t = Table(ruleset, seed=5)
    ids = [add(t, name, initiative=i, hp=10) for name, i in (("A", 20), ("B", 15), ("C", 10))]
    ok(t.gm("start_combat"))
    return t, *ids  # type: ignore[return-value]


def names(t: Table, cid: str) -> list[str]:
    return [e.text for e in t.c(cid).effects]


def end(t: Table) -> None:
    ok(t.gm("end_turn"))


def test_until_the_start_of_a_combatants_next_turn(ruleset):
    """RULINGS 5 (GM rulings): set on B until the start of C's next turn, it is there
    through B's turn and gone when C's turn begins."""
    t, a, b, c = trio(ruleset)
    out = ok(t.gm("set_condition", actor=b, name="Prone", until="turn_start", of=c))
    assert said(out.events[-1]) == "The GM sets B: Prone, until the start of C's next turn."
    assert out.events[-1]["ruling"]
    end(t)  # A: B's turn
    assert names(t, b) == ["Prone"]
    end(t)  # B: C's turn begins
    assert names(t, b) == []
    assert "B: Prone ends." in [said(e) for e in t.log[-4:]]


def test_until_the_end_of_a_combatants_next_turn(ruleset):
    """RULINGS 5: until the end of A's next turn, set during A's own turn, lasts to the
    end of that turn."""
    t, a, b, c = trio(ruleset)
    ok(t.gm("set_condition", actor=a, name="Unseen", until="turn_end", of=a))
    assert names(t, a) == ["Unseen"]
    end(t)
    assert names(t, a) == []


def test_for_a_number_of_rounds_the_current_one_counting(ruleset):
    """docs/rules.md, Conditions: 'for 2 rounds' set in round 1 ends as round 2 ends."""
    t, a, b, c = trio(ruleset)
    out = ok(t.gm("set_condition", actor=c, name="Burning", stacks=3, until="rounds", rounds=2))
    assert said(out.events[-1]) == "The GM sets C: Burning 3, until the end of round 2."
    while t.state.round < 2:
        end(t)
    assert names(t, c) == ["Burning 3"]
    while t.state.round < 3:
        end(t)
    assert names(t, c) == []


def test_setting_again_changes_it_and_stacks_zero_clears_it(ruleset):
    """RULINGS 5: the GM changes a condition by setting it again and clears it."""
    t, a, b, c = trio(ruleset)
    ok(t.gm("set_condition", actor=b, name="Bleeding", stacks=2, until="turn_start", of=b))
    ok(t.gm("set_condition", actor=b, name="bleeding", stacks=4))
    assert names(t, b) == ["bleeding 4"]
    assert t.c(b).effects[0].expires == "never"
    out = ok(t.gm("set_condition", actor=b, name="Bleeding", stacks=0))
    assert said(out.events[-1]) == "The GM clears Bleeding from B."
    assert names(t, b) == []


def test_a_custom_condition_and_bad_durations(ruleset):
    """Bad input gets a clear message and changes nothing (RULINGS 5 rulings are checked)."""
    t, a, b, c = trio(ruleset)
    ok(t.gm("set_condition", actor=a, name="Hexed"))
    assert names(t, a) == ["Hexed"]
    assert not t.gm("set_condition", actor=a, name="Dazed", until="forever").ok
    assert "until cleared" in refused(t, "bad_option")
    assert not t.gm("set_condition", actor=a, name="Dazed", until="turn_start", of="nobody").ok
    refused(t, "unknown_combatant")
    assert not t.gm("set_condition", actor=a, name="Dazed", until="rounds", rounds=0).ok
    refused(t, "bad_option")
    assert names(t, a) == ["Hexed"]
    assert not t.player("set_condition", actor=a, name="Dazed").ok
    refused(t, "gm_only")
