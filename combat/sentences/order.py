"""The GM's rulings on the turn order (combat/rules/reorder.py)."""

from __future__ import annotations

from combat.words import Said, says


@says("order_ruling")
def _order_ruling(s: Said) -> str:
    where = "before" if s["before"] else "after"
    return (
        f"The GM moves {s.name(s.actor)} {where} {s.name(s['other'])} in the order "
        f"(initiative {s['initiative']})."
    )
