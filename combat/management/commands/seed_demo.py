"""Create a demo GM and one demo encounter per ruleset, and print the links to try them.

Running it again changes nothing: existing demo encounters are kept and their
links printed again.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter
from combat.rules import rulesets
from vtt.lan import lan_addresses, serving_on_lan

DEMO_USER = "gm"
DEMO_PASSWORD = "demo-gm"

STATS = {
    "attack": {"dice": "1d20", "bonus": 3},
    "damage": {"dice": "1d8", "bonus": 2},
    "defend": {"dice": "1d20", "bonus": 1},
    "spell": {"dice": "1d20", "bonus": 2},
    "spell_damage": {"dice": "2d6", "bonus": 0},
    "AGI": {"dice": "1d6", "bonus": 1},
    "STR": {"dice": "1d6", "bonus": 1},
    "FCS": {"dice": "1d6", "bonus": 2},
    "RES": {"dice": "1d6", "bonus": 0},
}

# A small map for each demo fight: a wall, a pond, a thicket, fog over the far corner
# where the Troll lurks, and everyone standing on it (the GM can remove it in one click).
# The fight is joined: Ana stands next to the Ogre and every foe, the Troll in its fog
# included, is within a step of Bram, so the first attacks need no move.
MAP: list[dict[str, Any]] = [
    {"type": "set_board", "width": 12, "height": 8},
    {"type": "paint", "cells": "F2:F5", "terrain": "wall"},
    {"type": "paint", "cells": "B6:C7", "terrain": "water"},
    {"type": "paint", "cells": "I2:J3", "terrain": "difficult"},
    {"type": "fog", "cells": "K6:L8"},
]
PLACES = {"Ana": "H5", "Bram": "J6", "Goblin": "I7", "Ogre": "I5", "Lurking Troll": "K7"}

CAST: list[dict[str, Any]] = [
    {"name": "Ana", "side": "pc", "hp": 24, "initiative_bonus": 2, "grit": 1},
    {"name": "Bram", "side": "pc", "hp": 30, "initiative_bonus": 1, "grit": 1},
    {"name": "Goblin", "side": "npc", "hp": 9, "initiative_bonus": 2},
    {"name": "Ogre", "side": "npc", "hp": 40, "initiative_bonus": 0},
    {"name": "Lurking Troll", "side": "npc", "hp": 50, "initiative_bonus": 1, "hidden": True},
]


class Command(BaseCommand):
    help = "Create the demo GM (user 'gm') and a demo encounter per ruleset; print the links."

    def handle(self, *args: Any, **options: Any) -> None:
        port = os.environ.get("PORT") or "8000"
        base = f"http://127.0.0.1:{port}"
        user, password = self.demo_user()
        out = self.stdout
        out.write(self.style.MIGRATE_HEADING("Demo table"))
        if serving_on_lan():
            addresses = lan_addresses()
            if addresses:
                # The links as a phone on the same network opens them.
                base = f"http://{addresses[0]}:{port}"
                out.write(
                    f"Served to the local network: open these links on phones and laptops "
                    f"on it (this machine: http://127.0.0.1:{port}). Anyone on this network "
                    "can reach the server; the traffic is not encrypted."
                )
            else:
                out.write("HOST=0.0.0.0 but no local network address was found: local links.")
        out.write(f"GM log-in: {base}{reverse('login')}  user: {DEMO_USER}  password: {password}")
        for key, rs in rulesets().items():
            enc = self.demo_encounter(user, key, f"Demo: {rs.name}")
            out.write("")
            out.write(self.style.SUCCESS(f"{enc.name} ({key})"))
            out.write(f"  GM console: {base}{reverse('gm_console', args=[enc.pk])}")
            names = {cid: c["name"] for cid, c in enc.state["combatants"].items()}
            for seat in enc.seats.filter(revoked=False):
                plays = ", ".join(names.get(c, c) for c in seat.combatant_ids) or "nobody yet"
                link = f"{base}{reverse('player', args=[seat.token])}"
                out.write(f"  {seat.name} (plays {plays}): {link}")
            if enc.spectator_token:
                out.write(f"  Spectators: {base}{reverse('spectator', args=[enc.spectator_token])}")

    def demo_user(self) -> tuple[Any, str]:
        User = get_user_model()
        user = User.objects.filter(username=DEMO_USER).first()
        if settings.DEBUG:
            # A known password only on a development server.
            if user is None:
                user = User.objects.create_user(DEMO_USER, password=DEMO_PASSWORD)
            elif not user.check_password(DEMO_PASSWORD):
                user.set_password(DEMO_PASSWORD)
                user.save()
            return user, DEMO_PASSWORD
        if user is None:
            password = secrets.token_urlsafe(12)
            user = User.objects.create_user(DEMO_USER, password=password)
            return user, password
        return user, "(unchanged: it was set when the user was created)"

    def demo_encounter(self, user: Any, key: str, name: str) -> Encounter:
        existing = Encounter.objects.filter(owner=user, ruleset=key, name=name).first()
        if existing is not None:
            return existing
        enc = services.create_encounter(user, name, key, {})
        assert isinstance(enc, Encounter), enc
        gm = gm_viewer(enc)
        ids: dict[str, str] = {}
        for spec in CAST:
            result = services.run_command(
                enc.pk, gm, {"type": "add_combatant", "stats": STATS, **spec}
            )
            if not result.ok:
                raise RuntimeError(f"{name}: could not add {spec['name']}: {result.refusal}")
            ids[spec["name"]] = next(
                e["data"]["id"] for e in result.events if e["kind"] == "combatant_added"
            )
        placing = [{"type": "place", "actor": ids[n], "cell": cell} for n, cell in PLACES.items()]
        for command in [*MAP, *placing]:
            result = services.run_command(enc.pk, gm, command)
            if not result.ok:
                raise RuntimeError(f"{name}: could not set up the map: {result.refusal}")
        services.create_seat(enc.pk, "Player 1", [ids["Ana"]])
        services.create_seat(enc.pk, "Player 2", [ids["Bram"]])
        enc.refresh_from_db()
        return enc
