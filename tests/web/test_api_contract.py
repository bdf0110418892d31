"""/api/openapi.json describes the API the code answers, and /api/docs/ shows it (issue 17).

The description is built from the code (combat/contract.py): these tests hold it to
COMMANDS, to the rulesets' catalogues and settings, to the codes the code refuses with,
and to docs/api.md, so a change on one side without the other fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.test import Client

from combat.rules import COMMANDS, rulesets
from combat.rules.fields import FIELDS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"


@pytest.fixture(scope="module")
def openapi() -> dict:
    response = Client().get("/api/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


def members(openapi: dict) -> dict[str, dict]:
    """The union's members by their `type` value, resolved."""
    schemas = openapi["components"]["schemas"]
    union = schemas["Command"]
    out = {}
    for ref in union["discriminator"]["mapping"].values():
        member = schemas[ref.rsplit("/", 1)[1]]
        out[member["properties"]["type"]["const"]] = member
    assert len(union["oneOf"]) == len(out)
    return out


def test_the_description_is_openapi_3_1_with_every_endpoint(openapi):
    assert openapi["openapi"] == "3.1.0"
    operations = {
        f"{method.upper()} {path}" for path, item in openapi["paths"].items() for method in item
    }
    assert operations == {
        "GET /api/rulesets",
        "GET /api/encounters",
        "POST /api/encounters",
        "GET /api/encounters/{encounter_id}/",
        "POST /api/encounters/{encounter_id}/commands",
        "GET /api/encounters/{encounter_id}/log",
        "GET /api/encounters/{encounter_id}/seats",
        "POST /api/encounters/{encounter_id}/seats",
        "GET /api/encounters/{encounter_id}/export",
        "POST /api/encounters/import",
        "GET /api/encounters/{encounter_id}/chat",
        "POST /api/encounters/{encounter_id}/chat",
    }
    commands = openapi["paths"]["/api/encounters/{encounter_id}/commands"]["post"]
    body = commands["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Command"}
    assert set(commands["responses"]) == {"200", "400", "401", "403", "404", "409", "429"}
    assert "Retry-After" in commands["responses"]["429"]["headers"]
    assert [p["name"] for p in commands["parameters"]] == ["encounter_id", "Idempotency-Key"]
    assert set(openapi["components"]["securitySchemes"]) == {"BearerToken", "SessionCookie"}


def test_the_union_has_one_member_for_each_command_the_engine_knows(openapi):
    assert set(members(openapi)) == set(COMMANDS) | {"undo"}
    assert set(FIELDS) == set(COMMANDS) | {"undo"}
    union = openapi["components"]["schemas"]["Command"]
    assert union["discriminator"]["propertyName"] == "type"


def test_fields_carry_the_engines_bounds(openapi):
    m = members(openapi)
    damage = m["damage"]
    assert damage["required"] == ["type", "actor", "amount"]
    assert damage["properties"]["amount"]["minimum"] == 0
    assert damage["properties"]["amount"]["maximum"] == 100_000
    add = m["add_combatant"]["properties"]
    assert add["name"]["maxLength"] == 80
    assert add["notes"]["maxLength"] == 2000
    assert add["side"]["enum"] == ["pc", "npc"]
    assert add["initiative"]["minimum"] == -100 and add["initiative"]["maximum"] == 1000
    assert m["reorder"]["properties"]["direction"]["enum"] == ["up", "down"]
    assert m["set_condition"]["properties"]["stacks"]["maximum"] == 99
    assert m["add_custom_action"]["properties"]["cost"]["maximum"] == 20
    for member in m.values():
        version = member["properties"]["expected_version"]
        assert (version["type"], version["minimum"]) == ("integer", 0)


def test_action_options_and_per_combatant_settings_come_from_the_rulesets(openapi):
    schemas = openapi["components"]["schemas"]
    options = schemas["ActionOptions"]["properties"]
    declared = {
        o.name: o for rs in rulesets().values() for a in rs.catalogue().values() for o in a.options
    }
    assert set(options) == set(declared)
    to_hit, spec = options["to_hit"], declared["to_hit"]
    assert (to_hit["minimum"], to_hit["maximum"]) == (spec.min, spec.max)
    assert options["defence"]["enum"] == ["melee", "ranged", "mental"]
    act = members(openapi)["act"]["properties"]
    assert act["options"]["$ref"] == "#/components/schemas/ActionOptions"
    per_combatant = {
        s.key for rs in rulesets().values() for s in rs.all_settings() if s.per_combatant
    }
    assert per_combatant <= set(members(openapi)["add_combatant"]["properties"])


def _literal_codes() -> set[str]:
    """Every code the code under combat/ refuses with, read here independently."""
    codes = set()
    for path in (ROOT / "combat").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and node.args:
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                first = node.args[0]
                if name in ("refuse", "Refusal", "refused", "error") and isinstance(
                    first, ast.Constant
                ):
                    codes.add(first.value)
    # A code is one word (logger.error's sentences are not codes).
    return {c for c in codes if isinstance(c, str) and c.isidentifier()}


