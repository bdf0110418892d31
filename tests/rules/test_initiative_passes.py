"""The Initiative Passes ruleset, rule by rule (initiative-passes.md and RULINGS.md,
"Initiative Passes"), then invariants over random command sequences (Hypothesis).

Each test quotes the sentence (or names the ruling) it proves. Stats use 1d1 dice
where a test needs a sure hit: a 1d1 always rolls 1.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.rules import apply, get_ruleset, new_encounter
from combat.rules.catalogue import ANY_TIME
from combat.rules.state import Encounter
from combat.rules.table import Table
from tests.said import said

from .placeholders import real_ids

RS = get_ruleset("initiative_passes")
SURE_HIT = {"attack": "1d1+50", "damage": "1d1+4", "defend": "1d1"}


def table(
    seed: int = 11,
    ana: dict | None = None,
    bob: dict | None = None,
    ogre: dict | None = None,
    **settings,
) -> tuple[Table, str, str, str]:
    """Ana (PC, 20), Bob (PC, 15) and an Ogre (NPC, 10); combat started, Ana's turn."""
    t = Table("initiative_passes", seed=seed, **settings)
    a = t.gm(
        "add_combatant",
        **{
            "name": "Ana",
            "side": "pc",
            "initiative": 20,
            "hp": 30,
            "stats": SURE_HIT,
            **(ana or {}),
        },
    )
    b = t.gm(
        "add_combatant",
        **{
            "name": "Bob",
            "side": "pc",
            "initiative": 15,
            "hp": 30,
            "stats": SURE_HIT,
            **(bob or {}),
        },
    )
    o = t.gm(
        "add_combatant",
        **{
            "name": "Ogre",
            "side": "npc",
            "initiative": 10,
            "hp": 40,
            "stats": SURE_HIT,
            **(ogre or {}),
        },
    )
    ok(t.gm("start_combat"))
    if t.state.phase == "seize":
        return t, a, b, o
    assert t.state.turn == a
    return t, a, b, o


def ok(out):
    assert out.ok, out.refusal
    return out


def refused(t: Table, code: str) -> str:
    r = t.refusal()
    assert r is not None and r.code == code, r
    return r.message


def end(t: Table, who: str) -> None:
    assert t.state.turn == who, (t.state.turn, who)
    ok(t.player("end_turn", actor=who))


def ap(t: Table, who: str) -> int:
    return t.c(who).res["ap"]


def turn_events(t: Table) -> list[tuple[int, int, str]]:
    """(round, pass, who) for every turn so far, read from the log."""
    out = []
    for e in t.log:
        if e["kind"] == "turn":
            text = said(e)
            pass_no = int(text.split("pass ")[1].rstrip(").")) if "pass " in text else 1
            out.append((e["round"], pass_no, e["actor"]))
    return out


# --- the AP pool ----------------------------------------------------------------------


def test_three_ap_by_default():
    """'Characters have 3 AP by default.'"""
    t, ana, bob, ogre = table()
    assert [ap(t, c) for c in (ana, bob, ogre)] == [3, 3, 3]
    assert t.c(ana).res["ap_max"] == 3


def test_ap_is_restored_at_the_start_of_each_round():
    """'At the start of each round, a combatant's AP is restored to their maximum.'"""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "attack", target=ogre))
    ok(t.act(ana, "reload"))
    assert ap(t, ana) == 0
    end(t, ana)
    end(t, bob)  # spends nothing: holds
    end(t, ogre)  # holds
    assert t.state.round == 2 and t.state.turn == ana
    assert ap(t, ana) == 3
    assert "Round 2: every combatant's AP is restored to its maximum." in [said(e) for e in t.log]


def test_ap_is_not_restored_at_the_start_of_a_turn():
    """RULINGS Initiative Passes 1: 'refilled at the start of every round' (not turn)."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "reload"))
    end(t, ana)
    end(t, bob)
    end(t, ogre)
    assert (t.state.pass_no, t.state.turn) == (2, ana)
    assert ap(t, ana) == 2


def test_the_pool_is_a_per_combatant_setting():
    """RULINGS Initiative Passes 1: '3 AP (setting, per combatant)'; 'Traits, cyberware,
    magic, and other effects may increase or reduce this amount.'"""
    t, ana, bob, ogre = table(ana={"ap_pool": 5})
    assert (ap(t, ana), t.c(ana).res["ap_max"], ap(t, bob)) == (5, 5, 3)
    ok(t.gm("set_modifier", actor=bob, key="ap_pool", value=2))
    assert (ap(t, bob), t.c(bob).res["ap_max"]) == (2, 2)
    assert t.log[-1]["ruling"]


