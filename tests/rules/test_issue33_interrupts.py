"""Interrupts and reaction windows from issue 33, items 1-3.

Each test's docstring names the rules text and section it proves and paraphrases the
sentence. Dice are made predictable as in test_action_ladder and test_action_points.
"""

from __future__ import annotations

from combat.rules.view import windows_for
from tests.said import said

from .test_action_ladder import duel, end, fighter, ok, refused, res, texts, trio


def kinds(t) -> list[str]:
    return [w.kind for w in t.state.pending]


# --- item 1: an Interrupt that hits loses the target's Action -------------------------


def test_interrupt_cancels_an_attack_held_in_its_targets_defence_window():
    """action-ladder.md, Reactions, Interrupt: 'on a hit, their Action is lost and you deal
    Attack damage'; RULINGS ladder 2: being Interrupted loses it. Bo's attack on Ana waits
    for Ana's defence; Cy, in melee with Bo, Interrupts and hits: the held attack deals no
    damage and Ana's window closes."""
    t, a, b, c = trio(seed=3)
    ok(t.gm("engage", actor=c, target=b))
    ok(t.gm("set_modifier", actor=c, key="defence_prompts", value=False))
    ok(t.gm("set_modifier", actor=b, key="defence_prompts", value=False))
    end(t)  # Bo's turn
    ok(t.act(b, "attack", target=a))
    [w] = t.state.pending
    assert w.kind == "defend" and w.reactor == a
    out = ok(t.act(c, "interrupt", target=b))
    assert "Attack on Ana is lost" in texts(out)
    assert t.state.pending == []
    assert t.c(a).hp == 30  # the held attack dealt nothing
    assert t.c(b).hp == 25  # the Interrupt's 1d1+4
    refused(t.player("react", actor=a, window=w.id), "no_window")


def test_interrupt_window_loses_a_declared_spell():
    """action-ladder.md, Reactions, Interrupt: 'Interrupt an adjacent enemy (e.g. casting a
    spell ...)'; on a hit their Action is lost. The spell Bo declares waits on Ana's
    Interrupt window; Ana answers, hits, and the spell is never cast."""
    t, a, b = duel(defence_prompts=False)
    ok(t.player("engage", actor=a, target=b))
    end(t)
    ok(t.act(b, "ability", length="half", text="Firebolt"))
    [w] = t.state.pending
    assert w.kind == "interrupt" and w.reactor == a and w.trigger == b
    out = ok(t.player("react", actor=a, window=w.id))
    assert "Ana Interrupts Bo: Ability or Spell is lost" in texts(out)
    assert "takes Ability or Spell" not in texts(out)
    assert t.c(b).hp == 25 and res(t, a)["bonus"] == 0
    assert t.state.pending == [] and "declared" not in t.c(b).turn


# --- item 2: Interrupt windows when a spell or ranged attack is declared ---------------


def test_ranged_attack_waits_for_the_interrupt_window_then_resolves_when_passed():
    """action-ladder.md, Reactions, Interrupt: an adjacent enemy may Interrupt one
    'readying a ranged attack' for 2 Bonus Actions. Declaring a ranged attack offers each
    engaged enemy that can pay an Interrupt window; the attack waits, and goes on (to the
    defender's own window) once the window is passed."""
    t, a, b, c = trio()
    ok(t.gm("engage", actor=a, target=b))
    out = ok(t.act(a, "attack", target=c, ranged=True))
    assert kinds(t) == ["interrupt"]
    assert "Bo may Interrupt it" in texts(out)
    refused(t.player("end_turn", actor=a), "waiting_for_reactions")
    [w] = t.state.pending
    ok(t.player("react", actor=b, window=w.id, accept=False))
    assert kinds(t) == ["defend"] and t.state.pending[0].reactor == c


def test_interrupt_window_is_not_offered_to_an_enemy_short_of_bonus_actions():
    """action-ladder.md, Reactions: Interrupt costs 2 Bonus Actions. An adjacent enemy with
    one left gets no window, and the spell goes on at once."""
    t, a, b = duel(defence_prompts=False)
    ok(t.player("engage", actor=a, target=b))
    t.c(a).res["bonus"] = 1
    end(t)
    out = ok(t.act(b, "ability", length="half", text="Firebolt"))
    assert t.state.pending == []
    assert "Bo takes Ability or Spell" in texts(out)


def test_missed_interrupt_lets_the_spell_go_on():
    """action-ladder.md, Reactions, Interrupt: only 'on a hit' is the Action lost; a miss
    leaves the declared spell to resolve."""
    t, a, b = duel(a_stats=fighter(attack={"dice": "1d1", "bonus": -50}), defence_prompts=False)
    ok(t.player("engage", actor=a, target=b))
    end(t)
    ok(t.act(b, "ability", length="half", text="Firebolt"))
    [w] = t.state.pending
    out = ok(t.player("react", actor=a, window=w.id))
    assert "miss" in texts(out) and "Bo takes Ability or Spell" in texts(out)
    assert t.state.pending == []


