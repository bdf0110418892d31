"""The rules engine: pure Python, no Django. `apply(state, command, rng) -> Outcome`."""

from .commands import COMMANDS, CommandSpec, lookup
from .engine import Outcome, apply, new_encounter, preview
from .refusal import Refusal
from .registry import get_ruleset, rulesets
from .state import Combatant, Encounter

__all__ = [
    "COMMANDS",
    "CommandSpec",
    "Combatant",
    "Encounter",
    "Outcome",
    "Refusal",
    "apply",
    "get_ruleset",
    "lookup",
    "new_encounter",
    "preview",
    "rulesets",
]
