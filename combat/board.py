"""The battle map as one reader sees it: plain data for the SVG board and the text list.

Built per reader from the state (combat/rules/board.py keeps the map). For players and
spectators it starts from `seen_board`, so a hidden combatant's token, a token on a
fogged cell and the terrain under fog are never in it: the template cannot draw what
it is not given. The GM's has everything, with hidden tokens and fog marked as such.

The background image's address is relative to the reader's own page (/enc/1/, /p/<link>/,
/s/<link>/ + map/<hash>.webp), so one view-model serves every reader of an audience and
no link is ever written into a pushed fragment Players and spectators are given another
picture: the fogged cells painted over in the file itself, so what is under the fog is
not in what they download either (its address names the fog, so new fog is a new fetch).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings

from combat.rules import Encounter as State
from combat.rules.board import TERRAIN, footprint, label, reach_m, seen_board

GM = "gm"
PX = 40  # one cell, in SVG units
MARGIN = 24  # room for the column letters and row numbers

BRUSHES = (
    ("move", "Move tokens"),
    *TERRAIN.items(),
    ("clear", "Erase terrain"),
    ("fog", "Fog"),
    ("unfog", "Clear fog"),
)


def initials(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w]
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return name[:2].title()


def fog_digest(fog: list[str]) -> str:
    """A short digest of the fogged cells: part of a player's or spectator's image address,
    whose picture has those cells painted over (combat/board_image.py)."""
    return hashlib.sha256(" ".join(sorted(fog)).encode()).hexdigest()[:12]


def image_href(name: str, fog: list[str] | None) -> str:
    """The background image's address, relative to the reader's page: the GM's whole
    picture, or (fog given) the picture with the fogged cells painted over."""
    if fog:
        return f"map/{name}-{fog_digest(fog)}.webp"
    return f"map/{name}.webp"


def _xy(k: str) -> tuple[int, int]:
    x, y = k.split(",")
    return int(x), int(y)


def board_view(state: State, audience: str, turn: str | None) -> dict[str, Any] | None:
    """What the reader's board shows, or None when the encounter has no map (or, for the
    GM, a context that offers to add one: `board` None there too)."""
    if state.board is None:
        return None
    is_gm = audience == GM
    hidden = {cid for cid, c in state.combatants.items() if c.hidden}
    b = state.board if is_gm else seen_board(state, hidden)
    assert b is not None
    fog = set(b["fog"])

    def px(x: int) -> int:
        return MARGIN + x * PX

    tokens = []
    off = []
    for cid, t in b["tokens"].items():
        c = state.combatants.get(cid)
        if c is None:
            continue
        if t["at"] is None:
            off.append({"id": cid, "name": c.name})
            continue
        x, y = t["at"]
        size = t["size"]
        tokens.append(
            {
                "id": cid,
                "name": c.name,
                "initials": initials(c.name),
                "side": c.side,
                "cell": label(x, y),
                "cx": px(x) + size * PX / 2,
                "cy": px(y) + size * PX / 2,
                "r": size * PX / 2 - 4,
                "size": size,
                "reach": f"{reach_m(t, b):g}",
                "is_turn": cid == turn,
                "defeated": c.defeated,
                "hidden": is_gm and c.hidden,
                "fogged": is_gm and any(f"{a},{b_}" in fog for a, b_ in footprint(t["at"], size)),
            }
        )
    # A fixed order (by name): a change of turn then redraws only the two tokens whose
    # acting mark changed, not the order of every token on the map.
    tokens.sort(key=lambda t: (t["name"], t["id"]))
    # Terrain and fog by row of cells (each row a region of its own, screens.board_regions):
    # a painted cell redraws its row, not the map. Every row is there, painted or not, so
    # that a first cell painted in a row has a place to go.
    terrain: list[list[dict[str, Any]]] = [[] for _ in range(b["height"])]
    for k, kind in sorted(b["terrain"].items(), key=lambda kv: _xy(kv[0])[::-1]):
        x, y = _xy(k)
        terrain[y].append({"px": px(x), "kind": kind, "cell": label(x, y)})
    fogged: list[list[int]] = [[] for _ in range(b["height"])]
    for y, x in sorted(_xy(k)[::-1] for k in fog):
        fogged[y].append(px(x))
    view = {
        "width": b["width"],
        "height": b["height"],
        "cell_m": f"{b['cell_m']:g}",
        "diagonals": b.get("diagonals", "1-2-1"),
        "px": PX,
        "margin": MARGIN,
        "svg_w": MARGIN + b["width"] * PX,
        "svg_h": MARGIN + b["height"] * PX,
        "grid_w": b["width"] * PX,
        "grid_h": b["height"] * PX,
        "cols": [{"label": label(x, 0)[:-1], "x": px(x) + PX / 2} for x in range(b["width"])],
        "rows": [{"label": y + 1, "y": px(y) + PX / 2 + 5} for y in range(b["height"])],
        "terrain_rows": [{"y": y, "py": px(y), "cells": row} for y, row in enumerate(terrain)],
        "fog_rows": [{"y": y, "py": px(y), "xs": row} for y, row in enumerate(fogged)],
        "tokens": tokens,
        "listing": sorted(
            [
                {
                    "name": t["name"],
                    "where": t["cell"],
                    "is_turn": t["is_turn"],
                    "hidden": t["hidden"],
                    "fogged": t["fogged"],
                }
                for t in tokens
            ]
            + [{"name": o["name"], "where": "off the map"} for o in off if is_gm],
            key=lambda r: r["name"],
        ),
        "legend": [
            {"kind": k, "label": v}
            for k, v in TERRAIN.items()
            if is_gm or k in set(b["terrain"].values())
        ],
        "has_fog": bool(fog),
        "image": (
            {"href": image_href(b["image"]["name"], None if is_gm else b["fog"]), **b["image"]}
            if "image" in b
            else None
        ),
    }
    if is_gm:
        view["brushes"] = [{"key": k, "label": v} for k, v in BRUSHES]
        view["image_max"] = f"{settings.VTT_MAP_IMAGE_MAX_BYTES / (1024 * 1024):g} MB"
        view["choices"] = [{"id": cid, "name": c.name} for cid, c in state.combatants.items()]
    return view
