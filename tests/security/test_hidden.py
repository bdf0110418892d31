"""Nothing the GM hid reaches a player or a spectator: pages, API answers, socket frames.

The GM hides two NPCs with distinctive names, notes, stats, HP, a group and a condition,
keeps notes and stats on a visible NPC too, and plays: secret rolls, damage to the hidden
NPC, the hidden NPC's own turn and attack, players' actions (one naming the hidden NPC),
an undo. Every page, API answer and socket frame (pushes, reconnect snapshots, resyncs)
that players and spectators get is searched for every one of those strings: 0 found. The
GM's own frames hold them, so the search would find a leak.

What players and spectators do see of a visible NPC: its name, side, HP, resources,
conditions and initiative. Never its notes or stats (nor anything of a hidden combatant).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from combat import broadcast, services
from combat.access import gm_viewer, seat_viewer
from combat.models import Encounter, Seat
from tests.markers import pushed_so_far

from .conftest import add
from .sockets import TIMEOUT, build, connect, send_json, socket

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = [
    "Zyzzyx",
    "Shadowmancer",
    "Quillon",
    "Nightjar",
    "GMNOTE",
    "Obsidian",
    "Quartzwhisper",
    "Vesperlabel",
    "Umbral",
    "Conclave",
    "umbralveil",
    "cunningstat",
    "Hexmark",
]
NUMBERS = ["4271", "7919", "6113", "4447", "5227", "1d19", "1d23", "1d17"]
SECRETS = WORDS + NUMBERS


def leaks(text: str) -> list[str]:
    found = [w for w in WORDS if w.lower() in text.lower()]
    # Numbers standing alone, not inside a token or an id (those are letters and digits).
    found += [n for n in NUMBERS if re.search(rf"(?<![A-Za-z0-9_-]){n}(?![A-Za-z0-9_-])", text)]
    return found


def _setup() -> dict[str, Any]:
    """Two hidden NPCs and a visible one with GM-only notes and stats, on the usual table."""
    from django.contrib.auth import get_user_model

    t = _base()
    enc = t.enc
    ids = dict(t.ids)
    ids["zyzzyx"] = add(
        enc,
        name="Zyzzyx Shadowmancer",
        side="npc",
        hp=4447,
        initiative=3,
        hidden=True,
        notes="GMNOTE Obsidian: flees at half HP",
        group="Umbral Conclave",
        stats={
            "attack": {"dice": "1d1", "bonus": 4271},
            "damage": {"dice": "1d1", "bonus": 2},
            "defend": {"dice": "1d1", "bonus": 7919},
            "umbralveil": {"dice": "1d19", "bonus": 5227},
        },
    )
    ids["quillon"] = add(
        enc,
        name="Quillon Nightjar",
        side="npc",
        hp=30,
        initiative=99,
        hidden=True,
        notes="GMNOTE ambusher",
        stats={"attack": {"dice": "1d1", "bonus": 4271}, "damage": {"dice": "1d1", "bonus": 2}},
    )
    ids["captain"] = add(
        enc,
        name="Goblin Captain",
        side="npc",
        hp=12,
        initiative=8,
        notes="GMNOTE Quartzwhisper: carries the key",
        stats={
            "cunningstat": {"dice": "1d23", "bonus": 6113},
            "attack": {"dice": "1d17", "bonus": 0},
        },
    )
    assert get_user_model().objects.count() == 2
    return {"t": t, "ids": ids}


_base_holder: dict[str, Any] = {}


def _base():
    return _base_holder["t"]


async def test_nothing_hidden_reaches_players_or_spectators():
    t, gm_cookie, _ = await build()
    _base_holder["t"] = t
    ids = (await database_sync_to_async(_setup)())["ids"]
    seen: dict[str, list[tuple[str, str]]] = {"p1": [], "p2": [], "public": [], "gm": []}

    def keep(who: str, where: str, text: str) -> None:
        seen[who].append((where, text))

    socks = {
        "gm": socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=gm_cookie),
        "p1": socket(f"/ws/p/{t.seat1.token}/"),
        "p2": socket(f"/ws/p/{t.seat2.token}/"),
        "public": socket(f"/ws/s/{t.enc.spectator_token}/"),
    }
    for who, comm in socks.items():
        keep(who, "ws connect", await connect(comm))

    def gm(**command: Any) -> None:
        enc = Encounter.objects.get(pk=t.enc.pk)
        result = services.run_command(enc.pk, gm_viewer(enc), command)
        assert result.ok, (command, result.refusal)

    def play() -> None:
        p1, p2, watcher = Client(), Client(), Client()
        player_url = {"p1": f"/p/{t.seat1.token}/", "p2": f"/p/{t.seat2.token}/"}
        api = {
            "p1": {"HTTP_AUTHORIZATION": f"Bearer {t.seat1.token}"},
            "p2": {"HTTP_AUTHORIZATION": f"Bearer {t.seat2.token}"},
            "public": {"HTTP_AUTHORIZATION": f"Bearer {t.enc.spectator_token}"},
        }

        def look(step: str) -> None:
            """Every page and API answer a player or spectator can fetch, right now."""
            for who, client in (("p1", p1), ("p2", p2)):
                keep(who, f"{step}: page", client.get(player_url[who]).content.decode())
                summary = client.get(f"{player_url[who]}summary/")
                keep(who, f"{step}: summary", summary.content.decode())
            keep(
                "public",
                f"{step}: page",
                watcher.get(f"/s/{t.enc.spectator_token}/").content.decode(),
            )
            summary = watcher.get(f"/s/{t.enc.spectator_token}/summary/")
            keep("public", f"{step}: summary", summary.content.decode())
            for who, auth in api.items():
                for path in ("", "log/"):
                    r = Client().get(f"/api/encounters/{t.enc.pk}/{path}", **auth)
                    assert r.status_code == 200
                    keep(who, f"{step}: api {path}", r.content.decode())

        def player_post(who: str, client: Client, **data: str) -> None:
            r = client.post(f"{player_url[who]}command/", data, HTTP_HX_REQUEST="true")
            keep(who, f"post {data}", r.content.decode())
            r = Client().post(
                f"/api/encounters/{t.enc.pk}/commands/",
                json.dumps(
                    {"type": data["type"], **{k: v for k, v in data.items() if k != "type"}}
                ),
                content_type="application/json",
                **api[who],
            )
            keep(who, f"api post {data}", r.content.decode())

        look("setup")
        gm(type="roll", dice="1d20+4271", secret=True, label="Vesperlabel ambush")
        gm(type="damage", actor=ids["zyzzyx"], amount=7)
        gm(type="set_condition", actor=ids["zyzzyx"], name="Hexmark")
        gm(type="engage", actor=ids["zyzzyx"], target=ids["ana"])
        gm(type="start_combat")  # Quillon (hidden, initiative 99) acts first
        look("hidden turn")
        # Players poke at the hidden NPCs while it is their turn, by id and by name.
        player_post("p1", p1, type="end_turn", actor=ids["ana"])
        player_post(
            "p1", p1, type="act", actor=ids["ana"], action="basic_attack", opt_target=ids["zyzzyx"]
        )
        player_post("p2", p2, type="engage", actor=ids["bram"], target=ids["quillon"])
        gm(
            type="act",
            actor=ids["quillon"],
            action="basic_attack",
            options={"target": ids["ana"]},
        )
        gm(type="end_turn")
        look("after the ambush")
        player_post(
            "p1", p1, type="act", actor=ids["ana"], action="basic_attack", opt_target=ids["goblin"]
        )
        player_post("p1", p1, type="roll", actor=ids["ana"], dice="1d6")
        gm(type="update_combatant", actor=ids["zyzzyx"], notes="GMNOTE Obsidian again")
        gm(type="damage", actor=ids["zyzzyx"], amount=3)
        gm(type="undo")
        gm(type="roll", dice="1d19", secret=True, label="Vesperlabel second")
        look("end")

    await database_sync_to_async(play)()

    groups = {
        "gm": broadcast.group_name(t.enc.pk, "gm"),
        "p1": broadcast.group_name(t.enc.pk, "player", t.seat1.pk),
        "p2": broadcast.group_name(t.enc.pk, "player", t.seat2.pk),
        "public": broadcast.group_name(t.enc.pk, "spectator"),
    }
    for who, comm in socks.items():
        for frame in await pushed_so_far(comm, groups[who]):
            keep(who, "ws push", frame)
    # Reconnect snapshots and a resync: whole views.
    for who, path in (
        ("p1", f"/ws/p/{t.seat1.token}/"),
        ("p2", f"/ws/p/{t.seat2.token}/"),
        ("public", f"/ws/s/{t.enc.spectator_token}/"),
    ):
        again = socket(path)
        keep(who, "ws reconnect", await connect(again))
        await send_json(again, {"type": "resync"})
        keep(who, "ws resync", await again.receive_from(timeout=TIMEOUT))
        await again.disconnect()
    for comm in socks.values():
        await comm.disconnect()

    # The GM sees it all: the search works.
    gm_text = "\n".join(text for _, text in seen["gm"])
    assert set(leaks(gm_text)) >= {"Zyzzyx", "Quillon", "GMNOTE", "Obsidian", "Quartzwhisper"}
    counts = {who: len(items) for who, items in seen.items() if who != "gm"}
    found = {
        who: [(where, leaks(text)) for where, text in items if leaks(text)]
        for who, items in seen.items()
        if who != "gm"
    }
    assert found == {"p1": [], "p2": [], "public": []}, found
    # What was searched: pages, summaries, API answers and socket frames for each audience.
    assert all(n >= 30 for n in counts.values()), counts
    kinds = {where.split(": ")[-1].split(" {")[0] for items in seen.values() for where, _ in items}
    assert {"page", "summary", "api ", "api log/", "ws push", "ws reconnect"} <= kinds, kinds


def test_a_visible_npc_shows_its_health_but_not_its_notes_or_stats(db):
    """The decision, stated as a test: name, side and health yes (as a band by default,
    the HP when the GM chooses exact: docs/rules.md, "NPC health"); notes and stats no."""
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create_user("gina")
    enc = services.create_encounter(owner, "Fight", "action_points", {})
    ana = add(enc, name="Ana", side="pc", hp=20, stats={"attack": {"dice": "1d20", "bonus": 3}})
    cap = add(
        enc,
        name="Goblin Captain",
        side="npc",
        hp=12,
        notes="GMNOTE key",
        stats={"cunningstat": {"dice": "1d23", "bonus": 6113}},
    )
    seat = services.create_seat(enc.pk, "P1", [ana])
    for token in (seat.token, Encounter.objects.get(pk=enc.pk).spectator_token):
        body = Client().get(f"/api/encounters/{enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {token}")
        c = body.json()["state"]["combatants"][cap]
        assert c["name"] == "Goblin Captain" and c["health"] == "Unhurt"
        assert c["hp"] is None and c["max_hp"] is None
        assert "notes" not in c and "stats" not in c and "mods" not in c
        assert leaks(body.content.decode()) == []
    services.run_command(
        enc.pk, gm_viewer(enc), {"type": "set_setting", "key": "npc_health", "value": "exact"}
    )
    for token in (seat.token, Encounter.objects.get(pk=enc.pk).spectator_token):
        body = Client().get(f"/api/encounters/{enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {token}")
        c = body.json()["state"]["combatants"][cap]
        assert c["hp"] == 12 and c["max_hp"] == 12
        assert "notes" not in c and "stats" not in c and "mods" not in c
    # A player keeps their own PC's stats; the GM keeps everything.
    mine = Client().get(f"/api/encounters/{enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {seat.token}")
    assert mine.json()["state"]["combatants"][ana]["stats"]["attack"]["bonus"] == 3
    assert seat_viewer(Seat.objects.get(pk=seat.pk)).role == "player"
