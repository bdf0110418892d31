"""Distances from the map wherever a rule needs one (issue 35): a melee attack needs its
target within the attacker's reach, Aid an ally within reach, Interrupt an adjacent enemy;
a Throw's and a Toss's range, and a Shove's push, are measured on the map. Without a map,
or with either token off it, nothing is measured. Rules tests, no database.

The map (tests/rules/test_reach.py `row`): 12 × 3 cells of 1 m, Ana (PC) at A2, the Ogre
at A1 next to her, the Goblin at F1, 5 m from her (five columns and one row: the second
diagonal step counts two, the board's default "1-2-1")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules.board import footprint
from combat.rules.paths import gap, push, push_line, within
from combat.rules.state import Effect
from combat.rules.table import Table
from combat.rules.view import UNSEEN
from tests.rules.test_action_ladder import fighter
from tests.rules.test_reach import at, row
from tests.said import said

ATTACKS = {
    "action_points": "basic_attack",
    "initiative_passes": "attack",
    "action_ladder": "attack",
}


@pytest.mark.parametrize("ruleset", sorted(ATTACKS))
def test_a_melee_attack_on_a_target_out_of_reach_is_refused_with_the_numbers(ruleset):
    """Issue 35: "melee attacks need the target in reach"; the Goblin stands 5 m from Ana,
    who reaches 1 m (one cell, none set)."""
    t, ana, ogre, gob = row(ruleset)
    out = t.act(ana, ATTACKS[ruleset], target=gob)
    assert out.refusal.code == "out_of_reach"
    args = out.refusal.args
    assert (args["who"], args["what"], args["target"]) == (ana, ATTACKS[ruleset], gob)
    assert (args["reach"], args["distance"]) == (1.0, 5.0)
    assert out.refusal.message.startswith("Goblin is 5 m from Ana, beyond its reach of 1 m: ")
    assert t.c(gob).hp == 10  # nothing happened
    assert t.act(ana, ATTACKS[ruleset], target=ogre).ok  # next to her


@pytest.mark.parametrize("ruleset", sorted(ATTACKS))
def test_a_ranged_attack_is_not_limited_by_reach(ruleset):
    """Only a melee attack needs its target within reach: a ranged one reaches the Goblin."""
    t, ana, ogre, gob = row(ruleset)
    out = t.act(ana, ATTACKS[ruleset], target=gob, ranged=True)
    assert out.ok, out.refusal


def test_a_longer_reach_strikes_from_farther():
    """A token's reach in metres (a spear, a long arm) is how far its melee attacks go."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=ana, reach=5).ok
    assert t.act(ana, "basic_attack", target=gob).ok
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=ana, reach=4).ok
    out = t.act(ana, "basic_attack", target=gob)
    assert out.refusal.code == "out_of_reach" and out.refusal.args["reach"] == 4.0


