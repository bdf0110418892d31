"""The one entry point: `apply(state, command, rng) -> Outcome`.

A command is a plain dict: {"type": ..., "by": "gm" | "player", "actor": id, ...}.
`by` is set by the server from the seat that sent it, never from the browser.
A player's seat is checked by the server to control `actor`; the engine checks
what only a GM may do and everything the rules say.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import board, dice, flow, plans, reorder, turn_start
from .base import (
    COMBAT_OVER,
    Ruleset,
    apply_damage,
    defeat,
    engage,
    int_option,
)
from .catalogue import ActionDef, Setting
from .events import Events
from .fields import MAX_NAME, MAX_TEXT, length, span
from .paths import on_map, sync_engagement, walk_on
from .refusal import Refusal, Refused, acting, refuse, said
from .registry import get_ruleset
from .state import (
    COMBAT,
    ENDED,
    NPC,
    PC,
    SEIZE,
    SETUP,
    Combatant,
    Effect,
    Encounter,
    Group,
    Window,
)

MAX_COMBATANTS = 200
# Far above any table's needs (issue 36: 1,650 were once accepted, each stored in the
# state and redrawn on every push).
MAX_CONDITIONS = 20  # hand-set conditions on one combatant
MAX_CUSTOM_ACTIONS = 50  # custom actions in one encounter
UNKNOWN_COMMAND = "There is no such command (docs/api.md lists them)."
NO_WINDOW = "That chance to react has passed."


@dataclass
class Outcome:
    """What a command did: the new state and its events, or a refusal and no change."""

    state: Encounter
    events: list[dict[str, Any]] = field(default_factory=list)
    refusal: Refusal | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None


def new_encounter(
    ruleset: str, name: str = "Encounter", settings: dict[str, Any] | None = None
) -> Encounter:
    rs = get_ruleset(ruleset)
    enc = Encounter(
        ruleset=rs.key, name=clean_text(name, "Encounter name", MAX_NAME) or "Encounter"
    )
    enc.settings = rs.default_settings()
    for key, value in (settings or {}).items():
        enc.settings[key] = check_setting(rs, key, value)
    return enc


def apply(
    state: Encounter | dict[str, Any], command: dict[str, Any], rng: random.Random
) -> Outcome:
    """Apply one command to a copy of the state. A refusal leaves the given state untouched."""
    original = state if isinstance(state, Encounter) else Encounter.from_dict(state)
    enc = original.copy()
    ev = Events(enc)
    # Hooks without an rng parameter (turn start, a declined window) roll with the
    # command's die: the Action Ladder resolves carried-over actions at turn start.
    ev.rng = rng  # type: ignore[attr-defined]
    try:
        if not isinstance(command, dict):
            raise refuse("bad_command", "A command must be an object with a type.")
        from .commands import lookup  # the table names this module's functions

        kind = command.get("type")
        rs = get_ruleset(enc.ruleset)
        spec = lookup(rs, kind) if isinstance(kind, str) else None
        if spec is None or spec.fn is None or not isinstance(kind, str):
            raise refuse("unknown_command", UNKNOWN_COMMAND)
        if spec.gm_only and command.get("by") != "gm":
            raise refuse("gm_only", f"Only the GM can {kind.replace('_', ' ')}.", command=kind)
        spec.fn(enc, rs, command, rng, ev)
        tidy_windows(enc, rs, ev)
    except Refused as r:
        return Outcome(original, [], r.refusal)
    except dice.DiceError as e:
        return Outcome(original, [], Refusal("bad_dice", e.rule))
    return Outcome(enc, ev.items)


# --- small parsers --------------------------------------------------------------------


def clean_text(value: object, label: str, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise refuse("bad_option", f"{label} must be text.", option=label)
    value = value.strip()
    if len(value) > limit:
        raise refuse(
            "too_long",
            f"{label} is too long: at most {limit} characters, got {len(value)}.",
            option=label,
            most=limit,
            asked=len(value),
        )
    return value


def as_int(value: Any, label: str, lo: int = -10_000, hi: int = 10_000) -> int:
    return int_option({"v": value}, "v", label, lo, hi)


def as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes", "on")
    return bool(value)


def check_setting(rs: Ruleset, key: str, value: Any) -> Any:
    spec = {s.key: s for s in rs.all_settings()}.get(key)
    if spec is None:
        raise refuse("unknown_setting", f"{rs.name} has no such setting.", ruleset=rs.key)
    if spec.kind == "dice":
        return dice.parse(str(value)).text
    if spec.kind == "bool":
        return as_bool(value)
    if spec.kind == "choice":
        if value not in spec.choices:
            raise refuse(
                "bad_option",
                f"{spec.label} must be one of {', '.join(spec.choices)}.",
                option=spec.label,
                choices=list(spec.choices),
            )
        return value
    return as_int(value, spec.label, spec.min, spec.max)


def clean_stats(raw: Any) -> dict[str, dict[str, Any]]:
    if raw in (None, ""):
        return {}
    if not isinstance(raw, dict):
        raise refuse(
            "bad_option",
            "Stats must be a mapping of name to a dice expression and bonus.",
            option="stats",
        )
    out: dict[str, dict[str, Any]] = {}
    for name, spec in raw.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,23}", name):
            raise refuse(
                "bad_option",
                "A stat name is letters, digits and _, at most 24, not starting with a digit.",
                option="stats",
            )
        if isinstance(spec, str | int):
            spec = {"dice": str(spec), "bonus": 0}
        if not isinstance(spec, dict):
            raise refuse(
                "bad_option", f"Stat {name} needs a dice expression and a bonus.", stat=name
            )
        expr = str(spec.get("dice") or "").strip()
        if not expr:
            continue
        out[name] = {"dice": dice.parse(expr).text, "bonus": as_int(spec.get("bonus", 0), name)}
    return out


# --- setup commands (GM) --------------------------------------------------------------


def cmd_add_combatant(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if len(enc.combatants) >= MAX_COMBATANTS:
        raise refuse(
            "too_many",
            f"An encounter holds at most {MAX_COMBATANTS} combatants.",
            most=MAX_COMBATANTS,
        )
    name = clean_text(cmd.get("name"), "Name", length("add_combatant", "name"))
    if not name:
        raise refuse("bad_option", "A combatant needs a name.", option="name")
    side = cmd.get("side", NPC)
    if side not in (PC, NPC):
        raise refuse("bad_option", "Side must be 'pc' or 'npc'.", option="side")
    c = Combatant(id=enc.new_id("c", rng), name=name, side=side)
    c.seq = enc.counter
    apply_fields(enc, rs, c, cmd, rng)
    rs.init_combatant(enc, c)
    enc.combatants[c.id] = c
    if enc.phase in (COMBAT, SEIZE):
        if flow.initiative_of(enc, c) is None:
            flow.roll_initiative(enc, c, rng, ev)
        # Joins the running round at its initiative place if that place is still to come.
        enc.order = [i for i in flow.round_order(enc) if i in enc.order or i == c.id]
        if flow.place_passed(enc, c.id):
            enc.acted.append(c.id)
    ev.add("combatant_added", actor=c.id, ruling=True)
    ev.items[-1]["data"]["id"] = c.id


def apply_fields(
    enc: Encounter,
    rs: Ruleset,
    c: Combatant,
    cmd: dict[str, Any],
    rng: random.Random | None = None,
) -> None:
    apply_identity(c, cmd)
    if "initiative_bonus" in cmd:
        c.initiative_bonus = as_int(
            cmd["initiative_bonus"], "Initiative bonus", *span("add_combatant", "initiative_bonus")
        )
    if cmd.get("initiative") not in (None, ""):
        c.initiative = as_int(cmd["initiative"], "Initiative", *span("add_combatant", "initiative"))
    if "hp" in cmd and cmd["hp"] not in (None, ""):
        set_max_hp(c, cmd["hp"])
    if "hidden" in cmd:
        c.hidden = as_bool(cmd["hidden"])
    if "stats" in cmd:
        c.stats.update(clean_stats(cmd["stats"]))
    if "group" in cmd:
        set_group(enc, c, cmd.get("group"), rng)
    for s in rs.settings:
        if s.per_combatant and cmd.get(s.key) not in (None, ""):
            c.mods[s.key] = check_setting(rs, s.key, cmd[s.key])
    if cmd.get("npc_health") == "encounter":
        c.mods.pop("npc_health", None)  # back to the encounter's choice
    elif cmd.get("npc_health") not in (None, ""):
        c.mods["npc_health"] = check_setting(rs, "npc_health", cmd["npc_health"])
    if "grit" in cmd and cmd["grit"] not in (None, ""):
        c.res["grit"] = as_int(cmd["grit"], "Grit", *span("add_combatant", "grit"))


def apply_identity(c: Combatant, cmd: dict[str, Any]) -> None:
    """Name, side and notes, as given."""
    if "name" in cmd:
        name = clean_text(cmd["name"], "Name", length("update_combatant", "name"))
        if not name:
            raise refuse("bad_option", "A combatant needs a name.", option="name")
        c.name = name
    if "side" in cmd:
        if cmd["side"] not in (PC, NPC):
            raise refuse("bad_option", "Side must be 'pc' or 'npc'.", option="side")
        c.side = cmd["side"]
    if "notes" in cmd:
        c.notes = clean_text(cmd["notes"], "Notes", length("add_combatant", "notes"))


def set_max_hp(c: Combatant, value: Any) -> None:
    """A new combatant starts unhurt; editing the maximum later keeps the wounds."""
    old_max = c.max_hp
    c.max_hp = as_int(value, "HP", *span("add_combatant", "hp"))
    if c.hp is None or old_max is None:
        c.hp = c.max_hp
    else:
        c.hp = max(0, min(c.max_hp, c.hp + c.max_hp - old_max))


def set_group(enc: Encounter, c: Combatant, name: Any, rng: random.Random | None = None) -> None:
    name = clean_text(name, "Group", length("add_combatant", "group"))
    if not name:
        c.group = None
        return
    for g in enc.groups.values():
        if g.name == name:
            c.group = g.id
            return
    g = Group(id=enc.new_id("g", rng), name=name, initiative_bonus=c.initiative_bonus)
    g.seq = enc.counter
    enc.groups[g.id] = g
    c.group = g.id


def cmd_update_combatant(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    before, was = c.max_hp, c.name
    fields = {k: v for k, v in cmd.items() if k not in ("type", "by", "actor")}
    apply_fields(enc, rs, c, fields, rng)
    if before != c.max_hp and c.hp is not None and c.max_hp is not None:
        c.hp = min(c.hp, c.max_hp)
    rs.refresh_limits(enc, c)
    # A new name is told with the old one, unless the combatant is hidden: the name it had
    # then was never the players' to read, and a reveal must not bring it out.
    renamed = None if c.name == was else {"renamed": True} if c.hidden else {"was": was}
    ev.add("combatant_changed", actor=c.id, ruling=True, data=renamed)


def cmd_remove_combatant(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    was_turn = enc.turn == c.id
    ev.add("combatant_removed", actor=c.id, ruling=True)
    for other in enc.combatants.values():
        if c.id in other.engaged:
            other.engaged.remove(c.id)
    enc.pending = [w for w in enc.pending if c.id not in (w.reactor, w.trigger)]
    del enc.combatants[c.id]
    board.forget(enc, c.id)
    plans.forget(enc, c.id)
    enc.order = [i for i in enc.order if i != c.id]
    enc.acted = [i for i in enc.acted if i != c.id]
    enc.interject = [i for i in enc.interject if i != c.id]
    if was_turn:
        enc.turn = None
        flow.advance(enc, rs, ev)


def cmd_hide(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    hidden = as_bool(cmd.get("hidden", cmd["type"] == "hide"))
    if c.hidden == hidden:
        raise refuse(
            "no_change",
            f"{c.name} is already {'hidden' if hidden else 'visible'}.",
            who=c.id,
            hidden=hidden,
        )
    c.hidden = hidden
    # Logged while hidden, so a hiding is itself only seen by the GM; a reveal is public.
    ev.add("visibility", actor=c.id, ruling=True, data={"hidden": hidden})


def cmd_defeat(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    if cmd["type"] == "defeat":
        if c.defeated:
            raise refuse("no_change", f"{c.name} is already defeated.", who=c.id, defeated=True)
        defeat(enc, c, ev)
        ev.items[-1]["ruling"] = True
        if enc.turn == c.id:
            flow.finish_turn(enc, rs, ev)
    else:
        if not c.defeated:
            raise refuse("no_change", f"{c.name} is not defeated.", who=c.id, defeated=False)
        flow.revive(enc, c, ev, "flow.revived", ruling=True)


def cmd_damage(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    amount = as_int(cmd.get("amount"), "Amount", *span(cmd["type"], "amount"))
    if c.hp is None:
        raise refuse("no_hp", f"{c.name} has no HP to change: set its HP first.", who=c.id)
    if cmd["type"] == "damage":
        ev.add("damage", actor=c.id, ruling=True, data={"amount": amount})
        apply_damage(enc, c, amount, ev, source=None)
        if c.defeated and enc.turn == c.id:
            flow.finish_turn(enc, rs, ev)
    else:
        flow.heal(enc, c, amount)
        ev.add("heal", actor=c.id, ruling=True, data={"amount": amount, "hp": c.hp})
        flow.stand_if_healed(enc, c, ev, ruling=True)


# --- initiative and flow --------------------------------------------------------------


def cmd_roll_initiative(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if enc.phase == ENDED:
        raise refuse("ended", "This combat has ended.")
    targets = [enc.get(cmd["actor"])] if cmd.get("actor") else list(enc.combatants.values())
    if not targets:
        raise refuse("no_combatants", "Add combatants before rolling initiative.")
    for g in enc.groups.values():
        if any(c.group == g.id for c in targets):
            g.initiative = None
    for c in targets:
        flow.roll_initiative(enc, c, rng, ev)
    if enc.phase == SETUP:
        enc.order = flow.initiative_order(enc)


def cmd_set_initiative(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    value = as_int(cmd.get("initiative"), "Initiative", *span("set_initiative", "initiative"))
    if c.group and c.group in enc.groups:
        enc.groups[c.group].initiative = value
    else:
        c.initiative = value
    c.initiative_roll = None
    ev.add("initiative", actor=c.id, ruling=True, data={"value": value})
    if enc.phase == SETUP:
        enc.order = flow.initiative_order(enc)


def cmd_reorder(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Settle a tie: swap a combatant with the tied neighbour above or below.

    Players order their own tied PCs; the GM orders anyone. Only combatants tied on
    initiative and on the same side swap: the tie rules put PCs before NPCs, and a
    different initiative is changed with set_initiative instead.

    A visible combatant swaps with its nearest visible neighbour: hidden ones keep their
    places, so what players see of the order moves exactly as asked and never shows that
    something hidden stands between (issue 12 item 10).
    """
    c = enc.get(cmd.get("actor"))
    direction = cmd.get("direction")
    if direction not in ("up", "down"):
        raise refuse("bad_option", "Direction must be 'up' or 'down'.", option="direction")
    if enc.phase == SEIZE and c.seized:
        reorder_seizers(enc, c, direction, cmd, ev)
        return
    full = flow.initiative_order(enc)
    order = full if c.hidden else [x for x in full if not enc.combatants[x].hidden]
    i = order.index(c.id)
    j = i - 1 if direction == "up" else i + 1
    if j < 0 or j >= len(order):
        raise refuse(
            "no_tie",
            f"{c.name} is already at the {'top' if j < 0 else 'bottom'}.",
            who=c.id,
            direction=direction,
        )
    other = enc.combatants[order[j]]
    mine = flow.initiative_of(enc, c)
    if (flow.initiative_of(enc, other) != mine or other.side != c.side) and cmd.get("by") == "gm":
        # Past one with another initiative (or side), the GM rules where it goes.
        reorder.place(enc, c, other, before=direction == "up", ev=ev)
        return
    if flow.initiative_of(enc, other) != mine or other.side != c.side:
        raise said("not_tied", c, others=[other], other=other.id, rule="ties")
    block = [
        x
        for x in full
        if flow.initiative_of(enc, enc.combatants[x]) == mine and enc.combatants[x].side == c.side
    ]
    a, b = block.index(c.id), block.index(other.id)
    block[a], block[b] = block[b], block[a]
    for n, x in enumerate(block, start=1):
        enc.combatants[x].tie = n
    flow.reorder(enc)
    ev.add(
        "reorder",
        actor=c.id,
        involved=(other.id,),
        ruling=cmd.get("by") == "gm",
        data={"direction": direction},
    )


