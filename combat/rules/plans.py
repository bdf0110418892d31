"""Planning off-turn: a player sets up the next action while waiting for the turn.

The plan (the action and its options, its target among them) is kept on the combatant
(`Combatant.plan`), so undo, export and import carry it. When that combatant's turn starts
the action is taken at once, as the player's own `act` command: the same pricing, limits
and refusals. If it can no longer be taken, nothing is taken, the plan is cleared, and the
log says why. Where the ruleset lets the action be taken at once off-turn as an Interrupt
(Initiative Passes' Minor and Major actions, the Action Ladder's Interrupt), it is simply
taken now: `interrupt_now` tells the page to offer that instead of a plan.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import fields
from typing import Any

from .base import Ruleset
from .catalogue import ANY_TIME, REACTION, ActionDef
from .events import Events
from .refusal import Refused, acting, refuse, said
from .state import COMBAT, SEIZE, UNKNOWN_COMBATANT, Combatant, Encounter

# The refusals an action meets only because it is not the combatant's turn: such an action
# can be planned for the turn.
PLANNABLE = frozenset({"not_your_turn", "between_rounds"})
TARGET_GONE = "Its target can no longer be seen."


def interrupt_now(enc: Encounter, rs: Ruleset, c: Combatant, a: ActionDef) -> bool:
    """Whether `a` is taken now, off-turn, as an Interrupt (not as a reaction to a window):
    Initiative Passes' Minor and Major actions, the Action Ladder's Interrupt."""
    return (
        rs.off_turn(enc, c)
        and a.timing == ANY_TIME
        and rs.interrupts_allowed(enc, c, a)
        and (not a.reaction or a.effect == "interrupt")
    )


def plannable(a: ActionDef, code: str) -> bool:
    """Whether an action refused with `code` can be planned for the combatant's turn."""
    return code in PLANNABLE and a.timing != REACTION


def targets_of(plan: dict[str, Any]) -> list[str]:
    """The combatants a plan's options name (its target, or targets)."""
    out: list[str] = []
    for v in (plan.get("options") or {}).values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, str):
                out.append(x)
    return out


def cmd_plan(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Set (or change) the action a combatant takes when its turn starts."""
    from .engine import check_options, options_of

    c = enc.get(cmd.get("actor"))
    if enc.phase not in (COMBAT, SEIZE):
        raise refuse("not_in_combat", "Actions are planned during combat, between turns.", who=c.id)
    if enc.turn == c.id:
        raise refuse(
            "your_turn", f"It is {c.name}'s turn: take the action now.", who=c.id, turn=c.id
        )
    if c.defeated:
        raise said("defeated", c)
    a = rs.action(enc, str(cmd.get("action")), c)
    if a.timing == REACTION:
        raise refuse(
            "reaction_only",
            f"{a.name} is a reaction: it is taken when something triggers it, not planned.",
            **acting(c, a),
        )
    opts = options_of(cmd)
    if cmd.get("target"):
        opts["target"] = cmd["target"]
    check_options(enc, c, a, opts)
    for o in a.options:
        if o.gm_only and opts.get(o.name) is not None and cmd.get("by") != "gm":
            raise refuse(
                "gm_sets",
                f"{o.label}: only the GM sets this for {a.name} ({o.gm_only}).",
                **acting(c, a, option=o.name, rule=o.gm_only),
            )
    plan = {"action": a.key, "options": opts}
    if cmd.get("by") != "gm" and any(
        enc.combatants[t].hidden for t in targets_of(plan) if t in enc.combatants
    ):
        # As for a target that does not exist: nothing tells a guess that hit a hidden one.
        raise refuse("unknown_combatant", UNKNOWN_COMBATANT)
    c.plan = plan
    target = opts.get("target")
    ev.add(
        "plan",
        say="plan.set",
        actor=c.id,
        secret=True,  # the plan is the player's and the GM's: other seats do not read it
        data={"action": a.name, "target": target if isinstance(target, str) else None},
    )


def cmd_cancel_plan(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Drop the planned action: nothing is taken when the turn starts."""
    c = enc.get(cmd.get("actor"))
    if c.plan is None:
        raise refuse("nothing_planned", f"{c.name} has no planned action to cancel.", who=c.id)
    name = describe_action(enc, rs, c)
    c.plan = None
    ev.add("plan", say="plan.cancel", actor=c.id, secret=True, data={"action": name})


def describe_action(enc: Encounter, rs: Ruleset, c: Combatant) -> str:
    """The planned action's name ("Basic Attack"), or its key if the GM removed it."""
    key = str((c.plan or {}).get("action", ""))
    try:
        return rs.action(enc, key, c).name
    except Refused:
        return key


def forget(enc: Encounter, cid: str) -> None:
    """A combatant left: plans against it are dropped."""
    for c in enc.combatants.values():
        if c.plan is not None and cid in targets_of(c.plan):
            c.plan = None


def drop_all(enc: Encounter) -> None:
    """Combat is over: no plan is left to take."""
    for c in enc.combatants.values():
        c.plan = None


def take(enc: Encounter, rs: Ruleset, c: Combatant, ev: Events) -> None:
    """At the start of c's turn, take its planned action as its player's command; if it can
    no longer be taken, take nothing, clear the plan and log why."""
    if c.plan is None or enc.turn != c.id:
        return
    from .engine import cmd_act

    name = describe_action(enc, rs, c)
    plan, c.plan = c.plan, None
    before, start = enc.copy(), len(ev.items)
    cmd = {
        "type": "act",
        "by": "player",
        "actor": c.id,
        "action": plan.get("action"),
        "options": dict(plan.get("options") or {}),
    }
    try:
        if c.is_pc and any(
            enc.combatants[t].hidden for t in targets_of(plan) if t in enc.combatants
        ):
            raise refuse("unknown_combatant", TARGET_GONE)
        if any(t not in enc.combatants for t in targets_of(plan)):
            raise refuse("unknown_combatant", TARGET_GONE)
        ev.add("plan", say="plan.taken", actor=c.id, data={"action": name})
        cmd_act(enc, rs, cmd, getattr(ev, "rng", random.Random()), ev)
    except Refused as r:
        # Nothing of the refused action stays: the state as the turn started, the plan gone.
        for f in fields(enc):
            setattr(enc, f.name, getattr(before, f.name))
        del ev.items[start:]
        enc.combatants[c.id].plan = None
        reason = r.refusal.message
        ev.add(
            "plan",
            say="plan.refused",
            actor=c.id,
            data={"action": name, "reason": reason},
        )


def describe(enc: Encounter, c: Combatant, visible: Collection[str]) -> str | None:
    """The plan in words for a reader who sees `visible`: "Basic Attack on Goblin"; a target
    the reader cannot see is not named. None without a plan."""
    if c.plan is None:
        return None
    from .registry import get_ruleset

    name = describe_action(enc, get_ruleset(enc.ruleset), c)
    on = [
        enc.combatants[t].name if t in visible else "someone unseen"
        for t in targets_of(c.plan)
        if t in enc.combatants
    ]
    return f"{name} on {', '.join(on)}" if on else name