def test_without_a_map_or_off_it_nothing_is_measured():
    """An encounter without a map, or a combatant without a placed token, plays as before."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=gob, cell="off").ok
    assert t.act(ana, "basic_attack", target=gob).ok
    t, ana, ogre, gob = row()
    assert t.gm("remove_board").ok
    assert t.act(ana, "basic_attack", target=gob).ok


def test_a_player_reads_a_hidden_target_as_someone_unseen():
    """A refusal names no combatant its reader cannot see (docs/api.md, Refusal codes)."""
    t, ana, ogre, gob = row()
    assert t.gm("hide", actor=gob, hidden=True).ok
    out = t.act(ana, "basic_attack", target=gob, by="gm")
    assert out.refusal.code == "out_of_reach"
    seen = out.refusal.to_reader({gob})
    assert seen.message.startswith(f"{UNSEEN[0].upper()}{UNSEEN[1:]} is 5 m from Ana")
    assert "Goblin" not in seen.message and gob not in seen.args.values()


def test_the_action_ladders_touching_actions_need_reach_too():
    """Trip, Disarm and Shove lay hands (or a weapon) on the target: within reach only."""
    for action in ("trip", "disarm", "shove"):
        t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
        out = t.act(ana, action, target=gob)
        assert out.refusal.code == "out_of_reach", (action, out.refusal)


def test_aid_needs_an_ally_within_reach():
    """ "Aid an ally within reach" (action-ladder.md, Basic Combat Actions)."""
    t, ana, ogre, gob = row("action_ladder")
    bea = t.gm("add_combatant", name="Bea", side="pc", hp=20, stats=fighter())
    assert t.gm("place", actor=bea, cell="E3").ok
    t.c(bea).effects.append(Effect("Burning", "never", None, {"stacks": 4}, "burning"))
    out = t.act(ana, "aid", target=bea, condition="burning")
    assert out.refusal.code == "out_of_reach", out.refusal
    assert out.refusal.message == (
        "Bea is 4 m from Ana, beyond its reach of 1 m: Aid needs its target within reach "
        "(action-ladder.md, Aid: 'Aid an ally within reach')."
    )
    assert t.gm("place", actor=bea, cell="B3").ok
    out = t.act(ana, "aid", target=bea, condition="burning")
    assert out.ok, out.refusal


def test_interrupt_needs_an_enemy_next_to_it_not_only_within_reach():
    """ "Interrupt an adjacent enemy (e.g. casting a spell or readying a ranged attack)"
    (action-ladder.md, Reactions). The Goblin's long spear (3 m) holds Ana in melee from
    D2, but only the Ogre, next to her, may Interrupt her ranged attack."""
    t, ana, ogre, gob = row("action_ladder")
    assert t.gm("place", actor=gob, cell="D2", reach=3).ok
    assert gob in t.c(ana).engaged
    out = t.act(ana, "attack", target=gob, ranged=True)
    assert out.ok, out.refusal
    assert [(w.kind, w.reactor) for w in t.state.pending] == [("interrupt", ogre)]
    t, ana, ogre, gob = row("action_ladder")
    assert t.gm("place", actor=gob, cell="D2", reach=3).ok
    out = t.act(gob, "interrupt", by="gm", target=ana)
    assert out.refusal.code == "out_of_reach", out.refusal
    assert out.refusal.args["adjacent"] is True and out.refusal.args["distance"] == 3.0
    assert "not next to it: Interrupt needs an adjacent target" in out.refusal.message


# --- Throw and Toss ranges ---------------------------------------------------------------------


def test_a_throws_range_is_measured_on_the_map():
    """ "You can throw an item up to your STR Bonus − Item Weight in meters. Weapons with
    the Thrown(X) property gain additional range equal to X meters" (action-ladder.md,
    Throw Range). Ana's STR bonus is 6: an item of weight 2 flies 4 m, the Goblin stands
    5 m away, whatever distance was declared; Thrown(1) makes it 5 m."""
    t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
    out = t.act(ana, "throw", target=gob, weight=2, distance=1)
    assert out.refusal.code == "out_of_range", out.refusal
    assert (out.refusal.args["distance"], out.refusal.args["range"]) == (5.0, 4)
    assert out.refusal.message == (
        "Out of range: Ana throws up to STR bonus 6 − weight 2 + Thrown 0 = 4 m; "
        "Goblin stands 5 m away."
    )
    out = t.act(ana, "throw", target=gob, weight=2, thrown=1, distance=99)
    assert out.ok, out.refusal


def test_a_throw_at_someone_off_the_map_keeps_the_declared_distance():
    """Off the map the table plays as before: the distance declared is the one checked."""
    t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
    assert t.gm("place", actor=gob, cell="off").ok
    assert t.act(ana, "throw", target=gob, weight=2, distance=4).ok
    t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
    assert t.gm("place", actor=gob, cell="off").ok
    assert t.act(ana, "throw", target=gob, weight=2, distance=5).refusal.code == "out_of_range"


def test_a_toss_reaches_the_str_bonus_in_metres_on_the_map():
    """ "Toss a held item weighing no more than half your STR Bonus, up to your STR Bonus
    in meters" (action-ladder.md, Basic Combat Actions): 6 m for Ana."""
    t, ana, ogre, gob = row("action_ladder")
    bea = t.gm("add_combatant", name="Bea", side="pc", hp=20, stats=fighter())
    assert t.gm("place", actor=bea, cell="H2").ok  # 7 m along the row
    out = t.act(ana, "toss", target=bea, weight=1, distance=1)
    assert out.refusal.code == "too_far", out.refusal
    assert (out.refusal.args["metres"], out.refusal.args["allowance"]) == (7.0, 6)
    assert out.refusal.message.endswith("at most the STR bonus, 6 m; Bea stands 7 m away.")
    assert t.gm("place", actor=bea, cell="G2").ok
    out = t.act(ana, "toss", target=bea, weight=1)
    assert out.ok, out.refusal


# --- Shove's push --------------------------------------------------------------------------------


