"""The Action Points ruleset, rule by rule (action-points.md and RULINGS.md, Action Points).

Each test names the sentence it proves. Stats use 1d1 dice where a test needs a sure
hit or a sure miss: a 1d1 always rolls 1.
"""

from __future__ import annotations

import pytest

from combat.rules.table import Table
from tests.said import said

SURE_HIT = {
    "attack": "1d1+50",
    "damage": "1d1+4",
    "defend": "1d1",
    "spell": "1d1+50",
    "spell_damage": "1d1+5",
}
SURE_MISS = {"attack": "1d1", "damage": "1d1+4", "defend": "1d1+50"}


def table(**ana_fields) -> tuple[Table, str, str, str]:
    """Ana (PC, acts first), Bob (PC), and an Ogre (NPC); combat started, Ana's turn."""
    t = Table("action_points", seed=11)
    ana = t.gm(
        "add_combatant", name="Ana", side="pc", initiative=20, hp=30, stats=SURE_HIT, **ana_fields
    )
    bob = t.gm("add_combatant", name="Bob", side="pc", initiative=15, hp=30, stats=SURE_HIT)
    ogre = t.gm("add_combatant", name="Ogre", side="npc", initiative=10, hp=40, stats=SURE_HIT)
    assert t.gm("start_combat").ok
    assert t.state.turn == ana
    return t, ana, bob, ogre


def end_turn(t: Table, who: str) -> None:
    out = t.player("end_turn", actor=who)
    assert out.ok, out.refusal


def refused(t: Table, code: str) -> str:
    r = t.refusal()
    assert r is not None and r.code == code, r
    return r.message


# --- AP pool --------------------------------------------------------------------------


def test_three_ap_at_the_start_of_the_turn():
    """'Each character has 3 Action Points (AP) at the start of their turn.'"""
    t, ana, bob, ogre = table()
    assert t.c(ana).res["ap"] == 3
    end_turn(t, ana)
    assert t.c(bob).res["ap"] == 3


def test_pool_size_is_a_per_combatant_setting():
    """RULINGS AP 1: 'The pool is 3 AP (setting, per combatant)'."""
    t, ana, bob, ogre = table(ap_pool=5)
    assert t.c(ana).res["ap"] == 5
    assert t.c(bob).res["ap_max"] == 3
    assert t.gm("set_modifier", actor=bob, key="ap_pool", value=4).ok
    end_turn(t, ana)
    assert t.c(bob).res["ap"] == 4


def test_unused_ap_are_lost_at_the_end_of_the_turn():
    """'Unused AP are lost at the end of the turn.'"""
    t, ana, bob, ogre = table()
    assert t.act(ana, "move").ok
    assert t.c(ana).res["ap"] == 2
    end_turn(t, ana)
    assert t.c(ana).res["ap"] == 0
    assert any("2 unspent AP are lost" in said(e) for e in t.log)


def test_all_actions_are_paid_from_the_pool_and_refused_when_short():
    """'All actions are paid from this pool.' The refusal names the rule and the numbers."""
    t, ana, bob, ogre = table()
    assert t.act(ana, "quick_utility").ok
    assert t.act(ana, "quick_utility").ok
    assert t.c(ana).res["ap"] == 1
    before = t.state.to_dict()
    assert not t.act(ana, "disengage").ok
    assert refused(t, "not_enough_ap") == "Not enough AP: Disengage costs 2, Ana has 1."
    assert t.state.to_dict() == before


# --- one attack per turn --------------------------------------------------------------


@pytest.mark.parametrize(
    "first,second",
    [
        ("basic_attack", "basic_attack"),
        ("basic_attack", "cast_spell"),
        ("cast_spell", "empowered_attack"),
        ("empowered_attack", "basic_attack"),
    ],
)
def test_one_attack_or_magic_action_per_turn(first, second):
    """'You may only use one Basic Attack, Empowered Attack, or Magic action per turn.'"""
    t, ana, bob, ogre = table(ap_pool=6)
    opts = {"to_hit": 1} if first == "empowered_attack" else {}
    assert t.act(ana, first, target=ogre, **opts).ok
    opts = {"to_hit": 1} if second == "empowered_attack" else {}
    assert not t.act(ana, second, target=ogre, **opts).ok
    assert "Only 1 attack or spell per turn" in refused(t, "attack_limit")


