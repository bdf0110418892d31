"""Reach from positions on the battle map (issue 35): who is engaged follows from where
tokens stand, and a move stops at the cell where it leaves an enemy's reach, opens that
enemy's Opportunity Attack (or Attack of Opportunity) window, and walks on once it is
answered or passed. Rules tests, no database."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules.board import parse_cell
from combat.rules.integrity import check
from combat.rules.state import Encounter
from combat.rules.table import Table
from combat.rules.view import GM, PLAYER, windows_for
from tests.rules.test_action_ladder import fighter
from tests.said import said

SURE_HIT = {"attack": "1d1+50", "damage": "1d1+4", "defend": "1d1"}


def row(ruleset: str = "action_points", speed: int = 12, **ana_fields) -> tuple:
    """A 12 × 3 map of 1 m cells: Ana (PC, acting first) at A2, the Ogre at A1 next to
    her, the Goblin at F1, a few cells along the row she walks; combat started."""
    stats = fighter() if ruleset == "action_ladder" else SURE_HIT
    t = Table(ruleset, seed=3, speed=speed)
    ana = t.gm(
        "add_combatant", name="Ana", side="pc", initiative=20, hp=30, stats=stats, **ana_fields
    )
    ogre = t.gm("add_combatant", name="Ogre", side="npc", initiative=10, hp=40, stats=stats)
    gob = t.gm("add_combatant", name="Goblin", side="npc", initiative=5, hp=10, stats=stats)
    assert t.gm("start_combat").ok
    assert t.gm("set_board", width=12, height=3).ok
    for who, cell in ((ana, "A2"), (ogre, "A1"), (gob, "F1")):
        assert t.gm("place", actor=who, cell=cell).ok
    return t, ana, ogre, gob


def at(t: Table, cid: str) -> str:
    x, y = t.state.board["tokens"][cid]["at"]
    return f"{chr(65 + x)}{y + 1}"


def texts(out) -> str:
    return " ".join(said(e) for e in out.events)


# --- engagement from positions ---------------------------------------------------------------


def test_tokens_next_to_each_other_are_engaged_and_apart_they_are_not():
    """Issue 35: "a combatant is engaged with every enemy whose reach covers it"; a token
    with no reach set reaches one cell, diagonals included."""
    t, ana, ogre, gob = row()
    assert t.c(ana).engaged == [ogre] and t.c(ogre).engaged == [ana]
    assert t.c(gob).engaged == []
    assert t.gm("place", actor=ogre, cell="C1").ok
    assert t.c(ana).engaged == [] and t.c(ogre).engaged == []
    assert t.gm("place", actor=ogre, cell="B1").ok  # diagonal: still next to her
    assert t.c(ana).engaged == [ogre]


def test_a_longer_reach_engages_from_farther_and_both_ways():
    """A reach in metres covers that many cells; the pair is engaged while either reaches
    the other (a spear holds a dagger in melee too)."""
    t, ana, ogre, gob = row()
    assert t.gm("place", actor=gob, cell="A3").ok
    assert sorted(t.c(ana).engaged) == sorted([ogre, gob])
    assert t.gm("place", actor=gob, cell="D2").ok  # two cells between them
    assert gob not in t.c(ana).engaged
    assert t.gm("place", actor=gob, reach=3).ok
    assert gob in t.c(ana).engaged and ana in t.c(gob).engaged


def test_the_manual_engage_is_refused_on_a_map_and_stays_without_one():
    """Issue 35: "the manual 'Engage' stays only for encounters without a map"."""
    t, ana, ogre, gob = row()
    out = t.player("engage", actor=ana, target=gob)
    assert out.refusal.code == "on_map"
    assert out.refusal.message.startswith(
        "On a map, engagement follows from where tokens stand: move Ana next to Goblin"
    )
    assert t.gm("remove_board").ok
    assert t.player("engage", actor=ana, target=gob).ok
    assert gob in t.c(ana).engaged


# --- the leaving cell --------------------------------------------------------------------------


def test_several_enemies_each_get_their_window_at_their_own_leaving_cell_in_order():
    """ "When a creature moves out of another creature's melee reach without using the
    Disengage action, the creature being left behind may use its Reaction to make a single
    Basic Attack against the departing creature" (action-points.md, Opportunity Attacks).
    The Ogre's reach ends after B2, the Goblin's after G2: Ana stops on each in turn."""
    t, ana, ogre, gob = row()
    out = t.act(ana, "move", to="L2")
    assert out.ok, out.refusal
    assert at(t, ana) == "B2" and t.c(ana).turn["moved"] == 1.0
    [w] = t.state.pending
    assert (w.kind, w.reactor, w.trigger) == ("opportunity_attack", ogre, ana)
    assert "Ana stops at B2 as it leaves an enemy's reach, 11 m of its move toward L2" in texts(out)
    out = t.player("react", actor=ogre, window=w.id, accept=False)
    assert out.ok, out.refusal
    assert at(t, ana) == "G2" and t.c(ana).turn["moved"] == 6.0
    assert "Ana walks on (Move), 5 m to G2." in texts(out)
    [w] = t.state.pending
    assert (w.reactor, w.trigger) == (gob, ana)
    out = t.player("react", actor=gob, window=w.id, accept=False)
    assert out.ok, out.refusal
    assert at(t, ana) == "L2" and t.c(ana).turn["moved"] == 11.0
    assert t.state.pending == [] and "walking" not in t.c(ana).turn
    assert t.c(ana).engaged == []
    check(t.state, "action_points")


def test_the_held_move_goes_through_undo_and_export():
    """The rest of the path is part of the state: undo puts it back, export and import
    carry it, and the move walks on from there."""
    t, ana, ogre, gob = row()
    assert t.act(ana, "move", to="L2").ok
    held = dict(t.c(ana).turn["walking"])
    assert held["cells"][0] == "C2" and held["left"] == 11.0
    [w] = t.state.pending
    assert t.player("react", actor=ogre, window=w.id, accept=False).ok
    assert t.undo()
    assert at(t, ana) == "B2" and t.c(ana).turn["walking"] == held
    copy = Encounter.from_dict(t.state.to_dict())
    assert copy.combatants[ana].turn["walking"] == held
    check(copy, "action_points")


def test_an_opportunity_attack_that_defeats_the_mover_ends_the_move_there():
    """Issue 35: "a hit that defeats the mover ends the move there"."""
    t, ana, ogre, gob = row()
    t.c(ana).hp = 5
    assert t.act(ana, "move", to="L2").ok
    [w] = t.state.pending
    out = t.player("react", actor=ogre, window=w.id, accept=True)
    assert out.ok, out.refusal
    assert t.c(ana).defeated and at(t, ana) == "B2"
    assert "walking" not in t.c(ana).turn and t.state.pending == []


def test_disengage_moves_the_whole_path_without_a_window():
    """ "Disengage — 2 AP. You can withdraw from a melee opponent up to your speed without
    provoking an opportunity attack"; "A creature that uses the Disengage action (2 AP)
    may move without provoking Opportunity Attacks for the remainder of that turn"."""
    t, ana, ogre, gob = row()
    assert t.act(ana, "disengage", to="L2").ok
    assert at(t, ana) == "L2" and t.state.pending == []
    t.c(ana).res["ap"] = 3
    assert t.act(ana, "move", to="A2").ok  # back past the Goblin, still covered
    assert t.state.pending == []


