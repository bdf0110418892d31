"""Movement by the Action Ladder: action-ladder.md "Movement", "Basic Movement"
(Step, Walk, Run, Sprint, Crawl, Climb, Swim), "Jumping", "Standing Up and Going Prone" and
the Disengage reaction ("Reactions"); RULINGS ladder (movement)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dice
from ..base import Opts, Rng, add_effect
from ..board import check_fit, label, parse_cell
from ..catalogue import ActionDef
from ..events import Events
from ..paths import as_known, gap, jump_landing, jump_wall, left_behind, on_map, open_held
from ..paths import take as take_path
from ..refusal import acting, refuse, said
from ..state import Combatant, Effect, Encounter
from .common import bonus_of, die_size, drop_effects, has_effect, level_of, metres, roll_of, spent

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def check_movement_mode(c: Combatant, a: ActionDef, opts: Opts) -> None:
    """Crawling and swimming leave only their own Movement Action (and a Step out)."""
    if has_effect(c, "Crawling") and a.key != "crawl":
        raise refuse(
            "crawling",
            f"While crawling {c.name} takes no other Movement "
            f"Action than Crawl until it stands up (not {a.name}).",
            **acting(c, a, rule="Crawling"),
        )
    if (
        has_effect(c, "Swimming")
        and a.key != "swim"
        and not (a.key == "step" and opts.get("get_out"))
    ):
        raise refuse(
            "swimming",
            f"While swimming {c.name} takes no other Movement "
            f"Action than Swim, until a Step gets it up or out (not {a.name}).",
            **acting(c, a, rule="Swimming"),
        )


def check_crawl(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if not has_effect(c, "Prone"):
        raise refuse(
            "not_prone", f"{c.name} must be prone to crawl.", who=c.id, what="crawl", rule="Crawl"
        )


def check_stand_up(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if not has_effect(c, "Prone"):
        raise refuse("not_prone", f"{c.name} is not prone.", who=c.id, what="stand_up")
    if opts.get("occupied"):
        raise refuse(
            "space_occupied",
            f"{c.name} cannot stand up while someone "
            "occupies its space, until they move or fall prone.",
            who=c.id,
            what="stand_up",
            rule="Standing Up and Going Prone",
        )


def check_fall_prone(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if has_effect(c, "Prone"):
        raise refuse("already_prone", f"{c.name} is already prone.", who=c.id, what="fall_prone")
    if has_effect(c, "Swimming"):
        raise refuse(
            "deep_water",
            f"{c.name} is swimming: nobody falls prone in water waist-deep or deeper "
            "(Standing Up and Going Prone).",
            who=c.id,
            what="fall_prone",
            rule="Standing Up and Going Prone",
        )


def check_jump(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    """A running start is run before the jump: it cannot exceed the metres moved so far
    this turn (Jumping: 'grows by 1 meter for each meter of running start')."""
    check_run_up(c, opts, float(c.turn.get("moved", 0)))


def check_run_up(c: Combatant, opts: Opts, ran: float) -> None:
    run_up = int(opts.get("run_up") or 0)
    running = (opts.get("kind") or opts.get("jump")) == "running"
    if running and run_up > ran:
        raise refuse(
            "run_up_too_long",
            f"A running jump's running start is the ground covered before it (Jumping): "
            f"{c.name} has moved {metres(ran)} this turn, not {run_up} m.",
            who=c.id,
            moved=ran,
            asked=run_up,
            rule="Jumping",
        )


def leave(self: ActionLadder, enc: Encounter, c: Combatant, opts: Opts, ev: Events) -> None:
    if opts.get("leave", True) and c.engaged:
        protected = bool(c.turn.pop("disengage_active", False))
        if not protected:
            self.tell_gm_no_opportunity(enc, c, ev)
        self.leave_reach(enc, c, provokes=not protected, ev=ev, reason="Disengage")


def jump_reach(
    self: ActionLadder, c: Combatant, enc: Encounter, kind: str, run_up: int, ledge: bool
) -> tuple[float, float]:
    agi = bonus_of(c, "AGI", "Jump")
    dist, height = agi / 4, agi / 10
    if kind == "running":
        dist = min(dist + run_up, agi / 2)
        height = min(height + run_up / 3, height + 1)
    dist += max(level_of(c, "athletics"), level_of(c, "acrobatics")) // 5
    if ledge:
        height += int(self.setting(enc, "height_cm", c)) / 100
    return max(dist, 0.0), max(height, 0.0)


# How each Movement Action goes on the map (paths.py), and the rule that grants its metres.
MAP_MODES = {"swim": "swim", "climb": "climb"}
MAP_RULES = {
    "step": "Basic Movement: a Step moves up to 2 m",
    "walk": "Basic Movement: Walk moves a third of your Speed",
    "run": "Basic Movement: Run moves your Speed plus your Athletics level",
    "sprint": "Basic Movement: Sprint moves your Speed plus Athletics plus an AGI roll",
    "climb": "Basic Movement: Climb moves as many metres as your AGI die has sides, "
    "along what can be climbed",
    "crawl": "Basic Movement: Crawl moves half your AGI die size",
    "swim": "Basic Movement: Swim moves a third of your Speed, in water",
}


def sure_metres(self: ActionLadder, enc: Encounter, c: Combatant, key: str) -> float:
    """The metres a Movement Action grants before any roll (a Sprint adds its AGI roll)."""
    speed = int(self.setting(enc, "speed", c))
    if key == "step":
        return 2.0
    if key in ("walk", "swim"):
        return speed / 3
    if key in ("run", "sprint"):
        return float(speed + level_of(c, "athletics"))
    if key == "climb":
        return float(die_size(c, "AGI", "Climb"))
    return die_size(c, "AGI", "Crawl") / 2  # crawl


def path_allowance(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
) -> tuple[float, str, str] | None:
    """On the map the path pays for difficult terrain (double), so the difficult option
    does not halve the allowance; a Step out of the water keeps 1 m to move on."""
    if a.key not in MAP_RULES:
        return None
    dist = sure_metres(self, enc, c, a.key)
    rule = MAP_RULES[a.key]
    if a.key == "step" and opts.get("get_out") and has_effect(c, "Swimming"):
        dist = max(dist - 1, 0)
    if a.key == "sprint":
        rule += " (checked again when the roll is made)"
    return dist, rule, MAP_MODES.get(a.key, "walk")


def do_move(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    rolls: tuple[dice.Roll, ...] = ()
    notes: list[list[Any]] = []  # facts the sentence adds after the metres
    key = a.key
    to = opts.get("to")
    if to and (opts.get("jump") or "none") != "none":
        raise said("jump_with_destination", c, a, rule=JUMPING)
    dist = sure_metres(self, enc, c, key)
    if key == "sprint":
        r = roll_of(c, "AGI", 0, rng, "Sprint")
        rolls = (r,)
        dist += r.total
        notes.append(["agi", r.total])
    elif key == "climb":
        notes.append(["direction", str(opts.get("direction") or "up")])
        if opts.get("hands_empty") or has_effect(c, "Climbing"):
            pass
        elif c.turn.get("free_draw_stow", 0) > 1:
            notes.append(["stowed", "bonus"])
        else:
            notes.append(["stowed", "free"])
        add_effect(c, Effect("Climbing", "turn_end", c.id, {}, "climbing: no free hands"))
    elif key == "crawl" and not has_effect(c, "Crawling"):
        add_effect(c, Effect("Crawling", "never", None, {}, "crawling"))
    elif key == "swim" and not has_effect(c, "Swimming"):
        add_effect(c, Effect("Swimming", "never", None, {}, "swimming"))
    if opts.get("difficult") and key in ("step", "walk", "run", "sprint") and not to:
        dist /= 2
        notes.append(["difficult"])
    if key == "step" and opts.get("get_out") and has_effect(c, "Swimming"):
        drop_effects(c, "Swimming")
        notes.append(["get_out"])
        dist = max(dist - 1, 0)
    if to:
        provokes = bool(opts.get("leave", True)) and not c.turn.get("disengage_active")
        if provokes and c.engaged:
            self.tell_gm_no_opportunity(enc, c, ev)
        moved = take_path(
            enc, self, c, a, opts, dist, stop_short=key == "sprint", provokes=provokes
        )
        if moved.get("stopped"):
            notes.append(["short", moved["path"][-1]])
        c.turn["moved"] = float(c.turn.get("moved", 0)) + moved["cost"]
        data = {"action": key, "name": a.name, "metres": moved["cost"], "to": moved["to"]}
        data |= {"notes": notes, **spent(opts)}
        ev.add("move", say="ladder.move", actor=c.id, rolls=rolls, data=data)
        c.turn.pop("disengage_active", None)
        open_held(enc, self, c, ev)  # on a map reach follows the path (paths.py)
        return
    jump = opts.get("jump") or "none"
    if jump != "none":
        # The run-up of a folded jump is run this turn, this move's metres included.
        check_run_up(c, opts, float(c.turn.get("moved", 0)) + dist)
        jd, jh = self.jump_reach(
            c, enc, jump, int(opts.get("run_up") or 0), bool(opts.get("ledge"))
        )
        jd = min(jd, dist)
        dist -= jd
        notes.append(["jump", jump, round(jd, 2), round(jh, 2)])
    c.turn["moved"] = float(c.turn.get("moved", 0)) + dist
    data = {"action": key, "name": a.name, "metres": round(dist, 2), "notes": notes}
    ev.add("move", say="ladder.move", actor=c.id, rolls=rolls, data=data | spent(opts))
    self.leave(enc, c, opts, ev)


JUMPING = "action-ladder.md, Jumping"


def jump_to(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, reach: float
) -> tuple[tuple[int, int], tuple[int, int], float]:
    """Where a jump to the cell opts["to"] takes off and lands, and the metres between
    them; refused (nothing changes) when the map forbids it. The straight-line distance
    (by the board's diagonal rule) must be within the jump's distance (`jump_reach`); the
    line may pass over water, difficult ground and tokens (a jump does not tread them) but
    not through a wall or a corner of walls; the landing must hold the token (on the map,
    no wall, nobody there). Checked on the map as the jumper's side knows it (like a
    path, paths.as_known); on the real map a wall or a token it could not see stops it on
    the last free cell before (paths.jump_landing)."""
    if enc.board is None:
        raise refuse(
            "no_board",
            "This encounter has no map: jump without a cell, as far as the jump goes.",
            **acting(c, a),
        )
    if not on_map(enc, c):
        raise refuse(
            "not_on_map",
            f"{c.name} is not on the map: the GM places its token first.",
            **acting(c, a),
        )
    known = as_known(enc, c)
    board = known.board
    assert board is not None
    token = enc.board["tokens"][c.id]
    size = int(token["size"])
    start = (int(token["at"][0]), int(token["at"][1]))
    end = parse_cell(str(opts["to"]), board)
    cell = label(*end)
    if end == start:
        raise said("no_change", c, a, sentence="jump_in_place", cell=cell, rule=JUMPING)
    far = round(gap(board, list(start), 1, list(end), 1) * float(board["cell_m"]), 2)
    if far > reach + 1e-9:
        raise said(
            "jump_too_far",
            c,
            a,
            cell=cell,
            distance=far,
            allowance=round(reach, 2),
            rule=JUMPING,
        )
    wall = jump_wall(board, start, end, size)
    if wall is not None:
        raise said("jump_blocked", c, a, cell=cell, wall=label(*wall), rule=JUMPING)
    check_fit(known, board, c, list(end), size)
    landed = jump_landing(enc, c, end)
    metres_gone = round(gap(enc.board, list(start), 1, list(landed), 1) * float(board["cell_m"]), 2)
    return start, landed, metres_gone


def do_jump(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    """Without a cell (no map, the token off it, or a jump in place) the jump is its
    metres, as far as it goes. With a cell on the map the token jumps there (`jump_to`);
    leaving an enemy's reach holds it at its take-off while that enemy's Opportunity
    Attack window is open, and it lands once every such window is answered or passed
    (paths.land), unless the jumper is defeated first."""
    kind = opts.get("kind") or "standing"
    dist, height = self.jump_reach(
        c, enc, kind, int(opts.get("run_up") or 0), bool(opts.get("ledge"))
    )
    data = {"action": "jump", "kind": kind, "metres": round(dist, 2), "height": round(height, 2)}
    if not opts.get("to"):
        c.turn["moved"] = float(c.turn.get("moved", 0)) + dist
        ev.add("move", say="ladder.jump", actor=c.id, data=data | spent(opts))
        self.leave(enc, c, opts, ev)
        return
    start, landed, gone = jump_to(self, enc, c, a, opts, dist)
    assert enc.board is not None
    provokes = bool(opts.get("leave", True)) and not c.turn.get("disengage_active")
    if provokes and c.engaged:
        self.tell_gm_no_opportunity(enc, c, ev)
    threats = left_behind(enc, self, c, start, landed) if provokes else []
    c.turn["moved"] = float(c.turn.get("moved", 0)) + gone
    # No cell is named: the map shows where the token lands, and fog may cover it later.
    data |= {"metres": gone, "across": True, "short": landed != parse_cell(opts["to"], enc.board)}
    data["held"] = bool(threats)
    ev.add("move", say="ladder.jump", actor=c.id, data=data | spent(opts))
    c.turn.pop("disengage_active", None)
    if threats:
        c.turn["walking"] = {"action": "jump", "name": a.name, "landing": list(landed)}
        for oid in threats:
            self.open_opportunity(enc, enc.get(oid), c, ev)
    else:
        enc.board["tokens"][c.id]["at"] = list(landed)


def do_stand_up(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    drop_effects(c, "Prone")
    drop_effects(c, "Crawling")
    ev.add("stand", say="ladder.stand", actor=c.id, data=spent(opts))


def do_fall_prone(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    if opts.get("deep_water"):
        # 'You cannot fall prone in water that is waist-deep or deeper - you begin to swim.'
        add_effect(c, Effect("Swimming", "never", None, {}, "swimming"))
        ev.add("swim", say="ladder.swim_not_prone", actor=c.id, data=spent(opts))
        return
    self.knock_prone(c)
    ev.add("prone", say="ladder.prone", actor=c.id, data=spent(opts))


def knock_prone(c: Combatant) -> None:
    if not has_effect(c, "Prone"):
        add_effect(c, Effect("Prone", "never", None, {}, "prone: cannot Dodge"))


def do_disengage(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    c.turn["disengage"] = True
    ev.add("disengage", say="ladder.disengage", actor=c.id)
