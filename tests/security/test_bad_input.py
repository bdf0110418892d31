"""Bad input gets a sentence and a 4xx, and changes nothing: state before and after compare equal.

Unknown commands, wrong types, negative and huge numbers, dice bombs, malformed JSON, text
no database can store (NUL, half a surrogate pair), absurd ids and links, over the pages
(htmx form posts) and the JSON API. Frames over 64 KiB on a socket: tests/security/test_sockets.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from combat.forms import COMMAND_FIELDS

from .conftest import HIDDEN, Table, snapshot

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def refused_in_words(r, status: set[int] | int = 400) -> str:
    wanted = {status} if isinstance(status, int) else status
    assert r.status_code in wanted, (r.status_code, r.content[:400])
    if r["Content-Type"].startswith("application/json"):
        message = r.json()["error"]["message"]
    else:
        body = r.content.decode()
        assert 'data-testid="refusal"' in body, body[:400]
        message = body.split('data-testid="refusal"', 1)[1].split(">", 1)[1].split("<", 1)[0]
    assert len(message.split()) >= 3, message
    return message


def api(t: Table, role: str, body: Any, *, raw: bool = False, path: str = "commands/", **extra):
    data = body if raw else json.dumps(body)
    return Client().post(
        f"/api/encounters/{t.enc.pk}/{path}",
        data,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {t.token(role)}",
        **extra,
    )


def bad_commands(t: Table) -> list[dict[str, Any]]:
    ana, goblin = t.ana, t.goblin
    return [
        # unknown commands
        {"type": "nuke"},
        {"type": ""},
        {"type": "__class__"},
        {"type": "Act"},
        {"type": "act " * 50},
        # wrong types
        {"type": "damage", "actor": goblin, "amount": "lots"},
        {"type": "damage", "actor": goblin, "amount": True},
        {"type": "damage", "actor": goblin, "amount": [3]},
        {"type": "damage", "actor": goblin, "amount": {"n": 3}},
        {"type": "damage", "actor": goblin, "amount": 3.5},
        {"type": "damage", "actor": 3, "amount": 3},
        {"type": "damage", "actor": [goblin], "amount": 3},
        {"type": "damage", "actor": {"id": goblin}, "amount": 3},
        {"type": "act", "actor": ana, "action": ["basic_attack"]},
        {"type": "act", "actor": ana, "action": "basic_attack", "options": "target=c3"},
        {"type": "act", "actor": ana, "action": "basic_attack", "options": [goblin]},
        {"type": "act", "actor": ana, "action": "basic_attack", "options": {"target": 3}},
        {"type": "act", "actor": ana, "action": "basic_attack", "options": {"bogus": 1}},
        {"type": "add_combatant", "name": 5},
        {"type": "add_combatant", "name": ["Newt"]},
        {"type": "add_combatant", "name": "Newt", "side": "dragon"},
        {"type": "add_combatant", "name": "Newt", "stats": "strong"},
        {"type": "add_combatant", "name": "Newt", "stats": {"bad name!": "1d6"}},
        {"type": "add_combatant", "name": "Newt", "stats": {"attack": ["1d6"]}},
        {"type": "add_combatant", "name": "Newt", "hp": "many"},
        {"type": "set_setting", "key": ["initiative_formula"], "value": "1d20"},
        {"type": "set_setting", "key": "no_such_setting", "value": 1},
        {"type": "roll", "dice": 20},
        {"type": "roll", "dice": None},
        {"type": "adjust", "actor": ana, "resource": ["hp"], "value": 3},
        {"type": "react", "actor": ana, "window": {"id": "w1"}},
        # lists where one id or key goes (once a 500: a list cannot be looked up by name)
        {"type": "end_turn", "actor": [None]},
        {"type": "abandon", "actor": [None]},
        {"type": "hold", "actor": [ana]},
        {"type": "set_modifier", "actor": ana, "key": ["attacks_per_turn"], "value": 2},
        # negative and huge numbers
        {"type": "damage", "actor": goblin, "amount": -5},
        {"type": "heal", "actor": goblin, "amount": -5},
        {"type": "damage", "actor": goblin, "amount": 10**30},
        {"type": "damage", "actor": goblin, "amount": 10**400},
        {"type": "damage", "actor": goblin, "amount": "9" * 5000},
        {"type": "damage", "actor": goblin, "amount": -(10**30)},
        {"type": "set_initiative", "actor": goblin, "initiative": -(10**6)},
        {"type": "set_initiative", "actor": goblin, "initiative": 10**18},
        {"type": "adjust", "actor": ana, "resource": "hp", "value": -1},
        {"type": "adjust", "actor": ana, "resource": "hp", "value": 10**9},
        {"type": "set_cost", "action": "basic_attack", "cost": -1},
        {"type": "set_cost", "action": "basic_attack", "cost": 10**9},
        {"type": "add_combatant", "name": "Newt", "hp": -1},
        {"type": "add_combatant", "name": "Newt", "hp": 10**12},
        {"type": "add_combatant", "name": "Newt", "initiative_bonus": 10**6},
        # dice bombs
        {"type": "roll", "dice": "1000000d1000000"},
        {"type": "roll", "dice": "1d1000000"},
        {"type": "roll", "dice": "1000d6"},
        {"type": "roll", "dice": "100d100+100d100+100d100"},
        {"type": "roll", "dice": "1d6+" * 40 + "1"},
        {"type": "roll", "dice": "99999999999999999999d6"},
        {"type": "roll", "dice": "1d6+99999999999"},
        {"type": "roll", "dice": "((((((1d6))))))"},
        {"type": "set_setting", "key": "initiative_formula", "value": "1000000d1000000"},
        {"type": "add_combatant", "name": "Newt", "stats": {"attack": {"dice": "1000000d1000000"}}},
        # names that are not there, or hidden
        {"type": "damage", "actor": "c999", "amount": 1},
        {"type": "damage", "actor": "", "amount": 1},
        {"type": "remove_combatant", "actor": "c0"},
    ]


def test_bad_commands_over_the_api_are_refused_and_change_nothing(table: Table):
    before = snapshot()
    messages = set()
    for command in bad_commands(table):
        for role in ("gm", "owner"):
            r = api(table, role, command)
            messages.add(refused_in_words(r, {400, 403, 409}))
            assert snapshot() == before, (role, command)
    assert len(messages) > 30  # each wrong in its own words


def test_bad_commands_over_the_pages_are_refused_and_change_nothing(table: Table):
    before = snapshot()
    gm = table.clients["gm"]
    for command in bad_commands(table):
        if _only_wrong_in_json(command):
            continue
        form: dict[str, str] = {}
        for key, value in command.items():
            if key == "options" and isinstance(value, dict):
                form.update({f"opt_{k}": str(v) for k, v in value.items()})
            else:
                form[key] = value if isinstance(value, str) else json.dumps(value)
        r = gm.post(f"/enc/{table.enc.pk}/command/", form, **HTMX)
        refused_in_words(r, {400, 409, 200} if r.status_code == 200 else {400, 409})
        assert 'data-testid="refusal"' in r.content.decode(), command
        assert snapshot() == before, command


def _only_wrong_in_json(command: dict[str, Any]) -> bool:
    """Wrong only as a JSON type: posted as text it is fine ("5" is a name, "20" dice),
    or it sits where a form has no field (stats, a whole options object)."""
    fields = {*COMMAND_FIELDS, "type", "options"}
    return (
        any(key not in fields for key in command)
        or ("options" in command and not isinstance(command["options"], dict))
        or not isinstance(command.get("name", ""), str)
        or not isinstance(command.get("dice", ""), str)
    )


MALFORMED_BODIES = [
    b"",
    b"{",
    b"[",
    b"nul",
    b"{'type': 'roll'}",
    b'{"type": "roll", "dice": "1d6",}',
    b"\xff\xfe\x00",
    b"\xef\xbb\xbf{}",
    b"[]",
    b"42",
    b'"end_turn"',
    b"null",
    b"true",
    b'{"type": null}',
    b'{"type": {"type": "roll"}}',
    b'{"type": "roll", "dice": "1d6", "amount": NaN}',
    b'{"type": "roll", "dice": "1d6", "amount": Infinity}',
    b'{"type": "roll", "dice": "1d6", "amount": -Infinity}',
    b'{"type": "roll", "dice": "1d6", "junk": 1e999}',
    b'{"type": "roll", "dice": "1d6", "label": "a\\u0000b"}',
    b'{"type": "roll", "dice": "1d6", "label": "\\ud800"}',
    b'{"type": "roll", "dice": "1d6", "\\u0000": 1}',
    b'{"type": "roll", "dice": "1d6", "n": ' + b"9" * 5000 + b"}",
    b"[" * 20000 + b"]" * 20000,
    b'{"a":' * 50 + b"1" + b"}" * 50,
    b'{"type": "roll", "dice": "1d6", "pad": "' + b"x" * (70 * 1024) + b'"}',
]


@pytest.mark.parametrize("role", ["gm", "owner"])
def test_malformed_json_is_refused_and_changes_nothing(table: Table, role: str):
    before = snapshot()
    for body in MALFORMED_BODIES:
        r = api(table, role, body, raw=True)
        message = refused_in_words(r, 400)
        assert r.json()["error"]["code"] in {"bad_json", "bad_command", "too_large"}, body[:60]
        assert snapshot() == before, body[:60]
        assert "Traceback" not in message


def test_a_form_post_to_the_api_is_refused(table: Table):
    before = snapshot()
    r = Client().post(
        f"/api/encounters/{table.enc.pk}/commands/",
        {"type": "roll", "dice": "1d6"},
        HTTP_AUTHORIZATION=f"Bearer {table.gm_key}",
    )
    refused_in_words(r, 400)
    assert snapshot() == before


def test_text_no_database_can_store_is_refused_in_forms(table: Table):
    before = snapshot()
    gm, p1 = table.clients["gm"], table.clients["owner"]
    posts = [
        (gm, f"/enc/{table.enc.pk}/command/", {"type": "roll", "dice": "1d6", "label": "a\x00b"}),
        (gm, f"/enc/{table.enc.pk}/command/", {"type": "roll\x00", "dice": "1d6"}),
        (gm, f"/enc/{table.enc.pk}/combatants/", {"name": "Nul\x00l", "side": "npc"}),
        (gm, f"/enc/{table.enc.pk}/combatants/{table.goblin}/", {"name": "Gob\x00"}),
        (gm, f"/enc/{table.enc.pk}/seats/", {"name": "Seat\x00"}),
        (gm, "/enc/new/", {"name": "Fight\x00", "ruleset": "action_points"}),
        (gm, "/account/api-tokens/", {"name": "tok\x00en"}),
        (p1, f"/p/{table.seat1.token}/command/", {"type": "roll", "dice": "1d6", "label": "\x00"}),
        (
            gm,
            f"/enc/{table.enc.pk}/command/",
            {"type": "roll", "dice": "1d6", "label": "x" * 30_000},
        ),
    ]
    for client, url, data in posts:
        r = client.post(url, data, **HTMX)
        message = refused_in_words(r, 400)
        assert "NUL" in message or "too long" in message, (url, message)
        assert snapshot() == before, url


def test_too_big_or_too_many_fields_is_a_400_in_words(table: Table):
    gm = table.clients["gm"]
    before = snapshot()
    r = gm.post(f"/enc/{table.enc.pk}/command/", {"type": "roll", "label": "x" * 600_000}, **HTMX)
    refused_in_words(r, 400)
    many = {f"f{i}": "1" for i in range(2000)}
    r = gm.post(f"/enc/{table.enc.pk}/command/", {"type": "roll", **many}, **HTMX)
    refused_in_words(r, 400)
    assert snapshot() == before


@pytest.mark.parametrize(
    "url",
    [
        "/enc/99999999999999999999999999/",
        "/enc/0/",
        "/enc/1/combatants/%00/",
        "/p/%00/",
        "/p/" + "a" * 5000 + "/",
        "/p/..%2F..%2Fetc/",
        "/s/%00%00/",
        "/s/<script>/",
        "/api/encounters/99999999999999999999999999/",
        "/api/encounters/99999999999999999999999999/log/",
        "/api/nothing-here/",
        "/nothing-here/",
    ],
)
def test_absurd_addresses_are_404_in_words(table: Table, url: str):
    for client in (table.clients["gm"], table.clients["anonymous"]):
        r = client.get(url)
        anonymous = client is table.clients["anonymous"]
        if r.status_code == 302:  # the GM's pages send nobody to the log-in form first
            assert anonymous and "/accounts/login/" in r["Location"]
            continue
        # The API asks who is calling before it looks: nobody gets a 401 there.
        wanted = 401 if anonymous and url.startswith("/api/encounters/") else 404
        refused_in_words(r, wanted)
        assert HIDDEN not in r.content.decode()


def test_absurd_tokens_are_401_in_words(table: Table):
    for header in (
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Bearer \x00",
        "Bearer " + "a" * 10_000,
        "Bearer <script>",
        "bearer " + table.seat1.token + "x",
    ):
        r = Client().get(f"/api/encounters/{table.enc.pk}/", HTTP_AUTHORIZATION=header)
        refused_in_words(r, 401)
        assert r["WWW-Authenticate"].startswith("Bearer")


def test_bad_idempotency_keys_and_versions_are_refused(table: Table):
    before = snapshot()
    command = {"type": "roll", "dice": "1d6"}
    for key in ("k" * 201, "a\x00b", "naïve"):
        refused_in_words(api(table, "gm", command, HTTP_IDEMPOTENCY_KEY=key), 400)
    for version in ("1", 1.5, True, [1], -(10**30)):
        r = api(table, "gm", {**command, "expected_version": version})
        refused_in_words(r, {400, 409})
    assert snapshot() == before


def test_bad_seat_and_encounter_bodies_are_refused(table: Table):
    before = snapshot()
    for body in (
        {},
        {"name": ""},
        {"name": 5},
        {"name": "x" * 81},
        {"name": "P3", "combatants": "c1"},
        {"name": "P3", "combatants": [1, 2]},
        {"name": "P3", "combatants": ["c1"] * 500},
    ):
        refused_in_words(api(table, "gm", body, path="seats/"), 400)
    for body in (
        {"name": "x", "ruleset": "nope"},
        {"name": "x", "ruleset": 5},
        {"name": ["x"], "ruleset": "action_points"},
        {"name": "x" * 81, "ruleset": "action_points"},
        {"name": "x", "ruleset": "action_points", "settings": []},
        {"name": "x", "ruleset": "action_points", "settings": {"bogus": 1}},
        {
            "name": "x",
            "ruleset": "action_points",
            "settings": {"initiative_formula": "1000000d1000000"},
        },
    ):
        r = Client().post(
            "/api/encounters/",
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {table.gm_key}",
        )
        refused_in_words(r, 400)
    assert snapshot() == before
