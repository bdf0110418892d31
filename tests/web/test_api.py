"""The JSON API: authentication, redaction by role, status codes, idempotency, versions."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from combat.models import ApiToken, Encounter

from .conftest import HIDDEN, TableFixture

pytestmark = pytest.mark.django_db


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def post(client: Client, url: str, body, **headers):
    return client.post(url, json.dumps(body), content_type="application/json", **headers)


@pytest.fixture
def gm_token(gm_user) -> str:
    return ApiToken.issue(gm_user)[1]


@pytest.fixture
def outsider_token(outsider_user) -> str:
    return ApiToken.issue(outsider_user)[1]


def cmd_url(t: TableFixture) -> str:
    return f"/api/encounters/{t.enc.pk}/commands"


def test_rulesets_lists_each_with_settings_and_costed_catalogue(db):
    r = Client().get("/api/rulesets")
    assert r.status_code == 200
    data = {rs["key"]: rs for rs in r.json()["rulesets"]}
    assert {"action_points", "action_ladder", "initiative_passes"} <= set(data)
    ap = data["action_points"]
    assert ap["name"] == "Action Points"
    assert any(s["key"] == "ap_pool" and s["default"] == 3 for s in ap["settings"])
    actions = {a["key"]: a for a in ap["actions"]}
    assert actions["basic_attack"]["cost_label"] == "1 AP"
    assert actions["empowered_attack"]["cost_label"] == "1 AP + extra"


def test_no_or_bad_credentials_are_401(table: TableFixture):
    url = f"/api/encounters/{table.enc.pk}/"
    r = Client().get(url)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"
    assert "Bearer" in r["WWW-Authenticate"]
    assert Client().get(url, **bearer("nope")).status_code == 401
    assert Client().get(url, HTTP_AUTHORIZATION="Basic abc").status_code == 401


def test_state_is_redacted_for_the_callers_role(table: TableFixture, gm_token: str):
    url = f"/api/encounters/{table.enc.pk}/"
    gm = Client().get(url, **bearer(gm_token)).json()
    player = Client().get(url, **bearer(table.seat1.token)).json()
    watcher = Client().get(url, **bearer(table.enc.spectator_token)).json()
    assert gm["role"] == "gm" and table.troll in gm["state"]["combatants"]
    assert player["role"] == "player" and watcher["role"] == "spectator"
    for body in (player, watcher):
        assert HIDDEN not in json.dumps(body)
        assert table.troll not in body["state"]["combatants"]
    assert player["seat"]["combatants"] == [table.ana]
    assert any(a["key"] == "basic_attack" for a in player["actions"][table.ana])


def test_gm_session_works_and_others_get_404(table: TableFixture, outsider_token: str):
    url = f"/api/encounters/{table.enc.pk}/"
    assert table.gm.get(url).status_code == 200
    assert table.outsider.get(url).status_code == 404
    assert Client().get(url, **bearer(outsider_token)).status_code == 404
    # A seat token opens its own encounter only.
    other = Encounter.objects.create(
        owner=table.enc.owner, name="x", ruleset="action_points", state=table.enc.state
    )
    assert (
        Client().get(f"/api/encounters/{other.pk}/", **bearer(table.seat1.token)).status_code == 404
    )


def test_player_command_succeeds_and_bumps_the_version(fight: TableFixture):
    v = fight.refresh().version
    r = post(
        Client(),
        cmd_url(fight),
        {
            "type": "act",
            "actor": fight.ana,
            "action": "basic_attack",
            "options": {"target": fight.goblin},
        },
        **bearer(fight.seat1.token),
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["ok"] and body["version"] == v + 1 and not body["replayed"]
    # The Goblin is an NPC, whose health players see as a band by default (docs/rules.md,
    # "NPC health"): the player reads the hit, not the damage it did.
    texts = [e["text"] for e in body["events"]]
    assert any(t.endswith(": hit.") for t in texts), texts
    assert not any("5 damage" in t for t in texts), texts


def test_status_codes_for_refusals(fight: TableFixture):
    c = Client()
    auth = bearer(fight.seat1.token)
    forbidden = post(c, cmd_url(fight), {"type": "end_turn", "actor": fight.bram}, **auth)
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden"
    gm_only = post(
        c, cmd_url(fight), {"type": "damage", "actor": fight.goblin, "amount": 1}, **auth
    )
    assert gm_only.status_code == 403
    rules = post(
        c,
        cmd_url(fight),
        {"type": "act", "actor": fight.ana, "action": "disengage", "options": {}},
        **auth,
    )
    assert rules.status_code == 200  # 2 AP of 3
    rules = post(
        c, cmd_url(fight), {"type": "act", "actor": fight.ana, "action": "disengage"}, **auth
    )
    assert rules.status_code == 409
    assert rules.json()["error"] == {
        "code": "not_enough_ap",
        "message": "Not enough AP: Disengage costs 2, Ana has 1.",
        "args": {"who": fight.ana, "what": "disengage", "cost": 2, "left": 1, "rule": "AP Pool"},
    }
    bad = c.post(cmd_url(fight), "{not json", content_type="application/json", **auth)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_json"
    unknown = post(c, cmd_url(fight), {"type": "fireball"}, **auth)
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_command"
    shape = post(c, cmd_url(fight), ["end_turn"], **auth)
    assert shape.status_code == 400
    spectator = post(
        c,
        cmd_url(fight),
        {"type": "end_turn", "actor": fight.ana},
        **bearer(fight.enc.spectator_token),
    )
    assert spectator.status_code == 403


def test_gm_unknown_command_is_bad_input(fight: TableFixture, gm_token: str):
    r = post(Client(), cmd_url(fight), {"type": "fireball"}, **bearer(gm_token))
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_command"


def test_hidden_combatant_is_unknown_to_players_through_the_api(fight: TableFixture):
    r = post(
        Client(),
        cmd_url(fight),
        {
            "type": "act",
            "actor": fight.ana,
            "action": "basic_attack",
            "options": {"target": fight.troll},
        },
        **bearer(fight.seat1.token),
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_combatant"
    log = Client().get(f"/api/encounters/{fight.enc.pk}/log", **bearer(fight.seat1.token)).json()
    assert HIDDEN not in json.dumps(log)


def test_expected_version_conflict_is_409(fight: TableFixture):
    v = fight.refresh().version
    auth = bearer(fight.seat1.token)
    stale = post(
        Client(),
        cmd_url(fight),
        {"type": "end_turn", "actor": fight.ana, "expected_version": v - 1},
        **auth,
    )
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "version_conflict"
    assert fight.refresh().version == v
    fresh = post(
        Client(),
        cmd_url(fight),
        {"type": "end_turn", "actor": fight.ana, "expected_version": v},
        **auth,
    )
    assert fresh.status_code == 200 and fresh.json()["version"] == v + 1


def test_idempotency_key_replays_the_same_answer_once(fight: TableFixture):
    auth = {**bearer(fight.seat1.token), "HTTP_IDEMPOTENCY_KEY": "k-1"}
    body = {
        "type": "act",
        "actor": fight.ana,
        "action": "basic_attack",
        "options": {"target": fight.goblin},
    }
    first = post(Client(), cmd_url(fight), body, **auth)
    second = post(Client(), cmd_url(fight), body, **auth)
    assert first.status_code == second.status_code == 200
    assert second.json()["replayed"] and second["Idempotent-Replayed"] == "true"
    assert first.json()["version"] == second.json()["version"]
    assert first.json()["events"] == second.json()["events"]
    assert fight.refresh().state["combatants"][fight.goblin]["hp"] == 5  # one hit, not two
    other = post(Client(), cmd_url(fight), {"type": "end_turn", "actor": fight.ana}, **auth)
    assert other.status_code == 409 and other.json()["error"]["code"] == "idempotency_mismatch"
    # The same key and body from someone else is not their answer to replay.
    thief = {**bearer(fight.seat2.token), "HTTP_IDEMPOTENCY_KEY": "k-1"}
    stolen = post(Client(), cmd_url(fight), body, **thief)
    assert stolen.status_code == 409 and stolen.json()["error"]["code"] == "idempotency_mismatch"


def test_gm_creates_an_encounter_and_adds_combatants(gm_token: str):
    r = post(
        Client(),
        "/api/encounters",
        {"name": "Docks", "ruleset": "action_points", "settings": {"ap_pool": 4}},
        **bearer(gm_token),
    )
    assert r.status_code == 201, r.content
    enc_id = r.json()["id"]
    assert r["Location"] == f"/api/encounters/{enc_id}/"
    add = post(
        Client(),
        f"/api/encounters/{enc_id}/commands",
        {"type": "add_combatant", "name": "Rat", "side": "npc", "hp": 3},
        **bearer(gm_token),
    )
    assert add.status_code == 200
    assert Encounter.objects.get(pk=enc_id).state["settings"]["ap_pool"] == 4
    seat = post(
        Client(),
        f"/api/encounters/{enc_id}/seats",
        {"name": "Pat", "combatants": ["c1"]},
        **bearer(gm_token),
    )
    assert seat.status_code == 201 and seat.json()["url"].startswith("/p/")
    bad = post(Client(), "/api/encounters", {"ruleset": "chess"}, **bearer(gm_token))
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "unknown_ruleset"


def test_players_cannot_create_encounters_or_seats(table: TableFixture):
    auth = bearer(table.seat1.token)
    assert (
        post(Client(), "/api/encounters", {"ruleset": "action_points"}, **auth).status_code == 403
    )
    r = post(Client(), f"/api/encounters/{table.enc.pk}/seats", {"name": "Sneaky"}, **auth)
    assert r.status_code == 403


def test_session_callers_need_the_csrf_token(table: TableFixture, gm_user):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(gm_user)
    r = post(strict, cmd_url(table), {"type": "roll", "dice": "1d6"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf"
    strict.get("/")  # sets the CSRF cookie
    token = strict.cookies["csrftoken"].value
    r = post(strict, cmd_url(table), {"type": "roll", "dice": "1d6"}, HTTP_X_CSRFTOKEN=token)
    assert r.status_code == 200


def test_wrong_method_is_405(table: TableFixture):
    r = Client().delete(f"/api/encounters/{table.enc.pk}/commands", **bearer(table.seat1.token))
    assert r.status_code == 405 and r["Allow"] == "POST"
