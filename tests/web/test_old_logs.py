"""Issue 29: "Encounters in existing databases keep their logs readable (a data migration to
the new shape, tested on a log made by today's code)".

Earlier versions stored each event's finished words (`text`), with other words for readers
who could not see the attacker (`unseen.text`) or may not know an NPC's HP (`health.text`),
and took hidden names out of the words when they were read. The migration keeps the words
as a fact (`say: "written"`): the GM reads them as they were; a player or spectator reads
only the words written for them, or nothing, and never a hidden name or a veiled number.
"""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps
from django.test import Client

from combat import library, screens, words
from combat.models import LogEntry
from combat.rules import Encounter as State
from combat.rules.view import veiled_ids

from .conftest import HIDDEN, TableFixture

pytestmark = pytest.mark.django_db

migration = importlib.import_module("combat.migrations.0009_old_log_words")

PLAIN = "Goblin: Basic Attack on Bram (2 AP) — 1d1+50: [1] + 50 = 51 vs 10: hit for 5 damage."
BY_TROLL = f"{HIDDEN}: Basic Attack on Ana (2 AP) — 1d1+50: [1] + 50 = 51 vs 10: hit for 5."
TROLL_UNSEEN = "Someone unseen: Attack on Ana — hit for 5 damage."
ON_GOBLIN = "Ana: Basic Attack on Goblin (2 AP) — 1d1+50 = 51 vs 10: hit for 5 damage (5/10)."
GOBLIN_HEALTH = "Ana: Basic Attack on Goblin (2 AP): hit."
GM_NOTE = f"GM only: the {HIDDEN} waits under the bridge."
# Old words naming a combatant the event does not involve: the old cleaning took the name
# out; now such words are the GM's alone.
MENTION = f"Ana's Aim lasts until the end of the {HIDDEN}'s turn."


def roll(total: int) -> dict:
    return {"expr": "1d1+50", "dice": [1], "kept": [1], "bonus": 50, "total": total}


def old_events(t: TableFixture) -> list[dict]:
    """Events as the previous version wrote them (combat/rules/events.py before facts)."""

    def ev(kind, text, actor, involved, gm_only=False, data=None, rolls=()):
        return {
            "kind": kind,
            "text": text,
            "actor": actor,
            "involved": involved,
            "rolls": list(rolls),
            "ruling": False,
            "gm_only": gm_only,
            "round": 1,
            "data": data or {},
        }

    def attack(text, actor, target, gm_only=False):
        data = {"target": target, "hit": True, "damage": 5}
        return ev("attack", text, actor, [actor, target], gm_only, data, [roll(51)])

    plain = attack(PLAIN, t.goblin, t.bram)
    by_troll = attack(BY_TROLL, t.troll, t.ana, gm_only=True)
    by_troll["data"]["attack_roll"] = 51
    by_troll["unseen"] = {
        "hides": [t.troll],
        "rolls": [],
        "text": TROLL_UNSEEN,
        "data": {"target": t.ana, "hit": True, "damage": 5},
    }
    on_goblin = attack(ON_GOBLIN, t.ana, t.goblin)
    on_goblin["health"] = {"of": [t.goblin], "rolls": [], "text": GOBLIN_HEALTH, "data": {}}
    note = ev("note", GM_NOTE, None, [], gm_only=True)
    mention = ev("effect", MENTION, t.ana, [t.ana])
    return [plain, by_troll, on_goblin, note, mention]


def migrated(t: TableFixture) -> LogEntry:
    enc = t.refresh()
    entry = LogEntry.objects.create(
        encounter=enc,
        seq=enc.log.count() + 100,
        version=enc.version,
        command={"type": "act", "actor": t.ana},
        by="gm",
        events=old_events(t),
        state_patch=[],
        changed=False,
    )
    migration.forwards(apps, None)
    entry.refresh_from_db()
    return entry


def readers(t: TableFixture) -> tuple[tuple[str, ...], tuple[str, ...]]:
    state = State.from_dict(t.refresh().state)
    return screens.hidden_ids(state), veiled_ids(state)