def test_extra_attacks_from_abilities():
    """'...unless you gain additional abilities' - RULINGS AP 2: attacks per turn is a setting."""
    t, ana, bob, ogre = table()
    assert t.gm("set_modifier", actor=ana, key="attacks_per_turn", value=2).ok
    assert t.act(ana, "basic_attack", target=ogre).ok
    assert t.act(ana, "basic_attack", target=ogre).ok
    assert not t.act(ana, "basic_attack", target=ogre).ok
    refused(t, "attack_limit")


def test_attack_limit_resets_next_turn():
    t, ana, bob, ogre = table()
    assert t.act(ana, "basic_attack", target=ogre).ok
    for who in (ana, bob, ogre):
        end_turn(t, who)
    assert t.state.turn == ana and t.state.round == 2
    assert t.act(ana, "basic_attack", target=ogre).ok


# --- attacks --------------------------------------------------------------------------


def test_basic_attack_costs_one_ap_and_hits():
    """'Basic Attack - 1 AP. Make a normal melee or ranged attack.'"""
    t, ana, bob, ogre = table()
    out = t.act(ana, "basic_attack", target=ogre)
    assert out.ok
    assert t.c(ana).res["ap"] == 2
    assert t.c(ogre).hp == 35  # 1d1+4 damage
    assert "hit for 5 damage" in said(out.events[-1])


def test_attack_against_a_better_defence_misses():
    t, ana, bob, ogre = table()
    assert t.gm("update_combatant", actor=ogre, stats={"defend": "1d1+99"}).ok
    out = t.act(ana, "basic_attack", target=ogre)
    assert out.ok and "miss" in said(out.events[-1])
    assert t.c(ogre).hp == 40


@pytest.mark.parametrize(
    "to_hit,damage,cost,roll_bonus,damage_bonus",
    [
        (1, 0, 2, 1, 0),  # '+1 AP = +1 to the attack roll'
        (0, 1, 2, 0, 2),  # '... or +2 to damage'
        (2, 0, 3, 2, 0),  # '+2 AP = +2 to the attack roll'
        (0, 2, 3, 0, 4),  # '... or +4 to damage'
        (1, 1, 3, 1, 2),  # 'spending 3 AP total might grant +1 to attack and +2 to damage'
    ],
)
def test_empowered_attack_costs_and_bonuses(to_hit, damage, cost, roll_bonus, damage_bonus):
    """'Empowered Attack - Spend extra AP before rolling' and 'You may split AP'."""
    t, ana, bob, ogre = table(ap_pool=4)
    out = t.act(ana, "empowered_attack", target=ogre, to_hit=to_hit, damage=damage)
    assert out.ok, out.refusal
    assert t.c(ana).res["ap"] == 4 - cost
    attack, _defence, dmg = out.events[-1]["rolls"]
    assert attack["total"] == 51 + roll_bonus
    assert dmg["total"] == 5 + damage_bonus
    assert t.c(ogre).hp == 40 - (5 + damage_bonus)


def test_empowerment_is_bounded_only_by_the_pool():
    """RULINGS AP 3: 'The pool is the only bound on how much extra AP can be spent.'"""
    t, ana, bob, ogre = table(ap_pool=6)
    assert t.act(ana, "empowered_attack", target=ogre, to_hit=3, damage=2).ok
    assert t.c(ana).res["ap"] == 0
    t2, ana2, _, ogre2 = table()
    assert not t2.act(ana2, "empowered_attack", target=ogre2, to_hit=2, damage=1).ok
    assert refused(t2, "not_enough_ap") == ("Not enough AP: Empowered Attack costs 4, Ana has 3.")


def test_empowered_attack_needs_extra_ap():
    t, ana, bob, ogre = table()
    assert not t.act(ana, "empowered_attack", target=ogre).ok
    assert "declared before the roll" in refused(t, "empower_nothing")


