"""A player's combatant and a hidden one (issue 29): what the player sees and can answer.

A hidden NPC's attack on Ana reaches Ana's player as a defence prompt "from someone
unseen" that they can answer; a hidden NPC's own chance to react leaves no trace but
"Waiting for the GM."; a condition timed on a hidden NPC's turn lasts "until the end of
a turn". Each reader's view is built from what that reader may see (combat.rules.view).
"""

from __future__ import annotations

import json
from typing import Any

from combat import screens
from combat.rules.table import Table
from combat.rules.view import GM, PLAYER, PUBLIC, availability, redacted
from combat.screens import event_for
from tests.said import said

from .test_action_ladder import fighter, ok, refused

LURKER = "Zyzzyx the Lurker"


def ambush(**settings: Any) -> tuple[Table, str, str]:
    """The hidden Lurker (NPC, initiative 30) and Ana (PC, 10); the Lurker's turn."""
    t = Table("action_ladder", seed=3, **settings)
    lurker = t.gm("add_combatant", name=LURKER, initiative=30, hp=31, hidden=True, stats=fighter())
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, hp=30, stats=fighter())
    ok(t.gm("start_combat"))
    assert t.state.turn == lurker
    return t, lurker, ana


def leaks(data: Any, lurker: str) -> bool:
    text = json.dumps(data)
    return LURKER in text or "Zyzzyx" in text or lurker in text


def test_a_hidden_attackers_defence_prompt_reaches_the_defenders_player():
    """Dodge, Parry and Block are taken "when defending against an attack": Ana defends
    against the unseen Lurker's attack like any other, without learning who makes it."""
    t, lurker, ana = ambush()
    ok(t.act(lurker, "attack", by="gm", target=ana))
    [w] = t.state.pending
    assert (w.kind, w.reactor, w.trigger) == ("defend", ana, lurker)
    for audience in (PLAYER, PUBLIC):
        view = redacted(t.state, audience)
        [seen] = view["pending"]
        assert seen["id"] == w.id and seen["reactor"] == ana and seen["kind"] == "defend"
        assert seen["trigger"] is None and seen["trigger_unseen"] is True
        assert seen["detail"]["choices"] == ["dodge", "parry"]
        assert seen["detail"]["attack"] == {
            "action": "attack",
            "name": "Attack",
            "target": ana,
            "ranged": False,
            "allowed": ["dodge", "parry", "block"],
        }
        # Not its name, id, bonuses, nor how many attacks it has made.
        assert not leaks(view, lurker), view
    [gm_seen] = redacted(t.state, GM)["pending"]
    assert gm_seen["trigger"] == lurker and gm_seen["detail"]["attack"]["attacker"] == lurker
    assert "trigger_unseen" not in gm_seen


def test_the_player_answers_the_unseen_attack_and_it_resolves():
    t, lurker, ana = ambush()
    ok(t.act(lurker, "attack", by="gm", target=ana))
    [w] = t.state.pending
    out = ok(t.player("react", actor=ana, window=w.id, options={"reaction": "dodge"}))
    assert t.state.pending == []
    assert t.c(ana).res["bonus"] == 1  # the Dodge's Bonus Action
    [attack] = [e for e in out.events if e["kind"] == "attack"]
    assert "Dodge" in said(attack) and attack["data"]["target"] == ana
    assert attack["gm_only"] and LURKER in said(attack)
    # Its words for those who cannot see the Lurker: the defence and its outcome, with
    # Ana's own rolls (defence, Dodge) and none of the Lurker's.
    assert attack["unseen"]["hides"] == [lurker]
    seen = event_for(attack, hidden=[lurker])
    assert seen is not None and not seen["gm_only"]
    assert seen["text"].startswith("Someone unseen: Attack on Ana, against melee defence ")
    assert "Dodge" in seen["text"] and not leaks(seen, lurker)
    assert len(seen["rolls"]) == 2 and seen["rolls"] == attack["rolls"][1:3]
    # Nor the Lurker's own attack roll or bonuses in the facts its player's page reads.
    assert "roll" not in seen["data"] and "notes" not in seen["data"]
    assert seen["data"]["target"] == ana and seen["data"]["hit"] == attack["data"]["hit"]


def test_an_unseen_attack_still_reads_as_unseen_once_the_attacker_is_revealed():
    """The line was written while the Lurker was hidden: revealed later, its players still
    read what they could know then, and neither its roll nor its bonuses."""
    t, lurker, ana = ambush()
    ok(t.act(lurker, "attack", by="gm", target=ana))
    [w] = t.state.pending
    out = ok(t.player("react", actor=ana, window=w.id, options={"reaction": "dodge"}))
    [attack] = [e for e in out.events if e["kind"] == "attack"]
    ok(t.gm("reveal", actor=lurker))
    seen = event_for(attack, hidden=[])
    assert seen is not None
    assert seen["text"].startswith("Someone unseen: Attack on Ana, against melee defence ")
    assert "roll" not in seen["data"] and "notes" not in seen["data"]
    assert LURKER in said(attack)