def test_every_old_event_becomes_a_fact_that_keeps_its_words(fight: TableFixture):
    entry = migrated(fight)
    assert all(ev["say"] == "written" and "text" not in ev for ev in entry.events)
    assert [ev["data"]["words"] for ev in entry.events] == [
        PLAIN,
        BY_TROLL,
        ON_GOBLIN,
        GM_NOTE,
        MENTION,
    ]
    by_troll, on_goblin = entry.events[1], entry.events[2]
    assert by_troll["unseen"]["data"]["words"] == TROLL_UNSEEN
    assert "text" not in by_troll["unseen"]
    assert on_goblin["health"]["data"]["words"] == GOBLIN_HEALTH
    # Running it again changes nothing: facts are left as they are.
    migration.forwards(apps, None)
    entry.refresh_from_db()
    assert entry.events[0]["data"]["words"] == PLAIN


def test_the_gm_reads_the_old_words(fight: TableFixture):
    entry = migrated(fight)
    assert [screens.for_gm(ev)["text"] for ev in entry.events] == [
        PLAIN,
        BY_TROLL,
        ON_GOBLIN,
        GM_NOTE,
        MENTION,
    ]
    log = fight.gm.get(f"/api/encounters/{fight.enc.pk}/log").json()["log"]
    row = next(r for r in log if r["seq"] == entry.seq)
    assert [e["text"] for e in row["events"]][1] == BY_TROLL
    assert GM_NOTE in fight.gm.get(fight.gm_url).content.decode()


def test_a_player_reads_only_the_words_written_for_them(fight: TableFixture):
    entry = migrated(fight)
    hidden, veiled = readers(fight)
    assert fight.goblin in veiled  # an NPC's HP is banded by default
    read = [screens.event_for(ev, hidden, veiled) for ev in entry.events]
    # The plain attack had no words of the player's own: only the GM reads it now.
    assert read[0] is None
    # The hidden Troll's attack: the words written for those who cannot see it.
    assert read[1] is not None and read[1]["text"] == TROLL_UNSEEN and read[1]["actor"] is None
    # Damage to the banded Goblin: the words without the number.
    assert read[2] is not None and read[2]["text"] == GOBLIN_HEALTH and read[2]["data"] == {}
    assert read[3] is None and read[4] is None
    assert "words" not in read[1]["data"]
    # An undo quoting the old line quotes it as this reader reads it.
    reader = words.Reader.of(False, hidden, veiled)
    assert words.inner(entry.events[2], reader) == GOBLIN_HEALTH
    assert words.inner(entry.events[2], words.GM_READER) == ON_GOBLIN


@pytest.mark.parametrize("who", ["player", "spectator"])
def test_no_hidden_name_or_gm_word_reaches_a_player_or_spectator(fight: TableFixture, who):
    migrated(fight)
    token = fight.seat1.token if who == "player" else fight.enc.spectator_token
    answer = Client().get(
        f"/api/encounters/{fight.enc.pk}/log", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert answer.status_code == 200
    dumped = json.dumps(answer.json(), ensure_ascii=False)
    assert TROLL_UNSEEN in dumped and GOBLIN_HEALTH in dumped
    for gm_words in (HIDDEN, fight.troll, PLAIN, ON_GOBLIN, "(5/10)", '"words"'):
        assert gm_words not in dumped, gm_words
    url = fight.player1_url if who == "player" else fight.spectator_url
    page = Client().get(url).content.decode()
    assert GOBLIN_HEALTH in page and "Someone unseen: Attack on Ana" in page
    assert HIDDEN not in page and "(5/10)" not in page


def test_an_imported_copy_keeps_the_words_without_the_number(fight: TableFixture):
    entry = migrated(fight)
    on_goblin = library._clean_event(entry.events[2], {fight.ana: "ca", fight.goblin: "cg"})
    assert on_goblin is not None
    assert on_goblin["text"] == ON_GOBLIN and "words" not in on_goblin["data"]
    assert on_goblin["health"]["text"] == GOBLIN_HEALTH
    assert screens.event_for(on_goblin, (), ("cg",))["text"] == GOBLIN_HEALTH
