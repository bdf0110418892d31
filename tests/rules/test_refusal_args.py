"""Every refusal carries its facts (issue 29): a stable code with typed arguments (who,
what, which rule, numbers as numbers), and a sentence for the person who asked. A player
reads a hidden combatant as "someone unseen", and no argument of theirs holds its id.

The headless table hands a player's refusal on as the services do (`Refusal.to_reader`);
the GM's refusal names everyone."""

from __future__ import annotations

from combat.rules.registry import get_ruleset
from combat.rules.table import Table

from .test_action_ladder import fighter, ok, refused

LURKER = "Zyzzyx the Lurker"


def hidden_turn(ruleset: str = "action_points") -> tuple[Table, str, str, str]:
    """The hidden Lurker has the turn; Ana (a PC) and Bram (a PC) wait."""
    t = Table(ruleset, seed=3)
    lurker = t.gm("add_combatant", name=LURKER, initiative=30, hp=31, hidden=True, stats=fighter())
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, hp=30, stats=fighter())
    bram = t.gm("add_combatant", name="Bram", side="pc", initiative=5, hp=30, stats=fighter())
    ok(t.gm("start_combat"))
    if t.state.phase != "combat":
        ok(t.gm("begin_round"))
    assert t.state.turn == lurker
    return t, lurker, ana, bram


def test_ending_a_turn_out_of_turn_names_an_unseen_holder_as_someone_unseen():
    """Only the combatant whose turn it is ends it (docs/rules.md, turns): a player who
    ends Ana's turn while the hidden Lurker acts reads "someone unseen", and `turn` is
    left out of the arguments; the GM reads the Lurker's name and id."""
    t, lurker, ana, _ = hidden_turn()
    out = t.player("end_turn", actor=ana)
    assert refused(out, "not_your_turn") == "It is someone unseen's turn, not Ana's."
    assert out.refusal is not None and out.refusal.args == {"who": ana}
    assert lurker not in str(out.refusal.to_dict()) and "Zyzzyx" not in out.refusal.message
    out = t.gm("end_turn", actor=ana)
    assert refused(out, "not_your_turn") == f"It is {LURKER}'s turn, not Ana's."
    assert out.refusal.args == {"who": ana, "turn": lurker}


def test_acting_out_of_turn_says_whose_turn_only_to_those_who_see_them():
    """An action is taken on its combatant's own turn (base.py, check_timing): the answer
    to a command sent out of turn also says whose turn it is, as its reader may know."""
    t, lurker, ana, _ = hidden_turn()
    out = t.act(ana, "basic_attack")
    msg = refused(out, "not_your_turn")
    assert msg.endswith("It is someone unseen's turn.") and "Zyzzyx" not in msg
    assert out.refusal.args == {"who": ana, "what": "basic_attack"}
    out = t.act(ana, "basic_attack", by="gm")
    assert refused(out, "not_your_turn").endswith(f"It is {LURKER}'s turn.")
    assert out.refusal.args == {"who": ana, "what": "basic_attack", "turn": lurker}


def test_taking_a_hidden_combatants_slot_names_it_for_the_gm_only():
    """Group Initiative: only members of the group whose slot it is take it (RULINGS 2).
    The player reads whose slot it is as someone unseen; the GM, by name."""
    t, lurker, ana, _ = hidden_turn()
    out = t.player("take_turn", actor=ana)
    assert refused(out, "not_group") == (
        "Ana is not in someone unseen's group: only members of a group acting on one "
        "initiative choose their order."
    )
    assert out.refusal.args == {"who": ana, "rule": "Group Initiative"}
    assert lurker not in str(out.refusal.to_dict())
    out = t.gm("take_turn", actor=ana)
    assert refused(out, "not_group").startswith(f"Ana is not in {LURKER}'s group")
    assert out.refusal.args == {"who": ana, "turn": lurker, "rule": "Group Initiative"}


def test_ordering_past_one_who_is_not_tied_carries_both():
    """Only combatants of one side with one initiative choose their order (RULINGS 2,
    ties): the refusal names both, the other as `other`."""
    t = Table("action_points", seed=3)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=12)
    bram = t.gm("add_combatant", name="Bram", side="pc", initiative=9)
    out = t.player("reorder", actor=bram, direction="up")
    assert refused(out, "not_tied").startswith("Bram and Ana are not tied")
    assert out.refusal.args == {"who": bram, "other": ana, "rule": "ties"}


def test_gm_rulings_refused_carry_their_facts():
    """The GM's own commands (hide, names, Seize the Moment, options only the GM sets)
    carry the combatant, the option and the numbers their sentence gives."""
    t, lurker, ana, bram = hidden_turn("initiative_passes")
    out = t.gm("hide", actor=lurker)
    assert refused(out, "no_change") == f"{LURKER} is already hidden."
    assert out.refusal.args == {"who": lurker, "hidden": True}
    out = t.gm("update_combatant", actor=ana, name="A" * 500)
    refused(out, "too_long")
    assert out.refusal.args["option"] == "Name"
    assert out.refusal.args["asked"] == 500 > out.refusal.args["most"]
    out = t.gm("defeat", actor=bram)
    ok(out)
    out = t.gm("defeat", actor=bram)
    assert refused(out, "no_change") == "Bram is already defeated."
    assert out.refusal.args == {"who": bram, "defeated": True}


def test_an_option_only_the_gm_sets_names_the_option_and_the_action():
    """An Extended Action's whole turns are the GM's to set (Action Ladder, Extended
    Actions): a player who sends them is refused with the action and the option."""
    t = Table("action_ladder", seed=3)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=30, hp=30, stats=fighter())
    ok(t.gm("start_combat"))
    if t.state.phase != "combat":
        ok(t.gm("begin_round"))
    catalogue = get_ruleset("action_ladder").catalogue(t.state)
    key = next(k for k, a in catalogue.items() if any(o.gm_only for o in a.options))
    out = t.act(ana, key, turns=3)
    assert refused(out, "gm_sets").startswith("Whole turns (set by the GM): only the GM")
    args = out.refusal.args
    assert (args["who"], args["what"], args["option"]) == (ana, key, "turns")
