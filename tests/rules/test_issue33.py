"""Rules that were missing or partial (issue 33, items 4-12).

Each test's docstring names the rules text and section it proves and paraphrases the
sentence. Dice are made predictable as in test_action_ladder.
"""

from __future__ import annotations

from .test_action_ladder import ok
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
    assert "Ogre gets no Opportunity Attack on Ana" in notice["text"]
    assert "no damage stat" in notice["text"]
