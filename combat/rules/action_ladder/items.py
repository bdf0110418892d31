"""Items by the Action Ladder: Consume, Draw / Stow and Drop (the Free Actions), Pick Up,
Administer, Aid and Toss (action-ladder.md "Action Types" and "Basic Combat Actions")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dice, flow
from ..base import Opts, Rng
from ..catalogue import ActionDef
from ..events import Events
from ..paths import measured
from ..refusal import refuse
from ..state import Combatant, Encounter
from .common import bonus_of, drop_effects, find_effect, has_effect, level_of, roll_of, spent

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def tell_action(ev: Events, c: Combatant, a: ActionDef, say: str, data: dict[str, Any]) -> None:
    """The log line of an action that only happens (drawn, dropped, picked up...)."""
    ev.add("action", say=say, actor=c.id, data={"action": a.key, **data})


def check_aid(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if target is None:
        return
    cond = str(opts.get("condition"))
    if not has_effect(target, cond):
        raise refuse(
            "no_condition",
            f"{target.name} is not {cond.capitalize()}: Aid "
            "lifts Incapacitated, Burning or Bleeding.",
            who=c.id,
            what="aid",
            target=target.id,
            condition=cond,
            rule="Aid",
        )


def check_toss(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    """Toss "a held item weighing no more than half your STR Bonus, up to your STR Bonus in
    meters"; on a map, to one standing on it, as far as the map says (paths.measured)."""
    s = bonus_of(c, "STR", "Toss")
    on_map = measured(enc, c, target)
    weight = int(opts.get("weight") or 0)
    far = on_map if on_map is not None else int(opts.get("distance") or 0)
    if 2 * weight > s:
        raise refuse(
            "too_heavy",
            f"Too heavy to toss: at most half the STR bonus "
            f"({s} / 2 = {s / 2:g}); the item weighs {weight}.",
            who=c.id,
            what="toss",
            weight=weight,
            limit=s / 2,
            rule="Toss",
        )
    if far > s:
        asked = f"{target.name} stands {far:g} m away" if on_map is not None and target else ""
        raise refuse(
            "too_far",
            f"Too far to toss: at most the STR bonus, {s} m; {asked or f'{far:g} m was asked'}.",
            who=c.id,
            what="toss",
            target=target.id if target else None,
            metres=far,
            allowance=s,
            rule="action-ladder.md, Toss",
        )


def do_free(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    which = opts.get("which")
    paid = opts.get("_paid")
    if which == "draw":
        drop_effects(c, "Disarmed")
    data = {
        "name": a.name,
        "which": which if which in ("draw", "stow") else None,
        "paid": None if not paid or list(paid) == [0, 0] else list(paid),
        "what": opts.get("text") or None,
    }
    tell_action(ev, c, a, "ladder.free_action", data)


def do_pick_up(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    drop_effects(c, "Disarmed")
    data = {"what": opts.get("text") or None, **spent(opts)}
    tell_action(ev, c, a, "ladder.pick_up", data)


def do_administer(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t = enc.get(opts["target"])
    if (opts.get("mode") or "first_aid") == "first_aid":
        level = level_of(c, "first_aid")
        before = flow.heal(enc, t, level)
        data = {"patient": t.id, "level": level, "before": before, "hp": t.hp, **spent(opts)}
        line = ev.add("heal", say="ladder.first_aid", actor=c.id, data=data)
        ev.health(line, t.id)
        flow.stand_if_healed(enc, t, ev)
    else:
        data = {"patient": t.id, "what": opts.get("text") or None, **spent(opts)}
        ev.add("action", say="ladder.potion", actor=c.id, data=data)


def do_aid(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t = enc.get(opts["target"])
    cond = str(opts["condition"])
    e = find_effect(t, cond)
    if e is None:
        ev.add("aid", say="ladder.aid_nothing", actor=c.id, data={"ally": t.id, "condition": cond})
        return
    stacks = int(e.detail.get("stacks", 1) or 1)
    rolls: tuple[dice.Roll, ...] = ()
    data: dict[str, Any] = {"ally": t.id, "condition": cond, **spent(opts)}
    if cond == "incapacitated":
        t.effects.remove(e)
    else:
        if cond == "burning":
            less = 2
        else:
            r = roll_of(c, "first_aid", 0, rng, "Aid against Bleeding")
            rolls = (r,)
            less = max(0, r.total - 10)
        left = max(0, stacks - less)
        if left:
            e.detail["stacks"] = left
            e.text = f"{e.name} {left}"
        else:
            t.effects.remove(e)
        data.update(lost=stacks - left, left=left, roll=rolls[0].total if rolls else None)
    ev.add("aid", say="ladder.aid", actor=c.id, rolls=rolls, data=data)


def do_toss(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    what = opts.get("text") or "an item"
    tid = opts.get("target")
    t = enc.get(tid) if tid else None
    data = {"what": what, "to": t.id if t else None, **spent(opts)}
    ev.add("toss", say="ladder.toss", actor=c.id, data=data)
    if t is None:
        return
    weight, wd = int(opts.get("weight") or 0), int(opts.get("wd") or 0)
    if self.can_catch(enc, t):
        self.open_catch(enc, c, t, {"kind": "toss", "weight": weight, "wd": wd, "name": what}, ev)
    else:
        ev.add("toss", say="ladder.lands", actor=t.id, data={"what": what})
