"""Initiative Passes (combat/rules/initiative_passes.py): the pool each round and
holding."""

from __future__ import annotations

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
