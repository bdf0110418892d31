"""Items by the Action Ladder: Consume, Draw / Stow and Drop (the Free Actions), Pick Up,
Administer, Aid and Toss (action-ladder.md "Action Types" and "Basic Combat Actions")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dice, flow
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import refuse
from ..state import Combatant, Encounter
from .common import Opts, Rng, bonus_of, drop_effects, find_effect, has_effect, level_of, roll_of
from .ladder import cost_text

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def tell_action(ev: Events, c: Combatant, a: ActionDef, said: str) -> None:
    """The log line of an action that only happens (drawn, dropped, picked up...)."""
    ev.add("action", said, actor=c.id, data={"action": a.key})


def check_aid(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if target is None:
        return
    cond = str(opts.get("condition"))
    if not has_effect(target, cond):
        raise refuse(
            "no_condition",
            f"{target.name} is not {cond.capitalize()}: Aid "
            "lifts Incapacitated, Burning or Bleeding.",
        )


def check_toss(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    s = bonus_of(c, "STR", "Toss")
    weight, far = int(opts.get("weight") or 0), int(opts.get("distance") or 0)
    if 2 * weight > s:
        raise refuse(
            "too_heavy",
            f"Too heavy to toss: at most half the STR bonus "
            f"({s} / 2 = {s / 2:g}); the item weighs {weight}.",
        )
    if far > s:
        raise refuse(
            "too_far", f"Too far to toss: at most the STR bonus, {s} m; {far} m was asked."
        )


def do_free(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    what = opts.get("text")
    which = opts.get("which")
    verb = {"draw": "draws", "stow": "stows"}.get(str(which), "")
    paid = opts.get("_paid")
    price = "free" if not paid or paid == [0, 0] else cost_text(*paid)
    detail = f": {what}" if what else ""
    name = f"{verb} a weapon" if verb else a.name
    if which == "draw":
        drop_effects(c, "Disarmed")
    tell_action(ev, c, a, f"{c.name} {name if verb else 'takes ' + name} ({price}){detail}.")


def do_pick_up(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    drop_effects(c, "Disarmed")
    what = opts.get("text") or "an item"
    tell_action(ev, c, a, f"{c.name} picks up {what}{self.spent_text(enc, c, a, opts)}.")


def do_administer(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t = enc.get(opts["target"])
    if (opts.get("mode") or "first_aid") == "first_aid":
        level = level_of(c, "first_aid")
        before = flow.heal(enc, t, level)
        healed = "" if before is None else f" ({before} → {t.hp} HP)"
        spent = self.spent_text(enc, c, a, opts)
        said = f"{c.name} administers First Aid to {t.name}{spent}: heals {level}{healed}."
        line = ev.add("heal", said, actor=c.id, involved=(t.id,))
        ev.health(line, t.id, f"{c.name} administers First Aid to {t.name}{spent}.")
        flow.stand_if_healed(enc, t, ev)
    else:
        what = opts.get("text") or "a potion"
        said = (
            f"{c.name} helps {t.name} drink {what}"
            f"{self.spent_text(enc, c, a, opts)}: its benefits apply at once."
        )
        ev.add("action", said, actor=c.id, involved=(t.id,))


def do_aid(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t = enc.get(opts["target"])
    cond = str(opts["condition"])
    e = find_effect(t, cond)
    if e is None:
        said = f"{c.name} aids {t.name}, who is no longer {cond}."
        ev.add("aid", said, actor=c.id, involved=(t.id,))
        return
    stacks = int(e.detail.get("stacks", 1) or 1)
    rolls: tuple[dice.Roll, ...] = ()
    if cond == "incapacitated":
        t.effects.remove(e)
        text = "is no longer Incapacitated"
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
        text = f"loses {stacks - left} {cond.capitalize()} stacks ({left} left)"
        if cond == "bleeding":
            text += f" (First Aid roll {rolls[0].total} − 10)"
    said = f"{c.name} aids {t.name}{self.spent_text(enc, c, a, opts)}: {t.name} {text}."
    ev.add("aid", said, actor=c.id, involved=(t.id,), rolls=rolls)


def do_toss(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    what = opts.get("text") or "an item"
    tid = opts.get("target")
    t = enc.get(tid) if tid else None
    said = (
        f"{c.name} tosses {what}{self.spent_text(enc, c, a, opts)}{' to ' + t.name if t else ''}."
    )
    ev.add("toss", said, actor=c.id, involved=(tid,))
    if t is None:
        return
    weight, wd = int(opts.get("weight") or 0), int(opts.get("wd") or 0)
    if self.can_catch(enc, t):
        self.open_catch(enc, c, t, {"kind": "toss", "weight": weight, "wd": wd, "name": what}, ev)
    else:
        ev.add("toss", f"{what.capitalize()} lands at {t.name}'s feet.", actor=t.id)
