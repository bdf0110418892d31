"""The battle map: a grid of cells with terrain and fog, and the combatants' tokens on it.

The board lives in the encounter's state (`Encounter.board`, None when there is no map),
so the log, undo, export and import and the live push carry it like everything else.
Only the GM changes it, through the commands below; a GM placement never provokes
anything. Cells are (x, y) from 0 at the top left; people read them as "C4" (column
letter, row number from 1).

    {"width": 12, "height": 8, "cell_m": 1.0,
     "terrain": {"3,2": "wall", ...},          # sparse: a cell not named is open ground
     "fog": ["5,5", ...],                       # cells players and spectators cannot see
     "tokens": {"c1": {"at": [2, 3], "size": 1, "reach": null}, ...},
     "image": {"name": "3f9a...", "w": 1200, "h": 800},   # optional: the background
     "diagonals": "1-1-1"}                      # optional: absent means "1-2-1"

Diagonals (paths.py): "1-2-1" counts every second diagonal step as two cells, "1-1-1"
every diagonal as one. A board saved before the setting existed has none: "1-2-1".

The background image is a file the GM uploads (combat/board_image.py checks, re-encodes
and stores it); the state keeps only its name (a hash of its content, so a new image is
a new name and every page fetches it anew) and its size in pixels. It is drawn under the
terrain and the grid, stretched over the whole grid.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

from .base import int_option
from .fields import length, span
from .refusal import refuse

if TYPE_CHECKING:
    from .base import Ruleset
    from .events import Events
    from .state import Combatant, Encounter

MAX_SIDE = 100
# How diagonal steps count (paths.py); the first is the default.
DIAGONALS = ("1-2-1", "1-1-1")
DEFAULT_DIAGONALS = DIAGONALS[0]
MAX_TOKEN_SIZE = 10
# The background image: its name is a hex content hash; its sides in pixels are bounded
# (the upload scales a larger picture down to this).
MAX_IMAGE_SIDE = span("board_image", "width")[1]
IMAGE_NAME = re.compile(r"^[0-9a-f]{32}$")

# Terrain kinds, in the legend's order, with the words people read.
TERRAIN = {
    "difficult": "Difficult terrain",
    "water": "Waist-deep water",
    "deep_water": "Deep water",
    "wall": "Wall",
    "climbable": "Climbable",
}
CLEAR = "clear"

_CELL = re.compile(r"^([A-Za-z]{1,2})(\d{1,3})$")
_XY = re.compile(r"^(\d{1,3}),(\d{1,3})$")


def column(x: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the column letters of x (from 0)."""
    letters = ""
    n = x + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return letters


def label(x: int, y: int) -> str:
    """The cell as people read it: "C4" for (2, 3)."""
    return f"{column(x)}{y + 1}"


def key(x: int, y: int) -> str:
    return f"{x},{y}"


def _column_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n - 1


def parse_cell(text: str, board: dict[str, Any]) -> tuple[int, int]:
    """One cell: "C4" or "2,3" (x,y from 0). Refused when unreadable or off the board."""
    text = text.strip()
    if m := _CELL.match(text):
        x, y = _column_index(m[1]), int(m[2]) - 1
    elif m := _XY.match(text):
        x, y = int(m[1]), int(m[2])
    else:
        raise refuse(
            "bad_cell",
            "A cell is a column letter and a row number (C4), or x,y counted from 0 (2,3).",
        )
    if not (0 <= x < board["width"] and 0 <= y < board["height"]):
        raise refuse(
            "out_of_bounds",
            f"{text} is off the map: it runs from A1 to "
            f"{label(board['width'] - 1, board['height'] - 1)}.",
            cell=text,
            width=board["width"],
            height=board["height"],
        )
    return x, y


def parse_cells(raw: Any, board: dict[str, Any]) -> list[tuple[int, int]]:
    """Cells from text ("C4 D4 A1:B3 2,3", spaces or semicolons between) or a list of
    such texts or [x, y] pairs; "A1:B3" is every cell of that rectangle."""
    if isinstance(raw, str):
        parts: list[Any] = [p for p in re.split(r"[\s;]+", raw) if p]
    elif isinstance(raw, list):
        parts = raw
    else:
        raise refuse("bad_cell", "Name the cells: like C4 D4 or A1:B3.")
    out: dict[tuple[int, int], None] = {}
    for part in parts:
        if isinstance(part, list) and len(part) == 2 and all(type(v) is int for v in part):
            part = f"{part[0]},{part[1]}"
        if not isinstance(part, str):
            raise refuse("bad_cell", "Name the cells: like C4 D4 or A1:B3.")
        if ":" in part:
            a, _, b = part.partition(":")
            (x1, y1), (x2, y2) = parse_cell(a, board), parse_cell(b, board)
            for y in range(min(y1, y2), max(y1, y2) + 1):
                for x in range(min(x1, x2), max(x1, x2) + 1):
                    out[(x, y)] = None
        else:
            out[parse_cell(part, board)] = None
    if not out:
        raise refuse("bad_cell", "Name at least one cell: like C4 D4 or A1:B3.")
    return list(out)


