"""Refusals are values: a stable code and typed arguments for programs, and a sentence for
the person who asked.

The arguments are the facts of the refusal (docs/api.md, "Refusal codes"): `who` the
combatant refused, `what` the action key, `rule` the rule in words, numbers such as
`cost` and `left` as numbers, and the ids of any other combatant involved. A combatant the
asker cannot see is taken out of them before they leave the server (`seen_by`).

A refusal made with `said` has no sentence of its own: combat/sentences/refusals.py writes
it from the arguments through combat.words, for the GM when it is made and again for a
player who reads it (`to_reader`), so a combatant that player cannot see is "someone
unseen" by construction."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
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
    # For a sentence written from the arguments: its name, and the names of the
    # combatants and actions the arguments hold (by id or key).
    say: str | None = field(default=None, compare=False)
    names: dict[str, str] = field(default_factory=dict, compare=False)

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
        return replace(self, args=args)

    def to_reader(self, hidden: Collection[str]) -> Refusal:
        """The refusal for a player or spectator who cannot see `hidden`: its arguments
        without them and, when it is written from its arguments, its sentence too."""
        seen = self.seen_by(hidden)
        if self.say is None:
            return seen
        from combat import words

        reader = words.Reader.of(False, hidden)
        names = {k: v for k, v in self.names.items() if k not in hidden}
        return replace(seen, message=words.text(self.fact(), reader), names=names)

    def fact(self) -> dict[str, Any]:
        """The refusal in the shape combat.words reads a fact in."""
        return {
            "say": self.say,
            "actor": self.args.get("who"),
            "data": self.args,
            "names": self.names,
        }


class Refused(Exception):  # noqa: N818 - it carries a Refusal, not an error
    """Raised inside the engine to unwind a command; `apply` turns it back into a value."""

    def __init__(self, code: str, message: str, **args: Arg) -> None:
        super().__init__(message)
        self.refusal = Refusal(code, message, args)

    @classmethod
    def carrying(cls, refusal: Refusal) -> Refused:
        out = cls(refusal.code, refusal.message)
        out.refusal = refusal
        return out


def refuse(code: str, message: str, **args: Arg) -> Refused:
    return Refused(code, message, **args)


def acting(c: Combatant, a: ActionDef, **more: Arg) -> dict[str, Arg]:
    """The arguments of a refusal of action `a` to combatant `c`: `who`, `what` and `more`."""
    return {"who": c.id, "what": a.key, **more}


def said(
    code: str,
    c: Combatant,
    a: ActionDef | None = None,
    *,
    sentence: str = "",
    others: Iterable[Combatant] = (),
    **more: Arg,
) -> Refused:
    """Refuse `c` (taking `a`) with a sentence written from the arguments: the one named
    `refusal.<sentence or code>` in combat/sentences/refusals.py. `others` are the other
    combatants the arguments name."""
    from combat import words

    args: dict[str, Arg] = {"who": c.id}
    names = {c.id: c.name}
    if a is not None:
        args["what"] = a.key
        names[a.key] = a.name
    names.update({o.id: o.name for o in others})
    args.update(more)
    r = Refusal(code, "", args, f"refusal.{sentence or code}", names)
    return Refused.carrying(replace(r, message=words.text(r.fact())))
