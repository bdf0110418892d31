"""Action Ladder rules the server enforces instead of leaving them to the GM
(action-ladder.md; issue 14, "Rules the server can enforce").

Each test's docstring names the rule it proves. Dice are made predictable as in
test_action_ladder: the attack stat is 1d1, defence and damage 1d1 plus a bonus.
"""

from __future__ import annotations

from .test_action_ladder import duel, ok, refused, res


def test_throw_needs_its_distance():
    """action-ladder.md, Throw Range: an item is thrown up to STR bonus − item weight
    metres, so a Throw is declared with its distance; without one it is refused, and
    nothing is paid."""
    t, a, b = duel(defence_prompts=False)
    msg = refused(t.act(a, "throw", target=b, weight=1), "missing_option")
    assert "distance" in msg and "throw range" in msg.lower()
    assert res(t, a)["effort"] == 2
    ok(t.act(a, "throw", target=b, weight=1, distance=5))
