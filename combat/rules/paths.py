"""Moving on the battle map: the cheapest path from a token's cell to a destination, and
what a movement action may spend on it (issue 35, the battle map, part two).

Costs are counted in "cell steps": one step into an orthogonal neighbour costs 1; a
diagonal step costs 1 under the board's "1-1-1" setting, and 1 then 2 alternately under
"1-2-1" (the default). Entering difficult terrain (or waist-deep water, which the Action
Ladder names as difficult terrain) costs double. A step's metres are its cost times the
cell's side (board["cell_m"]).

How the mover goes decides which cells it may enter:
- "walk" (every movement on foot, crawling included): not walls, not deep water, not
  climbable cells (a cliff face takes Climb); difficult terrain and waist-deep water cost
  double.
- "swim": only water (waist-deep or deep), at the plain cost.
- "climb": only climbable cells, at the plain cost.
- "fly": anything but walls, at the plain cost.
A diagonal step never cuts the corner of a cell the mover could not enter itself.

Other combatants' tokens: a path may pass through an ally's cells (same side) but not an
enemy's, and may never end where another token stands. A token bigger than one cell moves
by its top-left cell; every cell it covers on the way must be open to it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .board import DEFAULT_DIAGONALS, DIAGONALS, footprint, key, label, parse_cell
from .refusal import Refused, refuse

if TYPE_CHECKING:
    from .base import Ruleset
    from .catalogue import ActionDef
    from .state import Combatant, Encounter

__all__ = ["DIAGONALS", "Path", "find_path", "plan", "take"]
MODES = ("walk", "swim", "climb", "fly")
_WATER = ("water", "deep_water")
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def diagonals(board: dict[str, Any]) -> str:
    """The board's diagonal rule; a board saved before the setting existed is "1-2-1"."""
    return str(board.get("diagonals", DEFAULT_DIAGONALS))


def terrain_factor(kind: str | None, mode: str) -> int:
    """What entering a cell of this terrain costs per step (1 or 2), or 0: not enterable."""
    if kind == "wall":
        return 0
    if mode == "swim":
        return 1 if kind in _WATER else 0
    if mode == "climb":
        return 1 if kind == "climbable" else 0
    if mode == "fly":
        return 1
    if kind in ("deep_water", "climbable"):
        return 0
    return 2 if kind in ("difficult", "water") else 1


@dataclass(frozen=True)
class Path:
    cells: list[tuple[int, int]]  # the top-left cells stepped into, in order; not the start
    steps: int  # cost in cell steps, difficult terrain counted double
    plain: int  # the same path's cost with no terrain doubling (its length)

    @property
    def doubled(self) -> int:
        """Steps paid extra for difficult terrain."""
        return self.steps - self.plain


def _enemy_cells(enc: Encounter, c: Combatant) -> set[tuple[int, int]]:
    """The cells of every standing enemy's token: nobody passes them."""
    assert enc.board is not None
    blocked: set[tuple[int, int]] = set()
    for oid, t in enc.board["tokens"].items():
        other = enc.combatants.get(oid)
        if oid == c.id or not t["at"] or other is None or other.defeated:
            continue
        if other.side != c.side:
            blocked.update(footprint(t["at"], t["size"]))
    return blocked


def _factors(enc: Encounter, c: Combatant, mode: str) -> Callable[[int, int], int]:
    """The cost factor of putting c's top-left at (x, y): 0 when any cell it would cover
    is off the map, not enterable in this mode, or an enemy's; else 1 or 2 (difficult)."""
    board = enc.board
    assert board is not None
    size = int(board["tokens"][c.id]["size"])
    w, h, terrain = board["width"], board["height"], board["terrain"]
    blocked = _enemy_cells(enc, c)
    cache: dict[tuple[int, int], int] = {}

    def factor(x: int, y: int) -> int:
        got = cache.get((x, y))
        if got is None:
            got = 1
            for cx, cy in footprint([x, y], size):
                inside = 0 <= cx < w and 0 <= cy < h and (cx, cy) not in blocked
                f = terrain_factor(terrain.get(key(cx, cy)), mode) if inside else 0
                got = min(got, f) if f == 0 else max(got, f)
                if got == 0:
                    break
            cache[(x, y)] = got
        return got

    return factor


