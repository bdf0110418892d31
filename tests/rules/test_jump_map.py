"""Jumps on the battle map (issue 35, part two): a Jump to a cell moves the token there in
a straight line within the jump's distance, over water and rough ground but never through
a wall, and a jump out of an enemy's reach opens its Attack of Opportunity window.
action-ladder.md, "Jumping" and "Reactions". Rules tests, no database."""

from __future__ import annotations

from combat.rules.integrity import check
from combat.rules.table import Table
from tests.rules.test_action_ladder import fighter
from tests.rules.test_reach import at, texts

# AGI bonus 12: a standing jump reaches 3 m, a running one up to 6 m (Jumping).
JUMPER = fighter(AGI={"dice": "1d8", "bonus": 12})


def pond(*, with_ogre: bool = False) -> tuple:
    """A 12 × 3 map of 1 m cells: Ana (PC, acting first) at A2 with a one-cell pond (deep
    water) at B2; the Ogre at A1 next to her when asked, else far off at L1."""
    t = Table("action_ladder", seed=3, speed=12)
    ana = t.gm(
        "add_combatant",
        name="Ana",
        side="pc",
        initiative=20,
        hp=30,
        stats=JUMPER,
        defence_prompts=False,
    )
    ogre = t.gm("add_combatant", name="Ogre", side="npc", initiative=10, hp=40, stats=fighter())
    assert t.gm("start_combat").ok
    assert t.gm("set_board", width=12, height=3).ok
    assert t.gm("paint", cells="B2", terrain="deep_water").ok
    assert t.gm("place", actor=ana, cell="A2").ok
    assert t.gm("place", actor=ogre, cell="A1" if with_ogre else "L1").ok
    return t, ana, ogre


def test_a_standing_jump_over_a_pond_lands_on_the_far_side():
    """Jumping: a standing jump reaches a quarter of the AGI bonus (3 m here). The jump
    passes over the deep water it could not walk through and the token lands beyond it;
    the log gives the metres, and names no cell."""
    t, ana, _ = pond()
    out = t.act(ana, "jump", to="C2")
    assert out.ok, out.refusal
    assert at(t, ana) == "C2"
    assert t.c(ana).turn["moved"] == 2.0
    line = texts(out)
    assert "Ana: standing Jump" in line and "2 m across" in line
    assert "C2" not in line
    check(t.state, "action_ladder")


def test_a_jump_too_long_is_refused_with_the_numbers():
    """Jumping: the straight-line distance may not pass the jump's distance (3 m standing);
    nothing moves."""
    t, ana, _ = pond()
    out = t.act(ana, "jump", to="E2")
    assert out.refusal is not None and out.refusal.code == "jump_too_far"
    args = out.refusal.args
    assert (args["who"], args["what"], args["cell"]) == (ana, "jump", "E2")
    assert (args["distance"], args["allowance"]) == (4.0, 3.0)
    assert "Jumping" in str(args["rule"])
    assert "E2 is 4 m from Ana in a straight line: this jump reaches 3 m" in out.refusal.message
    assert at(t, ana) == "A2"


def test_a_running_jump_counts_only_the_metres_moved_this_turn():
    """Jumping: a running jump grows 1 m for each metre of running start, up to half the
    AGI bonus (6 m). The running start is ground actually covered this turn: none yet is
    refused; after a 3 m Walk around the pond, a 2 m running start makes it 5 m."""
    t, ana, _ = pond()
    out = t.act(ana, "jump", kind="running", run_up=2, to="F2")
    assert out.refusal is not None and out.refusal.code == "run_up_too_long"
    assert t.act(ana, "walk", to="C1").ok
    assert t.c(ana).turn["moved"] == 3.0
    out = t.act(ana, "jump", kind="running", run_up=4, to="F1")
    assert out.refusal is not None and out.refusal.code == "run_up_too_long"
    out = t.act(ana, "jump", kind="running", run_up=2, to="I1")
    assert out.refusal is not None and out.refusal.code == "jump_too_far"
    assert (out.refusal.args["distance"], out.refusal.args["allowance"]) == (6.0, 5.0)
    out = t.act(ana, "jump", kind="running", run_up=2, to="H1")
    assert out.ok, out.refusal
    assert at(t, ana) == "H1"
    assert t.c(ana).turn["moved"] == 8.0


