"""The reasons under disabled actions are written for their reader (issue 29): a hidden
NPC's chance to react holds up Ana's turn, and her player is told only that the table
waits for the GM, with the Lurker in neither the page nor the API's reasons; the GM is
told whose reaction the table waits for."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from combat import services
from combat.models import Encounter

from .conftest import FIGHTER, add, gm

pytestmark = pytest.mark.django_db

LURKER = "Zyzzyx the Lurker"


def test_a_hidden_reactor_holds_up_ana_and_only_the_gm_is_told_who(gm_user):
    """Action Ladder, Attack of Opportunity: Ana walks away from the unseen Lurker, whose
    chance to react is the GM's; until it is taken or let pass, Ana's turn waits."""
    enc = services.create_encounter(gm_user, "Ambush", "action_ladder", {})
    assert isinstance(enc, Encounter)
    ana = add(enc, name="Ana", side="pc", hp=30, initiative=30, stats=FIGHTER)
    lurker = add(enc, name=LURKER, side="npc", hp=31, initiative=10, stats=FIGHTER, hidden=True)
    seat = services.create_seat(enc.pk, "Player 1", [ana])
    gm(enc, type="start_combat")
    gm(enc, type="engage", actor=ana, target=lurker)
    gm(enc, type="act", actor=ana, action="walk")
    enc.refresh_from_db()
    [window] = enc.state["pending"]
    assert (window["reactor"], window["trigger"]) == (lurker, ana)

    page = Client().get(f"/p/{seat.token}/").content.decode()
    assert 'data-testid="shared-reason">Waiting for the GM.<' in page
    assert LURKER not in page and "Zyzzyx" not in page and lurker not in page
    assert "Waiting for reactions" not in page

    body = (
        Client().get(f"/api/encounters/{enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {seat.token}").json()
    )
    reasons = {a["reason"] for a in body["actions"][ana] if not a["allowed"]}
    assert "Waiting for the GM." in reasons
    text = json.dumps(body["actions"])
    assert LURKER not in text and lurker not in text

    host = Client()
    host.force_login(gm_user)
    gm_page = host.get(f"/enc/{enc.pk}/").content.decode()
    waiting = f"Waiting for reactions: {LURKER} may still react to Ana."
    assert f'data-testid="shared-reason">{waiting}<' in gm_page
    assert "Waiting for the GM." not in gm_page
