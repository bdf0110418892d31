"""NPC health as the GM chooses (issue 31): players and spectators see an NPC's HP as a
number, as a band (Unhurt, Hurt, Bloodied, Down) or not at all; the GM always sees it.

The Ogre has 8,317 HP and takes 3,619 (then a hit from Ana): 4,698 left, "Hurt". Neither
4698 nor 3619 may be written in a page, a pushed frame, an API answer or a log line that is not the
GM's unless the GM chose exact health. Numbers are searched for as words of their own,
after taking out the seat's link and the spectator's (random tokens hold digits). The
numbers have four digits so that no database id in the same text (an encounter's, a
seat's: `"id": 83` in an API answer, late in a long run) can be taken for them.
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from combat import broadcast, services
from combat.access import gm_viewer
from combat.models import ApiToken, Encounter, Seat
from tests.replay import normalised

from .conftest import SURE, add

pytestmark = pytest.mark.django_db

OGRE_MAX, TAKEN, LEFT = 8317, 3619, 4698


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def gm(enc: Encounter, **command) -> None:
    result = services.run_command(enc.pk, gm_viewer(enc), command)
    assert result.ok, result.refusal


def shows(number: int, text: str, *links: str) -> bool:
    """Whether `number` is written as a number of its own (not inside a random token: the
    links, and a page's CSP nonce and CSRF token, which may hold "-36-")."""
    for link in links:
        text = text.replace(link, "")
    text = normalised(text)
    return re.search(rf"\b{number}\b", text) is not None


def ogre_table(gm_user, *, health: str | None = None, own: str | None = None):
    """Ana (PC) and the Ogre (NPC, 4,698 of 8,317 HP); `health` the encounter's choice (None:
    the default), `own` the Ogre's override."""
    settings = {"npc_health": health} if health else {}
    enc = services.create_encounter(gm_user, "Ogre bridge", "action_points", settings)
    assert isinstance(enc, Encounter)
    ana = add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE)
    extra = {"npc_health": own} if own else {}
    ogre = add(enc, name="Ogre", side="npc", hp=OGRE_MAX, initiative=5, stats=SURE, **extra)
    seat = services.create_seat(enc.pk, "Player 1", [ana])
    gm(enc, type="start_combat")
    gm(enc, type="damage", actor=ogre, amount=TAKEN)
    enc.refresh_from_db()
    assert enc.state["combatants"][ogre]["hp"] == LEFT
    return enc, seat, ogre


def non_gm_views(enc: Encounter, seat: Seat) -> dict[str, str]:
    """Every text a player or a spectator gets: pages, whole-view frames, API answers."""
    api = f"/api/encounters/{enc.pk}"
    return {
        "player page": Client().get(f"/p/{seat.token}/").content.decode(),
        "spectator page": Client().get(f"/s/{enc.spectator_token}/").content.decode(),
        "player frame": broadcast.render_player(enc, seat),
        "public frame": broadcast.render_public(enc),
        "player api": json.dumps(Client().get(f"{api}/", **bearer(seat.token)).json()),
        "spectator api": json.dumps(Client().get(f"{api}/", **bearer(enc.spectator_token)).json()),
        "player api log": json.dumps(Client().get(f"{api}/log/", **bearer(seat.token)).json()),
        "spectator api log": json.dumps(
            Client().get(f"{api}/log/", **bearer(enc.spectator_token)).json()
        ),
    }


@pytest.mark.parametrize(("health", "own"), [("band", None), (None, None), ("exact", "band")])
def test_banded_npc_health_shows_words_never_the_number(gm_user, health, own):
    """Banded (the default, the encounter's choice, or the Ogre's own): "Hurt", no 4698."""
    enc, seat, ogre = ogre_table(gm_user, health=health, own=own)
    for where, text in non_gm_views(enc, seat).items():
        assert not shows(LEFT, text, seat.token, enc.spectator_token), where
        assert not shows(OGRE_MAX, text, seat.token, enc.spectator_token), where
        assert not shows(TAKEN, text, seat.token, enc.spectator_token), where
        if "api" not in where:
            assert "Hurt" in text, where
        if "log" not in where and "frame" not in where:
            assert "Ogre" in text, where
    body = Client().get(f"/api/encounters/{enc.pk}/", **bearer(seat.token)).json()
    seen = body["state"]["combatants"][ogre]
    assert seen["hp"] is None and seen["max_hp"] is None
    assert seen["health"] == "Hurt" and seen["health_shown"] == "band"


