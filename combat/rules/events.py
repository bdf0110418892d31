"""Events: what a command did, as facts, with every die that was rolled.

An event is a fact: its kind, the combatants it involves, the dice, and its data (the
numbers and ids a sentence needs). Events added with `say` (the sentence's name in
combat/words.py) hold no words at all: each reader's sentence is written when it is read,
from what that reader may see. Events still added with `text` carry the GM's words and
their other versions (`unseen`, `health`); they are being moved to `say` one family at a
time (docs/decisions.md, "Facts, not sentences").
"""

from __future__ import annotations

from typing import Any

from .dice import Roll
from .state import Encounter


class Events:
    """Collects the events of one command.

    An event that involves a hidden combatant, or a secret roll, is marked
    `gm_only`; the server never shows it to players or spectators.
    """

    def __init__(self, enc: Encounter) -> None:
        self.enc = enc
        self.items: list[dict[str, Any]] = []

    def add(
        self,
        kind: str,
        text: str | None = None,
        *,
        say: str | None = None,
        mentions: tuple[str | None, ...] = (),
        actor: str | None = None,
        involved: tuple[str | None, ...] = (),
        rolls: tuple[Roll, ...] = (),
        ruling: bool = False,
        secret: bool = False,
        data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        data = data or {}
        ids = [i for i in (actor, *involved) if i]
        named = [i for i in mentions if i]
        if text is None:
            # A fact: every combatant its data names is involved (who may read it follows
            # from them) but those it only `mentions` (its sentence words them for a reader
            # who cannot see them); every name is kept as it is now, for the sentence.
            ids += [i for i in _combatant_refs(data, self.enc) if i not in ids + named]
        hidden = any(i in self.enc.combatants and self.enc.combatants[i].hidden for i in ids)
        event: dict[str, Any] = {"kind": kind}
        if text is None:
            event["say"] = say or kind
            event["names"] = {
                i: self.enc.combatants[i].name for i in ids + named if i in self.enc.combatants
            }
        else:
            event["text"] = text
        event.update(
            {
                "actor": actor,
                "involved": ids,
                "rolls": [r.to_dict() for r in rolls],
                "ruling": ruling,
                "gm_only": secret or hidden,
                "round": self.enc.round,
                "data": data,
            }
        )
        self.items.append(event)
        return event

    def unseen(
        self,
        event: dict[str, Any],
        hides: str,
        rolls: tuple[Roll, ...] = (),
        data: dict[str, Any] | None = None,
        own: tuple[str, ...] = (),
    ) -> None:
        """Give `event` its own version for readers who cannot see `hides` (a hidden
        attacker): its sentence is written for such a reader from the same facts, `hides`
        named "someone unseen", with only the rolls they may see (the defender's, not the
        attacker's dice). Shown to them instead of nothing while `hides` is the only hidden
        combatant the event involves (screens.event_for).

        Either `data` is the facts such a reader may have, or `own` names the keys of its
        data that are `hides`'s own (its roll, its bonuses), which such a reader does not
        get (screens.event_for)."""
        event["unseen"] = {"hides": [hides], "rolls": [r.to_dict() for r in rolls]}
        if own:
            event["unseen"]["own"] = list(own)
        if data is not None:
            event["unseen"]["data"] = data

    def health(self, event: dict[str, Any], of: str, rolls: tuple[Roll, ...] = ()) -> None:
        """Mark `event` as telling a number about `of`'s health (damage dealt to it, HP
        healed or set): readers who may not know `of`'s HP exactly (a banded or hidden
        NPC's, screens.event_for) get its sentence without that number (it leaves the
        number out by itself: `combat.words.Said.exact`) and only `rolls`, those that do
        not give the number away."""
        event["health"] = {"of": [of], "rolls": [r.to_dict() for r in rolls]}


def _combatant_refs(value: Any, enc: Encounter) -> list[str]:
    """The combatant ids a fact's data names (values, and items of lists), in order."""
    found: list[str] = []
    items = value.values() if isinstance(value, dict) else value
    for v in items if isinstance(value, dict | list | tuple) else ():
        if isinstance(v, str) and v in enc.combatants and v not in found:
            found.append(v)
        elif isinstance(v, list | tuple):
            found += [i for i in _combatant_refs(v, enc) if i not in found]
    return found