def test_ap_can_be_spent_in_any_order():
    """'During their turn, a combatant may spend AP in any order'."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "draw_weapon"))
    ok(t.act(ana, "attack", target=ogre))
    assert ap(t, ana) == 0


# --- the per-turn limit ---------------------------------------------------------------


def test_at_most_4_ap_per_turn_refused_with_the_numbers():
    """'up to a maximum of 4 AP per turn.'"""
    t, ana, bob, ogre = table(ana={"ap_pool": 6})
    ok(t.act(ana, "attack", target=ogre))
    ok(t.act(ana, "hack"))
    before = t.state.to_dict()
    assert not t.act(ana, "draw_weapon").ok
    assert refused(t, "turn_limit") == (
        "At most 4 AP per turn: Ana has spent 4 this turn and Draw a Weapon costs 1 more."
    )
    assert t.state.to_dict() == before
    ok(t.act(ana, "move"))  # normal movement and Free Actions still fit
    ok(t.act(ana, "call_warning"))
    assert ap(t, ana) == 2


def test_the_turn_limit_counts_only_this_turn():
    """'may keep any remaining AP for later passes': the limit starts again each turn."""
    t, ana, bob, ogre = table(ana={"ap_pool": 6})
    ok(t.act(ana, "attack", target=ogre))
    ok(t.act(ana, "hack"))
    end(t, ana)
    end(t, bob)
    end(t, ogre)
    assert (t.state.pass_no, t.state.turn) == (2, ana)
    ok(t.act(ana, "attack", target=ogre))
    assert ap(t, ana) == 0


def test_the_turn_limit_is_a_setting():
    """RULINGS Initiative Passes 2: 'may spend up to 4 AP (setting)'."""
    t, ana, bob, ogre = table(ap_per_turn=2)
    ok(t.act(ana, "attack", target=ogre))
    assert not t.act(ana, "reload").ok
    assert "At most 2 AP per turn: Ana has spent 2" in refused(t, "turn_limit")
    ok(t.gm("set_setting", key="ap_per_turn", value=3))
    assert t.log[-1]["ruling"]
    ok(t.act(ana, "reload"))


def test_a_combatant_can_be_given_a_higher_turn_limit():
    """RULINGS 5 and 6: the GM changes a limit on the spot, for one combatant."""
    t, ana, bob, ogre = table(ana={"ap_pool": 6})
    ok(t.gm("set_modifier", actor=ana, key="ap_per_turn", value=6))
    for _ in range(3):
        ok(t.act(ana, "attack", target=ogre))
    assert ap(t, ana) == 0


def test_not_enough_ap_is_refused_with_the_numbers():
    """'Every combatant has a pool of Action Points': actions are paid from it."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "attack", target=ogre))
    assert not t.act(ana, "force_barrier").ok
    assert refused(t, "not_enough_ap") == (
        "Not enough AP: Force a Barrier costs 2, Ana has 1 left this round (AP is restored "
        "at the start of the next round)."
    )


# --- passes ---------------------------------------------------------------------------


def test_unspent_ap_is_kept_for_later_passes():
    """'They do not need to spend all of their available AP and may keep any remaining AP
    for later passes'."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "reload"))
    end(t, ana)
    assert ap(t, ana) == 2
    ok(t.act(bob, "attack", target=ogre))
    end(t, bob)
    ok(t.act(ogre, "open_door", by="gm"))
    ok(t.gm("end_turn"))
    assert said(t.log[-2]) == "Pass 2 of round 1 begins."
    assert (t.state.round, t.state.pass_no, t.state.turn, ap(t, ana)) == (1, 2, ana, 2)


def test_every_pass_follows_initiative_and_only_those_still_in_take_turns():
    """'Initiative determines turn order during every pass. A combatant who keeps AP in
    reserve does not change position ... They simply act again when a later pass reaches
    their Initiative.' RULINGS Initiative Passes 2 and 3."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "reload"))  # Ana: 2 left
    end(t, ana)
    ok(t.act(bob, "attack", target=ogre))
    ok(t.act(bob, "reload"))  # Bob: none left
    end(t, bob)
    ok(t.act(ogre, "reload", by="gm"))  # Ogre: 2 left
    ok(t.gm("end_turn"))
    ok(t.act(ana, "reload"))  # pass 2
    end(t, ana)
    ok(t.act(ogre, "reload", by="gm"))
    ok(t.gm("end_turn"))
    ok(t.act(ana, "reload"))  # pass 3: Ana and the Ogre have 1 each
    end(t, ana)
    ok(t.act(ogre, "reload", by="gm"))
    ok(t.gm("end_turn"))
    assert [(r, p, who) for r, p, who in turn_events(t)] == [
        (1, 1, ana),
        (1, 1, bob),
        (1, 1, ogre),
        (1, 2, ana),
        (1, 2, ogre),
        (1, 3, ana),
        (1, 3, ogre),
        (2, 1, ana),
    ]


def test_the_round_ends_when_a_pass_finishes_and_nobody_is_eligible():
    """RULINGS Initiative Passes 3: 'The round ends when a pass finishes and no combatant
    is eligible; the next round then starts.'"""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "attack", target=ogre))
    ok(t.act(ana, "reload"))
    end(t, ana)
    ok(t.act(bob, "major_action", text="barricade"))
    end(t, bob)  # Bob still has 1 AP
    ok(t.gm("hold", actor=ogre))
    ok(t.act(bob, "reload"))  # pass 2: only Bob
    assert t.state.pass_no == 2
    end(t, bob)
    texts = [said(e) for e in t.log]
    last = texts.index("Round 1 ends.")
    assert texts[last - 1] == "Bob ends the turn."  # no pass 3: nobody has AP to act
    assert texts[last + 1] == "Round 2 begins."
    assert (t.state.round, t.state.pass_no, t.state.turn) == (2, 1, ana)