@pytest.mark.parametrize(("health", "own"), [("hidden", None), ("band", "hidden")])
def test_hidden_npc_health_shows_nothing(gm_user, health, own):
    enc, seat, ogre = ogre_table(gm_user, health=health, own=own)
    for where, text in non_gm_views(enc, seat).items():
        assert not shows(LEFT, text, seat.token, enc.spectator_token), where
        assert not shows(TAKEN, text, seat.token, enc.spectator_token), where
        assert not shows(OGRE_MAX, text, seat.token, enc.spectator_token), where
        if "api" not in where:  # (Ana's own band is in the API's state: she is a PC)
            assert not re.search(r"\b(Unhurt|Hurt|Bloodied)\b", text), where
    body = Client().get(f"/api/encounters/{enc.pk}/", **bearer(enc.spectator_token)).json()
    seen = body["state"]["combatants"][ogre]
    assert seen["hp"] is None and seen["health"] is None and seen["health_shown"] == "hidden"


@pytest.mark.parametrize(("health", "own"), [("exact", None), ("hidden", "exact")])
def test_exact_npc_health_shows_the_number(gm_user, health, own):
    enc, seat, ogre = ogre_table(gm_user, health=health, own=own)
    views = non_gm_views(enc, seat)
    for where in ("player page", "spectator page", "player frame", "public frame"):
        assert f"HP {LEFT} of {OGRE_MAX}" in views[where], where
    assert f"Ogre takes {TAKEN} damage." in views["player page"]
    body = Client().get(f"/api/encounters/{enc.pk}/", **bearer(seat.token)).json()
    assert body["state"]["combatants"][ogre]["hp"] == LEFT


@pytest.mark.parametrize("health", ["band", "hidden"])
def test_the_gm_always_sees_the_exact_hp(gm_user, health):
    enc, seat, ogre = ogre_table(gm_user, health=health)
    c = Client()
    c.force_login(gm_user)
    page = c.get(f"/enc/{enc.pk}/").content.decode()
    assert f"HP {LEFT} of {OGRE_MAX}" in page and f"Ogre takes {TAKEN} damage." in page
    assert broadcast.render_gm(enc).count(f"HP {LEFT} of {OGRE_MAX}") >= 1
    body = c.get(f"/api/encounters/{enc.pk}/").json()
    assert body["state"]["combatants"][ogre]["hp"] == LEFT
    # The GM's card says what the players see instead.
    said = "players see Hurt" if health == "band" else "players see no health"
    assert said in page


