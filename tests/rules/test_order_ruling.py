"""A move in the order past a different initiative is the GM's logged ruling (issue 30,
"Reorder by dragging a row (ties as the rules allow; any other move as a logged GM
ruling), with the keyboard alternative kept"; RULINGS 5: the GM makes rulings, logged)."""

from __future__ import annotations

import pytest

from combat.rules import flow, integrity
from combat.rules.table import Table
from tests.said import said

RULESETS = ["action_points", "action_ladder", "initiative_passes"]


def ok(out):
    assert out.ok, out.refusal
    return out


def table(ruleset: str) -> tuple[Table, str, str, str, str]:
    """Ana (PC 14), Bob (PC 12), Goblin (NPC 10), Ogre (NPC 10): in set-up."""
    t = Table(ruleset, seed=3)
    ids = [
        t.gm("add_combatant", name=n, side=s, initiative=i, hp=10)
        for n, s, i in (
            ("Ana", "pc", 14),
            ("Bob", "pc", 12),
            ("Goblin", "npc", 10),
            ("Ogre", "npc", 10),
        )
    ]
    return t, *ids  # type: ignore[return-value]


def names(t: Table) -> list[str]:
    return [t.c(x).name for x in flow.initiative_order(t.state)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_gm_places_a_combatant_before_one_of_another_initiative(ruleset):
    t, ana, _, goblin, _ = table(ruleset)
    ok(t.gm("place_in_order", actor=goblin, before=ana))
    assert names(t) == ["Goblin", "Ana", "Bob", "Ogre"]
    assert said(t.log[-1]) == "The GM moves Goblin before Ana in the order (initiative 15)."
    assert t.log[-1]["ruling"]
    integrity.check(t.state, ruleset)
    assert t.undo()
    assert names(t) == ["Ana", "Bob", "Goblin", "Ogre"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_placed_between_two_of_one_initiative_it_takes_theirs_with_a_tie_order(ruleset):
    t, _, _, goblin, ogre = table(ruleset)
    ok(t.gm("set_initiative", actor=goblin, initiative=3))
    t.gm("add_combatant", name="Imp", side="npc", initiative=10, hp=5)
    ok(t.gm("place_in_order", actor=goblin, after=ogre))
    assert names(t) == ["Ana", "Bob", "Ogre", "Goblin", "Imp"]
    assert said(t.log[-1]) == "The GM moves Goblin after Ogre in the order (initiative 10)."


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_gms_arrows_step_past_a_different_initiative_as_a_ruling(ruleset):
    """The keyboard's way: the up arrow past Bob (12) is the same ruling."""
    t, _, bob, goblin, _ = table(ruleset)
    ok(t.gm("start_combat"))
    ok(t.gm("reorder", actor=goblin, direction="up"))
    assert names(t) == ["Ana", "Goblin", "Bob", "Ogre"]
    assert said(t.log[-1]) == "The GM moves Goblin before Bob in the order (initiative 13)."
    # The running round follows the new order too.
    assert [t.c(x).name for x in t.state.order] == names(t)
    integrity.check(t.state, ruleset)


def test_players_still_reorder_only_ties():
    t, ana, bob, _, _ = table("action_points")
    assert not t.player("reorder", actor=bob, direction="up").ok
    assert t.refusal().code == "not_tied"
    assert names(t) == ["Ana", "Bob", "Goblin", "Ogre"]