def test_everyone_has_a_first_pass_turn_even_with_no_ap_left():
    """'In each pass every eligible combatant takes a turn' and 'Normal movement does not
    cost AP': a combatant who spent everything on Interrupts still moves on its turn."""
    t, ana, bob, ogre = table()
    ok(t.act(bob, "attack", target=ogre))  # Interrupts during Ana's turn
    ok(t.act(bob, "reload"))
    assert ap(t, bob) == 0
    end(t, ana)
    assert t.state.turn == bob
    ok(t.act(bob, "move"))
    assert not t.act(bob, "reload").ok
    refused(t, "not_enough_ap")


# --- holding --------------------------------------------------------------------------


def test_hold_keeps_the_rest_for_interrupts_only():
    """RULINGS Initiative Passes 3: 'chosen "hold" (keep the rest for Interrupts only)'."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "reload"))
    ok(t.player("hold", actor=ana))
    assert t.c(ana).held and ap(t, ana) == 2
    assert "Ana holds: 2 AP kept for Interrupts only, no more turns this round." in [
        said(e) for e in t.log
    ]
    ok(t.act(bob, "reload"))
    end(t, bob)
    ok(t.act(ogre, "reload", by="gm"))
    ok(t.gm("end_turn"))
    assert (t.state.pass_no, t.state.turn) == (2, bob)  # Ana is skipped
    ok(t.act(ana, "attack", target=ogre))  # but still interrupts
    assert ap(t, ana) == 0


def test_ending_a_turn_without_spending_ap_counts_as_holding():
    """RULINGS Initiative Passes 3: 'nor ended a pass turn without spending any AP (which
    counts as holding)'."""
    t, ana, bob, ogre = table()
    ok(t.act(ana, "move"))
    ok(t.act(ana, "speak", text="Now!"))
    end(t, ana)
    assert t.c(ana).held and ap(t, ana) == 3
    assert said(t.log[-2]) == (
        "Ana spent no AP this turn, which counts as holding: 3 AP "
        "kept for Interrupts, no more turns this round."
    )
    ok(t.act(bob, "reload"))
    end(t, bob)
    ok(t.gm("end_turn"))  # the Ogre holds too
    assert (t.state.pass_no, t.state.turn) == (2, bob)
    ok(t.act(ana, "reload"))  # a holder still interrupts
    end(t, bob)
    assert (t.state.round, t.state.turn) == (2, ana)
    assert not t.c(ana).held and ap(t, ana) == 3  # back in the passes next round


def test_interrupts_do_not_count_as_spending_in_ones_own_turn():
    """RULINGS Initiative Passes 3: only AP spent in the pass turn keeps one in."""
    t, ana, bob, ogre = table()
    ok(t.act(bob, "reload"))  # Interrupt in Ana's turn
    end(t, ana)
    end(t, bob)  # spends nothing in his own turn
    assert t.c(bob).held


def test_hold_is_only_on_ones_own_turn():
    """'hold' ends the holder's turn; it is refused on someone else's."""
    t, ana, bob, ogre = table()
    assert not t.player("hold", actor=bob).ok
    assert "It is Ana's turn, not Bob's." in refused(t, "not_your_turn")


# --- Interrupts -----------------------------------------------------------------------


def test_an_interrupt_is_paid_from_remaining_ap_outside_ones_turn():
    """RULINGS Initiative Passes 4: 'Interrupt actions are paid from the remaining AP
    outside the combatant's own turn'. 'Any Minor or Major action ... can be taken as an
    Interrupt.'"""
    t, ana, bob, ogre = table()
    out = ok(t.act(bob, "attack", target=ogre))
    assert ap(t, bob) == 1 and t.state.turn == ana
    assert "Bob: Attack (Interrupt, 2 AP) on Ogre" in said(out.events[0])
    assert out.events[0]["data"]["interrupt"] is True
    out = ok(t.act(bob, "use_device", text="the lift"))
    assert said(out.events[0]) == "Bob takes Use a Device (Interrupt, 1 AP): the lift."
    assert ap(t, bob) == 0


def test_interrupts_do_not_count_toward_the_turn_limit():
    """'AP spent on Interrupt Actions outside their turn does not count toward this
    limit.'"""
    t, ana, bob, ogre = table(bob={"ap_pool": 8})
    ok(t.act(bob, "attack", target=ogre))
    ok(t.act(bob, "hack"))
    ok(t.act(bob, "reload"))
    end(t, ana)
    assert t.state.turn == bob and ap(t, bob) == 3
    ok(t.act(bob, "attack", target=ogre))
    ok(t.act(bob, "reload"))
    assert ap(t, bob) == 0


