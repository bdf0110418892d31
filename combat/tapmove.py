"""Tap a cell, see the path and its cost, tap again to move (issue 35, second step).

A reader of the board (the GM, or a player whose combatant is acting) asks what moving
the acting combatant to a cell would be. The answer is built here from the server's own
path search (combat/rules/paths.py `plan`) and drawn over the board as given: the cells
of the path, the destination, and one line ("Walk, ½ Action: 3 of 4 m") or the refusal's
words with nothing drawn. A player's path is planned on the map as the players know it
(no hidden token, nothing under fog), so nothing in the answer depends on what they cannot
see. Asking changes nothing; the move itself is the ordinary command post.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.http import QueryDict

from combat import forms
from combat.board import MARGIN, PX
from combat.rules import Encounter as State
from combat.rules import get_ruleset
from combat.rules.action_ladder.movement import jump_to
from combat.rules.board import label, parse_cell, seen_board
from combat.rules.engine import check_options, options_of
from combat.rules.paths import diagonals, gap, m, plan
from combat.rules.refusal import Refused
from combat.rules.state import COMBAT

# The movement action a tap takes when the panel names none: the ruleset's plain move.
DEFAULT_MOVE = {"action_points": "move", "action_ladder": "walk", "initiative_passes": "move"}

MAX_CELL_TEXT = 10


def _as_players_know(state: State, cid: str) -> State:
    """The encounter with the board as the players know it, the mover's token kept."""
    assert state.board is not None
    hidden = {i for i, c in state.combatants.items() if c.hidden}
    seen = seen_board(state, hidden)
    assert seen is not None
    seen["tokens"][cid] = state.board["tokens"][cid]
    return replace(state, board=seen)


def _centre(x: int, y: int, size: int) -> tuple[float, float]:
    return MARGIN + x * PX + size * PX / 2, MARGIN + y * PX + size * PX / 2


def move_preview(state: State, mine: set[str] | None, query: QueryDict) -> dict[str, Any]:
    """What moving the acting combatant to the asked cell would be, for this reader (mine:
    the combatants a player controls; None for the GM). `ok` with the path drawn, or
    `line` alone saying why not. Nothing in `state` is changed."""
    out: dict[str, Any] = {"ok": False, "line": "", "cells": [], "points": "", "fields": {}}
    to = str(query.get("to", "")).strip()[:MAX_CELL_TEXT]
    if state.board is None:
        out["line"] = "This encounter has no map."
        return out
    cid = state.turn
    if state.phase != COMBAT or cid is None:
        out["line"] = "Nobody is acting now: a move on the map is made in the mover's turn."
        return out
    if mine is not None and cid not in mine:
        out["line"] = "It is not your turn: a move on the map is made in the mover's turn."
        return out
    if not to:
        out["line"] = "Tap a cell of the map to choose where to move."
        return out
    rs = get_ruleset(state.ruleset)
    try:
        c = state.get(cid)
        a = rs.action(state, str(query.get("action") or DEFAULT_MOVE.get(state.ruleset, "")), c)
        if not any(o.name == "to" for o in a.options):
            out["line"] = f"{a.name} does not move to a cell on the map."
            return out
        kinds = {o.name: o.kind for o in a.options}
        opts = {
            k: v
            for k, v in options_of(forms.command_from_post(query)).items()
            if kinds.get(k) not in (None, "target", "targets") and k != "to"
        }
        given = dict(opts)
        opts["to"] = to
        check_options(state, c, a, opts)
        rs.check(state, c, a, opts, free=False)
        price = rs.price_text(state, c, a, opts)
    except Refused as r:
        out["line"] = r.refusal.message
        return out
    known = state if mine is None else _as_players_know(state, cid)
    jumping = a.key == "jump" and hasattr(rs, "jump_reach")
    p = _jump_plan(rs, known, cid, a, opts) if jumping else plan(known, cid, a.key, to, opts)
    if not p["ok"]:
        out["line"] = p["reason"]
        return out
    board = known.board
    assert board is not None
    token = board["tokens"][cid]
    size = int(token["size"])
    cells = [parse_cell(cell, board) for cell in p["path"]]
    sx, sy = token["at"]
    points = [_centre(int(sx), int(sy), size)] + [_centre(x, y, size) for x, y in cells]
    out.update(
        ok=True,
        svg_w=MARGIN + board["width"] * PX,
        svg_h=MARGIN + board["height"] * PX,
        to=p["to"],
        line=f"{a.name}, {price}: {p['cost']:g} of {m(p['allowance'])}",
        summary=p["summary"],
        cells=[
            {
                "x": MARGIN + x * PX,
                "y": MARGIN + y * PX,
                "side": size * PX,
                "last": i == len(cells) - 1,
            }
            for i, (x, y) in enumerate(cells)
        ],
        points=" ".join(f"{x:g},{y:g}" for x, y in points),
        actor=cid,
        action=a.key,
        button="Jump here" if jumping else "Move here",
        fields={f"opt_{k}": v for k, v in given.items() if not isinstance(v, list)},
    )
    return out


def _jump_plan(rs: Any, known: State, cid: str, a: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """A Jump's preview, in the shape of a path's (`plan`): the straight line to the landing
    cell, its metres and the jump's reach, or why not, checked as the jump itself is
    (action_ladder/movement.py `jump_to`) on the map the reader knows."""
    c = known.get(cid)
    kind = str(opts.get("kind") or "standing")
    run_up, ledge = int(opts.get("run_up") or 0), bool(opts.get("ledge"))
    reach, _height = rs.jump_reach(c, known, kind, run_up, ledge)
    try:
        _start, end, far = jump_to(rs, known, c, a, opts, reach)
    except Refused as r:
        return {"ok": False, "reason": r.refusal.message}
    cell = label(*end)
    return {
        "ok": True,
        "path": [cell],
        "to": cell,
        "cost": far,
        "allowance": reach,
        "summary": f"{cell} is {m(far)} away in a straight line, over what lies between",
    }


def measure(state: State, query: QueryDict) -> dict[str, Any]:
    """The measuring tool, for everyone who sees the map: the distance between two cells
    ("from" and "to"), counted in steps by the map's diagonal rule and given in metres.
    It reads the map's size, cell and diagonal rule only, nothing of what stands or lies
    on a cell, so a fogged cell measures like any other and tells nothing."""
    board = state.board
    if board is None:
        return {"refusal": "This encounter has no map to measure on."}
    texts = [str(query.get(k) or "").strip()[:MAX_CELL_TEXT] for k in ("from", "to")]
    if not all(texts):
        return {"refusal": "Name the two cells to measure between, like B3 and H5."}
    try:
        a, b = (parse_cell(t, board) for t in texts)
    except Refused as r:
        return {"refusal": r.refusal.message}
    steps = gap(board, list(a), 1, list(b), 1)
    return {
        "from": label(*a),
        "to": label(*b),
        "steps": steps,
        "metres": m(steps * float(board["cell_m"])),
        "cell_m": m(float(board["cell_m"])),
        # Said only when it counted: two diagonal steps or more under 1-2-1.
        "doubled": diagonals(board) == "1-2-1" and min(abs(a[0] - b[0]), abs(a[1] - b[1])) >= 2,
    }
