"""The rules engine: pure Python, no Django. `apply(state, command, rng) -> Outcome`."""

from .engine import ACTOR_COMMANDS, COMMANDS, Outcome, apply, new_encounter
from .refusal import Refusal
from .registry import get_ruleset, rulesets
from .state import Combatant, Encounter

__all__ = [
    "ACTOR_COMMANDS",
    "COMMANDS",
    "Combatant",
    "Encounter",
    "Outcome",
    "Refusal",
    "apply",
    "get_ruleset",
    "new_encounter",
    "rulesets",
]
