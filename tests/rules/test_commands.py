"""The command table (combat/rules/commands.py): one spec a command, and a ruleset's own.

RULINGS 5 (GM authority): what only the GM may do is said once, in the spec, and the
engine and the server both read it.
"""

from __future__ import annotations

import random

import pytest

from combat.rules import COMMANDS, CommandSpec, apply, get_ruleset, new_encounter
from combat.rules.registry import command_spec
from tests.said import said


def test_every_shared_command_has_a_function_and_a_player_one_needs_an_actor():
    """RULINGS 5: a player acts only for a combatant of theirs; everything else is the GM's."""
    for name, spec in COMMANDS.items():
        assert spec.name == name and spec.fn is not None
        assert spec.gm_only != spec.needs_actor, name
    assert command_spec("action_points", "undo").gm_only
    assert command_spec("action_points", "no_such_thing") is None


def test_a_ruleset_contributes_a_command_of_its_own(monkeypatch):
    """A command that only one ruleset has is looked up through that ruleset: the engine
    runs it there, refuses it elsewhere as unknown, and GM-only means GM-only."""

    def ring_bell(enc, rs, cmd, rng, ev):
        ev.add("ruling", "The GM rings the bell.", ruling=True)

    spec = CommandSpec("ring_bell", ring_bell, gm_only=True)
    monkeypatch.setattr(get_ruleset("action_ladder"), "commands", (spec,))
    rng = random.Random(1)
    out = apply(new_encounter("action_ladder"), {"type": "ring_bell", "by": "gm"}, rng)
    assert out.ok and said(out.events[-1]) == "The GM rings the bell."
    out = apply(new_encounter("action_ladder"), {"type": "ring_bell", "by": "player"}, rng)
    assert out.refusal is not None and out.refusal.code == "gm_only"
    out = apply(new_encounter("action_points"), {"type": "ring_bell", "by": "gm"}, rng)
    assert out.refusal is not None and out.refusal.code == "unknown_command"
    assert command_spec("action_ladder", "ring_bell") is spec
    assert command_spec("action_points", "ring_bell") is None


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_engine_refuses_a_player_what_the_spec_keeps_for_the_gm(name):
    """RULINGS 5: the engine's own check follows the spec, whatever the server does."""
    out = apply(new_encounter("action_points"), {"type": name, "by": "player"}, random.Random(1))
    if COMMANDS[name].gm_only:
        assert out.refusal is not None and out.refusal.code == "gm_only"
    else:
        assert out.refusal is None or out.refusal.code != "gm_only"
