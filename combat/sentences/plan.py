"""Planning off-turn: an action set up for the turn, taken or not when it starts
(combat/rules/plans.py)."""

from __future__ import annotations

from combat.words import Said, says


@says("plan.set")
def _set(s: Said) -> str:
    on = f" on {s.name(s['target'])}" if s.get("target") else ""
    return f"{s.Name(s.actor)} plans {s['action']}{on} for the next turn."


@says("plan.cancel")
def _cancel(s: Said) -> str:
    return f"{s.Name(s.actor)} cancels the planned {s['action']}."


@says("plan.taken")
def _taken(s: Said) -> str:
    return f"{s.Name(s.actor)} takes the planned {s['action']}."


@says("plan.refused")
def _refused(s: Said) -> str:
    return f"{s.Name(s.actor)}'s planned {s['action']} was not taken: {s['reason']}"