def test_bonuses_are_declared_with_the_roll():
    """'All bonuses must be declared before any roll.' There is no command that adds a
    bonus to a roll already made: the only way to empower is in the attack's own command."""
    from combat.rules import COMMANDS

    t, ana, bob, ogre = table()
    assert t.act(ana, "basic_attack", target=ogre).ok
    assert not any("bonus" in name or "empower" in name for name in COMMANDS)
    assert not t.act(ana, "basic_attack", target=ogre, to_hit=1).ok
    refused(t, "bad_option")


def test_reactions_are_not_paid_with_ap():
    """'Reactions are not paid with AP (see 2.7).'"""
    t, ana, bob, ogre = table()
    end_turn(t, ana)
    ap = t.c(ana).res["ap"]
    assert t.act(ana, "reaction", text="parry").ok  # Bob's turn: Ana reacts
    assert t.c(ana).res["ap"] == ap
    assert t.c(ana).reaction is False


# --- magic ----------------------------------------------------------------------------


def test_cast_a_spell_costs_two_ap_whatever_its_level():
    """'Cast a Spell - 2 AP. Casting any spell costs 2 AP regardless of its level.'"""
    t, ana, bob, ogre = table()
    out = t.act(ana, "cast_spell", target=ogre, text="Fireball, level 9")
    assert out.ok
    assert t.c(ana).res["ap"] == 1
    assert t.c(ogre).hp == 34


def test_spell_empowerment_split():
    """'Spell Empowerment: +1 AP = +1 to the spell roll or +2 to damage', split allowed."""
    t, ana, bob, ogre = table(ap_pool=4)
    out = t.act(ana, "empowered_spell", target=ogre, to_hit=1, damage=1)
    assert out.ok
    assert t.c(ana).res["ap"] == 0
    roll, _d, dmg = out.events[-1]["rolls"]
    assert roll["total"] == 52 and dmg["total"] == 8


def test_spell_without_damage_just_rolls():
    t, ana, bob, ogre = table()
    assert t.gm("update_combatant", actor=ana, name="Ana").ok
    t.c(ana).stats.pop("spell_damage")
    out = t.act(ana, "cast_spell", text="Light")
    assert out.ok and "spell roll 51" in said(out.events[-1])


# --- defence --------------------------------------------------------------------------


def test_defensive_stance_bonus_until_start_of_next_turn():
    """'Defensive Stance - 1 AP. Gain +1 to defend rolls (choose one: melee, range, or
    mental) until the start of your next turn.'"""
    t, ana, bob, ogre = table()
    assert t.act(ana, "defensive_stance", defence="melee").ok
    assert t.c(ana).res["ap"] == 2
    end_turn(t, ana)
    end_turn(t, bob)
    # The Ogre attacks Ana: her melee defence roll carries +1.
    out = t.act(ogre, "basic_attack", target=ana)
    assert out.events[-1]["rolls"][1]["total"] == 2
    assert "(+1 stance)" in said(out.events[-1])
    end_turn(t, ogre)
    # Round 2, Ana's turn starts: the stance ends.
    assert t.state.turn == ana
    assert t.c(ana).effects == []


def test_defensive_stance_stacks_and_splits():
    """'You may purchase Defensive Stance multiple times in a turn; bonuses stack. You can
    split purchases among different defense types.'"""
    t, ana, bob, ogre = table()
    assert t.act(ana, "defensive_stance", defence="melee").ok
    assert t.act(ana, "defensive_stance", defence="melee").ok
    assert t.act(ana, "defensive_stance", defence="mental").ok
    assert t.c(ana).res["ap"] == 0
    end_turn(t, ana)
    end_turn(t, bob)
    out = t.act(ogre, "basic_attack", target=ana)
    assert out.events[-1]["rolls"][1]["total"] == 3  # 1 + 2 melee stance
    assert t.act(t.state.turn, "end_turn") is not None


def test_stance_applies_only_to_the_chosen_defence():
    t, ana, bob, ogre = table()
    assert t.act(ana, "defensive_stance", defence="mental", count=2).ok
    end_turn(t, ana)
    end_turn(t, bob)
    out = t.act(ogre, "basic_attack", target=ana, ranged=True)
    assert out.events[-1]["rolls"][1]["total"] == 1


# --- movement and utility -------------------------------------------------------------