def test_every_error_code_is_listed_under_the_status_that_carries_it(openapi):
    schemas = openapi["components"]["schemas"]

    def codes(status: int) -> set[str]:
        code = schemas[f"ErrorDetail{status}"]["properties"]["code"]
        return set(code["enum"]) if "enum" in code else {code["const"]}

    listed = {status: codes(status) for status in (400, 401, 403, 404, 409, 429)}
    assert {"bad_json", "too_long", "unknown_combatant", "bad_option"} <= listed[400]
    assert listed[401] == {"unauthenticated"}
    assert listed[403] == {"forbidden", "gm_only", "csrf"}
    assert listed[404] == {"not_found"}
    assert listed[429] == {"rate_limited"}
    assert {"version_conflict", "idempotency_mismatch", "not_enough_ap", "no_turn"} <= listed[409]
    everything = set().union(*listed.values())
    # Only the 405/500 answers and a dead link's page (not an API answer) are left out.
    assert _literal_codes() - everything == {"method_not_allowed", "server_error", "link_gone"}
    for a, b in [(400, 409), (403, 409), (400, 403), (409, 429)]:
        assert not listed[a] & listed[b]


def test_every_command_in_the_description_has_its_section_in_the_guide(openapi):
    sections = set(re.findall(r"^### (\S+)\s*$", DOC.read_text(), re.M))
    missing = sorted(set(members(openapi)) - sections)
    assert not missing, f"docs/api.md has no section for {missing}"
    assert "/api/openapi.json" in DOC.read_text() and "/api/docs/" in DOC.read_text()


def test_the_reference_page_loads_vendored_swagger_under_the_nonce_csp(openapi):
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    scripts = re.findall(r"<script ([^>]*)>", html)
    assert scripts and all(f'nonce="{nonce}"' in s and 'src="/static/' in s for s in scripts)
    assert 'src="/static/ninja/swagger-ui-bundle.js"' in html
    assert 'data-openapi-url="/api/openapi.json"' in html
    assert "cdn" not in html.lower() and "https://" not in html
    for asset in ("/static/ninja/swagger-ui-bundle.js", "/static/js/api-docs.js"):
        served = Client().get(asset)
        assert served.status_code == 200, asset
        assert b"".join(served.streaming_content), asset


def test_an_unknown_api_address_answers_in_json_even_with_debug_on(settings):
    # Found by the fuzzer: with DEBUG on, /api/encounters/false/ got Django's HTML 404 page.
    settings.DEBUG = True
    response = Client().get("/api/encounters/false/")
    assert response.status_code == 404
    assert response.json() == {
        "error": {"code": "not_found", "message": "There is nothing at this address."}
    }
    assert Client().post("/api/nothing/here", {}).status_code == 404


def _engine_answer(command: dict) -> str | None:
    """The engine's refusal message for one GM command on a small encounter, or None."""
    import random

    from combat.rules import apply, new_encounter

    state = new_encounter("action_points")
    added = apply(
        state, {"type": "add_combatant", "by": "gm", "name": "Ana", "hp": 10}, random.Random(1)
    )
    assert added.ok
    base = {
        "by": "gm",
        "actor": added.events[0]["data"]["id"],
        "name": "X",
        "action": "basic_attack",
        "dice": "1d6",
    }
    outcome = apply(added.state, {**base, **command}, random.Random(1))
    return None if outcome.ok else f"{outcome.refusal.code}: {outcome.refusal.message}"


def _bounded_fields() -> list[tuple[str, object]]:
    return [
        (name, f) for name, fields in FIELDS.items() for f in fields if f.kind in ("int", "text")
    ]


@pytest.mark.parametrize(
    ("command", "field"), _bounded_fields(), ids=lambda v: getattr(v, "name", v)
)
def test_the_published_bounds_are_the_ones_the_engine_enforces(command, field):
    # The description's bounds and the handlers' checks both come from combat.rules.fields.
    # Just inside a bound is not refused for it, just outside is, with the bound in words.
    if field.kind == "int":
        for outside in (field.max + 1, field.min - 1):
            said = _engine_answer({"type": command, field.name: outside})
            assert said is not None and said.startswith("bad_option:"), (outside, said)
            assert f"between {field.min} and {field.max}" in said
        for inside in (field.max, field.min):
            said = _engine_answer({"type": command, field.name: inside})
            assert said is None or "between" not in said, (inside, said)
    else:
        said = _engine_answer({"type": command, field.name: "x" * (field.max_length + 1)})
        assert said is not None and said.startswith("too_long:"), said
        assert f"at most {field.max_length} characters" in said
        said = _engine_answer({"type": command, field.name: "x" * field.max_length})
        assert said is None or not said.startswith("too_long"), said