def test_while_the_prompt_is_open_ana_is_told_to_answer_someone_unseen():
    """Ana's reasons say what holds her up, and it is something her player can answer; each
    reason is the refusal written for its reader: the GM's names the Lurker."""
    t, lurker, ana = ambush()
    ok(t.act(lurker, "attack", by="gm", target=ana))
    reasons = {a["key"]: a["reason"] for a in availability(t.state, ana, hidden=[lurker])}
    assert reasons["interrupt"] == (
        "Ana must first answer the attack of someone unseen (Dodge, Parry or Block, or let "
        "it pass)."
    )
    assert not any(LURKER in r or "someone else" in r for r in reasons.values())
    out = t.act(ana, "interrupt", target=lurker)
    refused(out, "answer_first")
    assert out.refusal.to_reader([lurker]).message == reasons["interrupt"]
    gm_reasons = {a["key"]: a["reason"] for a in availability(t.state, ana)}
    assert gm_reasons["interrupt"] == (
        f"Ana must first answer {LURKER}'s attack (Dodge, Parry or Block, or let it pass)."
    )


def test_a_hidden_npcs_own_opportunity_attack_leaves_no_trace():
    """ "When an enemy within reach tries to leave your zone of reach with a Movement
    Action": Ana walks away from the unseen Lurker. Its chance is the GM's; Ana's player
    sees no window and is told only that the table waits for the GM."""
    t = Table("action_ladder", seed=3)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=30, hp=30, stats=fighter())
    lurker = t.gm("add_combatant", name=LURKER, initiative=10, hp=31, hidden=True, stats=fighter())
    ok(t.gm("start_combat"))
    ok(t.gm("engage", actor=ana, target=lurker))
    ok(t.act(ana, "walk"))
    [w] = t.state.pending
    assert (w.kind, w.reactor) == ("opportunity_attack", lurker)
    for audience in (PLAYER, PUBLIC):
        view = redacted(t.state, audience)
        assert view["pending"] == [] and not leaks(view, lurker)
    seen = availability(t.state, ana, hidden=[lurker])
    reasons = {a["reason"] for a in seen if not a["allowed"]}
    assert "Waiting for the GM." in reasons
    assert not any("Waiting for reactions" in r or "someone" in r for r in reasons), reasons
    assert not leaks([a["why"].to_dict() for a in seen if a["why"]], lurker)
    # The GM is told whose reaction the table waits for.
    gm = {a["reason"] for a in availability(t.state, ana) if not a["allowed"]}
    assert f"Waiting for reactions: {LURKER} may still react to Ana." in gm
    assert refused(t.player("end_turn", actor=ana), "waiting_for_reactions") == (
        "Waiting for the GM."
    )
    # The GM settles it; Ana goes on.
    ok(t.gm("close_windows"))
    assert all(a["reason"] != "Waiting for the GM." for a in availability(t.state, ana))


def test_a_condition_until_a_hidden_combatants_turn_lasts_until_the_end_of_a_turn():
    t, lurker, ana = ambush()
    ok(t.gm("set_condition", actor=ana, name="Bleeding", stacks=2, until="turn_end", of=lurker))
    [gm_effect] = redacted(t.state, GM)["combatants"][ana]["effects"]
    assert gm_effect["until_of"] == lurker
    assert gm_effect["lasts"] == f"until the end of {LURKER}'s next turn"
    for audience in (PLAYER, PUBLIC):
        [effect] = redacted(t.state, audience)["combatants"][ana]["effects"]
        assert effect["expires"] == "turn_end"
        assert effect["until_of"] is None and effect["until_unseen"] is True
        assert effect["lasts"] == "until the end of a turn"
        assert said(effect) == "Bleeding 2" and effect["detail"]["stacks"] == 2
    # Revealed, it names whose turn again.
    ok(t.gm("reveal", actor=lurker))
    [effect] = redacted(t.state, PLAYER)["combatants"][ana]["effects"]
    assert effect["until_of"] == lurker and "until_unseen" not in effect
    assert effect["lasts"] == f"until the end of {LURKER}'s next turn"