def test_the_4_ap_limit_applies_only_during_ones_turn():
    """'The 4 AP limit applies only during a combatant's turn.'"""
    t, ana, bob, ogre = table(bob={"ap_pool": 6})
    for _ in range(3):
        ok(t.act(bob, "attack", target=ogre))
    assert ap(t, bob) == 0


def test_an_interrupt_needs_ap_left():
    """RULINGS Initiative Passes 4: Interrupts 'need AP left'."""
    t, ana, bob, ogre = table()
    ok(t.act(bob, "attack", target=ogre))
    assert not t.act(bob, "attack", target=ogre).ok
    assert refused(t, "not_enough_ap") == (
        "Not enough AP: Attack as an Interrupt costs 2, Bob has 1 left this round."
    )
    ok(t.act(bob, "reload"))
    ok(t.gm("set_cost", action="reload", cost=0))
    assert not t.act(bob, "reload").ok
    assert refused(t, "no_ap_left") == (
        "An Interrupt is paid from AP left: Bob has 0 AP until the next round."
    )


def test_free_actions_and_movement_are_not_interrupts():
    """RULINGS Initiative Passes 4: Minor or Major actions (or custom ones marked so)."""
    t, ana, bob, ogre = table()
    for action in ("call_warning", "free_action", "move"):
        assert not t.act(bob, action).ok
        refused(t, "not_your_turn")


def test_custom_actions_are_interrupts_only_when_marked():
    """RULINGS Initiative Passes 4: 'or a custom action marked as one'."""
    t, ana, bob, ogre = table()
    ok(t.gm("add_custom_action", name="Overwatch Shot", cost=1, interrupt=True))
    ok(t.gm("add_custom_action", name="Long Ritual", cost=3))
    ok(t.act(bob, "custom_overwatch_shot"))
    assert ap(t, bob) == 2
    assert not t.act(bob, "custom_long_ritual").ok
    refused(t, "not_your_turn")
    ok(t.act(ana, "custom_long_ritual"))  # 'Specific actions ... state their AP cost'
    assert ap(t, ana) == 0


def test_no_interrupts_between_rounds_or_by_the_defeated():
    """Interrupts are taken during a round, by combatants still standing."""
    t, ana, bob, ogre = table(ana={"grit": 1})
    assert t.state.phase == "seize"
    assert not t.act(bob, "reload").ok
    assert "between rounds only Seize the Moment" in refused(t, "between_rounds")
    ok(t.gm("begin_round"))
    ok(t.gm("defeat", actor=bob))
    assert not t.act(bob, "reload").ok
    refused(t, "defeated")


def test_an_interrupt_that_defeats_the_acting_combatant_ends_its_turn():
    """RULINGS 3: defeat mid-turn hands the turn on, whoever causes it."""
    t, ana, bob, ogre = table(ana={"hp": 3})
    ok(t.act(ogre, "attack", target=ana, by="gm"))
    assert t.c(ana).defeated
    assert t.state.turn == bob


# --- Seize the Moment -----------------------------------------------------------------


def test_seize_the_moment_costs_1_grit_and_acts_at_the_top():
    """'At the start of any round, before the first combatant acts, a character may spend
    1 Grit to Seize the Moment. That character acts at the top of the Initiative order for
    the current round.'"""
    t, ana, bob, ogre = table(ogre={"grit": 2})
    assert t.state.phase == "seize" and t.state.round == 0
    out = ok(t.gm("seize", actor=ogre))
    assert t.c(ogre).res["grit"] == 1
    assert said(out.events[0]) == (
        "Ogre spends 1 Grit to Seize the Moment and will act first in round 1."
    )
    assert t.state.order == [ogre, ana, bob]  # shown before the round begins
    ok(t.gm("begin_round"))
    assert t.state.turn == ogre and t.state.order == [ogre, ana, bob]


def test_a_seizer_keeps_its_initiative_and_returns_to_its_place_next_round():
    """'Their normal Initiative remains unchanged, and they return to their usual position
    at the start of the next round.'"""
    t, ana, bob, ogre = table(ogre={"grit": 1})
    ok(t.gm("seize", actor=ogre))
    ok(t.gm("begin_round"))
    assert t.c(ogre).initiative == 10
    ok(t.gm("end_turn"))
    end(t, ana)
    end(t, bob)
    # Grit is spent: no window; round 2 starts in the usual order.
    assert (t.state.round, t.state.order, t.state.turn) == (2, [ana, bob, ogre], ana)
    assert not t.c(ogre).seized


def test_the_seizer_is_at_the_top_of_every_pass_of_that_round():
    """'acts at the top of the Initiative order for the current round' (every pass)."""
    t, ana, bob, ogre = table(ogre={"grit": 1})
    ok(t.gm("seize", actor=ogre))
    ok(t.gm("begin_round"))
    ok(t.act(ogre, "reload", by="gm"))
    ok(t.gm("end_turn"))
    ok(t.act(ana, "reload"))
    end(t, ana)
    end(t, bob)
    assert (t.state.pass_no, t.state.turn) == (2, ogre)


