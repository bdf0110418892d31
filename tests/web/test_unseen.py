"""A hidden NPC attacks Ana (issue 29): her player answers "someone unseen" and the
attack resolves; the page, the API state and the answers never name the attacker."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from combat import broadcast, services
from combat.models import Encounter
from tests.said import said

from .conftest import FIGHTER, add, gm

pytestmark = pytest.mark.django_db

LURKER = "Zyzzyx the Lurker"


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def shows_hp(text: str, link: str) -> bool:
    """Whether the Lurker's 31 HP is written anywhere: as a number of its own, not inside
    the random letters of a CSRF token or the seat's link (taken out first)."""
    return re.search(r"\b31\b", text.replace(link, "")) is not None


def test_the_player_answers_an_unseen_attackers_prompt(gm_user):
    enc = services.create_encounter(gm_user, "Ambush", "action_ladder", {})
    assert isinstance(enc, Encounter)
    lurker = add(enc, name=LURKER, side="npc", hp=31, initiative=30, stats=FIGHTER, hidden=True)
    ana = add(enc, name="Ana", side="pc", hp=30, initiative=10, stats=FIGHTER)
    seat = services.create_seat(enc.pk, "Player 1", [ana])
    gm(enc, type="start_combat")
    gm(enc, type="set_condition", actor=ana, name="Bleeding", until="turn_end", of=lurker)
    gm(enc, type="act", actor=lurker, action="attack", options={"target": ana})
    enc.refresh_from_db()
    [window] = enc.state["pending"]
    assert window["trigger"] == lurker

    page = Client().get(f"/p/{seat.token}/").content.decode()
    assert "Defend</strong>: Ana may react to someone unseen now." in page
    assert f'data-testid="defend-{window["id"]}-dodge"' in page
    assert "Dodge +4" in page and "1 Bonus Action" in page
    assert "Bleeding (until the end of a turn)" in page
    assert "Reaction available:</strong> Defend for Ana against someone unseen" in page
    assert "the attack of someone unseen" in page  # why Ana's actions wait
    assert LURKER not in page and lurker not in page and not shows_hp(page, seat.token)

    # The pushed frames are rendered from the same view: the prompt, without the Lurker.
    enc.refresh_from_db()
    frame = broadcast.render_player(enc, seat, prev_version=enc.version - 1)
    assert "Ana may react to someone unseen now" in frame
    watched = broadcast.render_public(enc, prev_version=enc.version - 1)  # shows no prompts
    for text in (frame, watched):
        assert LURKER not in text and lurker not in text and not shows_hp(text, seat.token)

    api = f"/api/encounters/{enc.pk}"
    body = Client().get(f"{api}/", **bearer(seat.token)).json()
    [seen] = body["state"]["pending"]
    assert seen["id"] == window["id"] and seen["trigger"] is None and seen["trigger_unseen"]
    [bleeding] = body["state"]["combatants"][ana]["effects"]
    assert bleeding["until_of"] is None and bleeding["lasts"] == "until the end of a turn"
    text = json.dumps(body)
    assert LURKER not in text and lurker not in text

    answer = Client().post(
        f"{api}/commands",
        json.dumps(
            {
                "type": "react",
                "actor": ana,
                "window": window["id"],
                "options": {"reaction": "dodge"},
            }
        ),
        content_type="application/json",
        **bearer(seat.token),
    )
    assert answer.status_code == 200, answer.content
    assert LURKER not in answer.content.decode() and lurker not in answer.content.decode()
    # The player is told how it went, from what they may see: their defence, not who.
    [told] = [e for e in answer.json()["events"] if e["kind"] == "attack"]
    assert (
        told["text"]
        == "Someone unseen: Attack on Ana, against melee defence 1 + Dodge 5 = 6: miss."
    )
    assert "Dodge" in told["text"] and told["actor"] is None and told["involved"] == [ana]
    page = Client().get(f"/p/{seat.token}/").content.decode()
    assert "Someone unseen: Attack on Ana, against" in page  # the notice and the log
    assert LURKER not in page and lurker not in page
    log = Client().get(f"{api}/log/", **bearer(seat.token)).content.decode()
    assert "Someone unseen: Attack on Ana" in log and LURKER not in log and lurker not in log
    enc.refresh_from_db()
    assert enc.state["pending"] == []
    assert enc.state["combatants"][ana]["res"]["bonus"] == 1  # the Dodge was paid
    # The attack was rolled against Ana's defence and her Dodge (the GM's log says so).
    line = enc.log.order_by("-seq").first()
    assert line is not None
    [attack] = [e for e in line.events if e["kind"] == "attack"]
    assert attack["data"]["target"] == ana and "Dodge" in said(attack)
