"""Rules that were missing or partial (issue 33, items 4-12).

Each test's docstring names the rules text and section it proves and paraphrases the
sentence. Dice are made predictable as in test_action_ladder.
"""

from __future__ import annotations

from tests.said import said

from .test_action_ladder import add_effect, duel, effects, end, fighter, ok, refused, res, texts
from .test_action_points import table


def test_action_points_tells_the_gm_when_an_opportunity_attack_is_skipped():
    """action-points.md, Opportunity Attacks: the creature left behind may use its Reaction
    for a Basic Attack, resolved as a normal melee attack with its weapon; RULINGS ladder 8
    (the engine asks for a missing stat rather than guessing). An enemy without a damage
    stat gets no window, and the GM alone is told who and which stat."""
    t, ana, bob, ogre = table()
    t.c(ogre).stats.pop("damage")
    assert t.player("engage", actor=ana, target=ogre).ok
    out = ok(t.act(ana, "move"))
    assert t.state.pending == []
    notice = next(e for e in out.events if e["kind"] == "gm_notice")
    assert notice["gm_only"]
    assert "Ogre gets no Opportunity Attack on Ana" in said(notice)
    assert "no damage stat" in said(notice)


def test_running_start_cannot_exceed_the_metres_moved_this_turn():
    """action-ladder.md, Jumping: a running jump's distance grows by 1 m for each metre
    of running start, so the running start is ground already covered this turn: as the
    first act of a turn a 10 m run-up is refused, naming the rule."""
    t, a, b = duel(a_stats=fighter(AGI={"dice": "1d8", "bonus": 8}), a_fields={"speed": 6})
    msg = refused(t.act(a, "jump", kind="running", run_up=10), "run_up_too_long")
    assert "running start" in msg and "Jumping" in msg
    assert res(t, a)["effort"] == 2
    ok(t.act(a, "walk"))  # 2 m
    refused(t.act(a, "jump", kind="running", run_up=3), "run_up_too_long")
    ok(t.act(a, "jump", kind="running", run_up=2))


def test_folded_running_jump_uses_the_moves_own_metres():
    """action-ladder.md, Jumping: a jump folded into a Walk, Run or Sprint takes its run-up
    from that move's metres (and earlier ones this turn), never more."""
    t, a, b = duel(a_stats=fighter(AGI={"dice": "1d8", "bonus": 8}), a_fields={"speed": 6})
    refused(t.act(a, "run", jump="running", run_up=7), "run_up_too_long")
    ok(t.act(a, "run", jump="running", run_up=6))


def test_shove_push_ends_the_engagement_without_provoking():
    """action-ladder.md, Shove: the loser is moved back; forced movement is the shover's
    doing, so the pair is no longer in melee and the pushed one's next Walk opens no
    Attack of Opportunity (action-ladder.md, Reactions: only an enemy leaving your reach
    with a Movement Action provokes)."""
    t, a, b = duel(
        a_stats=fighter(STR={"dice": "1d1", "bonus": 20}),
        b_stats=fighter(STR={"dice": "1d1", "bonus": 0}),
    )
    ok(t.player("engage", actor=a, target=b))
    out = ok(t.act(a, "shove", target=b))
    assert "out of Ana's reach" in texts(out)
    assert t.c(a).engaged == [] and t.c(b).engaged == []
    assert t.state.pending == []
    end(t)
    ok(t.act(b, "stand_up"))
    end(t)
    end(t)
    ok(t.act(b, "walk"))
    assert t.state.pending == []


def test_falling_prone_in_waist_deep_water_starts_swimming():
    """action-ladder.md, Standing Up and Going Prone: you cannot fall prone in water
    waist-deep or deeper; you begin to swim instead. So Fall Prone there (½ Action) starts
    Swimming, not Prone, and from then on only Swim (or a Step out) moves."""
    t, a, b = duel()
    out = ok(t.act(a, "fall_prone", deep_water=True))
    assert "begins to swim" in texts(out)
    assert "Swimming" in effects(t, a) and "Prone" not in effects(t, a)
    assert res(t, a)["effort"] == 1
    refused(t.act(a, "walk"), "swimming")


def test_climbing_leaves_no_hand_to_catch():
    """action-ladder.md, Climbing: while climbing both hands are unavailable; Catch in
    Detail: Catch needs a free hand. A climber gets no Catch window: a tossed item lands
    at its feet."""
    t, a, b = duel()
    add_effect(t, b, "Climbing")
    out = ok(t.act(a, "toss", target=b, weight=1, text="a rope"))
    assert t.state.pending == []
    assert "lands at Bo's feet" in texts(out)


def test_ledge_grab_on_a_jump_folded_into_a_move():
    """action-ladder.md, Jumping: if you grab an overhead ledge with a jump, add your
    height to the total jump height; a jump folded into a Walk, Run or Sprint may grab one
    too."""
    t, a, b = duel(
        a_stats=fighter(AGI={"dice": "1d8", "bonus": 8}), a_fields={"speed": 10, "height_cm": 180}
    )
    out = ok(t.act(a, "run", jump="standing", ledge=True))
    assert "height 2.6 m" in texts(out)


def test_api_docs_show_how_to_choose_the_defence_reaction():
    """docs/api.md documents how a defence window is answered through the JSON API; its
    example (a Parry with AGI, keeping Guard) uses the option names the engine reads
    (action-ladder.md, Reactions: Dodge, Parry, Block)."""
    import json
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", doc, re.S)
    example = json.loads(next(b for b in blocks if '"reaction": "parry"' in b))
    t, a, b = duel()
    ok(t.act(a, "attack", target=b))
    [w] = t.state.pending
    out = ok(t.player("react", actor=b, window=w.id, accept=True, options=example["options"]))
    assert "Parry (AGI" in texts(out)
    assert res(t, b)["bonus"] == 1


def test_assist_is_a_bonus_action_on_an_ally():
    """action-ladder.md, Action Types: Assist is a Bonus Action ('a quick task that takes
    no more than a second'). It costs one Bonus Action and no effort, needs someone to
    help (not itself), and marks the ally Assisted until the helper's next turn; the text
    gives no number, so the GM judges the help (docs/rules.md)."""
    t, a, b = duel()
    refused(t.act(a, "assist"), "missing_option")
    refused(t.act(a, "assist", target=a), "bad_target")
    out = ok(t.act(a, "assist", target=b, text="holding the door"))
    assert "Ana Assists Bo with holding the door" in texts(out)
    assert "Assisted" in effects(t, b)
    assert res(t, a)["effort"] == 2 and res(t, a)["bonus"] == 1
    end(t)
    end(t)
    assert "Assisted" not in effects(t, b)