def test_damage_to_a_hidden_health_npc_is_logged_without_the_amount(gm_user):
    """The log line for damage dealt to a hidden-health NPC, by the GM and by Ana's hit."""
    enc, seat, ogre = ogre_table(gm_user, health="hidden")
    p1 = Client()
    r = p1.post(
        f"/p/{seat.token}/command/",
        {
            "type": "act",
            "actor": seat.combatant_ids[0],
            "action": "basic_attack",
            "opt_target": ogre,
            "opt_ranged": "0",
        },
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200, r.content
    answer = r.content.decode()
    assert "on Ogre" in answer and ": hit." in answer and not shows(5, answer)  # 1d1+4 damage
    enc.refresh_from_db()
    page = Client().get(f"/p/{seat.token}/").content.decode()
    assert "Ogre takes damage." in page
    assert re.search(r"Ana: Basic Attack [^<]*on Ogre, \d+ against [a-z ]*defence \d+: hit\.", page)
    assert "5 damage" not in page and not shows(LEFT - 5, page, seat.token)
    log = Client().get(f"/api/encounters/{enc.pk}/log/", **bearer(seat.token)).json()
    text = json.dumps(log)
    assert "Ogre takes damage." in text and not shows(TAKEN, text) and "5 damage" not in text
    # The GM's log keeps the numbers.
    c = Client()
    c.force_login(gm_user)
    gm_page = c.get(f"/enc/{enc.pk}/").content.decode()
    assert f"Ogre takes {TAKEN} damage." in gm_page and "hit for 5 damage" in gm_page


def test_the_gm_sets_npc_health_on_the_console_and_the_combatant_form(gm_user):
    enc, seat, ogre = ogre_table(gm_user, health="exact")
    c = Client()
    c.force_login(gm_user)
    page = c.get(f"/enc/{enc.pk}/").content.decode()
    assert 'name="key" value="npc_health"' in page
    r = c.post(
        f"/enc/{enc.pk}/command/",
        {"type": "set_setting", "key": "npc_health", "value": "hidden"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    enc.refresh_from_db()
    assert enc.state["settings"]["npc_health"] == "hidden"
    assert "Hurt" not in broadcast.render_public(enc)

    form = c.get(f"/enc/{enc.pk}/combatants/{ogre}/").content.decode()
    assert 'name="npc_health"' in form
    r = c.post(
        f"/enc/{enc.pk}/combatants/{ogre}/",
        {"name": "Ogre", "side": "npc", "hp": str(OGRE_MAX), "npc_health": "band"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200, r.content
    enc.refresh_from_db()
    assert enc.state["combatants"][ogre]["mods"]["npc_health"] == "band"
    assert "Hurt" in broadcast.render_public(enc)
    # Back to the encounter's choice.
    gm(enc, type="update_combatant", actor=ogre, npc_health="encounter")
    enc.refresh_from_db()
    assert "npc_health" not in enc.state["combatants"][ogre]["mods"]


def test_the_api_sets_npc_health(gm_user):
    enc, seat, ogre = ogre_table(gm_user, health="exact")
    c = Client()
    auth = bearer(ApiToken.issue(gm_user)[1])
    url = f"/api/encounters/{enc.pk}/commands/"
    r = c.post(
        url,
        json.dumps({"type": "update_combatant", "actor": ogre, "npc_health": "hidden"}),
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 200, r.content
    body = Client().get(f"/api/encounters/{enc.pk}/", **bearer(seat.token)).json()
    assert body["state"]["combatants"][ogre]["health_shown"] == "hidden"
    bad = c.post(
        url,
        json.dumps({"type": "set_setting", "key": "npc_health", "value": "fuzzy"}),
        content_type="application/json",
        **auth,
    )
    assert bad.status_code >= 400


def test_undoing_damage_to_a_banded_npc_repeats_no_amount(gm_user):
    enc, seat, ogre = ogre_table(gm_user)
    gm(enc, type="undo")
    enc.refresh_from_db()
    for where, text in non_gm_views(enc, seat).items():
        assert not shows(TAKEN, text, seat.token, enc.spectator_token), where
        if "page" in where:
            assert "The GM undoes: Ogre takes damage." in text, where
    c = Client()
    c.force_login(gm_user)
    assert f"The GM undoes: Ogre takes {TAKEN} damage." in c.get(f"/enc/{enc.pk}/").content.decode()


@pytest.mark.parametrize("health", ["band", "hidden"])
def test_the_summary_counts_no_damage_to_a_banded_or_hidden_npc_for_players(gm_user, health):
    enc, seat, ogre = ogre_table(gm_user, health=health)
    gm(enc, type="end_combat")
    for url in (f"/p/{seat.token}/summary/", f"/s/{enc.spectator_token}/summary/"):
        r = Client().get(url)
        assert r.status_code == 200
        assert not shows(TAKEN, r.content.decode(), seat.token, enc.spectator_token), url
    c = Client()
    c.force_login(gm_user)
    gm_summary = c.get(f"/enc/{enc.pk}/summary/").content.decode()
    assert shows(TAKEN, gm_summary)