def test_hidden_interrupters_window_is_the_gms_alone():
    """A hidden combatant's window never reveals it (docs/rules.md, hidden combatants): the
    Interrupt window a hidden Bo holds on Ana's spell is shown to the GM only, and Ana's
    player is told only that the table waits for the GM."""
    t, a, b = duel(defence_prompts=False)
    ok(t.player("engage", actor=a, target=b))
    ok(t.gm("hide", actor=b, hidden=True))
    out = ok(t.act(a, "ability", length="half", text="Firebolt"))
    assert kinds(t) == ["interrupt"]
    assert windows_for(t.state, "player") == []
    assert len(windows_for(t.state, "gm")) == 1
    assert all(e["gm_only"] for e in out.events if "Bo" in said(e))
    msg = refused(t.player("end_turn", actor=a), "waiting_for_reactions")
    assert msg == "Waiting for the GM."


# --- item 3: Action Points, the target's Parry or Intercept window --------------------


def ap_table(**prompts):
    from .test_action_points import table

    t, ana, bob, ogre = table()
    for who, on in prompts.items():
        cid = {"ana": ana, "bob": bob, "ogre": ogre}[who]
        ok(t.gm("set_modifier", actor=cid, key="defence_prompts", value=on))
    return t, ana, bob, ogre


def test_action_points_attack_waits_for_the_targets_parry():
    """action-points.md, Reactions: 'Free (no AP cost), once per round. Triggered by specific
    events (e.g. opportunity attacks, parries, intercepts ...)'. With prompts on, a Basic
    Attack on the Ogre opens its Parry window; the attack resolves after the answer, and
    the Parry adds the Parry bonus to that defence and uses the Reaction."""
    t, ana, bob, ogre = ap_table(ogre=True)
    out = ok(t.act(ana, "basic_attack", target=ogre))
    [w] = t.state.pending
    assert w.kind == "defend" and w.reactor == ogre and w.detail["choices"] == ["parry"]
    assert "Ogre may Parry" in texts(out)
    assert t.c(ogre).hp == 40
    refused(t.player("end_turn", actor=ana), "waiting_for_reactions")
    refused(
        t.player("react", actor=ogre, window=w.id, options={"reaction": "intercept"}),
        "reaction_not_allowed",
    )
    out = ok(t.gm("react", actor=ogre, window=w.id, options={"reaction": "parry"}))
    assert "(Parry +2)" in texts(out)
    assert t.c(ogre).reaction is False
    assert t.c(ogre).hp == 35  # SURE_HIT: 51 still beats 1 + 2


def test_action_points_ranged_attack_offers_intercept_and_decline_rolls_plainly():
    """action-points.md, Reactions: intercepts are reactions; a ranged attack or a spell is
    met by an Intercept, not a Parry. Declining rolls the attack on the plain defence."""
    t, ana, bob, ogre = ap_table(ana=True)
    end_ = t.player("end_turn", actor=ana)
    assert end_.ok
    ok(t.player("end_turn", actor=bob))
    ok(t.act(ogre, "basic_attack", target=ana, ranged=True))
    [w] = t.state.pending
    assert w.detail["choices"] == ["intercept"]
    out = ok(t.player("react", actor=ana, window=w.id, accept=False))
    assert "hit for 5 damage" in texts(out) and "Intercept" not in texts(out)
    assert t.c(ana).reaction is True


def test_action_points_no_window_without_reaction_or_with_prompts_off():
    """action-points.md, Reactions: 'a character can take only one reaction between the start
    of their turn and the start of their next turn'. With the Reaction spent, or the GM's
    prompts off (the default), the attack resolves at once as before."""
    t, ana, bob, ogre = ap_table()
    ok(t.act(ana, "basic_attack", target=ogre))
    assert t.state.pending == [] and t.c(ogre).hp == 35
    t, ana, bob, ogre = ap_table(ogre=True)
    ok(t.act(ogre, "reaction", by="gm", text="a stunt"))
    ok(t.act(ana, "basic_attack", target=ogre))
    assert t.state.pending == [] and t.c(ogre).hp == 35


def test_action_points_parry_window_from_a_hidden_attacker_keeps_it_unseen():
    """A hidden attacker's window reaches its target's player without naming it
    (docs/rules.md, hidden combatants): the player sees the window, not who attacks."""
    t, ana, bob, ogre = ap_table(ana=True)
    ok(t.gm("hide", actor=ogre, hidden=True))
    ok(t.player("end_turn", actor=ana))
    ok(t.player("end_turn", actor=bob))
    ok(t.act(ogre, "basic_attack", by="gm", target=ana))
    [w] = windows_for(t.state, "player")
    assert w["trigger"] is None and w["trigger_unseen"]
    assert "Ogre" not in str(w) and ogre not in str(w)