def reorder_seizers(
    enc: Encounter, c: Combatant, direction: str, cmd: dict[str, Any], ev: Events
) -> None:
    """Seize the Moment: several seizers of one side choose their order at the top
    (PCs order themselves, the GM orders the NPCs); PCs always come before NPCs."""
    top = [i for i in flow.round_order(enc) if enc.combatants[i].seized]
    block = [i for i in top if enc.combatants[i].side == c.side]
    # As cmd_reorder: a visible seizer passes over hidden ones, which keep their places.
    near = block if c.hidden else [x for x in block if not enc.combatants[x].hidden]
    i = near.index(c.id)
    j = i - 1 if direction == "up" else i + 1
    if j < 0 or j >= len(near):
        raise refuse(
            "no_tie",
            f"{c.name} is already {'first' if j < 0 else 'last'} of the "
            f"{'PCs' if c.is_pc else 'NPCs'} who Seize the Moment.",
            who=c.id,
            direction=direction,
            rule="Seize the Moment",
        )
    other = near[j]
    a, b = block.index(c.id), block.index(other)
    block[a], block[b] = block[b], block[a]
    enc.settings["_seize_order"] = [x for x in top if x not in block] + block
    enc.order = flow.round_order(enc)
    ev.add(
        "reorder",
        say="reorder_seize",
        actor=c.id,
        involved=(other,),
        ruling=cmd.get("by") == "gm",
        data={"direction": direction},
    )


