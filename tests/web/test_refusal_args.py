"""A refusal reaches a program as a stable code with typed arguments, and a person as the
same sentence as before (docs/api.md, "Refusal codes"). A combatant the asker cannot see
is in neither."""

from __future__ import annotations

import json

from django.test import Client

from combat import services
from combat.access import gm_viewer, seat_viewer

from .conftest import HIDDEN, TableFixture


def post(table: TableFixture, token: str, command: dict) -> dict:
    r = Client().post(
        f"/api/encounters/{table.enc.pk}/commands",
        json.dumps(command),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert r.status_code == 409, r.content
    return r.json()["error"]


def test_out_of_turn_the_refusal_names_who_what_and_whose_turn(fight: TableFixture):
    """Action Points, AP Pool: a combatant acts on its own turn."""
    attack = {"type": "act", "actor": fight.bram, "action": "basic_attack"}
    err = post(fight, fight.seat2.token, {**attack, "options": {"target": fight.goblin}})
    assert err["code"] == "not_your_turn"
    assert err["message"].startswith(
        "Not Bram's turn: Bram can take Basic Attack only on its own turn."
    )
    assert err["args"] == {"who": fight.bram, "what": "basic_attack", "turn": fight.ana}


def test_not_enough_ap_carries_the_cost_and_what_is_left(fight: TableFixture):
    """Action Points, AP Pool: an action costs AP the combatant has this turn."""
    set_ap = {"type": "adjust", "actor": fight.ana, "resource": "ap", "value": 0}
    assert services.run_command(fight.enc.pk, gm_viewer(fight.enc), set_ap).ok
    attack = {"type": "act", "actor": fight.ana, "action": "basic_attack"}
    err = post(fight, fight.seat1.token, {**attack, "options": {"target": fight.goblin}})
    assert err["code"] == "not_enough_ap"
    assert err["message"] == "Not enough AP: Basic Attack costs 1, Ana has 0."
    assert err["args"] == {
        "who": fight.ana,
        "what": "basic_attack",
        "cost": 1,
        "left": 0,
        "rule": "AP Pool",
    }


def test_a_hidden_combatant_is_in_no_players_refusal(fight: TableFixture):
    """On the hidden Troll's turn, Ana's player is told it is not Ana's turn: neither the
    sentence nor the arguments name or point at the Troll. The GM's refusal does."""
    gm = gm_viewer(fight.enc)
    for _ in range(3):  # Ana, Bram and the Goblin end their turns
        assert services.run_command(fight.enc.pk, gm, {"type": "end_turn"}).ok
    assert fight.refresh().state["turn"] == fight.troll
    attack = {"type": "act", "actor": fight.ana, "action": "basic_attack"}
    command = {**attack, "options": {"target": fight.goblin}}
    err = post(fight, fight.seat1.token, command)
    assert err["code"] == "not_your_turn"
    assert err["args"] == {"who": fight.ana, "what": "basic_attack"}
    said = json.dumps(err)
    assert fight.troll not in said and HIDDEN not in said and "Troll" not in said
    # The engine's own facts hold the Troll: the answer to the player leaves it out.
    told = services.run_command(fight.enc.pk, seat_viewer(fight.seat1), command).refusal
    assert told is not None and fight.troll not in json.dumps(told.to_dict())
    gm_told = services.run_command(fight.enc.pk, gm, command).refusal
    assert gm_told is not None and gm_told.args["turn"] == fight.troll