def test_an_enemy_without_its_reaction_does_not_stop_the_move():
    """ "Opportunity Attacks cost 0 AP but consume your Reaction for the round"."""
    t, ana, ogre, gob = row()
    t.c(ogre).reaction = False
    assert t.act(ana, "move", to="L2").ok
    assert at(t, ana) == "G2"
    assert [w.reactor for w in t.state.pending] == [gob]


def test_a_hidden_enemys_window_is_the_gms_and_the_log_names_no_one():
    """The window of a hidden combatant is the GM's alone (view.window_for); the player
    reads only that Ana stops, not who made her."""
    t, ana, ogre, gob = row()
    t.gm("place", actor=ogre, cell="off")
    assert t.gm("hide", actor=gob, hidden=True).ok
    out = t.act(ana, "move", to="L2")
    assert out.ok, out.refusal
    assert at(t, ana) == "G2"
    [w] = t.state.pending
    assert w.reactor == gob
    assert windows_for(t.state, GM) and not windows_for(t.state, PLAYER)
    held = next(e for e in out.events if e.get("say") == "base.walk_held")
    assert "Goblin" not in said(held)


def test_action_ladder_attack_of_opportunity_at_the_leaving_cell():
    """ "Attack of Opportunity ... When an enemy within reach tries to leave your zone of
    reach with a Movement Action, attack them with the basic Attack Action. Movement after
    a Disengage does not provoke it" (action-ladder.md, Reactions)."""
    t, ana, ogre, gob = row("action_ladder", defence_prompts=False)
    out = t.act(ana, "run", to="L2")
    assert out.ok, out.refusal
    assert at(t, ana) == "B2"
    [w] = t.state.pending
    assert (w.kind, w.reactor) == ("opportunity_attack", ogre)
    assert t.player("react", actor=ogre, window=w.id, accept=False).ok
    assert at(t, ana) == "G2"
    t2, ana2, _, _ = row("action_ladder")
    assert t2.act(ana2, "disengage").ok
    assert t2.act(ana2, "run", to="L2").ok
    assert at(t2, ana2) == "L2" and t2.state.pending == []