def _number(value: Any, what: str, lo: float, hi: float, default: float) -> float:
    if value in (None, ""):
        return default
    try:
        n = float(value)
    except (TypeError, ValueError):
        raise refuse("bad_option", f"{what} must be a number.", option=what) from None
    if not (lo <= n <= hi):  # also refuses NaN
        raise refuse(
            "bad_option",
            f"{what} must be from {lo:g} to {hi:g}, got {value}.",
            option=what,
            min=lo,
            max=hi,
            asked=n,
        )
    return round(n, 2)


def _side(value: Any, what: str, default: int | None) -> int:
    if value in (None, ""):
        if default is None:
            raise refuse(
                "bad_option", f"Say how many cells: the map's {what.lower()}.", option=what
            )
        return default
    return int_option({"v": value}, "v", what, *span("set_board", what.lower()))


def field_text(cmd: dict[str, Any], name: str) -> Any:
    """The field as sent, refused when longer than the published bound (fields.py)."""
    value = cmd.get(name)
    limit = length(cmd["type"], name)
    if isinstance(value, str) and len(value) > limit:
        raise refuse(
            "too_long",
            f"{name.capitalize()} is too long: at most {limit} characters, got {len(value)}.",
            option=name,
            most=limit,
            asked=len(value),
        )
    return value


def need_board(enc: Encounter) -> dict[str, Any]:
    if enc.board is None:
        raise refuse("no_board", "This encounter has no map: add one first.")
    return enc.board


def footprint(at: list[int], size: int) -> list[tuple[int, int]]:
    """The cells a token covers: size × size from its top-left cell."""
    return [(at[0] + dx, at[1] + dy) for dy in range(size) for dx in range(size)]


# --- commands (GM) -----------------------------------------------------------------------