def test_a_jump_through_a_wall_or_a_wall_corner_is_refused():
    """A jump passes over the ground, never through a wall (nor a corner of walls a
    diagonal would cut), like reach on the map."""
    t, ana, _ = pond()
    assert t.gm("paint", cells="B2", terrain="wall").ok
    out = t.act(ana, "jump", to="C2")
    assert out.refusal is not None and out.refusal.code == "jump_blocked"
    assert (out.refusal.args["wall"], out.refusal.args["cell"]) == ("B2", "C2")
    assert "Jumping" in str(out.refusal.args["rule"])
    out = t.act(ana, "jump", to="B3")  # cuts the wall's corner
    assert out.refusal is not None and out.refusal.code == "jump_blocked"
    out = t.act(ana, "jump", to="B2")
    assert out.refusal is not None and out.refusal.code == "jump_blocked"
    assert at(t, ana) == "A2"


def test_a_landing_on_someone_elses_cell_is_refused():
    """The landing cell must hold the token: nobody else there (like a placement)."""
    t, ana, ogre = pond()
    assert t.gm("place", actor=ogre, cell="C2").ok
    out = t.act(ana, "jump", to="C2")
    assert out.refusal is not None and out.refusal.code == "occupied"
    assert at(t, ana) == "A2"


def test_jumping_out_of_an_enemys_reach_opens_its_attack_of_opportunity():
    """Reactions: an enemy within reach that is left by a Movement Action may make an
    Attack of Opportunity. The jump takes off, the window opens, and the token lands once
    it is answered or passed; after a Disengage the jump provokes nothing."""
    t, ana, ogre = pond(with_ogre=True)
    out = t.act(ana, "jump", to="C2")
    assert out.ok, out.refusal
    assert at(t, ana) == "A2"
    [w] = t.state.pending
    assert (w.kind, w.reactor, w.trigger) == ("opportunity_attack", ogre, ana)
    assert "lands once the Opportunity Attack is answered or passed" in texts(out)
    check(t.state, "action_ladder")
    out = t.player("react", actor=ogre, window=w.id, accept=False)
    assert out.ok, out.refusal
    assert at(t, ana) == "C2"
    assert "Ana lands its jump." in texts(out)
    assert t.state.pending == [] and "walking" not in t.c(ana).turn
    assert t.c(ana).engaged == []
    check(t.state, "action_ladder")
    t2, ana2, _ = pond(with_ogre=True)
    assert t2.act(ana2, "disengage").ok
    assert t2.act(ana2, "jump", to="C2").ok
    assert at(t2, ana2) == "C2" and t2.state.pending == []


def test_without_a_map_the_jump_is_its_metres_as_before():
    """Jumping: with no map, or the token off it, the jump records its metres only; a
    landing cell needs a map and a token on it."""
    t, ana, _ = pond()
    assert t.gm("place", actor=ana, cell="off").ok
    out = t.act(ana, "jump", to="C2")
    assert out.refusal is not None and out.refusal.code == "not_on_map"
    assert t.gm("remove_board").ok
    out = t.act(ana, "jump")
    assert out.ok, out.refusal
    assert "Ana: standing Jump (½ Action), up to 3 m across and 1.2 m high." in texts(out)
    assert t.c(ana).turn["moved"] == 3.0
    out = t.act(ana, "jump", to="C2")
    assert out.refusal is not None and out.refusal.code == "no_board"


def test_a_jump_folded_into_a_move_to_a_cell_stays_refused():
    """Jumping: a jump folded into a Walk, Run or Sprint to a cell is not measured on the
    map; the refusal names the rule and the action."""
    t, ana, _ = pond()
    out = t.act(ana, "run", to="D2", jump="standing")
    assert out.refusal is not None and out.refusal.code == "jump_with_destination"
    assert out.refusal.args["what"] == "run"
    assert "Jumping" in str(out.refusal.args["rule"])


def test_a_wall_under_the_fog_stops_a_players_jump_short():
    """A player character's jump is checked on the map as the players know it (like a
    path): a wall under the fog is not refused, but on the real map the jump stops on the
    last free cell before it, and the log says it was stopped without naming a cell."""
    t, ana, _ = pond()
    assert t.gm("paint", cells="B2", terrain="clear").ok
    assert t.gm("paint", cells="C2", terrain="wall").ok
    assert t.gm("fog", cells="C1:E3", fogged=True).ok
    out = t.act(ana, "jump", to="D2")
    assert out.ok, out.refusal
    assert at(t, ana) == "B2" and t.c(ana).turn["moved"] == 1.0
    line = texts(out)
    assert "1 m across" in line and "something unseen stops it short" in line
    assert "C2" not in line and "D2" not in line
