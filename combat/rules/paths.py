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

A player character's path is found on the map as the players know it (board.seen_board):
no hidden combatant's token, no terrain or token under fog. So nothing the players cannot
see changes a path, a cost or a refusal they read. The move then goes along that path on
the real map and stops short, on the last cell it could stand on, where the real map stops
it (a wall or an enemy under the fog, a hidden enemy in the way) or where its metres run
out (difficult ground under the fog): the players learn what is there by running into it.
The GM's combatants move on the real map.

Reach: a token reaches `reach` metres (board.reach_m; none set is one cell), counted in
whole cells from its own cells to the nearest cell of the other token by the board's
diagonal rule, and always at least the cells next to it (a positive reach shorter than a
cell still touches its neighbours); a reach of 0 reaches nobody. Two enemies are engaged
while either's reach covers the other (`sync_engagement`, after every command): on a map
engagement follows from where tokens stand and is never set by hand. A wall cuts reach:
the count goes around walls, and never through a corner of walls a diagonal would cut
(`within`).

A move walks its path cell by cell (`walk`). When the next step would take the mover out
of the reach of an enemy that may make an Opportunity Attack (the move provokes: no
Disengage; the enemy can react), the mover stops on the cell it is leaving from, that
enemy's window opens, and the rest of the path is held in `turn["walking"]`; once the
window is answered or closed the move walks on (`walk_on`), unless the mover was
defeated or its turn is over. Each enemy gets its window once per move, at its own
leaving cell, in the order the path meets them.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .board import (
    DEFAULT_DIAGONALS,
    DIAGONALS,
    footprint,
    key,
    label,
    parse_cell,
    reach_m,
    seen_board,
)
from .refusal import Refused, acting, refuse, said

if TYPE_CHECKING:
    from .base import Ruleset
    from .catalogue import ActionDef
    from .events import Events
    from .state import Combatant, Encounter
    from .turns import Walking

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


def _steps_from(fac: list[int], w: int, h: int, i: int) -> Iterator[tuple[int, bool]]:
    """The cells one step from cell `i` that a token may enter, and whether the step is
    diagonal: on the map, not blocked, and not cutting the corner of a blocked cell."""
    x, y = i % w, i // w
    for dx, dy in _STEPS:
        nx, ny = x + dx, y + dy
        if not (0 <= nx < w and 0 <= ny < h):
            continue
        j = ny * w + nx
        diagonal = dx != 0 and dy != 0
        if fac[j] and not (diagonal and not (fac[y * w + nx] and fac[ny * w + x])):
            yield j, diagonal


def _connected(fac: list[int], w: int, h: int, start: int, goal: int) -> bool:
    """Whether any path joins the two cells (a flood fill: far cheaper than a search of
    the whole map only to find there is no path)."""
    seen = bytearray(w * h)
    seen[start] = 1
    todo = deque([start])
    while todo:
        i = todo.popleft()
        if i == goal:
            return True
        for j, _diagonal in _steps_from(fac, w, h, i):
            if not seen[j]:
                seen[j] = 1
                todo.append(j)
    return False


FAR = Path([], -1, -1)  # find_path: any path there is dearer than the bound


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


_BLOCKED = 9  # a cell not enterable, while taking the largest over a token's cells


def _factors(enc: Encounter, c: Combatant, mode: str) -> list[int]:
    """For every top-left cell (index y * width + x), what a step putting c's token there
    costs per cell step: 0 when any cell it would cover is off the map, not enterable in
    this mode, or an enemy's; else 1, or 2 for difficult terrain."""
    board = enc.board
    assert board is not None
    size = int(board["tokens"][c.id]["size"])
    w, h = board["width"], board["height"]
    plain = terrain_factor(None, mode) or _BLOCKED
    cell = [plain] * (w * h)
    for k, kind in board["terrain"].items():
        x, y = (int(v) for v in k.split(","))
        cell[y * w + x] = terrain_factor(kind, mode) or _BLOCKED
    for x, y in _enemy_cells(enc, c):
        if 0 <= x < w and 0 <= y < h:
            cell[y * w + x] = _BLOCKED
    if size > 1:  # the largest over the size × size cells from each top-left
        rows = [
            max(cell[y * w + x : y * w + x + size]) if x + size <= w else _BLOCKED
            for y in range(h)
            for x in range(w)
        ]
        cell = [
            max(rows[(y + d) * w + x] for d in range(size)) if y + size <= h else _BLOCKED
            for y in range(h)
            for x in range(w)
        ]
    return [0 if f == _BLOCKED else f for f in cell]


