"""Reaction windows at the edges a GM will try: ending the turn while they are open, and
a combatant removed, defeated or hidden while its window is open or while its declared
action waits on windows.

Each test's docstring names the rules text or ruling it proves and paraphrases the
sentence. Dice are made predictable as in test_action_ladder (every stat rolls 1d1, so
an attack ties its defence and hits: ties go to the attacker).
"""

from __future__ import annotations

from combat.rules.view import windows_for

from .test_action_ladder import duel, ok, refused, texts, trio
from .test_issue33_interrupts import ap_table, kinds


def ranged_on_cy():
    """Ana, in melee with Bo, declares a ranged Attack on Cy: Bo's Interrupt window opens
    and the attack waits on it."""
    t, a, b, c = trio()
    ok(t.gm("engage", actor=a, target=b))
    ok(t.act(a, "attack", target=c, ranged=True))
    assert kinds(t) == ["interrupt"]
    return t, a, b, c


def spell_by_bo():
    """Ana is in melee with Bo; on Bo's turn Bo declares a spell: Ana's Interrupt window
    opens and the spell waits on it."""
    t, a, b = duel(defence_prompts=False)
    ok(t.player("engage", actor=a, target=b))
    ok(t.gm("end_turn"))
    ok(t.act(b, "ability", length="half", text="Firebolt"))
    assert kinds(t) == ["interrupt"]
    return t, a, b


# --- ending the turn while windows are open ---------------------------------------------


def test_gm_ending_the_turn_passes_the_interrupt_and_rolls_the_held_defence():
    """action-ladder.md, Reactions: 'Interrupt an adjacent enemy (e.g. ... readying a
    ranged attack)'; docs/rules.md, Action Points: the GM's end_turn rolls a waiting
    attack on the plain defence. Ending Ana's turn passes Bo's Interrupt window; the
    ranged attack then goes on, and Cy's defence window that it opens is rolled on the
    plain defence before the turn ends: nothing is left open into Bo's turn."""
    t, a, b, c = ranged_on_cy()
    out = ok(t.gm("end_turn"))
    assert t.state.pending == []
    assert "Bo's chance to react passes" in texts(out)
    assert "Cy's chance to react passes" in texts(out)
    assert t.c(c).hp == 25  # the attack hit on the plain defence
    assert t.state.turn == b and "declared" not in t.c(a).turn


def test_player_cannot_end_the_turn_while_the_interrupt_waits_on_their_dodge():
    """action-ladder.md, Reactions, Interrupt: 'They roll Defense and may Dodge; on a hit,
    their Action is lost'. Ana's ranged attack waits on her own Dodge against Bo's
    Interrupt: her player must answer it before ending the turn, and is told so."""
    t, a, b, c = ranged_on_cy()
    [w] = t.state.pending
    ok(t.gm("react", actor=b, window=w.id))
    assert [(w.kind, w.reactor) for w in t.state.pending] == [("defend", a)]
    msg = refused(t.player("end_turn", actor=a), "answer_first")
    assert "Bo's Interrupt" in msg and "Attack" in msg
    assert t.state.turn == a


def test_gm_ending_the_turn_rolls_the_interrupt_on_plain_defence_and_loses_the_action():
    """action-ladder.md, Reactions, Interrupt: 'on a hit, their Action is lost'. The GM
    ends Ana's turn while her Dodge against Bo's Interrupt waits: the Interrupt is rolled
    on her plain defence, hits, and the ranged attack is lost, all before Bo's turn."""
    t, a, b, c = ranged_on_cy()
    [w] = t.state.pending
    ok(t.gm("react", actor=b, window=w.id))
    out = ok(t.gm("end_turn"))
    assert "Attack is lost" in texts(out)
    assert t.state.pending == []
    assert t.c(a).hp == 25 and t.c(c).hp == 30
    assert t.state.turn == b


# --- removal: interrupter, declarer, defender -------------------------------------------


def test_removing_the_interrupter_lets_the_declared_action_go_on():
    """action-ladder.md, Interrupt: the declared action waits until every window on it is
    answered or passed (docs/rules.md). RULINGS 3: combatants can be removed mid-combat
    without breaking the turn. With Bo gone, its window is gone and the ranged attack goes
    on to Cy's defence window: it does not hang."""
    t, a, b, c = ranged_on_cy()
    ok(t.gm("remove_combatant", actor=b))
    assert [(w.kind, w.reactor) for w in t.state.pending] == [("defend", c)]
    assert "declared" not in t.c(a).turn


def test_removing_the_interrupter_while_its_interrupt_waits_on_the_dodge():
    """action-ladder.md, Interrupt: 'on a hit, their Action is lost': an Interrupt that is
    never rolled loses nothing. Bo is removed while Ana's Dodge against its Interrupt
    waits: that window goes with Bo and Ana's ranged attack goes on."""
    t, a, b, c = ranged_on_cy()
    [w] = t.state.pending
    ok(t.gm("react", actor=b, window=w.id))
    ok(t.gm("remove_combatant", actor=b))
    assert [(w.kind, w.reactor) for w in t.state.pending] == [("defend", c)]
    assert t.c(a).hp == 30