def cmd_start_combat(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if enc.phase == ENDED:
        raise refuse("ended", COMBAT_OVER)
    if enc.phase != SETUP:
        raise refuse("already_started", "Combat has already started.")
    if not enc.combatants:
        raise refuse("no_combatants", "Add combatants before starting combat.")
    for c in enc.combatants.values():
        if flow.initiative_of(enc, c) is None:
            flow.roll_initiative(enc, c, rng, ev)
    for c in enc.combatants.values():
        rs.init_combatant(enc, c)
    ev.add("combat_start", ruling=True)
    enc.round = 0
    if rs.has_seize and any(
        c.res.get("grit", 0) > 0 and not c.defeated for c in enc.combatants.values()
    ):
        enc.phase = SEIZE
        ev.add("seize_window")
        return
    flow.start_round(enc, rs, ev)


def cmd_begin_round(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    # Also after a round that ended with nobody standing (phase combat, no turn), so the
    # GM can go on once someone is revived or added.
    if enc.phase == ENDED:
        raise refuse("ended", COMBAT_OVER)
    if enc.phase != SEIZE and not (enc.phase == COMBAT and enc.turn is None and enc.round):
        raise refuse("not_between_rounds", "The round is already under way.")
    if not any(not c.defeated for c in enc.combatants.values()):
        raise refuse("nobody_standing", "Nobody is left standing: revive or add a combatant first.")
    flow.start_round(enc, rs, ev)


def cmd_seize(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if not rs.has_seize:
        raise refuse(
            "not_in_ruleset",
            f"{rs.name} has no Seize the Moment.",
            ruleset=rs.key,
            rule="Seize the Moment",
        )
    c = enc.get(cmd.get("actor"))
    if enc.phase == ENDED:
        raise refuse("ended", COMBAT_OVER)
    if enc.phase != SEIZE:
        raise refuse(
            "seize_timing",
            "Seize the Moment is declared at the start of a round, before the first "
            "combatant acts.",
            who=c.id,
            rule="Seize the Moment",
        )
    if c.seized:
        raise refuse(
            "already_seized",
            f"{c.name} has already seized this round.",
            who=c.id,
            rule="Seize the Moment",
        )
    if c.defeated:
        raise said("defeated", c)
    if c.res.get("grit", 0) < 1:
        raise refuse(
            "no_grit",
            f"Seize the Moment costs 1 Grit; {c.name} has none.",
            who=c.id,
            cost=1,
            left=0,
            rule="Seize the Moment",
        )
    c.res["grit"] -= 1
    c.seized = True
    order = enc.settings.setdefault("_seize_order", [])
    order.append(c.id)
    enc.order = flow.round_order(enc)  # shows the coming round's order between rounds
    ev.add("seize", actor=c.id, data={"round": enc.round + 1})


MAX_PASSES = 20  # windows that open windows: a bound, never reached in play


def cmd_end_turn(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if enc.phase == ENDED:
        raise refuse("ended", COMBAT_OVER)
    if enc.phase != COMBAT or enc.turn is None:
        raise refuse("no_turn", "Nobody is taking a turn right now.")
    actor = cmd.get("actor") or enc.turn
    if actor != enc.turn:
        raise said(
            "not_your_turn",
            enc.get(actor),
            sentence="turn_of",
            others=[enc.get(enc.turn)],
            turn=enc.turn,
        )
    holder = enc.get(actor)
    waiting = rs.turn_windows(enc, holder)
    if waiting and cmd.get("by") != "gm":
        own = [w for w in waiting if w.reactor == actor]
        if own:
            by = enc.combatants.get(own[0].trigger)
            answer, held = rs.answer_first(enc, holder, own)
            raise said(
                "answer_first",
                holder,
                sentence="answer_own",
                others=[by] if by is not None else [],
                window=own[0].id,
                by=own[0].trigger,
                rule="Reactions",
                answer=answer,
                held=held,
            )
        reactors = [enc.get(i) for i in dict.fromkeys(w.reactor for w in waiting)]
        raise said(
            "waiting_for_reactions",
            holder,
            others=reactors,
            waiting_on=[r.id for r in reactors],
        )
    # The GM ends the turn: every window it waits on passes, as with close_windows, and
    # so do those that passing opens (a declared ranged attack let through by its
    # Interrupt windows opens its target's defence window): none is left into the next
    # turn (docs/rules.md, "Ending a turn while windows are open").
    for _ in range(MAX_PASSES):
        waiting = rs.turn_windows(enc, holder)
        if not waiting:
            break
        close_windows(enc, waiting, ev)
        for w in waiting:  # as close_windows: the ruleset settles what nobody answered
            if w.reactor in enc.combatants:
                rs.declined(enc, enc.combatants[w.reactor], w, ev)
    start = len(ev.items)
    if cmd["type"] == "hold":
        rs.hold(enc, enc.get(actor), ev)
    else:
        ev.add("end_turn", actor=actor)
    mark_for_player(enc, cmd, actor, ev, start)
    flow.finish_turn(enc, rs, ev)


def cmd_take_turn(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Group Initiative: another member of the group whose slot it is goes now."""
    c = enc.get(cmd.get("actor"))
    cur = enc.combatants.get(enc.turn or "")
    if cur is None or enc.phase != COMBAT:
        raise refuse("no_turn", "Nobody is taking a turn right now.")
    if cur.id == c.id:
        raise refuse("no_change", f"It is already {c.name}'s turn.", who=c.id, turn=c.id)
    if not c.group or c.group != cur.group:
        raise said("not_group", c, others=[cur], turn=cur.id, rule="Group Initiative")
    if c.id in enc.acted or not rs.eligible(enc, c):
        raise refuse("already_acted", f"{c.name} has already had its turn.", who=c.id)
    if cur.turn.get("actions") or turn_start.began(enc, cur):
        raise said("turn_begun", c, others=[cur], turn=cur.id, rule="Group Initiative")
    # The slot opened on the current member; its turn starts when it really comes.
    turn_start.put_back(enc, cur)
    i, j = enc.order.index(cur.id), enc.order.index(c.id)
    enc.order[i], enc.order[j] = enc.order[j], enc.order[i]
    ev.add("take_turn", actor=c.id, involved=(cur.id,), data={"before": cur.id})
    flow.begin_turn(enc, rs, c, ev)


def cmd_end_combat(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if enc.phase == ENDED:
        raise refuse("ended", "This combat has already ended.")
    enc.phase = ENDED
    enc.turn = None
    enc.turn_start_undo = None
    enc.pending = []
    plans.drop_all(enc)
    ev.add("combat_end", ruling=True)


# --- actions --------------------------------------------------------------------------


def preview(enc: Encounter, cmd: dict[str, Any]) -> tuple[str, str]:
    """What `act` with these options would cost ("3 AP") and the line that says what it
    costs and does ("Empowered Attack: 3 AP, +1 to hit"); or no cost and the reason it
    cannot be priced. Changes nothing. Targets are left out: no price depends on them, and
    a preview must not tell a player which ids exist."""
    rs = get_ruleset(enc.ruleset)
    try:
        c = enc.get(cmd.get("actor"))
        a = rs.action(enc, str(cmd.get("action")), c)
        kinds = {o.name: o.kind for o in a.options}
        opts = {
            k: v for k, v in options_of(cmd).items() if kinds.get(k) not in ("target", "targets")
        }
        check_options(enc, c, a, opts)
        line = rs.preview(enc, c, a, opts)
        if opts.get("to") and rs.path_allowance(enc, c, a, opts) is not None:
            from .paths import plan

            p = plan(enc, c.id, a.key, str(opts["to"]), opts)
            said = p["reason"] or f"{p['summary']}, of {p['allowance']:g} m"
            line = f"{line}; {said}"
        return rs.price_text(enc, c, a, opts), line
    except Refused as r:
        return "", r.refusal.message


def cmd_act(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    a = rs.action(enc, str(cmd.get("action")), c)
    opts = options_of(cmd)
    if cmd.get("target"):
        opts["target"] = cmd["target"]
    free = cmd["type"] == "grant"
    check_options(enc, c, a, opts)
    for o in a.options:
        if o.gm_only and opts.get(o.name) is not None and cmd.get("by") != "gm":
            raise refuse(
                "gm_sets",
                f"{o.label}: only the GM sets this for {a.name} ({o.gm_only}).",
                **acting(c, a, option=o.name, rule=o.gm_only),
            )
    try:
        rs.check(enc, c, a, opts, free=free)
    except Refused as r:
        if r.refusal.code != "not_your_turn":
            raise
        # The disabled button's reason stays the same from turn to turn; the answer to a
        # command sent out of turn also says whose turn it is.
        holder = enc.combatants.get(enc.turn or "")
        raise said(
            "not_your_turn",
            c,
            a,
            sentence="not_your_turn_now",
            others=[holder] if holder else [],
            **{**r.refusal.args, "turn": enc.turn},
        ) from None
    start = len(ev.items)
    before = dict(c.res)
    if free:
        ev.add("ruling", say="grant_free", actor=c.id, ruling=True, data={"action": a.name})
    else:
        rs.pay(enc, c, a, opts)
    paid = {} if free else rs.paid(c, before, opts)
    rs.record(enc, c, a, free=free)
    rs.resolve(enc, c, a, opts, rng, ev)
    mark_paid(ev, start, c.id, paid, a.reaction)
    ends = rs.after_action(enc, c, a, opts, ev) or turn_holder_down(enc)
    mark_for_player(enc, cmd, c.id, ev, start)
    if ends:
        flow.finish_turn(enc, rs, ev)


def mark_paid(ev: Events, start: int, actor: str, paid: dict[str, int], reaction: bool) -> None:
    """The action's first event carries what was paid for it, per resource, and whether it
    is a reaction: facts the summary counts (an action granted free paid nothing)."""
    mine = [e for e in ev.items[start:] if e["actor"] == actor] or ev.items[start:]
    if mine:
        mine[0]["paid"] = paid
        mine[0]["reaction"] = reaction


def mark_for_player(
    enc: Encounter, cmd: dict[str, Any], actor: str | None, ev: Events, start: int
) -> None:
    """The GM acting (or ending the turn) for a player's combatant is a ruling (RULINGS 5):
    the lines this command logged under that combatant's name are marked as one."""
    c = enc.combatants.get(actor or "")
    if cmd.get("by") != "gm" or c is None or not c.is_pc:
        return
    for e in ev.items[start:]:
        if e["actor"] == c.id:
            e["ruling"] = True


def options_of(cmd: dict[str, Any]) -> dict[str, Any]:
    raw = cmd.get("options")
    if raw is None or raw == "":
        return {}
    if not isinstance(raw, dict):
        raise refuse(
            "bad_option", "Options must be an object of option names and values.", option="options"
        )
    return dict(raw)


def turn_holder_down(enc: Encounter) -> bool:
    """Someone else's deed (an Interrupt, an Opportunity Attack) defeated the combatant
    whose turn it is: that turn ends, as when the GM defeats it."""
    c = enc.combatants.get(enc.turn or "")
    return enc.phase == COMBAT and c is not None and c.defeated


def check_options(enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
    allowed = {o.name for o in a.options}
    for key in opts:
        if key not in allowed:
            takes = ", ".join(sorted(allowed)) or "none"
            raise refuse(
                "bad_option",
                f"{a.name} takes no such option (it takes: {takes}).",
                # The key sent is not repeated: a guess learns nothing back.
                **acting(c, a, choices=sorted(allowed)),
            )
    for o in a.options:
        v = opts.get(o.name)
        if v in (None, ""):
            if o.required:
                raise refuse(
                    "missing_option",
                    f"{a.name} needs {o.label.lower()}.",
                    **acting(c, a, option=o.name),
                )
            opts.pop(o.name, None)
            continue
        if o.kind == "target":
            enc.get(str(v))
            opts[o.name] = str(v)
        elif o.kind == "int":
            opts[o.name] = int_option(opts, o.name, o.label, o.min, o.max)
        elif o.kind == "bool":
            opts[o.name] = as_bool(v)
        elif o.kind == "choice":
            if v not in o.choices:
                raise refuse(
                    "bad_option",
                    f"{o.label} must be one of {', '.join(o.choices)}.",
                    **acting(c, a, option=o.name, choices=list(o.choices)),
                )
        elif o.kind == "text":
            opts[o.name] = clean_text(v, o.label, MAX_TEXT)


def cmd_react(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    wid = cmd.get("window")
    w = next((w for w in enc.pending if w.id == wid), None)
    if w is None:
        raise refuse("no_window", NO_WINDOW, window=wid if isinstance(wid, str) else None)
    if w.reactor != c.id:
        raise said("not_yours", c, others=[enc.get(w.reactor)], window=w.id, reactor=w.reactor)
    enc.pending.remove(w)
    if not as_bool(cmd.get("accept", True)):
        ev.add("decline", actor=c.id, involved=(w.trigger,))
        rs.declined(enc, c, w, ev)
        return
    rs.react(enc, c, w, options_of(cmd), rng, ev)
    if turn_holder_down(enc):
        flow.finish_turn(enc, rs, ev)


def close_windows(enc: Encounter, windows: Iterable[Window], ev: Events) -> None:
    for w in list(windows):
        enc.pending.remove(w)
        ev.add("decline", say="chance_passes", actor=w.reactor, ruling=True)


def tidy_windows(enc: Encounter, rs: Ruleset, ev: Events) -> None:
    """After every command, no window waits on a combatant that is gone or down (removed,
    or defeated by the GM, by damage or by an attack): a window whose reactor is out
    closes as passed (its chance to react is gone), and one opened by a combatant that
    is out closes with nothing to answer (its deed is not done: a defeated attacker's
    held attack is not rolled). Then whatever waited on those windows goes on
    (`Ruleset.settle`: a declared spell or ranged attack in the Action Ladder; a move held
    for an Opportunity Attack, paths.walk_on), and on a map engagement follows from where
    the tokens now stand (paths.sync_engagement)."""
    for w in list(enc.pending):
        reactor = enc.combatants.get(w.reactor)
        trigger = enc.combatants.get(w.trigger)
        in_fight = [x is not None and not x.defeated for x in (reactor, trigger)]
        if all(in_fight):
            continue
        enc.pending.remove(w)
        if reactor is not None and trigger is not None:
            out = trigger if trigger.defeated else reactor
            ev.add(
                "decline",
                say="chance_passes_out",
                actor=reactor.id,
                involved=(trigger.id,),
                data={"out": out.id},
            )
    rs.settle(enc, ev)
    walk_on(enc, rs, ev)
    sync_engagement(enc)


def cmd_close_windows(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    if not enc.pending:
        raise refuse("no_window", "No reaction is waiting.")
    waiting = list(enc.pending)
    close_windows(enc, waiting, ev)
    for w in waiting:
        if w.reactor in enc.combatants:
            rs.declined(enc, enc.combatants[w.reactor], w, ev)


def cmd_engage(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Put two combatants in (or out of) each other's melee reach, with no movement."""
    c = enc.get(cmd.get("actor"))
    t = enc.get(cmd.get("target"))
    if c.id == t.id:
        raise refuse("bad_target", "A combatant cannot be in its own reach.", who=c.id)
    if on_map(enc, c) and on_map(enc, t):
        raise said("on_map", c, others=[t], target=t.id, rule="engagement on a map")
    if as_bool(cmd.get("engaged", True)):
        if t.id in c.engaged:
            raise said(
                "no_change", c, sentence="already_engaged", others=[t], target=t.id, engaged=True
            )
        engage(enc, c, t)
        ev.add("engage", actor=c.id, involved=(t.id,), data={"with": t.id})
    else:
        if t.id not in c.engaged:
            raise said(
                "no_change", c, sentence="not_engaged", others=[t], target=t.id, engaged=False
            )
        if cmd.get("by") != "gm":
            raise said("use_move", c, others=[t], target=t.id, rule="leaving melee")
        c.engaged.remove(t.id)
        if c.id in t.engaged:
            t.engaged.remove(c.id)
        ev.add("engage", say="separate", actor=c.id, ruling=True, data={"from": t.id})


def cmd_force_move(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Forced movement (a push, pull or knockback) or teleportation: never provokes. On a
    map, a combatant whose token stands on it is moved to the cell given, and who is in
    melee follows from where it lands (paths.sync_engagement)."""
    c = enc.get(cmd.get("actor"))
    how = cmd.get("how", "forced")
    if how not in ("forced", "teleport"):
        raise refuse("bad_option", "How must be 'forced' or 'teleport'.", option="how")
    raw = board.field_text(cmd, "cell")
    data: dict[str, Any] = {"how": how}
    token = enc.board["tokens"].get(c.id) if enc.board is not None else None
    if enc.board is not None and token is not None and token["at"] is not None:
        if not isinstance(raw, str) or not raw.strip():
            raise refuse(
                "missing_option",
                f"{c.name} stands on the map: say the cell it is moved to.",
                who=c.id,
                option="cell",
            )
        at = list(board.parse_cell(raw.strip(), enc.board))
        if at == token["at"]:
            raise refuse("no_change", f"{c.name} is already there.", who=c.id)
        board.check_fit(enc, enc.board, c, at, token["size"])
        token["at"] = at  # the map shows where: the log names no cell fog may cover later
    ev.add("move", say="moved_by_gm", actor=c.id, ruling=True, data=data)
    rs.leave_reach(
        enc,
        c,
        provokes=False,
        ev=ev,
        reason="teleportation" if how == "teleport" else "forced movement",
    )


# --- GM rulings -----------------------------------------------------------------------


def cmd_adjust(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Set a resource by hand: AP, Bonus Actions, Grit, the Reaction, HP."""
    c = enc.get(cmd.get("actor"))
    key = cmd.get("resource")
    if not isinstance(key, str):
        raise refuse("unknown_resource", f"Name the resource of {c.name} to set.", who=c.id)
    if key == "hp":
        if c.max_hp is None:
            c.max_hp = as_int(cmd.get("value"), "HP", 0, 100_000)
        c.hp = as_int(cmd.get("value"), "HP", 0, c.max_hp)
        new: Any = c.hp
    elif key == "reaction":
        c.reaction = as_bool(cmd.get("value"))
        new = "available" if c.reaction else "spent"
    elif key in c.res and not key.endswith("_max"):
        cap = c.res.get(f"{key}_max", 99)
        c.res[key] = as_int(cmd.get("value"), key, 0, cap)
        new = c.res[key]
    elif key in ("grit",):
        c.res[key] = as_int(cmd.get("value"), key, 0, 99)
        new = c.res[key]
    elif rs.adjust(enc, c, key, cmd.get("value")):
        new = cmd.get("value")
    else:
        raise refuse("unknown_resource", f"{c.name} has no such resource.", who=c.id)
    ev.add("ruling", say="adjust", actor=c.id, ruling=True, data={"resource": key, "value": new})


def cmd_set_cost(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    key = str(cmd.get("action"))
    a = rs.action(enc, key)
    cost = as_int(cmd.get("cost"), "Cost", *span("set_cost", "cost"))
    if cmd.get("actor"):
        c = enc.get(cmd["actor"])
        c.mods.setdefault("costs", {})[key] = cost
    else:
        enc.cost_overrides[key] = cost
    ev.add(
        "ruling",
        say="set_cost",
        actor=cmd.get("actor"),
        ruling=True,
        data={"action": a.name, "cost": cost, "currency": rs.currency},
    )


def cmd_set_modifier(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    key = cmd.get("key")
    known = {s.key: s for s in rs.settings if s.per_combatant}
    known.update(rs.modifiers())
    if key not in known:
        raise refuse("unknown_modifier", f"{rs.name} has no such modifier.", ruleset=rs.key)
    c.mods[key] = check_setting_like(known[key], cmd.get("value"))
    rs.refresh_limits(enc, c)
    ev.add(
        "ruling",
        say="set_modifier",
        actor=c.id,
        ruling=True,
        data={"modifier": known[key].label.lower(), "value": c.mods[key]},
    )


def check_setting_like(spec: Setting, value: Any) -> Any:
    if spec.kind == "bool":
        return as_bool(value)
    return as_int(value, spec.label, spec.min, spec.max)


def cmd_set_setting(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    key = str(cmd.get("key"))
    value = check_setting(rs, key, cmd.get("value"))
    enc.settings[key] = value
    ev.add("ruling", say="set_setting", ruling=True, data={"setting": key, "value": value})


def cmd_add_custom_action(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    name = clean_text(cmd.get("name"), "Action name", length("add_custom_action", "name"))
    if not name:
        raise refuse("bad_option", "A custom action needs a name.", option="name")
    key = "custom_" + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if key in rs.catalogue(enc):
        raise refuse("duplicate", f"There is already an action called {name}.", what=key)
    if len(enc.custom_actions) >= MAX_CUSTOM_ACTIONS:
        raise refuse(
            "too_many",
            f"An encounter holds at most {MAX_CUSTOM_ACTIONS} custom actions; remove one "
            f"before adding {name}.",
            what=key,
            most=MAX_CUSTOM_ACTIONS,
        )
    spec = {
        "name": name,
        "cost": as_int(cmd.get("cost", 0), "Cost", *span("add_custom_action", "cost")),
        "bonus": as_int(cmd.get("bonus", 0), "Bonus Actions", *span("add_custom_action", "bonus")),
        "attack": as_bool(cmd.get("attack")),
        "spell": as_bool(cmd.get("spell")),
        "reaction": as_bool(cmd.get("reaction")),
        "interrupt": as_bool(cmd.get("interrupt")),
        "summary": clean_text(
            cmd.get("summary"), "Summary", length("add_custom_action", "summary")
        ),
    }
    rs.check_custom_action(spec)
    enc.custom_actions[key] = spec
    ev.add(
        "ruling",
        say="custom_action_added",
        ruling=True,
        data={"key": key, "name": name, "cost": rs.cost_label(rs.action(enc, key))},
    )


def cmd_remove_custom_action(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    key = str(cmd.get("action"))
    if key not in enc.custom_actions:
        raise refuse("unknown_action", "There is no such custom action.")
    name = enc.custom_actions.pop(key)["name"]
    ev.add("ruling", say="custom_action_removed", ruling=True, data={"name": name})


def cmd_roll(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """A free roll of any dice expression; the GM may roll in secret."""
    expr = clean_text(cmd.get("dice"), "Dice", length("roll", "dice"))
    r = dice.roll(expr, rng)
    secret = as_bool(cmd.get("secret")) and cmd.get("by") == "gm"
    if as_bool(cmd.get("secret")) and cmd.get("by") != "gm":
        raise refuse("gm_only", "Only the GM can roll in secret.", option="secret")
    if not cmd.get("actor") and cmd.get("by") != "gm":
        raise refuse(
            "missing_option",
            "Say which of your combatants rolls (the actor): a player's roll is logged "
            "under that combatant's name.",
            option="actor",
        )
    if cmd.get("actor"):
        enc.get(cmd["actor"])  # a combatant of this encounter, or refused
    label = clean_text(cmd.get("label"), "Label", length("roll", "label"))
    ev.add(
        "roll",
        actor=cmd.get("actor"),
        rolls=(r,),
        secret=secret,
        data={"label": label},
    )


def cmd_abandon(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    rs.abandon(enc, c, ev)


def cmd_trigger(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    c = enc.get(cmd.get("actor"))
    rs.spring(enc, c, ev)


def cmd_set_pace(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Action Ladder: the GM edits the Slow and Quicken table (RULINGS ladder 5)."""
    hook = getattr(rs, "set_pace", None)
    if hook is None:
        raise refuse(
            "not_in_ruleset",
            f"{rs.name} has no Slow and Quicken table.",
            ruleset=rs.key,
            rule="Slow and Quicken",
        )
    hook(enc, cmd, ev)


def cmd_set_condition(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Set, change or clear a lasting condition (Prone, Bleeding 3, ...) on a combatant by
    hand, for as long as the GM says: until cleared, until the start or end of a
    combatant's next turn, or for a number of rounds (the current round counts as one)."""
    c = enc.get(cmd.get("actor"))
    name = clean_text(cmd.get("name"), "Condition", length("set_condition", "name"))
    if not name:
        raise refuse("bad_option", "A condition needs a name.", option="name")
    stacks = as_int(cmd.get("stacks", 1), "Stacks", *span("set_condition", "stacks"))
    expires, of, detail = condition_duration(enc, cmd)
    c.effects = [e for e in c.effects if e.name.lower() != name.lower()]
    if stacks and sum(1 for e in c.effects if e.detail.get("condition")) >= MAX_CONDITIONS:
        # Changing or clearing one already set is always allowed; only a new one is refused.
        raise refuse(
            "too_many",
            f"{c.name} already has {MAX_CONDITIONS} conditions, the most one combatant may "
            f"have; clear one before setting {name}.",
            who=c.id,
            most=MAX_CONDITIONS,
            condition=name,
        )
    if stacks:
        text = name if stacks == 1 else f"{name} {stacks}"
        detail = {"stacks": stacks, "condition": True, **detail}
        c.effects.append(Effect(name, expires, of, detail, text))
        ev.add(
            "condition",
            mentions=(of,),
            actor=c.id,
            ruling=True,
            data={
                "name": text,
                "expires": expires,
                "of": of,
                "last_round": detail.get("last_round"),
            },
        )
    else:
        ev.add("condition", say="condition_cleared", actor=c.id, ruling=True, data={"name": name})


def condition_duration(
    enc: Encounter, cmd: dict[str, Any]
) -> tuple[str, str | None, dict[str, Any]]:
    """How long a hand-set condition lasts: (expires, until_of, detail)."""
    rounds = cmd.get("rounds")
    n = as_int(rounds, "Rounds", *span("set_condition", "rounds")) if rounds is not None else 0
    until = cmd.get("until") or ("rounds" if n else "cleared")
    if until == "cleared":
        return "never", None, {}
    if until in ("turn_start", "turn_end"):
        return until, enc.get(cmd.get("of")).id, {}
    if until == "rounds":
        if not n:
            raise refuse(
                "bad_option",
                "A condition set for a number of rounds needs rounds.",
                option="rounds",
            )
        last = max(enc.round, 1) + n - 1
        return "rounds", None, {"last_round": last}
    raise refuse(
        "bad_option",
        "A condition lasts until cleared, until the start or end of a combatant's next "
        "turn (turn_start, turn_end), or for a number of rounds (rounds).",
        option="expires",
    )
