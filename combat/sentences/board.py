"""The map (combat/rules/board.py): the GM's changes to it and to the tokens on it. No
cell is named: the log is read by players, and a cell fogged later is not theirs."""

from __future__ import annotations

from combat.rules.board import TERRAIN
from combat.words import Said, says


def _cells_of(s: Said) -> str:
    """ "(1 m cells)", and the diagonals rule when it was said."""
    diagonals = f", diagonals {s['diagonals']}" if s.get("diagonals") else ""
    return f"({s['cell_m']:g} m cells{diagonals})"


def _cells(n: int) -> str:
    return "a cell" if n == 1 else f"{n} cells"


@says("board.added")
def _added(s: Said) -> str:
    return f"The GM adds a {s['width']} × {s['height']} map {_cells_of(s)}."


@says("board.resized")
def _resized(s: Said) -> str:
    return f"The GM makes the map {s['width']} × {s['height']} {_cells_of(s)}."


@says("board.removed")
def _removed(s: Said) -> str:
    return "The GM removes the map."


@says("board.image_removed")
def _image_removed(s: Said) -> str:
    return "The GM removes the map's background image."


@says("board.image")
def _image(s: Said) -> str:
    verb = (
        "replaces the map's background image"
        if s["replaced"]
        else "puts a background image under the map"
    )
    return f"The GM {verb} ({s['w']} × {s['h']} pixels)."


@says("board.paint")
def _paint(s: Said) -> str:
    if s["terrain"] not in TERRAIN:
        return f"The GM clears the terrain from {_cells(s['cells'])}."
    return f"The GM paints {_cells(s['cells'])}: {TERRAIN[s['terrain']].lower()}."


@says("board.fog")
def _fog(s: Said) -> str:
    return f"The GM {'fogs' if s['fogged'] else 'clears the fog from'} {_cells(s['cells'])}."


@says("board.place")
def _place(s: Said) -> str:
    name, placed = s.name(s.actor), s["placed"]
    if placed == "off":
        return f"The GM takes {name} off the map."
    if placed == "on":
        return f"The GM places {name} on the map."
    if placed == "moved":
        return f"The GM moves {name} on the map (no movement is spent, nothing provoked)."
    size = s["size"]
    return f"The GM sets {name}'s token: {size} × {size} cells, reach {s['reach_m']:g} m."