def shoving(ogre_at: str, ana_at: str = "A2") -> tuple:
    """Ana shoves the Ogre and wins: her STR roll is 4 on the dice (+10), so the Ogre is
    "moved back half your STR Roll (rounded down, min 1, no bonus) meters": 2 m; its STR
    save (1) fails against her 14."""
    t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
    t.c(ana).stats["STR"] = {"dice": "4d1", "bonus": 10}
    t.c(ogre).stats["STR"] = {"dice": "1d1", "bonus": 0}
    assert t.gm("place", actor=gob, cell="off").ok
    if ogre_at != "A1":
        assert t.gm("place", actor=ogre, cell=ogre_at).ok
    if ana_at != "A2":
        assert t.gm("place", actor=ana, cell=ana_at).ok
    return t, ana, ogre, gob


def shove(t, ana, ogre) -> dict:
    out = t.act(ana, "shove", target=ogre)
    assert out.ok, out.refusal
    [e] = [e for e in out.events if e.get("say") == "ladder.shove"]
    assert t.state.pending == []  # "Forced movement ... does not provoke"
    return e


def test_a_shove_pushes_the_target_back_along_the_line_without_provoking():
    """ "if the target loses they are moved back half your STR Roll ... meters"
    (action-ladder.md, Shove); a push is forced movement and opens no window. The Ogre,
    next to Ana on her right, goes 2 m further right; the log says where it lands."""
    t, ana, ogre, gob = shoving("B2")
    e = shove(t, ana, ogre)
    assert at(t, ogre) == "D2"
    assert (e["data"]["to"], e["data"]["moved"], e["data"]["stopped"]) == ("D2", 2.0, None)
    assert "Ogre is pushed back 2 m, to D2 and falls prone" in said(e)
    assert t.c(ana).engaged == [] and t.c(ogre).engaged == []


def test_a_wall_another_token_or_the_edge_stops_the_push():
    """ "the target moves back along the line, stopping at walls" (issue 35): it stays on
    the last open cell, and the log says what stopped it."""
    t, ana, ogre, gob = shoving("B2")
    assert t.gm("paint", cells="C2", terrain="wall").ok
    e = shove(t, ana, ogre)
    assert at(t, ogre) == "B2" and e["data"]["stopped"] == "wall"
    assert "pushed back 0 of 2 m, to B2, where a wall stops it" in said(e)
    assert t.c(ogre).engaged == [ana]  # still next to her: still in melee
    t, ana, ogre, gob = shoving("B2")
    assert t.gm("place", actor=gob, cell="D2").ok
    e = shove(t, ana, ogre)
    assert at(t, ogre) == "C2" and e["data"]["stopped"] == "token"
    assert "pushed back 1 of 2 m, to C2, where someone in the way stops it" in said(e)
    t, ana, ogre, gob = shoving("A1")  # above her, on the map's top row
    e = shove(t, ana, ogre)
    assert at(t, ogre) == "A1" and e["data"]["stopped"] == "edge"
    assert "where the map's edge stops it" in said(e)


def test_a_diagonal_push_counts_its_metres_by_the_boards_diagonal_rule():
    """Diagonally up and right from Ana: one diagonal cell is 1 m, the next would make 3 m
    under "1-2-1", more than the 2 m of the push."""
    t, ana, ogre, gob = shoving("B2", ana_at="A3")
    e = shove(t, ana, ogre)
    assert at(t, ogre) == "C1"
    assert (e["data"]["moved"], e["data"]["stopped"]) == (1.0, None)


def test_without_a_map_the_shove_is_told_as_before():
    t, ana, ogre, gob = shoving("B2")
    assert t.gm("remove_board").ok
    e = shove(t, ana, ogre)
    assert "to" not in e["data"]
    assert "Ogre is pushed back 2 m, out of Ana's reach" in said(e)


