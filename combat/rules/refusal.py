"""Refusals are values: a stable code and typed arguments for programs, and a sentence for
the person who asked.

The arguments are the facts of the refusal (docs/api.md, "Refusal codes"): `who` the
combatant refused, `what` the action key, `rule` the rule in words, numbers such as
`cost` and `left` as numbers, and the ids of any other combatant involved. A combatant the
asker cannot see is taken out of them before they leave the server (`seen_by`); its
sentence was written without it in the first place."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalogue import ActionDef
    from .state import Combatant

# One argument: a word, an id, a number, a yes or no, or a list of ids.
Arg = str | int | float | bool | None | list[str]


@dataclass(frozen=True)
class Refusal:
    """A command the rules do not allow. Nothing changes when one is returned."""

    code: str
    message: str
    args: dict[str, Arg] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "args": dict(self.args)}

    def seen_by(self, hidden: Collection[str]) -> Refusal:
        """The refusal as someone who cannot see the combatants in `hidden` gets it: no
        argument names one of them."""
        args: dict[str, Arg] = {}
        for key, value in self.args.items():
            if isinstance(value, list):
                args[key] = [v for v in value if v not in hidden]
            elif not (isinstance(value, str) and value in hidden):
                args[key] = value
        return Refusal(self.code, self.message, args)


class Refused(Exception):  # noqa: N818 - it carries a Refusal, not an error
    """Raised inside the engine to unwind a command; `apply` turns it back into a value."""

    def __init__(self, code: str, message: str, **args: Arg) -> None:
        super().__init__(message)
        self.refusal = Refusal(code, message, args)


def refuse(code: str, message: str, **args: Arg) -> Refused:
    return Refused(code, message, **args)


def acting(c: Combatant, a: ActionDef, **more: Arg) -> dict[str, Arg]:
    """The arguments of a refusal of action `a` to combatant `c`: `who`, `what` and `more`."""
    return {"who": c.id, "what": a.key, **more}
