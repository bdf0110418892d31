"""What an action costs by the Action Ladder: action-ladder.md "Action Economy" and "Action
Types" (the ladder of steps, Bonus and Free Actions), "Slowing and Quickening Actions" (the pace
table the GM can edit); RULINGS ladder 1 and 5."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import Opts
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import Refused, acting, refuse
from ..state import Combatant, Encounter
from ..turns import free_key
from . import ladder
from .common import climb_stows

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def pace_table(self: ActionLadder, enc: Encounter | None) -> dict[str, dict[str, str]]:
    table = {k: dict(v) for k, v in ladder.PACE_TABLE.items()}
    if enc is not None:
        for step, row in (enc.settings.get("pace_table") or {}).items():
            table.setdefault(step, {}).update(row)
    return table


def base_cost(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
) -> tuple[int, int]:
    """(effort, Bonus Actions) at standard pace for this use of the action."""
    if a.free_kind and a.cost == 0 and a.bonus == 0:
        return (0, 1) if c.turn.get(free_key(a.free_kind), 0) else (0, 0)
    if a.key == "grapple" and (opts.get("with_bonus") or c.turn.get("sustain_due")):
        return tuple(a.extra["alt"])
    if climb_stows(c, a, opts) and c.turn.get("free_draw_stow", 0):
        return a.cost, a.bonus + 1  # the free Draw/Stow is used: this stow costs one
    if a.key == "ability":
        return ladder.STEP_COST[str(opts.get("length") or "one")]
    if a.key == "extended":
        turns = opts.get("turns") or self.setting(enc, "extended_turns", c)
        return int(turns) * int(self.setting(enc, "turn_effort", c)), 0
    return a.cost, a.bonus


def cost(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
) -> tuple[int, int]:
    """(effort, Bonus Actions) after Slowing or Quickening (RULINGS ladder 5)."""
    effort, bonus = self.base_cost(enc, c, a, opts)
    pace = opts.get("pace") or "standard"
    if pace == "standard":
        return effort, bonus
    if effort:
        step, rest = ladder.EFFORT_STEP.get(effort), bonus
    elif bonus:
        step, rest = "bonus", bonus - 1  # one Bonus Action is the step that moves
    else:
        step, rest = None, 0
    row = self.pace_table(enc).get(step or "", {})
    if a.extra.get("label") or step is None or pace not in row:
        what = a.extra.get("label") or ladder.cost_text(effort, bonus)
        raise refuse(
            "no_pace_row",
            f"{a.name} cannot be {pace}: a {what} is not on the Slow and Quicken table "
            "(Bonus Action to Full Action).",
            **acting(c, a, pace=pace, step=what, rule="Slow and Quicken"),
        )
    new_effort, new_bonus = ladder.STEP_COST[row[pace]]
    return new_effort, new_bonus + rest


def price(self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> int:
    try:
        return self.cost(enc, c, a, opts)[0]
    except Refused:
        return a.cost


def price_text(self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> str:
    """This use's cost after Slowing or Quickening ("½ Action"), or why it has none."""
    try:
        return ladder.cost_text(*self.cost(enc, c, a, opts))
    except Refused as r:
        return r.refusal.message


def option_effects(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
) -> list[str]:
    pace = opts.get("pace") or "standard"
    return [] if pace == "standard" else [str(pace)]


def cost_label(self: ActionLadder, a: ActionDef) -> str:
    if a.extra.get("label"):
        return str(a.extra["label"])
    if a.free_kind and a.cost == 0 and a.bonus == 0:
        return "Free Action (then Bonus Action)"
    if a.key == "grapple":
        return f"{ladder.effort_label(a.cost)} or {ladder.bonus_label(a.extra['alt'][1])}"
    if a.key == "ability":
        return "Bonus Action to Full Action"
    return ladder.cost_text(a.cost, a.bonus)


def spent_text(self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> str:
    if opts.get("_carried"):
        return " (carried over, now fully paid)"
    paid = opts.get("_paid")
    if not paid:
        return ""
    return f" ({ladder.cost_text(*paid)})"


def set_pace(self: ActionLadder, enc: Encounter, cmd: dict[str, Any], ev: Events) -> None:
    """The GM edits the Slow/Quicken table: {"step", "pace", "to"} or {"reset": true}."""
    if cmd.get("reset") in (True, "true", "1", 1):
        enc.settings.pop("pace_table", None)
        ev.add("ruling", say="ladder.pace_reset", ruling=True)
        return
    by_label = {v.lower(): k for k, v in ladder.STEP_LABEL.items()}
    step = by_label.get(str(cmd.get("step")).lower(), cmd.get("step"))
    to = by_label.get(str(cmd.get("to")).lower(), cmd.get("to"))
    pace = cmd.get("pace")
    if step not in ladder.STEPS or to not in ladder.STEPS:
        raise refuse(
            "bad_option",
            f"Step and result must be one of {', '.join(ladder.STEPS)}.",
            option="step",
            allowed=list(ladder.STEPS),
        )
    if pace not in ("slowed", "quickened"):
        raise refuse("bad_option", "Pace must be 'slowed' or 'quickened'.")
    table = enc.settings.setdefault("pace_table", {})
    table.setdefault(step, {})[pace] = to
    data = {"pace": pace, "step": step, "to": to}
    ev.add("ruling", say="ladder.pace_set", ruling=True, data=data)
