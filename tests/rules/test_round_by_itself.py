"""Initiative Passes: a round begins by itself when nothing needs the GM (issue 30).

Each test quotes the rule sentence it follows.
"""

from __future__ import annotations

from tests.said import said

from .test_initiative_passes import end, ok, table


def test_with_no_grit_the_next_round_begins_by_itself_and_the_log_says_why():
    """RULINGS Initiative Passes 3: 'The round ends when a pass finishes and no combatant
    is eligible; the next round then starts.' Seize the Moment needs Grit ('a character
    may spend 1 Grit to Seize the Moment'): with none, nobody is asked."""
    t, ana, bob, ogre = table()
    assert t.state.phase == "combat" and t.state.round == 1
    ok(t.gm("hold", actor=ana))
    ok(t.gm("hold", actor=bob))
    ok(t.gm("hold", actor=ogre))
    texts = [said(e) for e in t.log]
    i = texts.index("Round 1 ends.")
    assert texts[i + 1 : i + 3] == [
        "Round 2 begins.",
        "Nobody standing has Grit to Seize the Moment: it began by itself.",
    ]
    assert (t.state.phase, t.state.round, t.state.turn) == ("combat", 2, ana)


def test_grit_held_only_by_the_defeated_asks_nobody():
    """'At the start of any round, before the first combatant acts, a character may spend
    1 Grit to Seize the Moment': a defeated combatant acts no more, so its Grit opens no
    window, at the start of combat or between rounds."""
    t, ana, bob, ogre = table(ogre={"grit": 2})
    assert t.state.phase == "seize"
    ok(t.gm("begin_round"))
    ok(t.gm("defeat", actor=ogre))
    end(t, ana)
    end(t, bob)
    assert (t.state.phase, t.state.round, t.state.turn) == ("combat", 2, ana)
    assert t.c(ogre).res["grit"] == 2


def test_while_someone_standing_has_grit_the_gm_still_begins_the_round():
    """'At the start of any round, before the first combatant acts, a character may spend
    1 Grit to Seize the Moment': the window stays open for them; no line says it began by
    itself."""
    t, ana, bob, ogre = table(bob={"grit": 1})
    assert t.state.phase == "seize"
    ok(t.gm("begin_round"))
    assert not any("began by itself" in said(e) for e in t.log)