@settings(max_examples=60, deadline=None)
@given(
    walls=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=16),
    pusher=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    target=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    size=st.integers(1, 2),
    metres=st.integers(0, 12),
)
def test_a_push_never_goes_through_a_wall_or_off_the_map(walls, pusher, target, size, metres):
    """Issue 35: a Shove's push stops at walls; the token stays on the map, on open
    ground, off everyone else's cells, and no farther than the push."""
    t = Table("action_ladder", seed=1)
    ana = t.gm("add_combatant", name="Ana", side="pc", hp=9, stats=fighter())
    ogre = t.gm("add_combatant", name="Ogre", side="npc", hp=9, stats=fighter())
    assert t.gm("set_board", width=8, height=8).ok
    if not t.gm("place", actor=ana, cell=f"{pusher[0]},{pusher[1]}").ok:
        return
    if not t.gm("place", actor=ogre, cell=f"{target[0]},{target[1]}", size=size).ok:
        return
    taken = {tuple(c) for c in footprint(t.state.board["tokens"][ana]["at"], 1)}
    taken |= {tuple(c) for c in footprint(t.state.board["tokens"][ogre]["at"], size)}
    for x, y in walls:
        if (x, y) not in taken:
            t.gm("paint", cells=f"{x},{y}", terrain="wall")
    board = t.state.board
    start = tuple(board["tokens"][ogre]["at"])
    pushed = push(t.state, t.c(ana), t.c(ogre), float(metres))
    assert pushed is not None and pushed.start == start
    end = tuple(board["tokens"][ogre]["at"])
    assert end == pushed.at and pushed.metres <= metres
    walled = {k for k, v in board["terrain"].items() if v == "wall"}
    line = push_line(start, size, board["tokens"][ana]["at"], 1)
    passed = [start]
    while passed[-1] != end:
        passed.append(next(line))  # every cell the token went through, in order
        assert len(passed) <= 20
    for x, y in passed:
        for cx, cy in footprint([x, y], size):
            assert 0 <= cx < 8 and 0 <= cy < 8
            assert f"{cx},{cy}" not in walled
    mine = set(footprint(list(end), size))
    assert not mine & set(footprint(board["tokens"][ana]["at"], 1))


# --- walls cut reach -----------------------------------------------------------------------------


def test_a_wall_between_them_cuts_reach():
    """Issue 35: distances from the map "wherever a rule needs one": an enemy behind a wall
    is not within reach through it. Ana's 2 m spear reaches the Goblin at C2 over open
    ground; with a wall along column B between them it does not, and they are not in
    melee."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=ogre, cell="L3").ok
    assert t.gm("place", actor=gob, cell="C2").ok
    assert t.gm("place", actor=ana, reach=2).ok
    assert t.c(ana).engaged == [gob]
    assert t.gm("paint", cells="B1:B3", terrain="wall").ok
    assert t.c(ana).engaged == []
    out = t.act(ana, "basic_attack", target=gob)
    assert out.refusal.code == "out_of_reach" and out.refusal.args["walled"] is True
    assert out.refusal.message.startswith(
        "Goblin is 2 m from Ana, but a wall stands between them: Basic Attack needs its "
        "target within reach"
    )


def test_reach_goes_around_a_wall_when_it_is_long_enough():
    """The count goes around walls, and a diagonal never cuts a corner of a wall: with one
    wall cell at B2, a spear at C2 reaches Ana at A2 the long way, C1, B1, A1, then A2:
    4 cells, so 4 m does and 3 m does not."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=ogre, cell="L3").ok
    assert t.gm("place", actor=gob, cell="C2", reach=4).ok
    assert t.gm("paint", cells="B2", terrain="wall").ok
    assert t.c(ana).engaged == [gob]
    assert t.gm("place", actor=gob, reach=3).ok
    assert t.c(ana).engaged == []


def test_a_corner_of_wall_cuts_reach_between_diagonal_neighbours():
    """Next to each other diagonally, with a wall on a cell the diagonal would cut: no
    reach, as no step of a path cuts such a corner (paths.py)."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=ogre, cell="B1").ok
    assert t.c(ana).engaged == [ogre]
    assert t.gm("paint", cells="A1", terrain="wall").ok
    assert t.c(ana).engaged == []
    out = t.act(ana, "basic_attack", target=ogre)
    assert out.refusal.code == "out_of_reach" and out.refusal.args["distance"] == 1.0


@settings(max_examples=80, deadline=None)
@given(
    a=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    b=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    wall_x=st.integers(0, 7),
    holes=st.lists(st.integers(0, 7), max_size=3),
    cells=st.integers(1, 6),
)
def test_reach_never_passes_through_a_wall(a, b, wall_x, holes, cells):
    """A wall cuts reach: across a wall column, reach goes only through its gaps, and is
    never longer than the straight count; with no wall it is the straight count."""
    board = {"width": 8, "height": 8, "cell_m": 1.0, "terrain": {}, "tokens": {}}
    open_ground = within(board, list(a), 1, list(b), 1, cells)
    assert open_ground == (gap(board, list(a), 1, list(b), 1) <= cells)
    if wall_x in (a[0], b[0]):
        return
    board["terrain"] = {f"{wall_x},{y}": "wall" for y in range(8) if y not in holes}
    walled = within(board, list(a), 1, list(b), 1, cells)
    assert not walled or open_ground
    across = (a[0] < wall_x) != (b[0] < wall_x)
    if across and not holes:
        assert not walled
