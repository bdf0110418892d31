"""A headless table: an encounter, a seeded die and an undo stack, for scripts and tests.

>>> from combat.rules.table import Table
>>> t = Table("action_points", seed=7)
>>> ana = t.gm("add_combatant", name="Ana", side="pc", stats={"attack": "1d20"})
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from .engine import Outcome, apply, new_encounter
from .refusal import Refusal
from .state import Combatant, Encounter


class Table:
    def __init__(self, ruleset: str, seed: int = 0, **settings: Any) -> None:
        self.state: Encounter = new_encounter(ruleset, settings=settings)
        self.rng = random.Random(seed)
        self.history: list[Encounter] = []
        self.log: list[dict[str, Any]] = []
        self.last: Outcome | None = None

    def send(self, command: dict[str, Any]) -> Outcome:
        out = apply(self.state, command, self.rng)
        by_gm = isinstance(command, dict) and command.get("by") == "gm"
        if out.refusal is not None and not by_gm:
            # A player reads the refusal written for them, as the services hand it on: a
            # hidden combatant is "someone unseen" and no argument holds its id.
            hidden = {cid for cid, c in self.state.combatants.items() if c.hidden}
            out = replace(out, refusal=out.refusal.to_reader(hidden))
        self.last = out
        if out.ok:
            self.history.append(self.state)
            self.state = out.state
            self.log.extend(out.events)
        return out

    def gm(self, type: str, **fields: Any) -> Any:
        """Send as the GM. Returns the new combatant's id for add_combatant."""
        out = self.send({"type": type, "by": "gm", **fields})
        if out.ok and type == "add_combatant":
            return out.events[-1]["data"]["id"]
        return out

    def player(self, type: str, **fields: Any) -> Outcome:
        return self.send({"type": type, "by": "player", **fields})

    def act(self, actor: str, action: str, by: str = "player", **options: Any) -> Outcome:
        return self.send(
            {"type": "act", "by": by, "actor": actor, "action": action, "options": options}
        )

    def undo(self) -> bool:
        """The GM's undo: put back the state from before the last command."""
        if not self.history:
            return False
        self.state = self.history.pop()
        return True

    def refusal(self) -> Refusal | None:
        return self.last.refusal if self.last else None

    def c(self, cid: str) -> Combatant:
        return self.state.combatants[cid]