def test_ana_is_not_offered_an_opportunity_attack_on_someone_she_cannot_see():
    """The unseen Lurker leaves Ana's reach: her Opportunity Attack is the GM's to settle
    (one does not see it go), so her player sees no trace of it and is not held up."""
    t, lurker, ana = ambush()
    ok(t.gm("engage", actor=lurker, target=ana))
    ok(t.act(lurker, "walk", by="gm"))
    [w] = t.state.pending
    assert (w.kind, w.reactor, w.trigger) == ("opportunity_attack", ana, lurker)
    for audience in (PLAYER, PUBLIC):
        view = redacted(t.state, audience)
        assert view["pending"] == [] and not leaks(view, lurker)
    assert not any("someone" in a["reason"] for a in availability(t.state, ana))
    [gm_seen] = redacted(t.state, GM)["pending"]
    assert gm_seen["trigger"] == lurker
    # The GM ends the Lurker's turn, which settles it; Ana's turn comes.
    ok(t.gm("end_turn"))
    assert t.state.pending == [] and t.state.turn == ana


def test_action_points_parry_against_someone_unseen_is_told_without_the_attacker():
    """Action Points, Ana's defence prompts on: the hidden Lurker's Empowered Attack waits for
    her Parry. Its outcome has words for those who cannot see the Lurker (as the Action
    Ladder's has): the attack, Ana's defence and Parry, and the hit, with Ana's defence roll
    only; without them her player's log would say nothing of the hit she parried."""
    t = Table("action_points", seed=3)
    sure = {"attack": "1d1+50", "damage": "1d1+4", "defend": "1d1"}
    lurker = t.gm("add_combatant", name=LURKER, initiative=30, hp=31, hidden=True, stats=sure)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, hp=30, stats=sure)
    ok(t.gm("set_modifier", actor=ana, key="defence_prompts", value=True))
    ok(t.gm("start_combat"))
    ok(t.act(lurker, "empowered_attack", by="gm", target=ana, to_hit=1))
    [w] = t.state.pending
    out = ok(t.player("react", actor=ana, window=w.id, options={"reaction": "parry"}))
    [attack] = [e for e in out.events if e["kind"] == "attack"]
    assert attack["gm_only"] and LURKER in said(attack)
    unseen = attack["unseen"]
    assert unseen["hides"] == [lurker]
    told = screens.event_for(attack, hidden=[lurker])  # what Ana's player reads
    assert told is not None and told["text"] == (
        "Someone unseen: Empowered Attack on Ana, against melee defence 3 (Parry +2): "
        "hit for 5 damage."
    )  # not "(+1 to hit, +0 damage) for 2 AP": the attacker's own choices
    assert told["rolls"] == [attack["rolls"][1]]  # Ana's defence roll
    assert "label" not in told["data"] and "roll" not in told["data"]  # nor in the facts
    assert told["data"]["damage"] == 5 and not told["actor"]
    assert not leaks(told, lurker)
    assert t.c(ana).hp == 25


def test_an_attack_on_someone_unseen_that_comes_to_nothing_stays_the_gms():
    """Action Points: an attack waits for its target's Parry or Intercept; declined, it is
    rolled against the plain defence. When that cannot be rolled (the hidden Lurker has no
    defend stat), the attack "comes to nothing" for a reason that names the Lurker: that
    line is about the Lurker, so a player does not read it while the Lurker is hidden."""
    t = Table("action_points", seed=3)
    sure = {"attack": "1d1+50", "damage": "1d1+4"}
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=30, hp=30, stats=sure)
    lurker = t.gm("add_combatant", name=LURKER, initiative=10, hp=31, hidden=True, stats=sure)
    ok(t.gm("set_modifier", actor=lurker, key="defence_prompts", value=True))
    ok(t.gm("start_combat"))
    ok(t.act(ana, "basic_attack", target=lurker))
    [w] = t.state.pending
    out = ok(t.gm("react", actor=lurker, window=w.id, accept=False))
    [fizzle] = [e for e in out.events if e["kind"] == "fizzle"]
    assert LURKER in said(fizzle) and "comes to nothing" in said(fizzle)  # the GM's words
    assert fizzle["gm_only"] and lurker in fizzle["involved"]
    assert screens.event_for(fizzle, hidden=[lurker]) is None


def test_an_unseen_attack_read_after_the_reveal_names_the_attacker_but_not_its_roll():
    """The Lurker's attack was made unseen: Ana's player read no roll and no cost. Once the
    GM reveals the Lurker, the line names it, still without what was not shown then."""
    t = Table("action_points", seed=3)
    sure = {"attack": "1d1+50", "damage": "1d1+4", "defend": "1d1"}
    lurker = t.gm("add_combatant", name=LURKER, initiative=30, hp=31, hidden=True, stats=sure)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, hp=30, stats=sure)
    ok(t.gm("start_combat"))
    out = ok(t.act(lurker, "basic_attack", by="gm", target=ana))
    [attack] = [e for e in out.events if e["kind"] == "attack"]
    ok(t.gm("reveal", actor=lurker))
    told = screens.event_for(attack, hidden=[])
    assert told is not None and told["text"] == (
        f"{LURKER}: Basic Attack on Ana, against melee defence 1: hit for 5 damage."
    )
    assert "roll" not in told["data"] and "51" not in told["text"]