def test_move_costs_one_ap_and_can_be_bought_again():
    """'Move - 1 AP.' RULINGS AP 5: 'Move can be bought more than once a turn.'"""
    t, ana, bob, ogre = table()
    for left in (2, 1, 0):
        assert t.act(ana, "move").ok
        assert t.c(ana).res["ap"] == left
    assert not t.act(ana, "move").ok
    refused(t, "not_enough_ap")


@pytest.mark.parametrize(
    "action,cost", [("quick_utility", 1), ("complex_utility", 2), ("disengage", 2)]
)
def test_utility_and_disengage_costs(action, cost):
    """'Quick Utility - 1 AP.' 'Complex Utility - 2 AP.' 'Disengage - 2 AP.'"""
    t, ana, bob, ogre = table()
    out = t.act(ana, action, **({"text": "drink a potion"} if "utility" in action else {}))
    assert out.ok
    assert t.c(ana).res["ap"] == 3 - cost


# --- reactions and opportunity attacks ------------------------------------------------


def engaged_table():
    t, ana, bob, ogre = table()
    assert t.player("engage", actor=ana, target=ogre).ok
    return t, ana, bob, ogre


def test_leaving_reach_without_disengage_offers_an_opportunity_attack():
    """'When a creature moves out of another creature's melee reach without using the
    Disengage action, the creature being left behind may use its Reaction to make a single
    Basic Attack against the departing creature.'"""
    t, ana, bob, ogre = engaged_table()
    out = t.act(ana, "move")
    assert out.ok
    [w] = t.state.pending
    assert w.kind == "opportunity_attack" and w.reactor == ogre and w.trigger == ana
    assert t.c(ana).engaged == [] and t.c(ogre).engaged == []
    # The mover waits for the reaction.
    assert not t.act(ana, "quick_utility").ok
    refused(t, "waiting_for_reactions")
    out = t.player("react", actor=ogre, window=w.id, accept=True)
    assert out.ok
    assert "Opportunity Attack" in said(out.events[0])
    assert t.c(ana).hp == 25
    assert t.c(ogre).reaction is False
    assert t.c(ogre).res["ap"] == 3  # 'Opportunity Attacks cost 0 AP'
    assert t.act(ana, "quick_utility").ok


def test_declining_the_opportunity_attack_keeps_the_reaction():
    t, ana, bob, ogre = engaged_table()
    t.act(ana, "move")
    [w] = t.state.pending
    assert t.player("react", actor=ogre, window=w.id, accept=False).ok
    assert t.c(ogre).reaction is True and t.c(ana).hp == 30


def test_only_the_reactor_answers_its_window():
    t, ana, bob, ogre = engaged_table()
    t.act(ana, "move")
    [w] = t.state.pending
    assert not t.player("react", actor=bob, window=w.id).ok
    refused(t, "not_yours")


def test_disengage_prevents_opportunity_attacks_for_the_rest_of_the_turn():
    """'A creature that uses the Disengage action (2 AP) may move without provoking
    Opportunity Attacks for the remainder of that turn.'"""
    t, ana, bob, ogre = engaged_table()
    assert t.act(ana, "disengage").ok
    assert t.state.pending == []
    assert t.player("engage", actor=ana, target=ogre).ok
    assert t.act(ana, "move").ok
    assert t.state.pending == []


def test_disengage_protection_ends_with_the_turn():
    t, ana, bob, ogre = engaged_table()
    assert t.act(ana, "disengage").ok
    for who in (ana, bob, ogre):
        end_turn(t, who)
    assert t.player("engage", actor=ana, target=ogre).ok
    assert t.act(ana, "move").ok
    assert len(t.state.pending) == 1


@pytest.mark.parametrize("how", ["forced", "teleport"])
def test_forced_movement_and_teleportation_never_provoke(how):
    """'Forced movement (pushes, pulls, knockbacks) does not provoke Opportunity Attacks.'
    'Teleportation does not provoke Opportunity Attacks.'"""
    t, ana, bob, ogre = engaged_table()
    assert t.gm("force_move", actor=ana, how=how).ok
    assert t.state.pending == []
    assert t.c(ana).engaged == []