def test_seize_is_refused_without_grit():
    """'a character may spend 1 Grit': none, no Seize."""
    t, ana, bob, ogre = table(ana={"grit": 1})
    before = t.state.to_dict()
    assert not t.player("seize", actor=bob).ok
    assert refused(t, "no_grit") == "Seize the Moment costs 1 Grit; Bob has none."
    assert t.state.to_dict() == before


def test_seize_is_refused_once_the_round_is_under_way():
    """'At the start of any round, before the first combatant acts'."""
    t, ana, bob, ogre = table(bob={"grit": 2})
    ok(t.gm("begin_round"))
    assert not t.player("seize", actor=bob).ok
    assert "before the first combatant acts" in refused(t, "seize_timing")
    assert t.c(bob).res["grit"] == 2


def test_seize_is_once_a_round():
    """RULINGS Initiative Passes 5: 'spend 1 to act at the top of the order for that round'."""
    t, ana, bob, ogre = table(bob={"grit": 2})
    ok(t.player("seize", actor=bob))
    assert not t.player("seize", actor=bob).ok
    refused(t, "already_seized")
    assert t.c(bob).res["grit"] == 1


def test_the_seize_window_opens_between_rounds_only_while_someone_has_grit():
    """RULINGS Initiative Passes 5: 'between rounds (before the first turn of the round)
    any combatant with Grit may spend 1'."""
    t, ana, bob, ogre = table(bob={"grit": 1})
    assert said(t.log[-1]) == "Before round 1: anyone with Grit may Seize the Moment."
    ok(t.gm("begin_round"))  # nobody seizes
    end(t, ana)
    end(t, bob)
    ok(t.gm("end_turn"))
    assert t.state.phase == "seize"
    assert said(t.log[-1]) == "Before round 2: anyone with Grit may Seize the Moment."
    ok(t.player("seize", actor=bob))
    ok(t.gm("begin_round"))
    assert (t.state.round, t.state.turn) == (2, bob)
    end(t, bob)
    end(t, ana)
    ok(t.gm("end_turn"))
    assert t.state.phase == "combat" and t.state.round == 3  # no Grit left: no window


def test_several_seizers_act_first_pcs_before_npcs():
    """'If several characters Seize the Moment during the same round, they act before all
    other combatants.' RULINGS Initiative Passes 5: 'PCs before NPCs'."""
    t, ana, bob, ogre = table(bob={"grit": 1}, ogre={"grit": 1})
    imp = t.gm("add_combatant", name="Imp", initiative=25, grit=1)
    ok(t.gm("seize", actor=imp))
    ok(t.gm("seize", actor=ogre))
    ok(t.player("seize", actor=bob))
    ok(t.gm("begin_round"))
    assert t.state.order == [bob, imp, ogre, ana]
    assert [t.c(c).initiative for c in (bob, imp, ogre, ana)] == [15, 25, 10, 20]


def test_player_seizers_order_themselves_and_the_gm_orders_npc_seizers():
    """'Player characters decide their order among themselves. The GM decides the order of
    NPCs.'"""
    t, ana, bob, ogre = table(ana={"grit": 1}, bob={"grit": 1}, ogre={"grit": 1})
    imp = t.gm("add_combatant", name="Imp", initiative=25, grit=1)
    ok(t.player("seize", actor=ana))
    ok(t.player("seize", actor=bob))
    ok(t.gm("seize", actor=imp))
    ok(t.gm("seize", actor=ogre))
    assert t.state.order == [ana, bob, imp, ogre]  # in the order they were declared
    out = ok(t.player("reorder", actor=bob, direction="up"))
    assert said(out.events[0]) == "Bob moves up among those who Seize the Moment."
    assert not out.events[0]["ruling"]
    ok(t.gm("reorder", actor=ogre, direction="up"))
    assert t.log[-1]["ruling"]
    assert not t.player("reorder", actor=ana, direction="down").ok  # last PC: NPCs follow
    assert "already last of the PCs who Seize the Moment" in refused(t, "no_tie")
    ok(t.gm("begin_round"))
    assert t.state.order == [bob, ana, ogre, imp]
    assert [t.c(c).initiative for c in (ana, bob, ogre, imp)] == [20, 15, 10, 25]


def test_seize_is_only_in_this_ruleset():
    """Seize the Moment belongs to Initiative Passes."""
    t = Table("action_points")
    a = t.gm("add_combatant", name="Ana", side="pc", grit=1)
    ok(t.gm("start_combat"))
    assert not t.player("seize", actor=a).ok
    refused(t, "not_in_ruleset")


# --- Group Initiative -----------------------------------------------------------------


