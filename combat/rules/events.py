"""Events: what a command did, in words, with every die that was rolled."""

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
        text: str,
        *,
        actor: str | None = None,
        involved: tuple[str | None, ...] = (),
        rolls: tuple[Roll, ...] = (),
        ruling: bool = False,
        secret: bool = False,
        data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        ids = [i for i in (actor, *involved) if i]
        hidden = any(i in self.enc.combatants and self.enc.combatants[i].hidden for i in ids)
        event = {
            "kind": kind,
            "text": text,
            "actor": actor,
            "involved": ids,
            "rolls": [r.to_dict() for r in rolls],
            "ruling": ruling,
            "gm_only": secret or hidden,
            "round": self.enc.round,
            "data": data or {},
        }
        self.items.append(event)
        return event

    def unseen(
        self,
        event: dict[str, Any],
        hides: str,
        text: str,
        rolls: tuple[Roll, ...] = (),
        data: dict[str, Any] | None = None,
    ) -> None:
        """Give `event` its own words for readers who cannot see `hides` (a hidden
        attacker): written from what they may see, with only the rolls they may see (the
        defender's, not the attacker's dice). Shown to them instead of nothing while
        `hides` is the only hidden combatant the event involves (screens.event_for)."""
        event["unseen"] = {
            "hides": [hides],
            "text": text,
            "rolls": [r.to_dict() for r in rolls],
            "data": data or {},
        }

    def health(
        self,
        event: dict[str, Any],
        of: str,
        text: str,
        rolls: tuple[Roll, ...] = (),
        data: dict[str, Any] | None = None,
    ) -> None:
        """Give `event`, which tells a number about `of`'s health (damage dealt to it,
        HP healed or set), its own words without that number: shown instead to readers
        who may not know `of`'s HP exactly (a banded or hidden NPC's, screens.event_for),
        with only the rolls that do not give the number away."""
        event["health"] = {
            "of": [of],
            "text": text,
            "rolls": [r.to_dict() for r in rolls],
            "data": data or {},
        }
