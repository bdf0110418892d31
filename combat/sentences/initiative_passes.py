"""Initiative Passes (combat/rules/initiative_passes.py): the pool each round and
holding."""

from __future__ import annotations

from combat.rules.paths import m
from combat.words import Said, says


@says("ip.ap_restored")
def _ap_restored(s: Said) -> str:
    return f"Round {s['round']}: every combatant's AP is restored to its maximum."


@says("ip.held_by_default")
def _held_by_default(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} spent no AP this turn, which counts as holding: {s['ap']} AP kept "
        "for Interrupts, no more turns this round."
    )


@says("ip.hold")
def _hold(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} holds: {s['ap']} AP kept for Interrupts only, no more turns this round."
    )


@says("ip.move")
def _move(s: Said) -> str:
    where = ""
    if s.get("to"):
        short = f", stopping short of {s['short_of']}" if s.get("short_of") else ""
        where = (
            f" {m(s['metres'])} to {s['to']}{short} "
            f"({m(s['this_turn'])} of {m(s['speed'])} this turn)"
        )
    what = f": {s['what']}" if s.get("what") else ""
    return f"{s.Name(s.actor)} moves{s['spent']}{where}{what}."
