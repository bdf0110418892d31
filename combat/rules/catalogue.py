"""The shape of an action catalogue: actions and settings as data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

# When an action may be taken.
OWN_TURN = "own_turn"  # only on the actor's own turn
REACTION = "reaction"  # only in answer to an open reaction window
ANY_TIME = "any_time"  # on the actor's turn or, as an interrupt, outside it


@dataclass(frozen=True)
class Option:
    """One choice declared with an action, before any roll.

    kind: "int" (min..max), "choice" (one of choices), "bool", "target" (a
    combatant id), "targets" (several), or "text".
    """

    name: str
    label: str
    kind: str = "int"
    default: Any = None
    min: int = 0
    max: int = 0
    choices: tuple[str, ...] = ()
    required: bool = False
    # Set only by the GM: the rule that says so, in words (a player's value is refused).
    gm_only: str = ""


@dataclass(frozen=True)
class ActionDef:
    key: str
    name: str
    cost: int  # in the ruleset's currency: AP, or effort half-steps on the Action Ladder
    category: str
    summary: str
    effect: str = "plain"  # which resolver carries it out
    bonus: int = 0  # Bonus Actions (Action Ladder)
    timing: str = OWN_TURN
    attack: bool = False  # counts toward the attacks-per-turn limit
    spell: bool = False
    reaction: bool = False
    free_kind: str | None = None  # Action Ladder: free the first time each turn
    limit: str | None = None  # "once_per_round", "once_per_turn", "first_action"
    turns: int = 0  # Extended Actions: whole turns, set by the GM when declared
    options: tuple[Option, ...] = ()
    custom: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def with_cost(self, cost: int) -> ActionDef:
        return replace(self, cost=cost)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["options"] = [asdict(o) for o in self.options]
        return d


@dataclass(frozen=True)
class Setting:
    """A GM-changeable value with its default (the (setting) items of the rulings)."""

    key: str
    label: str
    default: Any
    kind: str = "int"  # "int", "dice", "bool", "choice"
    min: int = 0
    max: int = 99
    per_combatant: bool = False
    help: str = ""
    choices: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
