"""The rulesets by key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .refusal import refuse

if TYPE_CHECKING:
    from .base import Ruleset
    from .commands import CommandSpec

_RULESETS: dict[str, Ruleset] = {}


def rulesets() -> dict[str, Ruleset]:
    if not _RULESETS:
        from .action_ladder import ActionLadder
        from .action_points import ActionPoints
        from .initiative_passes import InitiativePasses

        for cls in (ActionPoints, ActionLadder, InitiativePasses):
            rs = cls()
            _RULESETS[rs.key] = rs
    return _RULESETS


def get_ruleset(key: str) -> Ruleset:
    found = rulesets().get(key)
    if found is None:
        known = ", ".join(rulesets())
        raise refuse(
            "unknown_ruleset",
            f"There is no such ruleset; choose one of {known}.",
            choices=list(rulesets()),
        )
    return found


def command_spec(ruleset: str, kind: str) -> CommandSpec | None:
    """A command of this ruleset (its own or a shared one), or None for no such command."""
    from .commands import lookup

    return lookup(get_ruleset(ruleset), kind)