def test_group_members_share_a_slot_in_every_pass_and_track_their_own_ap():
    """'All members act on that Initiative and may take their turns in any order when it
    is reached.' 'Each member still tracks their own AP.'"""
    t = Table("initiative_passes", seed=4)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=30)
    d1 = t.gm("add_combatant", name="Drone 1", group="Drones")
    d2 = t.gm("add_combatant", name="Drone 2", group="Drones")
    ok(t.gm("start_combat"))
    rolls = [e for e in t.log if e["kind"] == "initiative"]
    assert len(rolls) == 1 and said(rolls[0]).startswith("Group Drones rolls initiative")
    ok(t.act(ana, "reload"))
    end(t, ana)
    ok(t.gm("take_turn", actor=d2))
    ok(t.act(d2, "reload", by="gm"))
    ok(t.gm("end_turn"))
    assert t.state.turn == d1
    ok(t.act(d1, "major_action", by="gm"))
    ok(t.gm("end_turn"))
    assert (ap(t, d1), ap(t, d2)) == (1, 2)
    assert (t.state.pass_no, t.state.turn) == (2, ana)
    end(t, ana)  # Ana spends nothing now: holds
    ok(t.gm("take_turn", actor=d1))  # the drones again choose their order
    assert t.state.turn == d1


# --- the catalogue --------------------------------------------------------------------


COSTS = {"free": 0, "minor": 1, "major": 2, "movement": 0}


@pytest.mark.parametrize("key", sorted(RS.catalogue()))
def test_each_action_costs_its_category(key):
    """'A Free Action costs no AP.' 'A Minor Action costs 1 AP.' 'A Major Action costs
    2 AP.' 'Normal movement does not cost AP'."""
    a = RS.catalogue()[key]
    assert a.cost == COSTS[a.category]
    t, ana, bob, ogre = table(ana={"ap_pool": 4})
    ok(
        t.act(ana, key, target=ogre)
        if any(o.name == "target" for o in a.options)
        else t.act(ana, key)
    )
    assert ap(t, ana) == 4 - a.cost
    assert t.c(ana).turn["spent"] == a.cost


def test_the_catalogue_names_the_rules_examples():
    """The examples of the rules text, each in its category, and a generic one of each."""
    cat = RS.catalogue()
    by = {c: {a.name for a in cat.values() if a.category == c} for c in COSTS}
    assert by["free"] == {
        "Call a Warning",
        "Drop an Item",
        "Make a Gesture",
        "Speak a Short Phrase",
        "Free Action",
    }
    assert by["minor"] == {
        "Draw a Weapon",
        "Reload",
        "Open a Door",
        "Use a Device",
        "Minor Ability",
        "Minor Action",
    }
    assert by["major"] == {
        "Attack",
        "Hack under Pressure",
        "Magical Ability",
        "Emergency Treatment",
        "Force a Barrier",
        "Major Action",
    }
    assert by["movement"] == {"Move"}
    assert all(a.timing == ANY_TIME for a in cat.values() if a.category in ("minor", "major"))
    generic = [cat[k] for k in ("free_action", "minor_action", "major_action")]
    assert all(any(o.name == "text" for o in a.options) for a in generic)


def test_an_attack_rolls_attack_against_defence_and_deals_damage():
    """'Major Actions include attacks'; the attack roll against the target's defence."""
    t, ana, bob, ogre = table()
    out = ok(t.act(ana, "attack", target=ogre))
    e = out.events[0]
    assert said(e) == ("Ana: Attack (2 AP) on Ogre, 51 against melee defence 1: hit for 5 damage.")
    assert [r["expression"] for r in e["rolls"]] == ["1d1+50", "1d1", "1d1+4"]
    assert t.c(ogre).hp == 35 and ogre in t.c(ana).engaged
    t.c(bob).stats.clear()
    assert not t.act(bob, "attack", target=ogre).ok
    assert "Bob has no attack stat" in refused(t, "missing_stat")


def test_a_specific_action_can_state_another_cost():
    """'Specific actions and abilities state their AP cost when it differs from these
    categories.' RULINGS Initiative Passes 6."""
    t, ana, bob, ogre = table()
    ok(t.gm("set_cost", action="hack", cost=3))
    assert said(t.log[-1]) == "The GM sets the cost of Hack under Pressure to 3 AP."
    ok(t.act(ana, "hack"))
    assert ap(t, ana) == 0


def test_free_actions_have_no_strict_limit():
    """'There is no strict limit to the number of Free Actions a character may take'."""
    t, ana, bob, ogre = table()
    for _ in range(12):
        ok(t.act(ana, "gesture"))
    assert ap(t, ana) == 3


def test_the_gm_may_cap_free_actions_per_turn():
    """'but the GM may restrict excessive or unreasonable use': a per-encounter setting."""
    t, ana, bob, ogre = table(free_actions_per_turn=2)
    ok(t.act(ana, "speak"))
    ok(t.act(ana, "drop_item"))
    assert not t.act(ana, "gesture").ok
    assert refused(t, "free_action_limit") == (
        "The GM allows 2 Free Actions per turn: Ana has taken 2 this turn."
    )
    ok(t.act(ana, "move"))  # movement is not a Free Action
    ok(t.gm("grant", actor=ana, action="gesture"))  # the GM may still allow one more
    end(t, ana)
    ok(t.act(bob, "speak"))  # a new turn, a new count