def find_path(
    enc: Encounter,
    c: Combatant,
    to: tuple[int, int],
    mode: str = "walk",
    bound: int | None = None,
    flood: bool = False,
) -> Path | None:
    """The cheapest path for c's token to `to` (its top-left cell), or None when there is
    none. A* over (cell, parity of the diagonals taken), guided by the cost of the same
    distance over open ground (never more than the true cost, so the path found is a
    cheapest one). With a bound (in cell steps) the search gives up on paths dearer than
    it and answers FAR when there might be one: a move within its allowance, the common
    case, never searches the whole map. With flood, a flood fill first answers None at
    once when no path joins the cells (a search would visit the whole map to learn it)."""
    board = enc.board
    assert board is not None
    w, h = int(board["width"]), int(board["height"])
    fac = _factors(enc, c, mode)
    one_two_one = diagonals(board) == "1-2-1"
    tx, ty = to
    goal = ty * w + tx

    def guess(i: int, par: int) -> int:
        dx, dy = abs(i % w - tx), abs(i // w - ty)
        lo, hi = min(dx, dy), max(dx, dy)
        return hi + (lo + par) // 2 if one_two_one else hi

    at = board["tokens"][c.id]["at"]
    start = int(at[1]) * w + int(at[0])
    n = w * h
    inf = (1 << 30, 0)
    best: list[tuple[int, int]] = [inf] * (2 * n)  # state: parity * n + cell
    came = [-1] * (2 * n)
    best[start] = (0, 0)
    if fac[goal] == 0 or (flood and not _connected(fac, w, h, start, goal)):
        return None
    heap: list[tuple[int, int, int, int]] = [(guess(start, 0), 0, 0, start)]
    while heap:
        cheapest, steps, plain, state = heapq.heappop(heap)
        if best[state] < (steps, plain):
            continue
        if bound is not None and cheapest > bound:
            return FAR
        par, i = divmod(state, n)
        if i == goal:
            return _unwind(came, state, n, w, steps, plain)
        for j, diagonal in _steps_from(fac, w, h, i):
            f = fac[j]
            base, npar = 1, par
            if diagonal and one_two_one:
                base, npar = (2 if par else 1), 1 - par
            cand = (steps + base * f, plain + base)
            nstate = npar * n + j
            if cand < best[nstate]:
                best[nstate] = cand
                came[nstate] = state
                heapq.heappush(heap, (cand[0] + guess(j, npar), cand[0], cand[1], nstate))
    return None


def _unwind(came: list[int], state: int, n: int, w: int, steps: int, plain: int) -> Path:
    cells = []
    while came[state] != -1:
        i = state % n
        cells.append((i % w, i // w))
        state = came[state]
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


def as_known(enc: Encounter, c: Combatant) -> Encounter:
    """The encounter whose map a path of c's is found on: for a player character, the map
    as the players know it (c's own token kept wherever it stands); else the real one."""
    if enc.board is None or not c.is_pc:
        return enc
    hidden = {i for i, o in enc.combatants.items() if o.hidden}
    seen = seen_board(enc, hidden)
    assert seen is not None
    if c.id in enc.board["tokens"]:
        seen["tokens"][c.id] = enc.board["tokens"][c.id]
    return replace(enc, board=seen)


def route(
    enc: Encounter, rs: Ruleset, c: Combatant, a: ActionDef, to: str, opts: dict[str, Any]
) -> dict[str, Any]:
    """The path and its numbers, refused when the action cannot take it. The allowance is
    the ruleset's (Ruleset.path_allowance); an allowance still to be rolled (a Sprint's AGI
    roll) is checked again when the action resolves. Found on the map as c's side knows
    it (`as_known`)."""
    enc = as_known(enc, c)
    if enc.board is None:
        raise refuse(
            "no_board", "This encounter has no map: move without a cell, as far as the action goes."
        )
    if not on_map(enc, c):
        raise refuse(
            "not_on_map",
            f"{c.name} is not on the map: the GM places its token first.",
            **acting(c, a),
        )
    allowance = rs.path_allowance(enc, c, a, opts)
    if allowance is None:
        raise refuse(
            "no_destination", f"{a.name} does not move to a cell on the map.", who=c.id, what=a.key
        )
    metres_allowed, rule, mode = allowance
    dest = parse_cell(str(to), enc.board)
    where = label(*dest)
    if list(dest) == list(enc.board["tokens"][c.id]["at"]):
        raise refuse(
            "no_change", f"{c.name} already stands at {where}.", who=c.id, what=a.key, to=where
        )
    other = occupant(enc, c, dest)
    if other is not None:
        raise refuse(
            "occupied",
            f"{enc.public_name(other)} stands at {where}: a move may pass an ally but never "
            "ends on someone else's cell.",
            **acting(c, a, to=where, occupant=other),
        )
    cell_m = float(enc.board["cell_m"])
    p = find_path(enc, c, dest, mode, bound=int(metres_allowed / cell_m + 1e-9))
    if p is FAR:  # beyond the allowance: the whole search, for the numbers
        p = find_path(enc, c, dest, mode, flood=True)
    if p is None:
        how = {
            "swim": "swimming (only through water)",
            "climb": "climbing (only along climbable cells)",
        }.get(mode, "by any path (walls, deep water, cliffs and enemies block it)")
        raise refuse(
            "no_path",
            f"{c.name} cannot reach {where} {how} ({rule}).",
            **acting(c, a, to=where, mode=mode, rule=rule),
        )
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
        "mode": mode,
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
    provokes: bool = False,
) -> dict[str, Any]:
    """Move c's token along the path to opts["to"]: refused (nothing changes) when it is
    longer than the allowance; with stop_short (a Sprint's rolled metres), the token stops
    at the farthest cell of the path its metres reach where no one else stands. A move
    that provokes stops where it leaves an enemy's reach (`walk`; `open_held` then opens
    the window). Returns the route with "cost" the metres actually moved and "to" the
    cell reached."""
    info = route(enc, rs, c, a, str(opts["to"]), opts)
    limit = info["allowance"] if allowance is None else allowance
    assert enc.board is not None
    token = enc.board["tokens"][c.id]
    if info["cost"] > limit + 1e-9 and not stop_short:
        raise refuse(
            "too_far",
            f"{a.name} reaches {m(limit)}; {info['summary']}. ({info['rule']})",
            **acting(c, a, to=info["to"], metres=info["cost"], allowance=limit, rule=info["rule"]),
        )
    # Along the path on the real map, as far as the metres, the ground and the enemies'
    # reach allow.
    cells = [parse_cell(t, enc.board) for t in info["path"]]
    walked = walk(enc, rs, c, cells, limit, str(info.get("mode") or "walk"), provokes=provokes)
    info["to"], info["cost"] = label(*walked.at), walked.metres
    if walked.threat is not None:
        hold(c, a, info, walked, limit, [])
    elif info["to"] != info["path"][-1]:
        info["stopped"] = True
    x, y = parse_cell(info["to"], enc.board)
    token["at"] = [x, y]
    return info


@dataclass
class Walked:
    at: tuple[int, int]  # the cell reached
    metres: float  # spent to reach it
    par: int  # "1-2-1" parity there
    rest: list[tuple[int, int]]  # the cells of the path after it
    threat: str | None = None  # the enemy whose reach it stopped on leaving


def walk(
    enc: Encounter,
    rs: Ruleset,
    c: Combatant,
    cells: list[tuple[int, int]],
    limit: float,
    mode: str,
    *,
    par: int = 0,
    provokes: bool = False,
    passed: Collection[str] = (),
) -> Walked:
    """Walk the path on the real map: the farthest cell within `limit` metres and before
    anything that stops the mover (ground it cannot enter, an enemy's token), where c may
    stand; with `provokes`, no farther than the cell where it would leave the reach of an
    enemy that may make an Opportunity Attack (not one in `passed`), that enemy named.
    The metres are recomputed step by step; the start itself (no metres) when the first
    step is already stopped."""
    assert enc.board is not None
    board = enc.board
    cell_m = float(board["cell_m"])
    one_two_one = diagonals(board) == "1-2-1"
    size = board["tokens"][c.id]["size"]
    x, y = board["tokens"][c.id]["at"]
    enemies = _enemy_cells(enc, c)
    threats = _threats(enc, rs, c, passed) if provokes else {}
    steps = 0
    found = Walked((x, y), 0.0, par, list(cells))
    for i, (nx, ny) in enumerate(cells):
        leaving = [
            oid
            for oid, t in threats.items()
            if covers(board, t, [x, y], size) and not covers(board, t, [nx, ny], size)
        ]
        if leaving:
            found.threat = leaving[0]
            break
        diagonal = nx != x and ny != y
        base = 1
        if diagonal and one_two_one:
            base, par = (2 if par else 1), 1 - par
        covered = footprint([nx, ny], size)
        factors = [terrain_factor(board["terrain"].get(key(cx, cy)), mode) for cx, cy in covered]
        if min(factors) == 0 or enemies & set(covered):
            break
        steps += base * max(factors)
        if steps * cell_m > limit + 1e-9:
            break
        if occupant(enc, c, (nx, ny)) is None:
            found = Walked((nx, ny), round(steps * cell_m, 2), par, cells[i + 1 :])
        x, y = nx, ny
    return found


def _threats(
    enc: Encounter, rs: Ruleset, c: Combatant, passed: Collection[str]
) -> dict[str, dict[str, Any]]:
    """The tokens of the enemies on the map that would make an Opportunity Attack on c."""
    assert enc.board is not None
    out = {}
    for oid, t in enc.board["tokens"].items():
        other = enc.combatants.get(oid)
        if other is None or other.side == c.side or not t["at"] or oid in passed:
            continue
        if not other.defeated and rs.can_react(enc, other, "opportunity_attack"):
            out[oid] = t
    return out


# --- reach ----------------------------------------------------------------------------------


def reach_cells(token: dict[str, Any], board: dict[str, Any]) -> int:
    """How many cells a token's melee reach spans: at least one unless it is 0."""
    metres = reach_m(token, board)
    if metres <= 0:
        return 0
    return max(1, int(metres / float(board["cell_m"]) + 1e-9))


def gap(board: dict[str, Any], a: list[int], a_size: int, b: list[int], b_size: int) -> int:
    """Cell steps from a's nearest cell to b's, by the board's diagonal rule (1: next to)."""
    dx = max(b[0] - (a[0] + a_size - 1), a[0] - (b[0] + b_size - 1), 0)
    dy = max(b[1] - (a[1] + a_size - 1), a[1] - (b[1] + b_size - 1), 0)
    lo, hi = min(dx, dy), max(dx, dy)
    return hi + lo // 2 if diagonals(board) == "1-2-1" else hi


def covers(board: dict[str, Any], token: dict[str, Any], at: list[int], size: int) -> bool:
    """Whether the token's reach covers a token of `size` cells standing at `at`."""
    return within(board, token["at"], token["size"], at, size, reach_cells(token, board))


def within(
    board: dict[str, Any], a: list[int], a_size: int, b: list[int], b_size: int, cells: int
) -> bool:
    """Whether b's token is no more than `cells` cell steps from a's, going around walls:
    a wall between them cuts reach, as does a corner of walls a diagonal would cut. With
    no wall near (the common case) it is the straight count (`gap`)."""
    if gap(board, a, a_size, b, b_size) > cells:
        return False
    terrain = board["terrain"]
    x0, y0 = a[0] - cells, a[1] - cells
    x1, y1 = a[0] + a_size - 1 + cells, a[1] + a_size - 1 + cells
    near = [
        (x, y)
        for x in range(max(x0, 0), min(x1, board["width"] - 1) + 1)
        for y in range(max(y0, 0), min(y1, board["height"] - 1) + 1)
        if terrain.get(key(x, y)) == "wall"
    ]
    if not near:
        return True
    return _around_walls(board, a, a_size, b, b_size, cells, set(near))


def _around_walls(
    board: dict[str, Any],
    a: list[int],
    a_size: int,
    b: list[int],
    b_size: int,
    cells: int,
    walls: set[tuple[int, int]],
) -> bool:
    """The cheapest way from a's cells to b's within `cells` steps, by the board's diagonal
    rule, through no wall and cutting no wall's corner (a small search: reach is a few
    cells)."""
    one_two_one = diagonals(board) == "1-2-1"
    goal = set(footprint(b, b_size))
    best: dict[tuple[int, int, int], int] = {}
    heap: list[tuple[int, int, int, int]] = []
    for x, y in footprint(a, a_size):
        best[(x, y, 0)] = 0
        heapq.heappush(heap, (0, x, y, 0))
    while heap:
        cost, x, y, par = heapq.heappop(heap)
        if (x, y) in goal:
            return True
        if cost > best.get((x, y, par), cells + 1):
            continue
        for dx, dy in _STEPS:
            nx, ny = x + dx, y + dy
            if (nx, ny) in walls or not (0 <= nx < board["width"] and 0 <= ny < board["height"]):
                continue
            step, npar = 1, par
            if dx and dy:
                if (nx, y) in walls or (x, ny) in walls:
                    continue
                if one_two_one:
                    step, npar = (2 if par else 1), 1 - par
            ncost = cost + step
            if ncost <= cells and ncost < best.get((nx, ny, npar), cells + 1):
                best[(nx, ny, npar)] = ncost
                heapq.heappush(heap, (ncost, nx, ny, npar))
    return False


def in_reach(board: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether either token's reach covers the other: they are engaged."""
    return covers(board, a, b["at"], b["size"]) or covers(board, b, a["at"], a["size"])


def distance(board: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> float:
    """Metres from token a's nearest cell to token b's, by the board's diagonal rule: one
    cell's side for tokens next to each other."""
    return round(gap(board, a["at"], a["size"], b["at"], b["size"]) * float(board["cell_m"]), 2)


def placed_pair(
    enc: Encounter, c: Combatant, other: Combatant
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The two tokens, when both combatants stand on the map; None otherwise (no map, or
    either off it: the distance is not the map's to say)."""
    if enc.board is None or not (on_map(enc, c) and on_map(enc, other)):
        return None
    return enc.board["tokens"][c.id], enc.board["tokens"][other.id]


def measured(enc: Encounter, c: Combatant, other: Combatant | None) -> float | None:
    """Metres between the two combatants on the map, or None when it does not say (no map,
    no other, or either token off it)."""
    pair = None if other is None or other.id == c.id else placed_pair(enc, c, other)
    if pair is None:
        return None
    assert enc.board is not None
    return distance(enc.board, *pair)


def reaches(enc: Encounter, c: Combatant, target: Combatant, *, adjacent: bool = False) -> bool:
    """Whether c's melee reach (with `adjacent`, the cells next to c) covers the target's
    token; True when the map does not say (no map, either token off it, or c itself)."""
    pair = None if target.id == c.id else placed_pair(enc, c, target)
    if pair is None:
        return True
    assert enc.board is not None
    mine, theirs = pair
    cells = 1 if adjacent else reach_cells(mine, enc.board)
    return within(enc.board, mine["at"], mine["size"], theirs["at"], theirs["size"], cells)


def check_reach(
    enc: Encounter,
    c: Combatant,
    a: ActionDef,
    target: Combatant | None,
    *,
    rule: str,
    adjacent: bool = False,
) -> None:
    """Refuse `a` when its target stands out of c's melee reach on the map (with
    `adjacent`, farther than the cells next to c). Off the map, or without one, nothing is
    measured. `rule` is the sentence of the rules that asks for reach."""
    if target is None or reaches(enc, c, target, adjacent=adjacent):
        return
    pair = placed_pair(enc, c, target)
    assert enc.board is not None and pair is not None
    board = enc.board
    mine, theirs = pair
    cells = 1 if adjacent else reach_cells(mine, board)
    far = distance(board, mine, theirs)
    reach = round(cells * float(board["cell_m"]), 2)
    raise said(
        "out_of_reach",
        c,
        a,
        others=[target],
        target=target.id,
        reach=reach,
        distance=far,
        adjacent=adjacent,
        walled=far <= reach,  # near enough, but a wall is in the way
        rule=rule,
    )


def sync_engagement(enc: Encounter) -> None:
    """On a map, every pair of enemies that both stand on it is engaged exactly while one
    reaches the other; a combatant off the map keeps what the GM set by hand."""
    if enc.board is None:
        return
    from .base import engage, separate

    placed = [
        (c, t)
        for cid, t in enc.board["tokens"].items()
        if t["at"] and (c := enc.combatants.get(cid)) is not None and not c.defeated
    ]
    for n, (a, ta) in enumerate(placed):
        for b, tb in placed[n + 1 :]:
            if a.side == b.side:
                continue
            if in_reach(enc.board, ta, tb):
                engage(enc, a, b)
            else:
                separate(a, b)


# --- forced movement ---------------------------------------------------------------------------


@dataclass
class Pushed:
    start: tuple[int, int]  # the cell the pushed token stood on
    at: tuple[int, int]  # the cell it ends on
    metres: float  # how far it went (by the board's diagonal rule)
    stopped: str | None  # "wall", "token" or "edge" when one stopped it short, else None


def push_line(
    start: tuple[int, int], size: int, pusher: list[int], pusher_size: int
) -> Iterator[tuple[int, int]]:
    """The cells a token at `start` is pushed through, one step at a time, along the line
    from the pusher's centre through its own (each step moves at most one cell along each
    axis; the farther axis one cell every step)."""
    vx = (start[0] + size / 2) - (pusher[0] + pusher_size / 2)
    vy = (start[1] + size / 2) - (pusher[1] + pusher_size / 2)
    longest = max(abs(vx), abs(vy))
    if longest == 0:
        return
    k = 1
    while True:
        yield (start[0] + round(vx * k / longest), start[1] + round(vy * k / longest))
        k += 1


def wall_met(
    board: dict[str, Any], at: tuple[int, int], to: tuple[int, int], size: int
) -> tuple[int, int] | None:
    """The first wall cell a token of `size` cells meets stepping from `at` to the next
    cell `to` (at most one cell along each axis): a wall it would cover, or on a diagonal
    step a wall whose corner it would cut (the cells it sweeps through). None: no wall."""
    swept = footprint([to[0], to[1]], size)
    if to[0] != at[0] and to[1] != at[1]:
        swept += footprint([to[0], at[1]], size) + footprint([at[0], to[1]], size)
    for x, y in swept:
        if board["terrain"].get(key(x, y)) == "wall":
            return (x, y)
    return None


def push(enc: Encounter, pusher: Combatant, target: Combatant, metres: float) -> Pushed | None:
    """Forced movement: the target's token goes back along the line from the pusher, cell
    by cell, up to `metres` (counted from where it stood, by the board's diagonal rule),
    and stops before a wall (or a corner of walls it would cut), another token, or the
    map's edge. It walks no path and provokes nothing. None when either token is not on
    the map (the push is the GM's to place)."""
    pair = placed_pair(enc, pusher, target)
    if pair is None:
        return None
    assert enc.board is not None
    board = enc.board
    mine, theirs = pair
    size, cell_m = int(theirs["size"]), float(board["cell_m"])
    start = (int(theirs["at"][0]), int(theirs["at"][1]))
    others = {
        cell
        for oid, t in board["tokens"].items()
        if oid != target.id and t["at"]
        for cell in footprint(t["at"], t["size"])
    }

    at, moved, stopped = start, 0.0, None
    for nx, ny in push_line(start, size, mine["at"], int(mine["size"])):
        far = gap(board, list(start), 1, [nx, ny], 1) * cell_m
        if far > metres + 1e-9:
            break
        cells = footprint([nx, ny], size)
        if not all(0 <= x < board["width"] and 0 <= y < board["height"] for x, y in cells):
            stopped = "edge"
            break
        if wall_met(board, at, (nx, ny), size) is not None:
            stopped = "wall"
            break
        if others & set(cells):
            stopped = "token"
            break
        at, moved = (nx, ny), round(far, 2)
    theirs["at"] = [at[0], at[1]]
    return Pushed(start, at, moved, stopped)


# --- a move held for an Opportunity Attack ---------------------------------------------------


def hold(
    c: Combatant,
    a: ActionDef,
    info: dict[str, Any],
    walked: Walked,
    limit: float,
    passed: list[str],
) -> None:
    """Keep the rest of the path while the enemy it leaves gets its window (`open_held`)."""
    assert walked.threat is not None
    c.turn["walking"] = {
        "action": a.key,
        "name": a.name,
        "goal": str(info.get("goal") or info["path"][-1]),
        "cells": [label(*cell) for cell in walked.rest],
        "left": round(max(limit - walked.metres, 0.0), 2),
        "par": walked.par,
        "mode": str(info.get("mode") or "walk"),
        "passed": [*passed, walked.threat],
        "threat": walked.threat,
    }


def open_held(enc: Encounter, rs: Ruleset, c: Combatant, ev: Events) -> None:
    """A move just held at a leaving cell: say where and what is left, open the window."""
    held = c.turn.get("walking")
    if not held or "threat" not in held:
        return
    other = enc.get(held.pop("threat"))
    assert enc.board is not None
    data = {"at": label(*enc.board["tokens"][c.id]["at"]), "left": held["left"]}
    ev.add("move", say="base.walk_held", actor=c.id, data=data | {"goal": held["goal"]})
    rs.open_opportunity(enc, other, c, ev)


def land(enc: Encounter, c: Combatant, held: Walking, ev: Events) -> None:
    """A jump held at its take-off for the Opportunity Attacks it provoked lands once they
    are answered or passed: on its landing cell, unless the jumper was defeated (it falls
    where it took off) or the cell is no longer free (it stays where it took off)."""
    if c.defeated or not on_map(enc, c):
        return
    assert enc.board is not None
    x, y = held["landing"]
    landed = occupant(enc, c, (x, y)) is None and not any(
        enc.board["terrain"].get(key(cx, cy)) == "wall"
        for cx, cy in footprint([x, y], int(enc.board["tokens"][c.id]["size"]))
    )
    if landed:
        enc.board["tokens"][c.id]["at"] = [x, y]
    ev.add("move", say="base.jump_lands", actor=c.id, data={"landed": landed})


def walk_on(enc: Encounter, rs: Ruleset, ev: Events) -> None:
    """After every command: a held move whose window is answered or closed (and any
    defence the mover makes against that attack) walks on, to
    the next leaving cell or the end; it ends where it stands when the mover was defeated
    (a hit that defeats it ends the move there) or its turn is over."""
    for c in list(enc.combatants.values()):
        held = c.turn.get("walking")
        if not held or any(c.id in (w.trigger, w.reactor) for w in enc.pending):
            continue  # the attack, and the mover's own defence against it, come first
        del c.turn["walking"]
        if "landing" in held:
            land(enc, c, held, ev)
            continue
        if c.defeated or enc.turn != c.id or not on_map(enc, c):
            continue
        assert enc.board is not None
        cells = [parse_cell(t, enc.board) for t in held["cells"]]
        walked = walk(
            enc,
            rs,
            c,
            cells,
            held["left"],
            held["mode"],
            par=held["par"],
            provokes=True,
            passed=held["passed"],
        )
        enc.board["tokens"][c.id]["at"] = list(walked.at)
        c.turn["moved"] = float(c.turn.get("moved", 0)) + walked.metres
        to = label(*walked.at)
        short = held["goal"] if to != held["goal"] and walked.threat is None else None
        data = {"name": held["name"], "metres": walked.metres, "to": to, "short_of": short}
        ev.add("move", say="base.walk_on", actor=c.id, data=data)
        if walked.threat is not None:
            a = rs.action(enc, held["action"], c)
            info = {"goal": held["goal"], "mode": held["mode"], "path": held["cells"]}
            hold(c, a, info, walked, held["left"], held["passed"])
            open_held(enc, rs, c, ev)


# --- a jump ------------------------------------------------------------------------------------


def jump_line(start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells a token's top-left cell passes from `start` to `end` along the straight
    line between them, one step at a time (at most one cell along each axis; the farther
    axis one cell every step): not the start, the end last."""
    vx, vy = end[0] - start[0], end[1] - start[1]
    longest = max(abs(vx), abs(vy))
    return [
        (start[0] + round(vx * k / longest), start[1] + round(vy * k / longest))
        for k in range(1, longest + 1)
    ]


def jump_wall(
    board: dict[str, Any], start: tuple[int, int], end: tuple[int, int], size: int
) -> tuple[int, int] | None:
    """The first wall a jump along the straight line from `start` to `end` meets: one it
    would pass through, or a corner of walls it would cut. Water, difficult ground and
    other tokens do not stop a jump (it passes over them). None: the line is clear."""
    at = start
    for cell in jump_line(start, end):
        wall = wall_met(board, at, cell, size)
        if wall is not None:
            return wall
        at = cell
    return None


def jump_landing(enc: Encounter, c: Combatant, end: tuple[int, int]) -> tuple[int, int]:
    """Where c's jump toward `end` lands on the real map: `end`, or, when a wall or a
    token the jumper could not see stops it (one under the fog, a hidden combatant), the
    last cell before it on the line where its token can stand (its own cell at worst)."""
    assert enc.board is not None
    board = enc.board
    token = board["tokens"][c.id]
    size = int(token["size"])
    start = (int(token["at"][0]), int(token["at"][1]))
    at, landed = start, start
    for cell in jump_line(start, end):
        if wall_met(board, at, cell, size) is not None:
            break
        if occupant(enc, c, cell) is None:
            landed = cell
        at = cell
    return landed


def left_behind(
    enc: Encounter, rs: Ruleset, c: Combatant, start: tuple[int, int], end: tuple[int, int]
) -> list[str]:
    """The enemies that may make an Opportunity Attack whose reach covers c's token at
    `start` and not at `end`: a jump from one to the other leaves them behind at once."""
    assert enc.board is not None
    board = enc.board
    size = int(board["tokens"][c.id]["size"])
    return [
        oid
        for oid, t in _threats(enc, rs, c, ()).items()
        if covers(board, t, list(start), size) and not covers(board, t, list(end), size)
    ]
