"""What a live import accepts of a state (combat/rules/integrity.py): every state the
engine makes, and nothing that breaks the engine's invariants (issue 33, "An imported file
is untrusted: checked against the rules engine's invariants before it becomes live")."""

from __future__ import annotations

import json

import pytest

from combat.rules.integrity import Inconsistent, restore_and_exercise
from combat.rules.table import Table


def ladder_after_a_bought_disengage() -> Table:
    t = Table("action_ladder", seed=5)
    ana = t.gm("add_combatant", name="Ana", side="pc", hp=10)
    t.gm("add_combatant", name="Ogre", side="npc", hp=10)
    t.gm("start_combat")
    if t.state.turn != ana:
        t.gm("end_turn", actor=t.state.turn)
    out = t.gm("act", actor=ana, action="disengage")
    assert out.ok, t.refusal()
    return t


def test_a_bought_disengage_is_kept_as_true_and_a_resumed_fight_takes_it():
    """Action Ladder: Disengage bought and waiting for the next movement is kept as True
    in the per-turn counters (rules/turns.py); an import must take what the engine made."""
    t = ladder_after_a_bought_disengage()
    ana = t.state.combatants[t.state.turn]
    assert ana.turn.get("disengage") is True
    stored = json.loads(json.dumps(t.state.to_dict()))
    assert restore_and_exercise(stored, "action_ladder").to_dict() == t.state.to_dict()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s, c: s["combatants"][c]["turn"].update(disengage="yes"), "whole number"),
        (lambda s, c: s["combatants"][c]["res"].update(effort=10**12), "whole number"),
        (lambda s, c: s["combatants"][c].update(notes="x" * 5000), "at most 2000"),
        (lambda s, c: s.update(order=[c, c]), "names someone twice"),
    ],
)
def test_a_state_the_engine_would_not_make_is_refused_in_words(change, words):
    t = ladder_after_a_bought_disengage()
    stored = json.loads(json.dumps(t.state.to_dict()))
    change(stored, t.state.turn)
    with pytest.raises(Inconsistent, match=words):
        restore_and_exercise(stored, "action_ladder")
