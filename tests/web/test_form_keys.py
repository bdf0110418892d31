"""One click counts once: a page's form post carries the version the page showed
(`form_key`), and the same form sent again with it acts once and answers as the first time.
"""

from __future__ import annotations

import pytest

from combat.models import LogEntry

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def ap(table: TableFixture, cid: str) -> int:
    return table.refresh().state["combatants"][cid]["res"]["ap"]


def commands(table: TableFixture) -> int:
    return LogEntry.objects.filter(encounter=table.enc, kind=LogEntry.COMMAND).count()


def stance(table: TableFixture, key: str | None):
    data = {
        "type": "act",
        "actor": table.ana,
        "action": "defensive_stance",
        "opt_defence": "melee",
        "opt_count": "1",
    }
    if key is not None:
        data["form_key"] = key
    return table.p1_post(**data)


def test_the_same_form_twice_with_its_key_acts_once_and_answers_the_same(fight: TableFixture):
    shown = str(fight.enc.version)
    before, logged = ap(fight, fight.ana), commands(fight)
    first = stance(fight, shown)
    second = stance(fight, shown)
    assert first.status_code == second.status_code == 200
    assert b"takes a Defensive Stance for 1 AP" in first.content
    assert second.content == first.content  # the same sentence, no "Refused"
    assert b'data-testid="refusal"' not in second.content
    assert ap(fight, fight.ana) == before - 1  # charged once
    assert commands(fight) == logged + 1  # one log entry


def test_a_page_that_showed_the_new_version_acts_again(fight: TableFixture):
    before, logged = ap(fight, fight.ana), commands(fight)
    stance(fight, str(fight.enc.version))
    stance(fight, str(fight.refresh().version))  # the push of the first arrived: a new key
    assert ap(fight, fight.ana) == before - 2
    assert commands(fight) == logged + 2


def test_without_a_key_every_post_acts(fight: TableFixture):
    before = ap(fight, fight.ana)
    stance(fight, None)
    stance(fight, None)
    assert ap(fight, fight.ana) == before - 2


def test_a_different_form_under_the_same_key_acts(fight: TableFixture):
    """Two different buttons on one render are two commands, not a clash of keys."""
    shown = str(fight.enc.version)
    stance(fight, shown)
    r = fight.p1_post(type="end_turn", actor=fight.ana, form_key=shown)
    assert r.status_code == 200 and b'data-testid="refusal"' not in r.content
    assert fight.refresh().state["turn"] == fight.bram


def test_gm_end_turn_twice_ends_one_turn(fight: TableFixture):
    shown = str(fight.enc.version)
    logged = commands(fight)
    a = fight.gm_post(type="end_turn", form_key=shown)
    b = fight.gm_post(type="end_turn", form_key=shown)
    assert a.content == b.content and b'data-testid="refusal"' not in b.content
    assert fight.refresh().state["turn"] == fight.bram  # not the Goblin
    assert commands(fight) == logged + 1


def test_start_combat_twice_starts_once(table: TableFixture):
    shown = str(table.enc.version)
    a = table.gm_post(type="start_combat", form_key=shown)
    b = table.gm_post(type="start_combat", form_key=shown)
    assert a.content == b.content and b'data-testid="refusal"' not in b.content
    started = LogEntry.objects.filter(encounter=table.enc, command__type="start_combat")
    assert started.count() == 1


def test_a_key_is_the_posters_own(fight: TableFixture):
    """Player 2 sending Player 1's form under the same version is their own command: it
    is judged for them (refused, Bram is not Ana) and replays nothing of Player 1's."""
    shown = str(fight.enc.version)
    stance(fight, shown)
    r = fight.p2.post(
        f"{fight.player2_url}command/",
        {
            "type": "act",
            "actor": fight.ana,
            "action": "defensive_stance",
            "opt_defence": "melee",
            "opt_count": "1",
            "form_key": shown,
        },
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 403 and b"Player 2 does not control Ana" in r.content


def test_duplicate_twice_with_one_key_makes_one_copy(table: TableFixture):
    url = f"/enc/{table.enc.pk}/combatants/{table.goblin}/duplicate/"
    shown = str(table.enc.version)
    a = table.gm.post(url, {"form_key": shown}, HTTP_HX_REQUEST="true")
    b = table.gm.post(url, {"form_key": shown}, HTTP_HX_REQUEST="true")
    assert a.content == b.content
    names = [c["name"] for c in table.refresh().state["combatants"].values()]
    assert names.count("Goblin 2") == 1 and "Goblin 3" not in names


def test_add_combatant_twice_with_one_key_adds_one(table: TableFixture):
    url = f"/enc/{table.enc.pk}/combatants/"
    data = {"name": "Cleo", "side": "pc", "hp": "12", "hidden": "0"}
    shown = str(table.enc.version)
    table.gm.post(url, {**data, "form_key": shown}, HTTP_HX_REQUEST="true")
    r = table.gm.post(url, {**data, "form_key": shown}, HTTP_HX_REQUEST="true")
    assert b'data-testid="refusal"' not in r.content
    names = [c["name"] for c in table.refresh().state["combatants"].values()]
    assert names.count("Cleo") == 1


def test_a_malformed_key_is_no_key(fight: TableFixture):
    before = ap(fight, fight.ana)
    stance(fight, "x" * 300)
    stance(fight, "x" * 300)
    assert ap(fight, fight.ana) == before - 2