def test_normal_movement_is_free_and_provokes_nothing():
    """'Normal movement does not cost AP'; the rules text has no Opportunity Attacks."""
    t, ana, bob, ogre = table()
    ok(t.player("engage", actor=ana, target=ogre))
    for _ in range(3):
        out = ok(t.act(ana, "move"))
    assert said(out.events[0]) == "Ana moves (no AP)."
    assert ap(t, ana) == 3 and t.state.pending == [] and t.c(ana).engaged == []
    assert t.c(ogre).engaged == []


# --- resources for the views ----------------------------------------------------------


def test_resource_widgets():
    """AP pips, AP spent this turn against the limit, Grit and holding."""
    t, ana, bob, ogre = table(ana={"grit": 2})
    ok(t.gm("begin_round"))
    ok(t.act(ana, "reload"))
    texts = [w["text"] for w in RS.resources(t.state, t.c(ana))]
    assert texts == ["AP 2 of 3", "spent this turn 1 of 4", "Grit 2", "In the passes"]
    ok(t.player("hold", actor=ana))
    texts = [w["text"] for w in RS.resources(t.state, t.c(ana))]
    assert texts == [
        "AP 2 of 3",
        "spent this turn 0 of 4",
        "Grit 2",
        "Holding: 2 AP kept for Interrupts only",
    ]


def test_gm_rulings_are_logged():
    """RULINGS 5: grant at no cost, adjust AP and Grit, each a logged ruling."""
    t, ana, bob, ogre = table()
    out = ok(t.gm("grant", actor=ana, action="attack", options={"target": ogre}))
    assert out.events[0]["ruling"] and ap(t, ana) == 3
    ok(t.gm("adjust", actor=ana, resource="ap", value=1))
    assert ap(t, ana) == 1 and said(t.log[-1]) == "The GM sets Ana's ap to 1."
    assert not t.gm("adjust", actor=ana, resource="ap", value=4).ok
    assert "between 0 and 3" in refused(t, "bad_option")
    ok(t.gm("adjust", actor=bob, resource="grit", value=2))
    assert t.c(bob).res["grit"] == 2 and t.log[-1]["ruling"]


def test_undo_takes_back_an_action():
    """RULINGS 5: 'undo the last command'."""
    t, ana, bob, ogre = table()
    before = t.state.to_dict()
    ok(t.act(ana, "attack", target=ogre))
    assert t.undo()
    assert t.state.to_dict() == before


# --- invariants over random command sequences -----------------------------------------

# "@turn" stands for whoever's turn it is when the command is sent, so that many commands
# are legal and the fights get going; the others are mostly Interrupts or refusals.
NOW = "@turn"
IDS = st.sampled_from([NOW] * 8 + ["c1", "c2", "c3", "c4", "c5", "c9"])
TARGETS = st.sampled_from(["c1", "c2", "c3", "c4", "c5"] * 3 + ["c9"])
ACTIONS = sorted(RS.catalogue()) + ["custom_overwatch", "custom_ritual"]


def setup_encounter() -> Encounter:
    enc = new_encounter("initiative_passes")
    rng = random.Random(0)
    for fields in (
        {"name": "Ana", "side": "pc", "grit": 1, "ap_pool": 6},
        {"name": "Bob", "side": "pc", "grit": 0},
        {"name": "Ogre", "side": "npc", "grit": 2, "ap_pool": 5},
        {"name": "Drone 1", "side": "npc", "group": "Drones", "ap_pool": 2},
        {"name": "Drone 2", "side": "npc", "group": "Drones"},
    ):
        out = apply(
            enc,
            {
                "type": "add_combatant",
                "by": "gm",
                "hp": 15,
                "stats": {"attack": "1d20", "damage": "1d6", "defend": "1d20"},
                **fields,
            },
            rng,
        )
        assert out.ok, out.refusal
        enc = out.state
    for spec in (
        {"name": "Overwatch", "cost": 1, "interrupt": True},
        {"name": "Ritual", "cost": 3},
    ):
        enc = apply(enc, {"type": "add_custom_action", "by": "gm", **spec}, rng).state
    return enc


@st.composite
def command(draw) -> dict:
    kind = draw(
        st.sampled_from(
            ["act"] * 12
            + ["end_turn"] * 8
            + ["hold"] * 2
            + ["seize"] * 2
            + ["begin_round"] * 2
            + ["take_turn", "grant", "adjust", "damage", "revive", "reorder", "set_modifier"]
        )
    )
    cmd = {"type": kind, "by": draw(st.sampled_from(["gm", "gm", "player"]))}
    if draw(st.integers(0, 19)):
        cmd["actor"] = draw(IDS)
    if kind in ("act", "grant"):
        cmd["action"] = draw(st.sampled_from(ACTIONS))
        opts = {}
        if draw(st.booleans()):
            opts["target"] = draw(TARGETS)
        if draw(st.booleans()):
            opts["text"] = draw(st.text(max_size=5))
        if draw(st.integers(0, 4)) == 0:
            opts[draw(st.sampled_from(["ranged", "leave", "bogus"]))] = draw(st.booleans())
        cmd["options"] = opts
    elif kind == "adjust":
        cmd["resource"] = draw(st.sampled_from(["ap", "grit", "ap_max", "hp"]))
        cmd["value"] = draw(st.integers(-1, 7))
    elif kind == "damage":
        cmd["amount"] = draw(st.integers(0, 9))
    elif kind == "reorder":
        cmd["direction"] = draw(st.sampled_from(["up", "down"]))
    elif kind == "set_modifier":
        cmd["key"] = "ap_pool"
        cmd["value"] = draw(st.integers(0, 7))
    return cmd