def find_path(enc: Encounter, c: Combatant, to: tuple[int, int], mode: str = "walk") -> Path | None:
    """The cheapest path for c's token to `to` (its top-left cell), or None when there is
    none. Dijkstra over (cell, diagonal parity); 100 × 100 cells stay well under a tenth of
    a second."""
    board = enc.board
    assert board is not None
    at = board["tokens"][c.id]["at"]
    start = (int(at[0]), int(at[1]), 0)
    factor = _factors(enc, c, mode)
    one_two_one = diagonals(board) == "1-2-1"
    # state: (x, y, parity of diagonals taken); value: (steps, plain)
    best: dict[tuple[int, int, int], tuple[int, int]] = {start: (0, 0)}
    came: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    heap: list[tuple[int, int, int, int, int]] = [(0, 0, *start)]
    while heap:
        steps, plain, x, y, par = heapq.heappop(heap)
        if best[(x, y, par)] < (steps, plain):
            continue
        if (x, y) == to:
            return _unwind(came, (x, y, par), steps, plain)
        for dx, dy in _STEPS:
            f = factor(x + dx, y + dy)
            diagonal = dx != 0 and dy != 0
            if f == 0 or (diagonal and not (factor(x + dx, y) and factor(x, y + dy))):
                continue  # not enterable, or cutting a corner
            base, npar = 1, par
            if diagonal and one_two_one:
                base, npar = (2 if par else 1), 1 - par
            cand = (steps + base * f, plain + base)
            state = (x + dx, y + dy, npar)
            if cand < best.get(state, (1 << 30, 0)):
                best[state] = cand
                came[state] = (x, y, par)
                heapq.heappush(heap, (*cand, *state))
    return None


def _unwind(
    came: dict[tuple[int, int, int], tuple[int, int, int]],
    node: tuple[int, int, int],
    steps: int,
    plain: int,
) -> Path:
    cells = []
    while node in came:
        cells.append((node[0], node[1]))
        node = came[node]
    cells.reverse()
    return Path(cells, steps, plain)


def occupant(enc: Encounter, c: Combatant, at: tuple[int, int]) -> str | None:
    """Who else's token covers any cell c's token would cover at `at`."""
    board = enc.board
    assert board is not None
    mine = set(footprint(list(at), board["tokens"][c.id]["size"]))
    for oid, t in board["tokens"].items():
        if oid != c.id and t["at"] and mine & set(footprint(t["at"], t["size"])):
            return str(oid)
    return None


def m(x: float) -> str:
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return f"{text} m"


# --- planning and moving -------------------------------------------------------------------


def on_map(enc: Encounter, c: Combatant) -> bool:
    return (
        enc.board is not None
        and c.id in enc.board["tokens"]
        and enc.board["tokens"][c.id]["at"] is not None
    )


