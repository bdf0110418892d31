"""The GM moves a combatant past one with a different initiative: a logged ruling.

Among the tied, the order is chosen by hand (`engine.cmd_reorder`). Past anyone else the GM
rules: the combatant's initiative is set so that it lands where it was put, right before
(or after) the one it was dropped on. Its initiative becomes that neighbour's, with a tie
order that puts it on the right side of it; where the tie rules cannot (PCs come before
NPCs at the same initiative), one more (or one less) than that neighbour's. The log says
where it went and with what initiative; undo puts it back as any command.
"""

from __future__ import annotations

import random
from typing import Any

from . import flow
from .base import Ruleset
from .events import Events
from .refusal import refuse
from .state import Combatant, Encounter


def cmd_place_in_order(
    enc: Encounter, rs: Ruleset, cmd: dict[str, Any], rng: random.Random, ev: Events
) -> None:
    """Put `actor` right before the combatant `before`, or right after `after`."""
    c = enc.get(cmd.get("actor"))
    before, after = cmd.get("before"), cmd.get("after")
    if bool(before) == bool(after):
        raise refuse(
            "bad_option",
            "Say where it goes: before one combatant, or after one.",
            who=c.id,
            option="before",
        )
    other = enc.get(before or after)
    if other.id == c.id:
        raise refuse(
            "bad_option",
            f"{c.name} cannot be placed next to itself.",
            who=c.id,
            option="before" if before else "after",
        )
    place(enc, c, other, before=bool(before), ev=ev)


def place(enc: Encounter, c: Combatant, other: Combatant, *, before: bool, ev: Events) -> None:
    """Set c's initiative (and tie order) so that it comes right before or after `other`."""
    if c.group or other.group:
        raise refuse(
            "in_group",
            "A member of a group shares the group's initiative: set the group's initiative "
            "by hand instead.",
            who=c.id,
            other=other.id,
        )
    mine, theirs = flow.initiative_of(enc, c), flow.initiative_of(enc, other)
    if mine is None or theirs is None:
        raise refuse(
            "no_initiative",
            "Only combatants with an initiative have a place to move.",
            who=c.id if mine is None else other.id,
        )
    full = [x for x in flow.initiative_order(enc) if x != c.id]
    at = full.index(other.id) + (0 if before else 1)
    wanted = [*full[:at], c.id, *full[at:]]
    if wanted == flow.initiative_order(enc):
        raise refuse(
            "no_change",
            f"{c.name} is already there.",
            who=c.id,
            other=other.id,
            before=before,
        )
    step = 1 if before else -1
    for value in (theirs, theirs + step):
        trial = enc.copy()
        _set(trial, trial.combatants[c.id], value, wanted)
        if flow.initiative_order(trial) == wanted:
            _set(enc, c, value, wanted)
            break
    else:
        raise refuse(
            "no_place",
            f"No initiative puts {c.name} there: set its initiative by hand instead.",
            who=c.id,
            other=other.id,
            before=before,
        )
    flow.reorder(enc)
    ev.add(
        "reorder",
        say="order_ruling",
        actor=c.id,
        ruling=True,
        data={"other": other.id, "before": before, "initiative": c.initiative},
    )


def _set(enc: Encounter, c: Combatant, value: int, wanted: list[str]) -> None:
    """c at initiative `value`, and the tie order of its block (same initiative, same side)
    as it stands in `wanted`."""
    c.initiative = value
    c.initiative_roll = None
    block = [
        x
        for x in wanted
        if flow.initiative_of(enc, enc.combatants[x]) == value and enc.combatants[x].side == c.side
    ]
    for n, x in enumerate(block, start=1):
        enc.combatants[x].tie = n
