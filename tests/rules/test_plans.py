"""Planning off-turn (issue 31, "Planning off-turn: the player sets up the next action
(target, options) while waiting; it is sent on their turn, or at once as an Interrupt where
the ruleset allows one, labelled as such")."""

from __future__ import annotations

from combat.rules import integrity, view
from combat.rules.table import Table
from tests.said import said

SURE_HIT = {"attack": "1d1+50", "damage": "1d1+4", "defend": "1d1"}


def table(ruleset: str = "action_points") -> tuple[Table, str, str, str, str]:
    """Ana (PC, acts first), Bob (PC), an Ogre and a Goblin (NPCs); Ana's turn."""
    t = Table(ruleset, seed=11)
    ids = [
        t.gm("add_combatant", name=name, side=side, initiative=init, hp=30, stats=SURE_HIT)
        for name, side, init in (
            ("Ana", "pc", 20),
            ("Bob", "pc", 15),
            ("Ogre", "npc", 10),
            ("Goblin", "npc", 5),
        )
    ]
    assert t.gm("start_combat").ok
    assert t.state.turn == ids[0]
    return t, *ids  # type: ignore[return-value]


def ok(out):
    assert out.ok, out.refusal
    return out


def lines(t: Table) -> list[str]:
    return [said(e) for e in t.log]


def test_a_plan_is_kept_until_the_turn_and_taken_as_it_starts():
    """The player sets up Bob's Basic Attack on the Ogre during Ana's turn; when Bob's turn
    starts it is taken at once, paid as any Basic Attack ("Basic Attack: 1 AP")."""
    t, ana, bob, ogre, _ = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    assert t.c(bob).plan == {"action": "basic_attack", "options": {"target": ogre}}
    assert t.c(ogre).hp == 30  # nothing is taken before the turn
    integrity.check(t.state, "action_points")
    ok(t.player("end_turn", actor=ana))
    assert t.state.turn == bob
    assert t.c(bob).plan is None
    assert t.c(ogre).hp < 30
    assert t.c(bob).res["ap"] == t.c(bob).res["ap_max"] - 1
    assert "Bob takes the planned Basic Attack." in lines(t)
    integrity.check(t.state, "action_points")


def test_a_plan_can_be_changed_and_cancelled():
    t, ana, bob, ogre, goblin = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": goblin}))
    assert t.c(bob).plan == {"action": "basic_attack", "options": {"target": goblin}}
    ok(t.player("cancel_plan", actor=bob))
    assert t.c(bob).plan is None
    ok(t.player("end_turn", actor=ana))
    assert t.c(goblin).hp == 30 and t.c(bob).res["ap"] == t.c(bob).res["ap_max"]


def test_a_plan_that_can_no_longer_be_taken_is_cleared_with_the_reason():
    """A defeated target: nothing is taken, nothing paid, and the log says why."""
    t, ana, bob, ogre, _ = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    ok(t.gm("defeat", actor=ogre))
    ok(t.player("end_turn", actor=ana))
    assert t.state.turn == bob
    assert t.c(bob).plan is None
    assert t.c(bob).res["ap"] == t.c(bob).res["ap_max"]
    assert lines(t)[-1] == "Bob's planned Basic Attack was not taken: Ogre is already defeated."


def test_undo_takes_the_plan_back_as_the_state_was():
    """RULINGS 5: the GM can 'undo the last command': undoing the plan drops it; undoing
    the turn end that took it puts the plan back, untaken."""
    t, ana, bob, ogre, _ = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    assert t.undo()
    assert t.c(bob).plan is None
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    ok(t.player("end_turn", actor=ana))
    assert t.undo()
    assert t.c(bob).plan == {"action": "basic_attack", "options": {"target": ogre}}
    assert t.c(ogre).hp == 30


def test_no_plan_on_ones_own_turn_nor_for_a_reaction():
    t, ana, bob, ogre, _ = table()
    assert not t.player("plan", actor=ana, action="basic_attack", options={"target": ogre}).ok
    assert t.refusal().code == "your_turn"
    assert not t.player("plan", actor=bob, action="opportunity_attack").ok
    assert t.refusal().code in ("reaction_only", "unknown_action")


def test_a_hidden_target_cannot_be_planned_and_a_plan_on_one_is_not_taken():
    """A player cannot plan against someone they cannot see (the refusal is the one for an
    id that does not exist); a target hidden after the plan is not attacked, and the line
    that says so does not name it."""
    t, ana, bob, ogre, goblin = table()
    ok(t.gm("hide", actor=goblin))
    refused = t.player("plan", actor=bob, action="basic_attack", options={"target": goblin})
    assert not refused.ok and refused.refusal.code == "unknown_combatant"
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    ok(t.gm("hide", actor=ogre))
    ok(t.player("end_turn", actor=ana))
    assert t.c(ogre).hp == 30 and t.c(bob).plan is None
    last = lines(t)[-1]
    assert last == "Bob's planned Basic Attack was not taken: Its target can no longer be seen."
    assert "Ogre" not in last


def test_players_state_does_not_carry_plans():
    """Another seat, or a spectator, never reads a plan from the state."""
    t, _, bob, ogre, _ = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    assert "plan" not in view.redacted(t.state, view.PLAYER)["combatants"][bob]
    assert view.redacted(t.state, view.GM)["combatants"][bob]["plan"]


def test_the_panel_offers_a_plan_off_turn_and_an_interrupt_where_the_rules_allow():
    """Initiative Passes 4 (RULINGS): 'Interrupt actions are paid from the remaining AP
    outside the combatant's turn': there, an attack off-turn is offered now, as an
    Interrupt; under Action Points it can only be planned."""
    t, _, bob, _, _ = table("action_points")
    attack = next(a for a in view.availability(t.state, bob) if a["key"] == "basic_attack")
    assert attack["plannable"] and not attack["interrupt"]
    t, _, bob, _, _ = table("initiative_passes")
    attack = next(a for a in view.availability(t.state, bob) if a["key"] == "attack")
    assert attack["allowed"] and attack["interrupt"] and not attack["plannable"]


def test_plans_end_with_the_combat_and_go_with_their_target():
    t, ana, bob, ogre, goblin = table()
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": ogre}))
    ok(t.gm("remove_combatant", actor=ogre))
    assert t.c(bob).plan is None
    integrity.check(t.state, "action_points")
    ok(t.player("plan", actor=bob, action="basic_attack", options={"target": goblin}))
    ok(t.gm("end_combat"))
    assert t.c(bob).plan is None


def test_the_planned_attack_is_taken_under_every_ruleset():
    """The same in the Action Ladder and Initiative Passes: the turn starts with the attack."""
    stats = {**SURE_HIT, **{s: {"dice": "1d1", "bonus": 0} for s in ("FCS", "AGI", "STR", "RES")}}
    for ruleset in ("action_ladder", "initiative_passes"):
        t, ana, bob, ogre, _ = table(ruleset)
        ok(t.gm("update_combatant", actor=bob, stats=stats))
        ok(t.player("plan", actor=bob, action="attack", options={"target": ogre}))
        ok(t.player("end_turn", actor=ana))
        assert t.state.turn == bob and t.c(bob).plan is None, ruleset
        assert "Bob takes the planned Attack." in lines(t), ruleset
        assert not any("was not taken" in line for line in lines(t)), lines(t)
        integrity.check(t.state, ruleset)
