"""Group Initiative: a turn start that is put back when another member goes first.

When a group's slot comes, its first member's turn starts at once (its resources refill,
effects "until the start of its next turn" end, a carried action is paid), so that it
can act. Another member who has not gone may still go first (`take_turn`, RULINGS 2);
the first member's turn has then not really started, and starts when it comes. So the
turn start of a member whose group has others still due keeps what it changed, and
`take_turn` puts that back: the turn-start hooks count once, for the member who really
takes the turn.

A turn start that did something nobody can take back (rolled dice, opened a chance to
react, resolved a carried action, changed another combatant beyond ending its effects)
counts as begun: the others then wait for this member's turn to end.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .base import Ruleset
from .state import Combatant, Effect, Encounter

Snapshot = dict[str, Any]


def before(enc: Encounter, rs: Ruleset, c: Combatant) -> Snapshot | None:
    """What the turn start may change, when another member of c's group may go first."""
    if not c.group:
        return None
    others = [
        m
        for m in enc.combatants.values()
        if m.group == c.group and m.id != c.id and m.id not in enc.acted and rs.eligible(enc, m)
    ]
    if not others:
        return None
    return {
        "combatants": {cid: asdict(m) for cid, m in enc.combatants.items()},
        "pending": [asdict(w) for w in enc.pending],
    }


def record(
    enc: Encounter, c: Combatant, snap: Snapshot | None, events: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """What the turn start changed, to put back: fields as they were, effects that ended."""
    if snap is None:
        return None
    began = any(e["rolls"] for e in events) or snap["pending"] != [asdict(w) for w in enc.pending]
    fields: dict[str, dict[str, Any]] = {}
    ended: dict[str, list[dict[str, Any]]] = {}
    for cid, old in snap["combatants"].items():
        now = enc.combatants.get(cid)
        if now is None:
            began = True
            continue
        new = asdict(now)
        gone = [e for e in old["effects"] if e not in new["effects"]]
        if gone:
            ended[cid] = gone
        changed = {k: v for k, v in old.items() if k != "effects" and new[k] != v}
        if changed:
            fields[cid] = changed
            if cid != c.id or (old["carry"] is not None and new["carry"] is None):
                began = True
    return {"of": c.id, "began": began, "fields": fields, "effects": ended}


def began(enc: Encounter, c: Combatant) -> bool:
    undo = enc.turn_start_undo
    return bool(undo and undo["of"] == c.id and undo["began"])


def put_back(enc: Encounter, c: Combatant) -> None:
    """Undo c's turn start: it has not really taken its turn yet."""
    undo = enc.turn_start_undo
    enc.turn_start_undo = None
    if not undo or undo["of"] != c.id:
        return
    for cid, changed in undo["fields"].items():
        m = enc.combatants.get(cid)
        for key, value in changed.items() if m is not None else ():
            setattr(m, key, value)
    for cid, gone in undo["effects"].items():
        m = enc.combatants.get(cid)
        if m is not None:
            m.effects.extend(Effect(**e) for e in gone)