def cmd_set_board(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Add the map, or resize it: terrain and fog beyond the new edges go; a token that
    would be left off the edge is refused (move it first)."""
    old = enc.board
    for name in ("width", "height"):  # a bad number is named before a missing one
        if cmd.get(name) not in (None, ""):
            _side(cmd[name], name.capitalize(), None)
    width = _side(cmd.get("width"), "Width", old["width"] if old else None)
    height = _side(cmd.get("height"), "Height", old["height"] if old else None)
    cell_m = _number(cmd.get("cell_m"), "Cell size", 0.1, 100, old["cell_m"] if old else 1.0)
    diagonals = cmd.get("diagonals")
    if diagonals not in (None, "") and diagonals not in DIAGONALS:
        raise refuse(
            "bad_option",
            f"Diagonals must be {' or '.join(DIAGONALS)}.",
            option="diagonals",
            choices=list(DIAGONALS),
        )
    if old is None:
        enc.board = {
            "width": width,
            "height": height,
            "cell_m": cell_m,
            "terrain": {},
            "fog": [],
            "tokens": {},
        }
        if diagonals not in (None, "", DEFAULT_DIAGONALS):
            enc.board["diagonals"] = diagonals
        ev.add(
            "board",
            say="board.added",
            ruling=True,
            data={
                "width": width,
                "height": height,
                "cell_m": cell_m,
                "diagonals": enc.board.get("diagonals"),
            },
        )
        return
    for cid, t in old["tokens"].items():
        if t["at"] and any(x >= width or y >= height for x, y in footprint(t["at"], t["size"])):
            name = enc.name_of(cid)
            raise refuse(
                "token_outside",
                f"{name} stands at {label(*t['at'])}, outside a {width} × {height} map: "
                f"move {name} first.",
                who=cid,
                at=label(*t["at"]),
                width=width,
                height=height,
            )

    def inside(k: str) -> bool:
        x, y = (int(v) for v in k.split(","))
        return x < width and y < height

    old["terrain"] = {k: v for k, v in old["terrain"].items() if inside(k)}
    old["fog"] = [k for k in old["fog"] if inside(k)]
    was = old.get("diagonals", DEFAULT_DIAGONALS)
    diagonals = was if diagonals in (None, "") else diagonals
    said = f", diagonals {diagonals}"
    if (width, height, cell_m, diagonals) == (old["width"], old["height"], old["cell_m"], was):
        raise refuse(
            "no_change",
            f"The map is already {width} × {height} ({cell_m:g} m cells{said}).",
            width=width,
            height=height,
            cell_m=cell_m,
        )
    old.update(width=width, height=height, cell_m=cell_m)
    if diagonals == DEFAULT_DIAGONALS:
        old.pop("diagonals", None)
    else:
        old["diagonals"] = diagonals
    ev.add(
        "board",
        say="board.resized",
        ruling=True,
        data={"width": width, "height": height, "cell_m": cell_m, "diagonals": diagonals},
    )


def cmd_remove_board(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    need_board(enc)
    enc.board = None
    ev.add("board", say="board.removed", ruling=True)


def _pixels(cmd: dict[str, Any], side: str) -> int:
    if cmd.get(side) in (None, ""):
        raise refuse("bad_option", f"Say the image's {side} in pixels.", option=side)
    return int_option(cmd, side, f"The image's {side}", *span("board_image", side))


def cmd_board_image(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Put a background image under the map (its name and size), or take it away (an
    empty name). The file itself is uploaded and stored by the site (board_image.py)."""
    name = field_text(cmd, "image")
    for side in ("width", "height"):  # a bad number is named before a missing map
        if cmd.get(side) not in (None, ""):
            _pixels(cmd, side)
    board = need_board(enc)
    old = board.get("image")
    if name in (None, ""):
        if old is None:
            raise refuse("no_change", "The map has no background image.")
        del board["image"]
        ev.add("board", say="board.image_removed", ruling=True)
        return
    if not isinstance(name, str) or not IMAGE_NAME.match(name):
        raise refuse(
            "bad_option", "The image is named by the hash the upload gave it (32 hex digits)."
        )
    w, h = (_pixels(cmd, side) for side in ("width", "height"))
    new = {"name": name, "w": w, "h": h}
    if new == old:
        raise refuse("no_change", "The map already has this background image.")
    board["image"] = new
    ev.add(
        "board",
        say="board.image",
        ruling=True,
        data={"replaced": old is not None, "w": w, "h": h},
    )


def cmd_paint(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Paint one terrain kind (or clear) on a list of cells: one stroke, one command."""
    raw = field_text(cmd, "cells")
    board = need_board(enc)
    kind = cmd.get("terrain")
    if kind != CLEAR and kind not in TERRAIN:
        raise refuse(
            "bad_option",
            f"Terrain must be one of {', '.join(TERRAIN)}, or {CLEAR} to erase.",
            option="terrain",
            choices=[*TERRAIN, CLEAR],
        )
    cells = parse_cells(raw, board)
    if kind == "wall":
        for cid, t in board["tokens"].items():
            if t["at"] and set(footprint(t["at"], t["size"])) & set(cells):
                raise refuse(
                    "token_on_wall",
                    f"{enc.name_of(cid)} stands at {label(*t['at'])}: a wall cannot go under "
                    "a token (move it first).",
                    who=cid,
                    at=label(*t["at"]),
                )
    for x, y in cells:
        if kind == CLEAR:
            board["terrain"].pop(key(x, y), None)
        else:
            board["terrain"][key(x, y)] = kind
    # No cell is named: the log is read by players, and a fogged cell's terrain is not theirs.
    ev.add("board", say="board.paint", ruling=True, data={"cells": len(cells), "terrain": kind})


def cmd_fog(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Fog (or clear the fog from) a list of cells: players and spectators see fog there,
    and nothing of what is under it."""
    raw = field_text(cmd, "cells")
    board = need_board(enc)
    fogged = cmd.get("fogged", True)
    fogged = fogged.lower() in ("1", "true", "yes", "on") if isinstance(fogged, str) else fogged
    cells = {key(x, y) for x, y in parse_cells(raw, board)}
    have = set(board["fog"])
    have = have | cells if fogged else have - cells
    board["fog"] = sorted(have, key=lambda k: tuple(int(v) for v in reversed(k.split(","))))
    ev.add(
        "board", say="board.fog", ruling=True, data={"cells": len(cells), "fogged": bool(fogged)}
    )


def check_fit(
    enc: Encounter, board: dict[str, Any], c: Combatant, at: list[int], size: int
) -> None:
    """A token of `size` cells may stand with its top-left cell at `at`: on the map, on no
    wall, on nobody else's cell."""
    cells = footprint(at, size)
    for x, y in cells:
        if x >= board["width"] or y >= board["height"]:
            raise refuse(
                "out_of_bounds",
                f"{c.name} ({size} × {size} cells) does not fit at {label(*at)}: "
                "it would stand off the map.",
                who=c.id,
                cell=label(*at),
                size=size,
            )
        if board["terrain"].get(key(x, y)) == "wall":
            raise refuse(
                "on_wall",
                f"{label(x, y)} is a wall: {c.name} cannot stand there.",
                who=c.id,
                cell=label(x, y),
            )
    for oid, t in board["tokens"].items():
        if oid != c.id and t["at"] and set(footprint(t["at"], t["size"])) & set(cells):
            raise refuse(
                "occupied",
                f"{enc.name_of(oid)} already stands at {label(*t['at'])}: one token a cell.",
                who=c.id,
                occupant=oid,
                at=label(*t["at"]),
            )


def cmd_place(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Put a combatant's token on a cell (its top-left cell when bigger than one), or off
    the map (cell "off" or empty); also sets its size in cells and its melee reach in
    metres. A GM placement is not movement: it never provokes anything."""
    raw = field_text(cmd, "cell")
    board = need_board(enc)
    c = enc.get(cmd.get("actor"))
    old = board["tokens"].get(c.id, {"at": None, "size": 1, "reach": None})
    size = int(_number(cmd.get("size"), "Size", 1, MAX_TOKEN_SIZE, old["size"]))
    reach = old["reach"]
    if cmd.get("reach") not in (None, ""):
        reach = _number(cmd.get("reach"), "Reach", 0, 1000, 0)
    if raw is None and "cell" not in cmd:
        at = old["at"]  # only the size or reach change
    elif raw in ("", "off") or raw is None:
        at = None
    elif isinstance(raw, str):
        at = list(parse_cell(raw, board))
    else:
        raise refuse("bad_cell", "A cell is like C4, or x,y counted from 0, or off.")
    if at is not None:
        check_fit(enc, board, c, at, size)
    new = {"at": at, "size": size, "reach": reach}
    if new == old and c.id in board["tokens"]:
        raise refuse("no_change", f"{c.name} is already there.", who=c.id)
    board["tokens"][c.id] = new
    # No cell named: the log line outlives fog painted later.
    if at is None:
        how: dict[str, Any] = {"placed": "off"}
    elif old["at"] is None:
        how = {"placed": "on"}
    elif old["at"] != at:
        how = {"placed": "moved"}
    else:
        how = {"placed": "token", "size": size, "reach_m": reach_m(new, board)}
    ev.add("board", say="board.place", actor=c.id, ruling=True, data=how)


def reach_m(token: dict[str, Any], board: dict[str, Any]) -> float:
    """Melee reach in metres: the token's own, else one cell."""
    return float(token["reach"]) if token.get("reach") is not None else float(board["cell_m"])


def forget(enc: Encounter, cid: str) -> None:
    """A combatant that leaves the encounter leaves the map too."""
    if enc.board is not None:
        enc.board["tokens"].pop(cid, None)


# --- what a reader may see ------------------------------------------------------------------


def seen_board(enc: Encounter, hidden: set[str]) -> dict[str, Any] | None:
    """The board as a player or spectator may know it: fogged cells as fog only (their
    terrain left out), no token of a hidden combatant, no token on a fogged cell."""
    if enc.board is None:
        return None
    b = enc.board
    fog = set(b["fog"])
    tokens = {}
    for cid, t in b["tokens"].items():
        if cid in hidden or cid not in enc.combatants:
            continue
        if t["at"] and any(key(x, y) in fog for x, y in footprint(t["at"], t["size"])):
            continue
        tokens[cid] = dict(t, at=list(t["at"]) if t["at"] else None)
    return {
        "width": b["width"],
        "height": b["height"],
        "cell_m": b["cell_m"],
        "terrain": {k: v for k, v in b["terrain"].items() if k not in fog},
        "fog": list(b["fog"]),
        "tokens": tokens,
        **({"image": dict(b["image"])} if "image" in b else {}),
        **({"diagonals": b["diagonals"]} if "diagonals" in b else {}),
    }
