"""A rename is told with the name that was (RULINGS 5: the GM's rulings are logged), and a
name a combatant had while hidden never reaches a player, even after the reveal."""

from __future__ import annotations

import pytest

from combat import screens
from combat.rules.table import Table
from tests.said import said

RULESETS = ["action_points", "action_ladder", "initiative_passes"]


def player_reads(t: Table, ev: dict) -> dict | None:
    hidden = [c.id for c in t.state.combatants.values() if c.hidden]
    return screens.event_for(ev, hidden)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_rename_names_the_old_name_for_everyone(ruleset):
    t = Table(ruleset)
    goblin = t.gm("add_combatant", name="Goblin 2", side="npc", hp=7)
    assert t.gm("update_combatant", actor=goblin, name="Boss").ok
    ev = t.log[-1]
    assert said(ev) == "The GM renames Goblin 2 to Boss."
    assert player_reads(t, ev)["text"] == "The GM renames Goblin 2 to Boss."
    # Any other change still reads as a change.
    assert t.gm("update_combatant", actor=goblin, max_hp=9).ok
    assert said(t.log[-1]) == "The GM changes Boss."


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_name_given_while_hidden_stays_out_of_the_players_lines(ruleset):
    t = Table(ruleset)
    ana = t.gm("add_combatant", name="Ana", side="pc", hp=10)
    spy = t.gm("add_combatant", name="Doppelganger", side="npc", hp=7, hidden=True)
    assert t.gm("update_combatant", actor=spy, name="Merchant").ok
    renamed = t.log[-1]
    assert said(renamed) == "The GM renames Merchant."
    assert player_reads(t, renamed) is None  # hidden: not a line for players at all
    assert t.gm("reveal", actor=spy).ok
    # What happened while it was hidden stays the GM's; and the event keeps no old name.
    assert player_reads(t, renamed) is None
    assert "Doppelganger" not in str(renamed)
    assert said(t.log[-1]) == "Merchant is revealed."
    assert t.c(ana).name == "Ana"
