"""Issue 35, the battle map, part two, first step: a movement action given a destination
cell. The server finds the cheapest path ("walls block, difficult terrain costs double,
diagonals by a GM setting: 1-1-1 or 1-2-1"), charges it against the action's allowance
("Allowances are the ruleset's") and refuses "a path longer than the allowance ... with
the numbers"."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import preview
from combat.rules.integrity import check
from combat.rules.paths import find_path, plan
from combat.rules.table import Table
from tests.said import said

AGI = {"AGI": {"dice": "1d8", "bonus": 2}}


def board(ruleset: str = "action_ladder", w: int = 10, h: int = 10, **settings) -> tuple:
    """Ana (PC, acting first) at A1 and Bo (NPC) at J10 on a w × h map of 1 m cells."""
    t = Table(ruleset, seed=1, **settings)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=20, hp=30, stats=AGI)
    bo = t.gm("add_combatant", name="Bo", side="npc", initiative=10, hp=30, stats=AGI)
    assert t.gm("start_combat").ok
    assert t.gm("set_board", width=w, height=h).ok
    assert t.gm("place", actor=ana, cell="A1").ok
    assert t.gm("place", actor=bo, cell=f"{w - 1},{h - 1}").ok
    return t, ana, bo


def at(t: Table, cid: str) -> list[int]:
    return t.state.board["tokens"][cid]["at"]


def cost(t: Table, cid: str, to: str, action: str = "walk") -> float:
    return plan(t.state, cid, action, to)["cost"]


# --- the path ---------------------------------------------------------------------------


def test_a_straight_line_costs_one_cell_a_step():
    t, ana, _ = board(speed=12)
    p = plan(t.state, ana, "walk", "D1")
    assert p["path"] == ["B1", "C1", "D1"]
    assert (p["metres"], p["cost"], p["allowance"], p["ok"]) == (3.0, 3.0, 4.0, True)


def test_walls_block_and_the_path_goes_around():
    """ "walls block" (issue 35)."""
    t, ana, _ = board(speed=30)
    t.gm("paint", cells="B1:B9", terrain="wall")
    p = plan(t.state, ana, "walk", "C1")
    assert "B1" not in p["path"] and all(not c.startswith("B") or c == "B10" for c in p["path"])
    assert p["path"][-1] == "C1"
    t.gm("paint", cells="B10", terrain="wall")
    assert "cannot reach C1" in plan(t.state, ana, "walk", "C1")["reason"]


def test_difficult_terrain_costs_double():
    """ "Difficult Terrain costs you half your Movement Speed" (action-ladder.md, Basic
    Movement): on the map each metre of it is paid twice."""
    t, ana, _ = board(speed=12)
    t.gm("paint", cells="A2:J2", terrain="difficult")
    p = plan(t.state, ana, "walk", "A3")
    assert (p["metres"], p["cost"]) == (2.0, 3.0)
    assert "(1 m of difficult terrain counts double)" in p["summary"]


def test_waist_deep_water_is_difficult_on_foot_and_deep_water_is_refused():
    """ "Examples include waist-deep water" (of difficult terrain, action-ladder.md);
    "Swim in water" (issue 35): walking never enters deep water."""
    t, ana, _ = board(speed=12)
    t.gm("paint", cells="B1", terrain="water")
    assert cost(t, ana, "B1") == 2.0
    t.gm("paint", cells="A2:B2 B1", terrain="deep_water")
    assert "cannot reach C1 by any path" in plan(t.state, ana, "walk", "C1")["reason"]


def test_diagonals_1_2_1_count_every_second_diagonal_double():
    """ "diagonals by a GM setting: 1-1-1 or 1-2-1" (issue 35); 1-2-1 is the default."""
    t, ana, _ = board(speed=30)
    assert cost(t, ana, "B2") == 1.0
    assert cost(t, ana, "C3") == 3.0
    assert cost(t, ana, "D4") == 4.0
    assert cost(t, ana, "E5") == 6.0
    assert t.gm("set_board", diagonals="1-1-1").ok
    assert t.state.board["diagonals"] == "1-1-1"
    assert "diagonals 1-1-1" in said(t.last.events[-1])
    assert cost(t, ana, "E5") == 4.0
    assert t.gm("set_board", diagonals="1-2-1").ok
    assert "diagonals" not in t.state.board  # the default is kept as absence
    t.gm("set_board", diagonals="2-2-2")
    assert t.refusal().message == "Diagonals must be 1-2-1 or 1-1-1."


def test_a_diagonal_step_does_not_cut_a_wall_corner():
    t, ana, _ = board(speed=30)
    assert plan(t.state, ana, "walk", "B2")["path"] == ["B2"]
    t.gm("paint", cells="B1", terrain="wall")
    assert plan(t.state, ana, "walk", "B2")["path"] == ["A2", "B2"]  # around the corner
    t.gm("paint", cells="A2", terrain="wall")
    assert "cannot reach B2" in plan(t.state, ana, "walk", "B2")["reason"]


def test_swim_only_through_water_and_climb_only_along_climbable_cells():
    """ "Climb only along climbable cells ... Swim in water" (issue 35)."""
    t, ana, _ = board(speed=12)
    t.c(ana)
    t.gm("paint", cells="A2:A4", terrain="water")
    t.gm("paint", cells="B1:D1", terrain="climbable")
    assert plan(t.state, ana, "swim", "A4")["ok"]
    assert "only through water" in plan(t.state, ana, "swim", "B2")["reason"]
    assert plan(t.state, ana, "climb", "D1")["path"] == ["B1", "C1", "D1"]
    assert "only along climbable cells" in plan(t.state, ana, "climb", "B2")["reason"]
    # on foot a climbable cell is a cliff face: Walk goes around it
    assert "B1" not in plan(t.state, ana, "walk", "E1")["path"]


def test_a_path_passes_an_ally_but_not_an_enemy_and_never_ends_on_anyone():
    """docs/decisions.md: allies' cells may be passed, enemies' cells block."""
    t, ana, bo = board(speed=30)
    cy = t.gm("add_combatant", name="Cy", side="pc", hp=10)
    t.gm("paint", cells="A2:I2", terrain="wall")
    t.gm("place", actor=cy, cell="B1")
    assert plan(t.state, ana, "walk", "C1")["path"] == ["B1", "C1"]
    assert "Cy stands at B1" in plan(t.state, ana, "walk", "B1")["reason"]
    t.gm("place", actor=bo, cell="B1 ".strip().replace("B1", "J1"))
    t.gm("place", actor=cy, cell="J3")
    t.gm("place", actor=bo, cell="B1")
    p = plan(t.state, ana, "walk", "C1")
    assert "B1" not in p["path"]
    assert "cannot reach C1" in p["reason"]


def test_a_bigger_token_needs_every_cell_it_covers_open():
    t, ana, _ = board(speed=30)
    t.gm("place", actor=ana, cell="A1", size=2)
    t.gm("paint", cells="C2", terrain="wall")
    p = plan(t.state, ana, "walk", "C1")  # would cover C1, D1, C2, D2: C2 is a wall
    assert "cannot reach" in p["reason"]
    assert plan(t.state, ana, "walk", "C3")["ok"]


def test_a_100_by_100_map_stays_fast():
    """ "100x100 must stay fast" (the brief): a long search, and a cell no path reaches."""
    t, ana, bo = board(speed=100, w=100, h=100)
    t.gm("paint", cells="B1:B98 D3:D100 F1:F98", terrain="wall")
    t.gm("paint", cells="H1:Z50", terrain="difficult")
    start = time.perf_counter()
    p = find_path(t.state, t.c(ana), (98, 99))
    assert p is not None
    assert time.perf_counter() - start < 1.0
    t.gm("place", actor=bo, cell="A100")
    t.gm("paint", cells="CU100 CV99 CU99", terrain="wall")
    start = time.perf_counter()
    assert "cannot reach CV100" in plan(t.state, ana, "run", "CV100")["reason"]
    assert time.perf_counter() - start < 1.0


# --- allowances and the move ----------------------------------------------------------------


def test_ladder_walk_moves_the_token_records_the_metres_and_says_where():
    """ "Walk ½ Action Move up to 1/3 your Speed in meters" (action-ladder.md)."""
    t, ana, _ = board(speed=12)
    out = t.act(ana, "walk", to="C3")
    assert out.ok, out.refusal
    assert at(t, ana) == [2, 2]
    assert t.c(ana).turn["moved"] == 3.0
    assert said(out.events[-1]) == "Ana: Walk (½ Action), 3 m to C3."
    check(t.state, "action_ladder")


def test_ladder_walk_too_far_is_refused_with_the_numbers_and_changes_nothing():
    t, ana, _ = board(speed=12)
    t.gm("paint", cells="B1:B2", terrain="difficult")
    before = t.state.to_dict()
    out = t.act(ana, "walk", to="E1")
    assert out.refusal.code == "too_far"
    assert out.refusal.message == (
        "Walk reaches 4 m; E1 is 5 m away by the shortest path (1 m of difficult terrain "
        "counts double). (Basic Movement: Walk moves a third of your Speed)"
    )
    assert t.state.to_dict() == before


def test_ladder_step_run_and_the_difficult_option_on_a_map():
    """ "Step ... Move up to 2 m"; "Run ... Move your full Speed"; on the map the path pays
    for difficult terrain, so the option does not halve the allowance again."""
    t, ana, _ = board(speed=6)
    assert "Step reaches 2 m" in t.act(ana, "step", to="D1").refusal.message
    assert t.act(ana, "step", to="C1", difficult=True).ok
    assert at(t, ana) == [2, 0]
    assert t.act(ana, "run", to="I1").ok
    assert t.c(ana).turn["moved"] == 8.0


def test_ladder_sprint_stops_where_its_roll_runs_out():
    """ "Sprint ... Move your full Speed + AGI roll" (action-ladder.md): the roll is made
    when the Sprint is taken, so a short roll stops the mover on the way, not a refusal
    that could be tried again."""
    t, ana, _ = board(speed=2, w=20, h=3)
    out = t.act(ana, "sprint", to="T1")
    assert out.ok, out.refusal
    roll = out.events[-1]["rolls"][0]["total"]
    assert at(t, ana) == [2 + roll, 0]
    assert "it stops short of T1" in said(out.events[-1])


def test_without_a_destination_movement_is_exactly_as_today():
    t, ana, _ = board(speed=12)
    out = t.act(ana, "walk")
    assert said(out.events[-1]) == "Ana: Walk (½ Action), up to 4 m."
    assert at(t, ana) == [0, 0]


def test_a_destination_without_a_map_or_a_token_is_refused_in_words():
    t = Table("action_ladder", seed=1)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=20, hp=30)
    t.gm("start_combat")
    assert "no map" in t.act(ana, "walk", to="C4").refusal.message
    t.gm("set_board", width=5, height=5)
    assert "not on the map" in t.act(ana, "walk", to="C4").refusal.message
    t.gm("place", actor=ana, cell="A1")
    assert "off the map" in t.act(ana, "walk", to="Z9").refusal.message


def test_action_points_move_goes_full_speed_per_ap():
    """ "Move — 1 AP. Move up to your full movement speed" (action-points.md)."""
    t, ana, _ = board("action_points", speed=6)
    out = t.act(ana, "move", to="G1")
    assert out.ok, out.refusal
    assert said(out.events[0]) == "Ana moves (walk, 1 AP) 6 m to G1."
    out = t.act(ana, "move", to="I3")
    assert out.ok
    out = t.act(ana, "move", to="A10")
    assert "Move reaches 6 m; A10 is 11 m away" in out.refusal.message
    assert "Movement Actions: Move" in out.refusal.message
    check(t.state, "action_points")


def test_action_points_disengage_moves_up_to_speed():
    """ "Disengage — 2 AP. You can withdraw from a melee opponent up to your speed"."""
    t, ana, _ = board("action_points", speed=4)
    assert "Disengage reaches 4 m" in t.act(ana, "disengage", to="F1").refusal.message
    out = t.act(ana, "disengage", to="E1")
    assert out.ok
    assert "Ana Disengages (2 AP) and moves 4 m to E1" in said(out.events[0])


def test_initiative_passes_movement_is_free_up_to_speed_per_turn():
    """ "Normal movement does not cost AP unless a rule states otherwise"
    (initiative-passes.md); the metres per turn are a per-combatant setting."""
    t, ana, _ = board("initiative_passes", speed=5)
    assert t.act(ana, "move", to="D1").ok
    out = t.act(ana, "move", to="F1")
    assert out.ok
    assert said(out.events[0]) == "Ana moves (no AP) 2 m to F1 (5 m of 5 m this turn)."
    out = t.act(ana, "move", to="G1")
    assert out.refusal.message.startswith("Move reaches 0 m; G1 is 1 m away")
    assert "5 m a turn, 5 m moved already this turn" in out.refusal.message


def test_the_cost_preview_says_the_path_and_its_allowance():
    t, ana, _ = board(speed=12)
    cmd = {"actor": ana, "action": "walk", "options": {"to": "C3"}}
    assert preview(t.state, cmd)[1].endswith("C3 is 3 m away by the shortest path, of 4 m")
    cmd["options"]["to"] = "J1"
    assert "Walk reaches 4 m; J1 is 9 m away" in preview(t.state, cmd)[1]


def test_an_old_board_without_diagonals_still_passes_the_integrity_check():
    t, _, _ = board()
    assert "diagonals" not in t.state.board
    check(t.state, "action_ladder")
    t.gm("set_board", diagonals="1-1-1")
    check(t.state, "action_ladder")


# --- property --------------------------------------------------------------------------------

KINDS = st.sampled_from(["wall", "difficult", "water", "deep_water", "climbable", None])


@settings(max_examples=60, deadline=None)
@given(
    terrain=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), KINDS), max_size=30),
    to=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    ally=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    action=st.sampled_from(["step", "walk", "run", "crawl", "swim", "climb"]),
    one_one=st.booleans(),
)
def test_a_committed_path_keeps_to_its_allowance_walls_and_free_cells(
    terrain, to, ally, action, one_one
):
    """ "a committed path never exceeds its allowance nor crosses a wall" (issue 35)."""
    t, ana, bo = board(speed=9, w=8, h=8)
    cy = t.gm("add_combatant", name="Cy", side="pc", hp=10)
    if ally != (0, 0):
        t.gm("place", actor=cy, cell=f"{ally[0]},{ally[1]}")
    for x, y, kind in terrain:
        t.gm("paint", cells=f"{x},{y}", terrain=kind or "clear")
    if one_one:
        t.gm("set_board", diagonals="1-1-1")
    if action == "crawl":
        t.gm("set_condition", actor=ana, name="Prone")
    p = plan(t.state, ana, action, f"{to[0]},{to[1]}")
    out = t.act(ana, action, to=f"{to[0]},{to[1]}", by="gm")
    if not out.ok:
        assert at(t, ana) == [0, 0]
        return
    assert p["ok"] and p["cost"] <= p["allowance"]
    assert at(t, ana) == list(to)
    assert t.c(ana).turn["moved"] <= p["allowance"]
    walls = {k for k, v in t.state.board["terrain"].items() if v == "wall"}
    assert not {f"{x},{y}" for x, y in [to]} & walls
    from combat.rules.board import parse_cell

    assert all("{},{}".format(*parse_cell(c, t.state.board)) not in walls for c in p["path"])
    others = [tok["at"] for cid, tok in t.state.board["tokens"].items() if cid != ana]
    assert list(to) not in others
    check(t.state, "action_ladder")


def reference_cost(t: Table, cid: str, to: tuple[int, int], mode: str) -> int | None:
    """The cheapest cost by a plain uniform-cost search over (cell, diagonal parity),
    written apart from paths.py: what its guided search must agree with."""
    import heapq

    from combat.rules.paths import terrain_factor

    b = t.state.board
    enemies = {
        tuple(tok["at"])
        for oid, tok in b["tokens"].items()
        if oid != cid and tok["at"] and t.c(oid).side != t.c(cid).side
    }

    def f(x, y):
        if not (0 <= x < b["width"] and 0 <= y < b["height"]) or (x, y) in enemies:
            return 0
        return terrain_factor(b["terrain"].get(f"{x},{y}"), mode)

    one_two_one = b.get("diagonals", "1-2-1") == "1-2-1"
    x0, y0 = b["tokens"][cid]["at"]
    heap, done = [(0, x0, y0, 0)], set()
    while heap:
        cost_, x, y, par = heapq.heappop(heap)
        if (x, y) == to:
            return cost_
        if (x, y, par) in done:
            continue
        done.add((x, y, par))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if (dx, dy) == (0, 0) or not f(x + dx, y + dy):
                    continue
                diag = dx and dy
                if diag and not (f(x + dx, y) and f(x, y + dy)):
                    continue
                step, npar = 1, par
                if diag and one_two_one:
                    step, npar = 1 + par, 1 - par
                heapq.heappush(heap, (cost_ + step * f(x + dx, y + dy), x + dx, y + dy, npar))
    return None


@settings(max_examples=80, deadline=None)
@given(
    terrain=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), KINDS), max_size=40),
    to=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    mode=st.sampled_from(["walk", "swim", "fly"]),
    one_one=st.booleans(),
    bound=st.integers(0, 20),
)
def test_the_guided_search_finds_the_cheapest_cost(terrain, to, mode, one_one, bound):
    """The path is "the cheapest path" (issue 35) whatever the terrain and the bound."""
    t, ana, bo = board(speed=9, w=8, h=8)
    t.gm("place", actor=bo, cell="D4")
    for x, y, kind in terrain:
        if (x, y) not in ((0, 0), (3, 3)):
            t.gm("paint", cells=f"{x},{y}", terrain=kind or "clear")
    if one_one:
        t.gm("set_board", diagonals="1-1-1")
    if to == (0, 0):
        return  # a move to where one stands is refused before any search
    want = reference_cost(t, ana, to, mode)
    got = find_path(t.state, t.c(ana), to, mode)
    assert (got.steps if got else None) == want
    bounded = find_path(t.state, t.c(ana), to, mode, bound=bound)
    if want is not None and want <= bound:
        assert bounded is not None and bounded.steps == want
    if want is None:
        assert find_path(t.state, t.c(ana), to, mode, flood=True) is None


# --- what the players cannot see ----------------------------------------------------------


def test_a_hidden_enemy_changes_no_players_path_and_stops_the_move_where_it_stands():
    """Hidden things are absent by construction (DESIGN.md): "Hidden combatants' tokens ...
    never reach a player's ... page, frame or API answer" (issue 34), so a player's path,
    cost and refusal are found without them; the move then stops where the real map
    stops it, on the last cell before the hidden enemy."""
    t, ana, bo = board(speed=12)
    lurker = t.gm("add_combatant", name="Lurker", side="npc", initiative=5, hp=9)
    t.gm("place", actor=lurker, cell="C1")
    t.gm("hide", actor=lurker, hidden=True)
    known = plan(t.state, ana, "walk", "D1")
    assert known["path"] == ["B1", "C1", "D1"] and known["ok"]
    assert "Lurker" not in str(known) and lurker not in str(known)
    out = t.act(ana, "walk", to="D1")
    assert out.ok, out.refusal
    assert at(t, ana) == [1, 0]  # B1: stopped before the Lurker's cell
    assert "it stops short of D1" in " ".join(said(e) for e in out.events)


def test_terrain_under_fog_is_unknown_to_the_players_until_they_walk_into_it():
    """ "cells the GM marks as hidden (unexplored) are drawn as fog for players" (issue 34):
    a wall and difficult ground under the fog change neither the path the players are
    shown nor its cost; walking along it stops at the wall."""
    t, ana, _ = board(speed=12)
    t.gm("paint", cells="D1", terrain="wall")
    t.gm("fog", cells="C1:E3", fogged=True)
    known = plan(t.state, ana, "walk", "E1")
    assert known["path"] == ["B1", "C1", "D1", "E1"] and known["cost"] == 4.0
    out = t.act(ana, "walk", to="E1")
    assert out.ok, out.refusal
    assert at(t, ana) == [2, 0]  # C1, the last cell before the wall
    # The same wall in the open is known, and the path goes around it.
    t2, ana2, _ = board(speed=12)
    t2.gm("paint", cells="D1", terrain="wall")
    assert "D1" not in plan(t2.state, ana2, "walk", "E1")["path"]
