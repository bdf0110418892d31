"""A refusal written from its arguments (combat/sentences/refusals.py) reads as before for
the GM, and as "someone unseen" for a player who cannot see the combatant it names: the
sentence is written for its reader, not scrubbed."""

from __future__ import annotations

from combat.rules.table import Table

from .test_action_ladder import fighter, ok, refused

LURKER = "Zyzzyx the Lurker"


def test_a_defeated_hidden_combatant_is_someone_unseen_to_a_player():
    """A defeated combatant cannot act (every ruleset: base.py, check_timing)."""
    t = Table("action_ladder", seed=3)
    lurker = t.gm("add_combatant", name=LURKER, initiative=30, hp=31, hidden=True, stats=fighter())
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, hp=30, stats=fighter())
    ok(t.gm("start_combat"))
    ok(t.gm("defeat", actor=lurker))
    out = t.act(lurker, "attack", by="gm", target=ana)
    assert refused(out, "defeated") == f"{LURKER} is defeated and cannot act."
    assert out.refusal is not None
    assert out.refusal.args == {"who": lurker, "what": "attack"}
    seen = out.refusal.to_reader({lurker})
    assert (seen.code, seen.message) == ("defeated", "Someone unseen is defeated and cannot act.")
    assert seen.args == {"what": "attack"} and lurker not in seen.names
    assert "Zyzzyx" not in str(seen.to_dict())
    # A reader who sees everyone reads the GM's sentence.
    assert out.refusal.to_reader(()).message == out.refusal.message