def plan(
    enc: Encounter, cid: str, action_key: str, to: str, opts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What moving `cid` to `to` with this action would be, changing nothing: the path (as
    cells people read), its length and its cost in metres, the action's allowance, and
    whether it may be taken (ok) or why not (reason)."""
    from .registry import get_ruleset

    rs = get_ruleset(enc.ruleset)
    c = enc.get(cid)
    a = rs.action(enc, action_key, c)
    out: dict[str, Any] = {
        "path": [],
        "metres": 0.0,
        "cost": 0.0,
        "allowance": 0.0,
        "ok": False,
        "reason": "",
    }
    try:
        p = route(enc, rs, c, a, to, dict(opts or {}))
    except Refused as r:
        out["reason"] = r.refusal.message
        return out
    out.update(p)
    return out


def route(
    enc: Encounter, rs: Ruleset, c: Combatant, a: ActionDef, to: str, opts: dict[str, Any]
) -> dict[str, Any]:
    """The path and its numbers, refused when the action cannot take it. The allowance is
    the ruleset's (Ruleset.path_allowance); an allowance still to be rolled (a Sprint's AGI
    roll) is checked again when the action resolves."""
    if enc.board is None:
        raise refuse("no_board", "This encounter has no map: a move there says how far instead.")
    if not on_map(enc, c):
        raise refuse("not_on_map", f"{c.name} is not on the map: the GM places its token first.")
    allowance = rs.path_allowance(enc, c, a, opts)
    if allowance is None:
        raise refuse("no_destination", f"{a.name} does not move to a cell on the map.")
    metres_allowed, rule, mode = allowance
    dest = parse_cell(str(to), enc.board)
    where = label(*dest)
    if list(dest) == list(enc.board["tokens"][c.id]["at"]):
        raise refuse("no_change", f"{c.name} already stands at {where}.")
    other = occupant(enc, c, dest)
    if other is not None:
        raise refuse(
            "occupied",
            f"{enc.public_name(other)} stands at {where}: a move may pass an ally but never "
            "ends on someone else's cell.",
        )
    p = find_path(enc, c, dest, mode)
    if p is None:
        how = {
            "swim": "swimming (only through water)",
            "climb": "climbing (only along climbable cells)",
        }.get(mode, "by any path (walls, deep water, cliffs and enemies block it)")
        raise refuse("no_path", f"{c.name} cannot reach {where} {how} ({rule}).")
    cell_m = float(enc.board["cell_m"])
    cost = round(p.steps * cell_m, 2)
    info = {
        "to": where,
        "path": [label(x, y) for x, y in p.cells],
        "metres": round(p.plain * cell_m, 2),
        "cost": cost,
        "allowance": round(metres_allowed, 2),
        "ok": cost <= metres_allowed + 1e-9,
        "reason": "",
        "rule": rule,
    }
    extra = f" ({m(p.doubled * cell_m)} of difficult terrain counts double)" if p.doubled else ""
    info["summary"] = f"{where} is {m(cost)} away by the shortest path{extra}"
    if not info["ok"]:
        info["reason"] = f"{a.name} reaches {m(metres_allowed)}; {info['summary']}. ({rule})"
    return info


def take(
    enc: Encounter,
    rs: Ruleset,
    c: Combatant,
    a: ActionDef,
    opts: dict[str, Any],
    allowance: float | None = None,
    *,
    stop_short: bool = False,
) -> dict[str, Any]:
    """Move c's token along the path to opts["to"]: refused (nothing changes) when it is
    longer than the allowance; with stop_short (a Sprint's rolled metres), the token stops
    at the farthest cell of the path its metres reach where no one else stands.
    Returns the route with "cost" the metres actually moved and "to" the cell reached."""
    info = route(enc, rs, c, a, str(opts["to"]), opts)
    limit = info["allowance"] if allowance is None else allowance
    assert enc.board is not None
    token = enc.board["tokens"][c.id]
    if info["cost"] > limit + 1e-9:
        if not stop_short:
            raise refuse(
                "too_far",
                f"{a.name} reaches {m(limit)}; {info['summary']}. ({info['rule']})",
            )
        dest = _reachable_prefix(enc, c, info, limit)
        if dest is None:
            raise refuse(
                "too_far",
                f"{a.name} reaches {m(limit)}; {info['summary']}, and no cell on the way "
                f"is free to stop on. ({info['rule']})",
            )
        info["stopped"] = True
        info["to"], info["cost"] = dest
    x, y = parse_cell(info["to"], enc.board)
    token["at"] = [x, y]
    return info


def _reachable_prefix(
    enc: Encounter, c: Combatant, info: dict[str, Any], limit: float
) -> tuple[str, float] | None:
    """The farthest cell of the path within `limit` metres where c may stop, and the metres
    spent to reach it; path costs are recomputed step by step from the start."""
    assert enc.board is not None
    board = enc.board
    mode = "walk"
    cells = [parse_cell(t, board) for t in info["path"]]
    cell_m = float(board["cell_m"])
    one_two_one = diagonals(board) == "1-2-1"
    size = board["tokens"][c.id]["size"]
    x, y = board["tokens"][c.id]["at"]
    steps, par = 0, 0
    found: tuple[str, float] | None = None
    for nx, ny in cells:
        diagonal = nx != x and ny != y
        base = 1
        if diagonal and one_two_one:
            base, par = (2 if par else 1), 1 - par
        f = max(
            terrain_factor(board["terrain"].get(key(cx, cy)), mode)
            for cx, cy in footprint([nx, ny], size)
        )
        steps += base * max(f, 1)
        if steps * cell_m > limit + 1e-9:
            break
        if occupant(enc, c, (nx, ny)) is None:
            found = (label(nx, ny), round(steps * cell_m, 2))
        x, y = nx, ny
    return found