def test_the_move_waits_for_the_movers_own_defence_against_the_attack():
    """With defence prompts on, the Attack of Opportunity is held for Ana's Dodge or
    Parry; the move walks on only once that is settled too."""
    t, ana, ogre, gob = row("action_ladder")
    assert t.act(ana, "run", to="L2").ok
    [w] = t.state.pending
    assert t.player("react", actor=ogre, window=w.id).ok
    [defend] = t.state.pending
    assert (defend.reactor, at(t, ana)) == (ana, "B2")
    assert t.player("react", actor=ana, window=defend.id, accept=False).ok
    assert not t.c(ana).defeated and at(t, ana) == "G2"


def test_the_held_move_ends_with_the_turn():
    """The rest of the path is the action's: once the turn is over it is gone."""
    t, ana, ogre, gob = row()
    assert t.act(ana, "move", to="L2").ok
    assert t.gm("end_turn").ok
    assert at(t, ana) == "B2" and "walking" not in t.c(ana).turn


def test_initiative_passes_has_no_opportunity_attack_and_never_stops():
    """initiative-passes.md names no Opportunity Attack: leaving reach never provokes."""
    t, ana, ogre, gob = row("initiative_passes")
    assert t.act(ana, "move", to="L2").ok
    assert at(t, ana) == "L2" and t.state.pending == []


# --- property -----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    walls=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=12),
    enemies=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=3),
    to=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    one_one=st.booleans(),
)
def test_a_held_and_continued_move_keeps_to_its_allowance_and_off_walls(
    walls, enemies, to, one_one
):
    """ "a committed path never exceeds its allowance nor crosses a wall" (issue 35), with
    enemies' windows stopping it and every window passed in turn."""
    t = Table("action_points", seed=2, speed=6)
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=20, hp=30, stats=SURE_HIT)
    t.gm("start_combat")
    t.gm("set_board", width=8, height=8, **({"diagonals": "1-1-1"} if one_one else {}))
    t.gm("place", actor=ana, cell="A1")
    for x, y in walls:
        if (x, y) != (0, 0):
            t.gm("paint", cells=f"{x},{y}", terrain="wall")
    for n, (x, y) in enumerate(enemies):
        foe = t.gm("add_combatant", name=f"Foe{n}", side="npc", hp=9, stats=SURE_HIT)
        t.gm("place", actor=foe, cell=f"{x},{y}")
    wall_cells = {tuple(int(v) for v in k.split(",")) for k in t.state.board["terrain"]}
    out = t.act(ana, "move", to=f"{to[0]},{to[1]}")
    if not out.ok:
        assert t.state.board["tokens"][ana]["at"] == [0, 0]
        return
    for _ in range(len(enemies) + 1):
        assert tuple(t.state.board["tokens"][ana]["at"]) not in wall_cells
        assert t.c(ana).turn["moved"] <= 6.0 + 1e-9
        if not t.state.pending:
            break
        w = t.state.pending[0]
        assert t.player("react", actor=w.reactor, window=w.id, accept=False).ok
    assert t.state.pending == [] and "walking" not in t.c(ana).turn
    assert t.state.board["tokens"][ana]["at"] == list(parse_cell(f"{to[0]},{to[1]}", t.state.board))
    check(t.state, "action_points")


# --- forced movement and teleportation on the map ----------------------------------------------


def test_teleporting_off_an_enemys_reach_moves_the_token_and_provokes_nothing():
    """action-points.md: "Teleportation does not provoke Opportunity Attacks"; RULINGS:
    "forced movement and teleportation never offer it". On a map the GM names the cell."""
    t, ana, ogre, gob = row()
    assert t.c(ana).engaged == [ogre]
    out = t.gm("force_move", actor=ana, how="teleport", cell="K3")
    assert out.ok, out.refusal
    assert at(t, ana) == "K3" and t.state.pending == []
    assert t.c(ana).engaged == [] and t.c(ogre).engaged == []
    assert "Ana is moved (teleported)." in texts(out)
    # Landing next to an enemy puts them in melee, as standing there does.
    assert t.gm("force_move", actor=ana, how="forced", cell="E1").ok
    assert t.c(ana).engaged == [gob] and t.state.pending == []


def test_forced_movement_on_the_map_needs_a_cell_it_can_stand_on():
    t, ana, ogre, gob = row()
    assert t.gm("paint", cells="D2", terrain="wall").ok
    for cell, code in (
        (None, "missing_option"),
        ("D2", "on_wall"),
        ("F1", "occupied"),
        ("Z9", "out_of_bounds"),
        ("A2", "no_change"),
    ):
        command = {"actor": ana, "how": "forced", **({"cell": cell} if cell else {})}
        out = t.gm("force_move", **command)
        assert out.refusal is not None and out.refusal.code == code, (cell, out.refusal)
        assert at(t, ana) == "A2"
    # Only the GM moves a combatant by force.
    assert t.player("force_move", actor=ana, how="forced", cell="K3").refusal.code == "gm_only"
