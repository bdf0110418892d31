"""Tables for the benchmark and the scale-out tests, built through the app's own services.

Run as `python -m tests.bench.fixtures` with the servers' environment; reads a
JSON spec on stdin and prints what was made as JSON:

    {"tables": {"<name>": <count>, ...}, "players": 6}

Every table is an Action Points encounter in combat: one PC per seat (Player
1..n, initiatives 20, 19, ...) and an Ogre with 10,000 HP (initiative 5) that
only the GM moves. The turn is Player 1's, with nothing done yet. From there a
cycle of commands always succeeds, forever: each player makes a Basic Attack on
the Ogre then ends the turn; the GM ends the Ogre's turn.

The map tables (groups named map...) have a 40 x 40 map, about a fifth of it painted
(difficult ground, walls, water, climbable cells), every token placed: each hero has two
cells four metres apart (a Move of 1 AP there and back, 6 m of speed) in a clear lane of
its own, the Ogre stands in the far corner, out of everyone's reach.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from typing import Any

STATS = {
    "attack": {"dice": "1d20", "bonus": 3},
    "damage": {"dice": "1d8", "bonus": 2},
    "defend": {"dice": "1d20", "bonus": 1},
}


MAP_SIDE = 40
KINDS = ("difficult", "wall", "water", "climbable")


# The Ogre's cell (column and row); in `mapattack` the heroes stand around it (`beside_ogre`).
OGRE_AT = MAP_SIDE - 2


def beside_ogre(p: int) -> str:
    """Hero p's cell in `mapattack`: one of the eight around the Ogre, within a melee
    attack's reach (a hero in its lane would be refused: out of reach)."""
    around = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]
    dx, dy = around[p % len(around)]
    return f"{OGRE_AT + dx},{OGRE_AT + dy}"


def hero_cells(p: int) -> list[str]:
    """Player p's two cells: column 3 + 6p, rows 2 and 6."""
    from combat.rules.board import label

    return [label(2 + 6 * p, 1), label(2 + 6 * p, 5)]


def map_terrain(players: int) -> dict[str, list[str]]:
    """About a fifth of the map, in four kinds, but not in the heroes' lanes (three columns
    around each hero's two cells, rows 1 to 7) nor under the Ogre or next to it."""
    from combat.rules.board import label

    lanes = {2 + 6 * p + dx for p in range(players) for dx in (-1, 0, 1)}
    cells: dict[str, list[str]] = {k: [] for k in KINDS}
    for y in range(MAP_SIDE):
        for x in range(MAP_SIDE):
            if (y <= 6 and x in lanes) or max(abs(x - OGRE_AT), abs(y - OGRE_AT)) <= 1:
                continue
            if (x * 7 + y * 3) % 5 == 0:
                cells[KINDS[(x + y) % len(KINDS)]].append(label(x, y))
    return cells


def build(spec: dict[str, Any]) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from combat import services
    from combat.access import gm_viewer
    from combat.models import SPECTATOR_LIMIT_RANGE, Encounter

    username = spec.get("username", "bench-gm")
    password = spec.get("password") or secrets.token_urlsafe(16)
    players = int(spec.get("players", 6))
    User = get_user_model()
    gm = User.objects.filter(username=username).first()
    if gm is None:
        gm = User.objects.create_user(username, password=password)
    else:
        gm.set_password(password)
        gm.save()

    def add(enc: Encounter, **fields: Any) -> str:
        result = services.run_command(
            enc.pk, gm_viewer(enc), {"type": "add_combatant", "stats": STATS, **fields}
        )
        assert result.ok, result.refusal
        return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")

    tables: dict[str, list[dict[str, Any]]] = {}
    for name, count in spec["tables"].items():
        made = []
        for i in range(int(count)):
            enc = services.create_encounter(gm, f"{name} {i + 1}", "action_points", {})
            assert isinstance(enc, Encounter), enc
            # The streamed tables connect all their spectators (500 at most): the GM's
            # limit is set to the most it can be, as a streamer with that audience would.
            services.set_spectator_limit(enc.pk, SPECTATOR_LIMIT_RANGE[1])
            pcs = [
                add(enc, name=f"Hero {p + 1}", side="pc", hp=1000, initiative=20 - p)
                for p in range(players)
            ]
            ogre = add(enc, name="Ogre", side="npc", hp=10000, initiative=5)
            seats = [
                services.create_seat(enc.pk, f"Player {p + 1}", [pcs[p]]) for p in range(players)
            ]
            if name.startswith("map"):
                gm_run = services.run_command
                for command in [
                    {"type": "set_board", "width": MAP_SIDE, "height": MAP_SIDE},
                    *(
                        {"type": "paint", "cells": " ".join(cells), "terrain": kind}
                        for kind, cells in map_terrain(players).items()
                    ),
                    *(
                        {
                            "type": "place",
                            "actor": pc,
                            "cell": beside_ogre(p) if name == "mapattack" else hero_cells(p)[0],
                        }
                        for p, pc in enumerate(pcs)
                    ),
                    {"type": "place", "actor": ogre, "cell": f"{OGRE_AT},{OGRE_AT}"},
                ]:
                    done = gm_run(enc.pk, gm_viewer(enc), command)
                    assert done.ok, (command, done.refusal)
            started = services.run_command(enc.pk, gm_viewer(enc), {"type": "start_combat"})
            assert started.ok, started.refusal
            if name == "chat":  # the table talk scenario: spectators read it too
                services.set_chat_spectators(enc.pk, True)
            enc.refresh_from_db()
            assert enc.state["turn"] == pcs[0], enc.state["turn"]
            made.append(
                {
                    "id": enc.pk,
                    "version": enc.version,
                    "spectator": enc.spectator_token,
                    "seats": [
                        {"token": s.token, "actor": pcs[k], "cells": hero_cells(k)}
                        for k, s in enumerate(seats)
                    ],
                    "npc": ogre,
                }
            )
        tables[name] = made
    return {"username": username, "password": password, "tables": tables}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
    import django

    django.setup()
    spec = json.loads(sys.stdin.read() or "{}")
    json.dump(build(spec), sys.stdout)


if __name__ == "__main__":
    main()
