"""Placeholder ids for the random-sequence tests.

Ids are random now (issue 12 item 10), so a drawn command names combatants and windows
by placeholder: "c2" is the second combatant added and "w6" the second window open;
a placeholder with nothing behind it ("c9", "w1") stays as it is, an id the encounter
does not know, so those commands still test refusals.
"""

from __future__ import annotations

import re
from typing import Any

from combat.rules.state import Encounter


def real_id(enc: Encounter, value: Any) -> Any:
    if not isinstance(value, str) or not (m := re.fullmatch(r"([cw])(\d+)", value)):
        return value
    n = int(m.group(2))
    if m.group(1) == "c":
        added = sorted(enc.combatants.values(), key=lambda c: c.seq)
        return added[n - 1].id if 1 <= n <= len(added) else value
    # Windows were numbered after the combatants (w5 was the first after four adds).
    first = len(enc.combatants) + 1
    return enc.pending[n - first].id if 0 <= n - first < len(enc.pending) else value


def real_ids(enc: Encounter, cmd: dict[str, Any]) -> dict[str, Any]:
    """`cmd` with its placeholders (actor, target, window, options' target) made real."""
    out = {k: real_id(enc, v) if k in ("actor", "target", "window") else v for k, v in cmd.items()}
    if isinstance(out.get("options"), dict):
        out["options"] = {
            k: real_id(enc, v) if k == "target" else v for k, v in out["options"].items()
        }
    return out