def test_removing_the_declarer_closes_the_interrupt_windows_on_its_action():
    """RULINGS 3: removing the current combatant hands the turn on. Bo's spell is gone
    with Bo: Ana's Interrupt window on it closes, and Ana's turn comes."""
    t, a, b = spell_by_bo()
    ok(t.gm("remove_combatant", actor=b))
    assert t.state.pending == [] and windows_for(t.state, "gm") == []
    assert t.state.turn == a


def test_removing_the_defender_of_a_waiting_ranged_attack_lets_it_come_to_nothing():
    """RULINGS ladder 2 (docs/rules.md, carry-over): 'If its target is gone by then, it
    comes to nothing.' Cy, the target of Ana's ranged attack, is removed while Bo's
    Interrupt window holds the attack; Bo lets it pass and the attack comes to nothing
    (Bo's answer is not refused), leaving Ana free to end her turn."""
    t, a, b, c = ranged_on_cy()
    ok(t.gm("remove_combatant", actor=c))
    [w] = t.state.pending
    out = ok(t.player("react", actor=b, window=w.id, accept=False))
    assert "comes to nothing" in texts(out)
    assert t.state.pending == [] and "declared" not in t.c(a).turn
    ok(t.player("end_turn", actor=a))


def test_removing_the_defender_closes_its_defence_window():
    """RULINGS 3: removing a combatant never breaks the turn. Cy is removed while its
    defence window holds Ana's attack: the window goes and Ana may end her turn."""
    t, a, b, c = ranged_on_cy()
    [w] = t.state.pending
    ok(t.player("react", actor=b, window=w.id, accept=False))
    assert kinds(t) == ["defend"]
    ok(t.gm("remove_combatant", actor=c))
    assert t.state.pending == []
    ok(t.player("end_turn", actor=a))


# --- defeat and hiding ------------------------------------------------------------------


def test_defeating_the_interrupter_lets_the_declared_spell_go_on():
    """docs/rules.md, HP: a defeated combatant is out of the fight (it cannot react). Ana,
    whose Interrupt window holds Bo's spell, is defeated: the window goes and the spell is
    cast at once, rather than waiting on nobody."""
    t, a, b = spell_by_bo()
    out = ok(t.gm("defeat", actor=a))
    assert "Bo takes Ability or Spell" in texts(out)
    assert t.state.pending == [] and "declared" not in t.c(b).turn


def test_defeating_the_declarer_closes_the_interrupt_windows_on_its_action():
    """action-ladder.md, Interrupt: an Interrupt is made on 'an adjacent enemy ... casting
    a spell'; a defeated Bo casts nothing. Its turn passes, and Ana's window on the spell
    closes instead of offering an Interrupt that would be refused."""
    t, a, b = spell_by_bo()
    ok(t.gm("defeat", actor=b))
    assert t.state.pending == []
    assert t.state.turn == a


def test_hiding_the_interrupter_leaves_its_window_to_the_gm():
    """docs/rules.md, Interrupt windows: 'A hidden interrupter's window ... [is] the GM's
    alone'. Hiding Bo mid-window moves the prompt to the GM, who answers it; the ranged
    attack then goes on."""
    t, a, b, c = ranged_on_cy()
    ok(t.gm("hide", actor=b, hidden=True))
    assert windows_for(t.state, "player") == []
    [w] = windows_for(t.state, "gm")
    ok(t.gm("react", actor=b, window=w["id"], accept=False))
    assert [(w.kind, w.reactor) for w in t.state.pending] == [("defend", c)]


# --- Action Points: the Parry / Intercept window --------------------------------------


def test_action_points_defeated_attacker_leaves_no_parry_window_open():
    """action-points.md, Reactions: 'Triggered by specific events'. Ana's attack waits on
    the Ogre's Parry; the GM defeats Ana: her attack is not made, the Ogre's window closes
    and the Ogre keeps its Reaction; Bob's turn comes with nothing waiting."""
    t, ana, bob, ogre = ap_table(ogre=True)
    ok(t.act(ana, "basic_attack", target=ogre))
    assert kinds(t) == ["defend"]
    ok(t.gm("defeat", actor=ana))
    assert t.state.pending == []
    assert t.state.turn == bob
    assert t.c(ogre).hp == 40 and t.c(ogre).reaction is True


def test_action_points_removed_defender_frees_the_attacker():
    """RULINGS 3: removing a combatant never breaks the turn. The Ogre is removed while its
    Parry window holds Ana's attack: the window goes and Ana may end her turn."""
    t, ana, bob, ogre = ap_table(ogre=True)
    ok(t.act(ana, "basic_attack", target=ogre))
    ok(t.gm("remove_combatant", actor=ogre))
    assert t.state.pending == []
    ok(t.player("end_turn", actor=ana))