def test_one_reaction_between_turn_starts():
    """'a character can take only one reaction between the start of their turn and the
    start of their next turn' - RULINGS AP 6: restored at the start of its own turn."""
    t, ana, bob, ogre = table()
    end_turn(t, ana)  # Bob's turn
    assert t.act(ana, "reaction", text="parry").ok
    assert not t.act(ana, "reaction", text="parry again").ok
    assert "already used its Reaction" in refused(t, "reaction_used")
    end_turn(t, bob)
    end_turn(t, ogre)
    assert t.state.turn == ana and t.c(ana).reaction is True


def test_a_spent_reaction_gets_no_opportunity_attack_window():
    """'Opportunity Attacks ... consume your Reaction for the round.'"""
    t, ana, bob, ogre = engaged_table()
    t.c(ogre).reaction = False
    assert t.act(ana, "move").ok
    assert t.state.pending == []


def test_one_opportunity_attack_per_round():
    """'You may only make one Opportunity Attack per round (unless a feature states
    otherwise).' The Ogre's reaction returns on its turn, but not a second OA that round."""
    t = Table("action_points", seed=3)
    ogre = t.gm("add_combatant", name="Ogre", initiative=20, hp=40, stats=SURE_MISS)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=15, hp=30, stats=SURE_MISS)
    bob = t.gm("add_combatant", name="Bob", side="pc", initiative=5, hp=30, stats=SURE_MISS)
    t.gm("start_combat")
    end_turn(t, ogre)  # Ogre's turn passes; now Ana
    t.player("engage", actor=ana, target=ogre)
    t.act(ana, "move")
    [w] = t.state.pending
    assert t.player("react", actor=ogre, window=w.id).ok
    end_turn(t, ana)
    t.player("engage", actor=bob, target=ogre)
    assert t.act(bob, "move").ok
    assert t.state.pending == []  # reaction is spent and one OA per round already made
    # A feature can allow more: the setting, with the reaction back.
    t.gm("set_modifier", actor=ogre, key="opportunity_attacks_per_round", value=2)
    t.gm("adjust", actor=ogre, resource="reaction", value=True)
    t.player("engage", actor=bob, target=ogre)
    assert t.act(bob, "move").ok
    assert len(t.state.pending) == 1


def test_opportunity_attack_is_not_an_action():
    t, ana, bob, ogre = table()
    assert not t.act(ana, "opportunity_attack", by="gm").ok
    refused(t, "reaction_only")


# --- GM authority ---------------------------------------------------------------------


def test_gm_grants_an_action_at_no_cost():
    """'(the GM) may permit split-second narrative interactions without AP' - RULINGS 5."""
    t, ana, bob, ogre = table()
    out = t.gm("grant", actor=ana, action="complex_utility", options={"text": "shout"})
    assert out.ok and t.c(ana).res["ap"] == 3
    assert out.events[0]["ruling"] is True


def test_gm_changes_a_cost():
    """'Features, stunts, items, and spells may modify AP costs' - RULINGS 5 and 6."""
    t, ana, bob, ogre = table()
    assert t.gm("set_cost", action="disengage", cost=1, actor=ana).ok
    assert t.act(ana, "disengage").ok
    assert t.c(ana).res["ap"] == 2
    assert t.gm("set_cost", action="move", cost=3).ok
    assert t.act(ana, "move").ok is False


def test_players_cannot_make_rulings():
    t, ana, bob, ogre = table()
    assert not t.player("grant", actor=ana, action="move").ok
    refused(t, "gm_only")


def test_a_custom_reaction_is_taken_off_turn_with_the_reaction():
    """RULINGS 6 (homebrew: custom actions with a reaction flag) and Action Points 6 (the
    Reaction is free, once between the start of one's turn and the next): a GM-made
    reaction is usable outside its owner's turn and spends the Reaction (issue 14 defect
    6: it was refused as "only on its own turn")."""
    t, ana, bob, ogre = table()
    out = t.gm("add_custom_action", name="Intercept", reaction=True)
    key = out.events[-1]["data"]["key"]
    assert t.act(bob, key).ok
    assert t.c(bob).reaction is False
    assert not t.act(bob, key).ok
    refused(t, "reaction_used")
    assert not t.gm("add_custom_action", name="Costly Parry", reaction=True, cost=1).ok
    assert "Reaction" in refused(t, "reaction_cost")
