"""Issue 34, the battle map, first step: the board is part of the encounter's state,
changed only by the GM's commands through the engine, each one logged as a GM ruling
and undoable like any other."""

from __future__ import annotations

import json

from combat.rules.state import Encounter
from combat.rules.table import Table
from combat.rules.view import redacted
from tests.said import said


def table() -> tuple[Table, str, str]:
    t = Table("action_points", seed=3)
    ana = t.gm("add_combatant", name="Ana", side="pc")
    ogre = t.gm("add_combatant", name="Ogre", side="npc")
    return t, ana, ogre


def refused(t: Table) -> str:
    r = t.refusal()
    assert r is not None, "the command was not refused"
    return r.message


def test_an_encounter_without_a_board_plays_exactly_as_today():
    t, ana, _ = table()
    assert t.state.board is None
    assert redacted(t.state, "player")["board"] is None
    t.gm("paint", cells="A1", terrain="wall")
    assert "no map" in refused(t)


def test_create_a_board_with_width_height_and_cell_size_logged_as_a_ruling():
    """ "width, height (1..100 each), cell size in metres (default 1)"."""
    t, _, _ = table()
    out = t.gm("set_board", width=12, height=8)
    assert out.ok
    assert t.state.board == {
        "width": 12,
        "height": 8,
        "cell_m": 1.0,
        "terrain": {},
        "fog": [],
        "tokens": {},
    }
    assert out.events[-1]["ruling"] is True
    assert said(out.events[-1]) == "The GM adds a 12 × 8 map (1 m cells)."


def test_sizes_outside_1_to_100_are_refused_naming_what_is_wrong():
    t, _, _ = table()
    t.gm("set_board", width=0, height=8)
    assert "Width must be between 1 and 100" in refused(t)
    t.gm("set_board", width=10, height=101)
    assert "Height must be between 1 and 100" in refused(t)
    assert t.state.board is None


def test_paint_terrain_on_a_list_of_cells_sparsely_and_clear_it():
    """ "terrain per cell (difficult, waist-deep water, deep water, wall, climbable; store
    sparsely)"; one stroke is one command."""
    t, _, _ = table()
    t.gm("set_board", width=10, height=10)
    out = t.gm("paint", cells="A1 B1 C1:C3", terrain="water")
    assert out.ok
    assert t.state.board["terrain"] == {
        "0,0": "water",
        "1,0": "water",
        "2,0": "water",
        "2,1": "water",
        "2,2": "water",
    }
    assert said(out.events[-1]) == "The GM paints 5 cells: waist-deep water."
    t.gm("paint", cells="C2 2,2", terrain="clear")
    assert set(t.state.board["terrain"]) == {"0,0", "1,0", "2,0"}


def test_paint_refuses_unknown_terrain_and_out_of_bounds_cells_and_changes_nothing():
    t, _, _ = table()
    t.gm("set_board", width=5, height=5)
    t.gm("paint", cells="A1", terrain="lava")
    assert "Terrain must be one of difficult, water, deep_water, wall, climbable" in refused(t)
    t.gm("paint", cells="A1 F1", terrain="wall")
    assert refused(t) == "F1 is off the map: it runs from A1 to E5."
    t.gm("paint", cells="A1 9,9", terrain="wall")
    assert "9,9 is off the map" in refused(t)
    t.gm("paint", cells="nowhere", terrain="wall")
    assert "A cell is a column letter and a row number" in refused(t)
    assert t.state.board["terrain"] == {}


def test_fog_and_unfog_cells():
    t, _, _ = table()
    t.gm("set_board", width=5, height=5)
    assert t.gm("fog", cells="B2:C3").ok
    assert t.state.board["fog"] == ["1,1", "2,1", "1,2", "2,2"]
    assert t.gm("fog", cells="C3", fogged=False).ok
    assert t.state.board["fog"] == ["1,1", "2,1", "1,2"]


def test_place_a_token_on_a_cell_off_the_map_with_size_and_reach():
    """ "each combatant's token position (cell x,y or off the map) and size in cells
    (default 1) and melee reach in metres (default one cell)"."""
    t, ana, ogre = table()
    t.gm("set_board", width=10, height=10, cell_m=1.5)
    out = t.gm("place", actor=ana, cell="C4")
    assert out.ok
    assert t.state.board["tokens"][ana] == {"at": [2, 3], "size": 1, "reach": None}
    assert said(out.events[-1]) == "The GM places Ana on the map."
    assert out.events[-1]["ruling"] is True
    assert t.gm("place", actor=ogre, cell="4,4", size=2, reach=3).ok
    assert t.state.board["tokens"][ogre] == {"at": [4, 4], "size": 2, "reach": 3.0}
    out = t.gm("place", actor=ana, cell="D4")
    assert "nothing provoked" in said(out.events[-1])
    assert t.gm("place", actor=ana, cell="off").ok
    assert t.state.board["tokens"][ana]["at"] is None