def check_invariants(enc: Encounter) -> None:
    for c in enc.combatants.values():
        assert 0 <= c.res["ap"] <= c.res["ap_max"], (c.name, c.res)
        assert c.res["grit"] >= 0
        if enc.turn == c.id:
            limit = RS.setting(enc, "ap_per_turn", c)
            assert 0 <= c.turn.get("spent", 0) <= limit, (c.name, c.turn)


def run(commands: list[dict], seed: int) -> list:
    """Play the commands, checking every invariant after each; return what happened."""
    enc = setup_encounter()
    rng = random.Random(seed)
    enc = apply(enc, {"type": "start_combat", "by": "gm"}, rng).state
    enc = apply(enc, {"type": "begin_round", "by": "gm"}, rng).state  # nobody seizes round 1
    trail = []
    for cmd in commands:
        if cmd.get("actor") == NOW:
            cmd = {**cmd, "actor": enc.turn or "c1"}
        cmd = real_ids(enc, cmd)
        before = enc.to_dict()
        turn_before = enc.turn
        actor_before = copy.deepcopy(enc.combatants.get(cmd.get("actor") or ""))
        # The same command on the state after a JSON round-trip, with the same dice.
        twin = Encounter.from_dict(json.loads(json.dumps(before)))
        twin_rng = random.Random()
        twin_rng.setstate(rng.getstate())
        out = apply(enc, cmd, rng)
        assert enc.to_dict() == before  # apply never changes the state it is given
        twin_out = apply(twin, cmd, twin_rng)
        assert twin_out.events == out.events and twin_out.refusal == out.refusal
        if not out.ok:
            assert out.state.to_dict() == before
            assert out.refusal.code and out.refusal.message
            trail.append(("refused", out.refusal.code))
            continue
        trail.append(("ok", json.dumps(out.events, sort_keys=True)))
        after = out.state
        if cmd["type"] in ("act", "grant"):
            # Only the combatant whose turn it is acts, Interrupts aside.
            a = RS.action(after, cmd["action"], actor_before)
            c_after = after.combatants[cmd["actor"]]
            paid = 0 if cmd["type"] == "grant" else a.cost
            assert c_after.res["ap"] == actor_before.res["ap"] - paid or c_after.defeated
            if cmd["actor"] != turn_before:
                assert a.timing == ANY_TIME, cmd
                assert cmd["type"] == "grant" or actor_before.res["ap"] >= 1
                assert c_after.turn == actor_before.turn  # not counted toward its turn
                assert all(
                    e["data"].get("interrupt")
                    for e in out.events
                    if e["actor"] == cmd["actor"] and e["kind"] != "ruling"
                )
            elif after.turn == turn_before:
                assert c_after.turn["spent"] == actor_before.turn.get("spent", 0) + paid
        if cmd["type"] == "end_turn" and after.round == enc.round and turn_before:
            # Ending a pass turn without spending AP counts as holding.
            was = enc.combatants[turn_before]
            if turn_before in after.combatants and not was.turn.get("spent"):
                assert after.combatants[turn_before].held
        started = [e["actor"] for e in out.events if e["kind"] == "turn"]
        if started and after.turn == started[-1] and after.pass_no > 1:
            assert RS.in_passes(after.combatants[after.turn])  # later passes: only those in
        check_invariants(after)
        enc = after
    return trail


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands=st.lists(command(), min_size=20, max_size=120), seed=st.integers(0, 2**16))
def test_random_command_sequences_keep_every_invariant(commands, seed):
    """AP stays within 0 and its maximum, a turn never spends past the limit, a refusal
    changes nothing, only the turn's combatant acts (Interrupts aside), the state survives
    JSON, and the same seed replays the same events."""
    first = run(commands, seed)
    assert run(commands, seed) == first


def test_a_long_fight_plays_out():
    """A smoke run: many rounds of mostly legal commands end in later rounds."""
    rng = random.Random(1)
    t = Table("initiative_passes", seed=1)
    ids = [
        t.gm(
            "add_combatant",
            name=f"N{i}",
            hp=50,
            grit=i % 2,
            stats={"attack": "1d20", "damage": "1d4", "defend": "1d20"},
        )
        for i in range(4)
    ]
    ok(t.gm("start_combat"))
    for _ in range(400):
        if t.state.phase == "seize":
            if rng.random() < 0.5:
                t.gm("seize", actor=rng.choice(ids))
            else:
                ok(t.gm("begin_round"))
            continue
        if rng.random() < 0.6:
            t.act(
                rng.choice(ids), rng.choice(sorted(RS.catalogue())), by="gm", target=rng.choice(ids)
            )
        else:
            t.gm("end_turn")
        check_invariants(t.state)
    assert t.state.round >= 5