def test_a_gm_placement_never_provokes_anything():
    t, ana, ogre = table()
    t.gm("set_board", width=10, height=10)
    t.gm("place", actor=ana, cell="A1")
    t.gm("place", actor=ogre, cell="B1")
    t.gm("engage", actor=ana, target=ogre)
    t.gm("start_combat")
    out = t.gm("place", actor=ana, cell="J10")
    assert out.ok
    assert t.state.pending == []
    assert [e["kind"] for e in out.events] == ["board"]


def test_refuse_a_token_on_a_wall_two_tokens_on_one_cell_and_off_the_edge():
    t, ana, ogre = table()
    t.gm("set_board", width=5, height=5)
    t.gm("paint", cells="C3", terrain="wall")
    t.gm("place", actor=ana, cell="C3")
    assert refused(t) == "C3 is a wall: Ana cannot stand there."
    t.gm("place", actor=ana, cell="A1")
    t.gm("place", actor=ogre, cell="A1")
    assert refused(t) == "Ana already stands at A1: one token a cell."
    t.gm("place", actor=ogre, cell="E5", size=2)
    assert "does not fit at E5" in refused(t)
    t.gm("place", actor=ogre, cell="F1")
    assert "F1 is off the map" in refused(t)
    t.gm("paint", cells="A1", terrain="wall")
    assert "a wall cannot go under a token" in refused(t)
    assert ogre not in t.state.board["tokens"]


def test_resize_keeps_what_fits_and_refuses_to_strand_a_token():
    t, ana, _ = table()
    t.gm("set_board", width=10, height=10)
    t.gm("paint", cells="A1 J10", terrain="difficult")
    t.gm("place", actor=ana, cell="H8")
    t.gm("set_board", width=5, height=5)
    assert refused(t) == "Ana stands at H8, outside a 5 × 5 map: move Ana first."
    t.gm("place", actor=ana, cell="B2")
    assert t.gm("set_board", width=5, height=5).ok
    assert t.state.board["terrain"] == {"0,0": "difficult"}
    assert t.gm("remove_board").ok
    assert t.state.board is None


def test_every_board_command_is_undoable_and_the_state_round_trips_through_json():
    t, ana, _ = table()
    t.gm("set_board", width=6, height=4)
    before = t.state.to_dict()
    t.gm("paint", cells="A1:B2", terrain="deep_water")
    t.gm("fog", cells="F4")
    t.gm("place", actor=ana, cell="C2")
    again = Encounter.from_dict(json.loads(json.dumps(t.state.to_dict())))
    assert again.to_dict() == t.state.to_dict()
    for _ in range(3):
        assert t.undo()
    assert t.state.to_dict() == before


def test_a_player_cannot_change_the_board():
    t, ana, _ = table()
    t.gm("set_board", width=6, height=4)
    t.player("place", actor=ana, cell="A1")
    assert refused(t) == "Only the GM can place."


def test_removing_a_combatant_takes_its_token_off_the_board():
    t, ana, _ = table()
    t.gm("set_board", width=6, height=4)
    t.gm("place", actor=ana, cell="A1")
    t.gm("remove_combatant", actor=ana)
    assert t.state.board["tokens"] == {}


def test_players_see_no_hidden_token_and_nothing_under_the_fog():
    """ "hidden tokens and fogged cells absent" from what players and spectators read."""
    t, ana, ogre = table()
    goblin = t.gm("add_combatant", name="Goblin", side="npc")
    t.gm("set_board", width=8, height=8)
    t.gm("place", actor=ana, cell="A1")
    t.gm("place", actor=ogre, cell="D5")
    t.gm("place", actor=goblin, cell="F6")
    t.gm("hide", actor=ogre)
    t.gm("fog", cells="E5:H8")
    t.gm("paint", cells="G7", terrain="wall")
    t.gm("paint", cells="B2", terrain="climbable")
    for audience in ("player", "public"):
        board = redacted(t.state, audience)["board"]
        assert set(board["tokens"]) == {ana}
        assert board["terrain"] == {"1,1": "climbable"}
        assert "6,6" in board["fog"]
    gm = redacted(t.state, "gm")["board"]
    assert set(gm["tokens"]) == {ana, ogre, goblin}


def test_a_map_the_commands_made_passes_a_live_imports_checks():
    """A live import checks the map as its commands keep it (combat/rules/integrity.py):
    every map these commands make must pass, or a real fight could not be resumed."""
    from combat.rules.integrity import restore_and_exercise

    t, ana, ogre = table()
    t.gm("set_board", width=100, height=100, cell_m=1.5)
    t.gm("paint", cells="A1:C3", terrain="difficult")
    t.gm("paint", cells="J10", terrain="climbable")
    t.gm("fog", cells="CV100 A100")
    t.gm("place", actor=ana, cell="CU99", size=2, reach=3)
    t.gm("place", actor=ogre, cell="off")
    assert t.state.board["tokens"][ana] == {"at": [98, 98], "size": 2, "reach": 3}
    assert t.state.board["tokens"][ogre]["at"] is None
    stored = json.loads(json.dumps(t.state.to_dict()))
    assert restore_and_exercise(stored, "action_points").to_dict() == t.state.to_dict()
