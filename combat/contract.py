"""The JSON API as a contract: its OpenAPI 3.1 description, built from the code.

Nothing here is written out by hand that the code already says:
- every command is one member of a union discriminated on `type`, one member for each
  entry of combat.rules.COMMANDS (and `undo`), its fields from combat.rules.fields;
- an action's options, with their kinds and bounds, come from every ruleset's catalogue,
  and the per-combatant settings from every ruleset's settings;
- the error codes are read from the code that refuses (every `refuse(...)`, `said(...)`,
  `Refusal(...)` and `error(...)` with a literal code under combat/), sorted by the
  status combat.api.refusal_response gives each.

django-ninja assembles the document from Pydantic models (docs/decisions.md says why);
the requests themselves are still answered by combat/api.py, whose replies the test
suite fuzzes against this description (tests/security/test_api_contract_fuzz.py).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from ninja import NinjaAPI, Schema
from ninja.security import APIKeyCookie, HttpBearer
from pydantic import BaseModel, ConfigDict, StringConstraints, TypeAdapter, create_model
from pydantic import Field as PField

from combat import api, chat_api, library
from combat.access import Role
from combat.rules import COMMANDS, rulesets
from combat.rules.catalogue import Option, Setting
from combat.rules.fields import FIELDS, Field

REF_TEMPLATE = "#/components/schemas/{model}"
# Combatant ids, window ids, action keys: short words. Longer is still answered (404/400).
MAX_ID = 80

# --- error codes, read from the code that refuses ------------------------------------------

_REFUSERS = frozenset({"refuse", "Refusal", "refused", "error", "said"})
# Codes the pages use that no API answer carries (link_gone: a dead player or spectator
# link's page), and the 405/500 answers, which no operation documents.
_NOT_API = frozenset({"login_required", "server_error", "method_not_allowed", "link_gone"})


@functools.cache
def refusal_codes() -> frozenset[str]:
    """Every literal code passed to refuse/Refusal/refused/error in combat/*.py."""
    root = Path(__file__).resolve().parent
    codes: set[str] = set()
    for path in root.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            first = node.args[0]
            if name not in _REFUSERS or not isinstance(first, ast.Constant):
                continue
            if isinstance(first.value, str) and first.value.isidentifier():
                codes.add(first.value)
    return frozenset(codes)


def codes_by_status() -> dict[int, list[str]]:
    """The codes each status can carry, as combat.api sorts refusals (and its own errors)."""
    out: dict[int, set[str]] = {400: set(api.BAD_INPUT), 401: {"unauthenticated"}}
    out[403] = set(api.FORBIDDEN) | {"csrf"}
    out[404] = {"not_found"}
    out[429] = {"rate_limited"}
    taken = set().union(*out.values())
    out[409] = {c for c in refusal_codes() if c not in taken and c not in _NOT_API}
    return {status: sorted(codes) for status, codes in out.items()}


def error_model(status: int) -> type[BaseModel]:
    codes: Any = Literal[tuple(codes_by_status()[status])]
    detail = create_model(
        f"ErrorDetail{status}",
        code=(codes, PField(description="stable, for programs")),
        message=(str, PField(description="a sentence for a person")),
        args=(
            dict[str, Any] | None,
            PField(
                None,
                description="a refusal's typed arguments (who, what, rule, numbers): "
                "docs/api.md, Refusal codes",
            ),
        ),
    )
    return create_model(f"Error{status}", error=(detail, ...))


# --- commands --------------------------------------------------------------------------------


def _strip_null_defaults(schema: dict[str, Any]) -> None:
    """An optional field is simply left out: no null default, no null among its types."""
    for prop in schema.get("properties", {}).values():
        if prop.get("default", 0) is None:
            del prop["default"]
        kinds = prop.get("anyOf", [])
        if {"type": "null"} in kinds and len(kinds) == 2:
            prop.update(next(k for k in kinds if k != {"type": "null"}))
            del prop["anyOf"]


EXPECTED_VERSION = (
    Annotated[int, PField(ge=0)] | None,
    PField(
        None,
        description="refuse with 409 version_conflict unless the encounter is at this version",
    ),
)


def _scalar_schema(kind: str, lo: int, hi: int, choices: tuple[str, ...], limit: int) -> Any:
    """The Pydantic type of one value of a given kind."""
    if kind == "int":
        return Annotated[int, PField(ge=lo, le=hi)]
    if kind == "bool":
        return bool
    if kind == "choice":
        return Literal[choices]
    if kind == "dice":
        return Annotated[str, StringConstraints(max_length=100)]
    if kind == "text":
        return Annotated[str, StringConstraints(max_length=limit)]
    if kind == "target":
        return Annotated[str, StringConstraints(max_length=MAX_ID)]
    return Union[int, bool, Annotated[str, StringConstraints(max_length=limit or 500)]]  # noqa: UP007


def _merge_options() -> dict[str, tuple[Any, Any]]:
    """Every option any action of any ruleset declares, with the widest bounds given."""
    seen: dict[str, list[tuple[str, Option]]] = {}
    for rs in rulesets().values():
        for action in rs.catalogue().values():
            for o in action.options:
                seen.setdefault(o.name, []).append((f"{rs.key}.{action.key}", o))
    out: dict[str, tuple[Any, Any]] = {}
    for name, uses in sorted(seen.items()):
        kinds = {o.kind for _, o in uses}
        kind = kinds.pop() if len(kinds) == 1 else "scalar"
        lo = min(o.min for _, o in uses)
        hi = max(o.max for _, o in uses)
        choices = tuple(dict.fromkeys(c for _, o in uses for c in o.choices))
        labels = sorted({o.label for _, o in uses})
        where = ", ".join(sorted({w for w, _ in uses}))
        help = f"{' / '.join(labels)}. Taken by: {where}."
        typ = _scalar_schema(kind, lo, hi, choices, 500)
        out[name] = (typ | None, PField(None, description=help))
    return out


def _merge_settings(per_combatant: bool) -> dict[str, tuple[Any, Any]]:
    seen: dict[str, list[tuple[str, Setting]]] = {}
    for rs in rulesets().values():
        for s in rs.all_settings():
            if s.per_combatant == per_combatant or not per_combatant:
                seen.setdefault(s.key, []).append((rs.key, s))
    out: dict[str, tuple[Any, Any]] = {}
    for key, uses in sorted(seen.items()):
        kinds = {s.kind for _, s in uses}
        kind = kinds.pop() if len(kinds) == 1 else "scalar"
        lo, hi = min(s.min for _, s in uses), max(s.max for _, s in uses)
        choices = tuple(dict.fromkeys(c for _, s in uses for c in s.choices))
        where = ", ".join(sorted({r for r, _ in uses}))
        typ = _scalar_schema(kind, lo, hi, choices, 100)
        help = f"{uses[0][1].label} ({where})"
        out[key] = (typ | None, PField(None, description=help))
    return out


@functools.cache
def action_options() -> type[BaseModel]:
    return create_model(
        "ActionOptions",
        __config__=ConfigDict(
            json_schema_extra=_strip_null_defaults,
            title="ActionOptions",
        ),
        __doc__="The options an action declares (GET /api/rulesets lists them per action).",
        **_merge_options(),  # type: ignore[call-overload]
    )


class StatSpec(BaseModel):
    dice: Annotated[str, StringConstraints(max_length=100)] = PField(
        description="a dice expression like 1d20+3"
    )
    bonus: Annotated[int, PField(ge=-10_000, le=10_000)] = 0


StatName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,23}$")]


def _one_of(words: set[str], help: str) -> Any:
    return Annotated[Literal[tuple(sorted(words))], PField(description=help)]


def _known_words(command: str, name: str) -> Any:
    """The keys a field may name, where the rulesets list them; None for any short word."""
    every = rulesets().values()
    if name == "action":
        keys = {key for rs in every for key in rs.catalogue()}
        custom = Annotated[str, StringConstraints(pattern=r"^custom_[a-z0-9_]{1,80}$")]
        return Union[_one_of(keys, "an action of the ruleset"), custom]  # noqa: UP007
    if command == "set_setting" and name == "key":
        return _one_of({s.key for rs in every for s in rs.all_settings()}, "a setting")
    if command == "set_modifier" and name == "key":
        keys = {s.key for rs in every for s in rs.all_settings() if s.per_combatant}
        keys |= {key for rs in every for key in rs.modifiers()}
        return _one_of(keys, "a per-combatant setting or modifier")
    return None


def _field_type(command: str, f: Field) -> Any:
    known = _known_words(command, f.name)
    if known is not None:
        return known
    if f.kind == "object":
        if f.name == "stats":
            return dict[StatName, StatSpec | Annotated[str, StringConstraints(max_length=100)]]
        if f.name == "options" and command in ("act", "grant"):
            return action_options()
        return dict[Annotated[str, StringConstraints(max_length=MAX_ID)], Any]
    if f.kind == "id":
        return Annotated[str, StringConstraints(max_length=MAX_ID)]
    return _scalar_schema(f.kind, f.min, f.max, f.choices, f.max_length)


def _title(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Command"


@functools.cache
def command_models() -> dict[str, type[BaseModel]]:
    """One Pydantic model per command, in COMMANDS order (then undo)."""
    per_combatant = _merge_settings(per_combatant=True)
    models: dict[str, type[BaseModel]] = {}
    for name in [*COMMANDS, "undo"]:
        fields: dict[str, Any] = {"type": (Literal[name], PField(description="the command"))}
        for f in FIELDS[name]:
            typ = _field_type(name, f)
            if f.required:
                fields[f.name] = (typ, PField(description=f.help))
            else:
                fields[f.name] = (typ | None, PField(None, description=f.help))
        if name in ("add_combatant", "update_combatant"):
            fields.update(per_combatant)
        fields["expected_version"] = EXPECTED_VERSION
        gm_only = name == "undo" or COMMANDS[name].gm_only
        who = "GM only." if gm_only else "The GM, or the seat controlling `actor`."
        models[name] = create_model(
            _title(name),
            __config__=ConfigDict(json_schema_extra=_strip_null_defaults),
            __doc__=f"{who} See docs/api.md#{name}.",
            **fields,
        )
    return models


def command_union() -> Any:
    members = tuple(command_models().values())
    return Annotated[Union[members], PField(discriminator="type")]  # noqa: UP007


def command_schemas() -> dict[str, Any]:
    """The JSON Schema of every command, as OpenAPI components (`Command` is the union)."""
    schema = TypeAdapter(command_union()).json_schema(ref_template=REF_TEMPLATE)
    defs = schema.pop("$defs", {})
    schema["title"] = "Command"
    schema["description"] = (
        "One command, named by `type`. `by` is never read: it comes from the credentials."
    )
    return {**defs, "Command": schema}


# --- other bodies ----------------------------------------------------------------------------


@functools.cache
def encounter_settings() -> type[BaseModel]:
    return create_model(
        "EncounterSettings",
        __config__=ConfigDict(json_schema_extra=_strip_null_defaults),
        __doc__="Any setting of the chosen ruleset; the others are refused (unknown_setting).",
        **_merge_settings(per_combatant=False),  # type: ignore[call-overload]
    )


class NewEncounter(Schema):
    name: Annotated[str, StringConstraints(max_length=80)] | None = PField(
        None, description="at most 80 characters; default Encounter"
    )
    ruleset: Annotated[
        Literal[tuple(sorted(rulesets()))],  # type: ignore[valid-type]
        PField(description="a ruleset key from GET /api/rulesets"),
    ]
    settings: encounter_settings() | None = PField(  # type: ignore[valid-type]
        None, description="setting key to value, as GET /api/rulesets lists them"
    )


class NewSeat(Schema):
    name: Annotated[str, StringConstraints(min_length=1, max_length=api.MAX_SEAT_NAME)]
    combatants: list[Annotated[str, StringConstraints(max_length=MAX_ID)]] = PField(
        default_factory=list, max_length=api.MAX_SEAT_COMBATANTS
    )


class RulesetOut(Schema):
    key: str
    name: str
    currency: str
    settings: list[dict[str, Any]]
    actions: list[dict[str, Any]]


class RulesetsOut(Schema):
    rulesets: list[RulesetOut]


class EncounterRow(Schema):
    id: int
    name: str
    ruleset: str
    version: int
    phase: str | None


class EncountersOut(Schema):
    encounters: list[EncounterRow]


class SeatOut(Schema):
    id: int
    name: str
    combatants: list[str]
    revoked: bool
    url: str


class OwnSeat(Schema):
    id: int
    name: str
    combatants: list[str]


class EncounterOut(Schema):
    id: int
    name: str
    ruleset: str
    version: int
    role: Role = PField(description="who the credentials make the caller")
    state: dict[str, Any] = PField(description="the state as this caller may see it")
    seats: list[SeatOut] | None = PField(None, description="GM only")
    spectator_url: str | None = PField(None, description="GM only")
    seat: OwnSeat | None = PField(None, description="a seat's own")
    actions: dict[str, list[dict[str, Any]]] | None = PField(
        None, description="combatant id to what it may do now"
    )


class Event(Schema):
    """A fact, with its sentence written for the caller (`text`); docs/api.md, the log."""

    kind: str
    text: str
    say: str | None = None
    names: dict[str, str] = {}
    actor: str | None
    involved: list[str]
    rolls: list[dict[str, Any]]
    ruling: bool
    gm_only: bool
    round: int | None
    data: dict[str, Any]
    # On an action's first event: what was paid for it, per resource, and if a reaction.
    paid: dict[str, int] | None = None
    reaction: bool | None = None


class CommandOut(Schema):
    ok: Literal[True]
    version: int
    seq: int | None
    replayed: bool
    events: list[Event]


class LogRow(Schema):
    seq: int
    version: int
    kind: str
    undone: bool
    events: list[Event]
    command: dict[str, Any] | None = PField(None, description="GM only")
    by: str | None = PField(None, description="GM only")


class LogOut(Schema):
    version: int
    log: list[LogRow]


class SeatsOut(Schema):
    seats: list[SeatOut]


class SeatCreated(Schema):
    id: int
    name: str
    token: str
    combatants: list[str]
    url: str


class ChatRollOut(Schema):
    expression: str
    total: int
    described: str = PField(description="each die and the total, in words")


class ChatLineOut(Schema):
    id: int
    deleted: bool = PField(description="true: deleted by the GM; only the id is left")
    author: str | None = PField(None, description='"GM", or the seat with its characters')
    by_gm: bool | None = None
    text: str | None = None
    roll: ChatRollOut | None = PField(None, description="/r and /gr: rolled by the server")
    whisper: bool | None = None
    to: list[str] | None = PField(
        None, description='a whisper\'s seats (the GM sees names; a recipient sees "you")'
    )
    when: str | None = PField(None, description="ISO 8601")
    spectator: str | None = PField(
        None, description="GM only: the id of the spectator who wrote it (to mute them)"
    )


class ChatOut(Schema):
    messages: list[ChatLineOut] = PField(description="oldest first, at most 50")
    older: int | None = PField(description="pass as ?before= for older ones; null: none older")


class ChatPosted(Schema):
    message: ChatLineOut


class NewChat(Schema):
    text: Annotated[str, StringConstraints(min_length=1, max_length=500)] = PField(
        description="the message; /r 2d6+3 rolls, /gr 1d20 rolls for the GM only"
    )
    to: list[Literal["gm"] | Annotated[int, PField(ge=1)]] | None = PField(
        None,
        max_length=50,
        description='["gm"]: a whisper to the GM; seat ids (the GM only): to those seats; '
        "left out: everyone",
    )


# --- the operations --------------------------------------------------------------------------


class BearerToken(HttpBearer):
    """A GM API token, a seat token or a spectator token (described; combat.api checks)."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        return None


class SessionCookie(APIKeyCookie):
    """The GM's logged-in session; a POST then needs X-CSRFToken, as the pages do."""

    param_name = "sessionid"

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        return None


AUTH = [BearerToken(), SessionCookie()]


RETRY_AFTER = {
    "description": "how many seconds to wait before sending more",
    "schema": {"type": "integer", "minimum": 1},
}


class ContractAPI(NinjaAPI):
    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        schema["components"].setdefault("schemas", {}).update(command_schemas())
        for item in schema["paths"].values():
            for operation in item.values():
                limited = operation["responses"].get(429)
                if limited is not None:
                    limited["headers"] = {"Retry-After": RETRY_AFTER}
        return schema


DESCRIPTION = """The same commands the pages send, for bots, overlays and scripts.
The readable guide, with an example of every command, is docs/api.md.

Errors are `{"error": {"code", "message"}}`: 400 bad input, 401 no or unknown credentials,
403 not allowed, 404 no such thing (or not yours), 409 refused by the rules or a version
conflict, 429 too many commands in a short time (Retry-After says how long to wait).
`by` is never read from a body: it comes from the credentials."""

contract = ContractAPI(
    title="VTT JSON API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="contract",
)


def _errors(*statuses: int) -> dict[int, type[BaseModel]]:
    return {s: error_model(s) for s in statuses}


IDEMPOTENCY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": "The same key and command again returns the first answer "
    "(Idempotent-Replayed: true) without acting twice.",
    "schema": {"type": "string", "maxLength": 200, "pattern": "^[\\x20-\\x7e]*$"},
}


def _body(ref: str) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": REF_TEMPLATE.format(model=ref)}}},
        }
    }


@contract.get(
    "/rulesets",
    response=RulesetsOut,
    auth=None,
    operation_id="list_rulesets",
    summary="Every ruleset and its actions",
)
def describe_rulesets(request: HttpRequest) -> HttpResponse:
    """Every ruleset: key, name, settings and the action catalogue with costs. No login."""
    return api.rulesets_index(request)


@contract.get(
    "/encounters",
    response={200: EncountersOut, **_errors(401, 403)},
    auth=AUTH,
    operation_id="list_encounters",
    summary="The GM's encounters",
)
def describe_encounters(request: HttpRequest) -> HttpResponse:
    """The GM's encounters (a GM API token or the GM's session)."""
    return api.encounters(request)


@contract.post(
    "/encounters",
    response={201: EncounterOut, **_errors(400, 401, 403, 429)},
    auth=AUTH,
    operation_id="create_encounter",
    summary="A new encounter",
)
def describe_create(request: HttpRequest, payload: NewEncounter) -> HttpResponse:
    """A new encounter for the GM; its state is in the answer, its address in Location."""
    return api.encounters(request)


@contract.get(
    "/encounters/{encounter_id}/",
    response={200: EncounterOut, **_errors(401, 404)},
    auth=AUTH,
    operation_id="get_encounter",
    summary="One encounter, as the caller may see it",
)
def describe_encounter(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """The encounter as the caller may see it: hidden combatants only for the GM."""
    return api.encounter_detail(request, str(encounter_id))


@contract.post(
    "/encounters/{encounter_id}/commands",
    response={200: CommandOut, **_errors(400, 401, 403, 404, 409, 429)},
    auth=AUTH,
    operation_id="send_command",
    summary="Send one command",
    openapi_extra={**_body("Command"), "parameters": [IDEMPOTENCY]},
)
def describe_command(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """One command. A refusal changes nothing and says why; 409 carries the rule's code."""
    return api.commands(request, str(encounter_id))


@contract.get(
    "/encounters/{encounter_id}/log",
    response={200: LogOut, **_errors(401, 404)},
    auth=AUTH,
    operation_id="get_log",
    summary="The log",
)
def describe_log(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """The log, oldest first, as the caller may see it."""
    return api.log(request, str(encounter_id))


@contract.get(
    "/encounters/{encounter_id}/seats",
    response={200: SeatsOut, **_errors(401, 403, 404)},
    auth=AUTH,
    operation_id="list_seats",
    summary="The player seats",
)
def describe_seats(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """GM only: the player seats and their links."""
    return api.seats(request, str(encounter_id))


@contract.post(
    "/encounters/{encounter_id}/seats",
    response={201: SeatCreated, **_errors(400, 401, 403, 404, 429)},
    auth=AUTH,
    operation_id="create_seat",
    summary="A new player seat",
)
def describe_new_seat(request: HttpRequest, encounter_id: int, payload: NewSeat) -> HttpResponse:
    """GM only: a new player seat and its secret link (the token is shown this once)."""
    return api.seats(request, str(encounter_id))


class ImportedOut(EncounterOut):
    resumed: bool = PField(description="true: the fight goes on where it stood; false: set-up")
    message: str = PField(description="what became of the import, for a person")


IMPORT_MODE = {
    "in": "query",
    "name": "mode",
    "required": False,
    "schema": {"type": "string", "enum": ["resume", "setup"], "default": "resume"},
    "description": "resume: the fight goes on where it stood; setup: anew, before initiative",
}
IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "description": "the file export_encounter gave, as it is (docs/api.md)",
        "content": {"application/json": {"schema": {"type": "object"}}},
    },
    "parameters": [IMPORT_MODE],
}


@contract.get(
    "/encounters/{encounter_id}/export",
    response={200: dict[str, Any], **_errors(401, 403, 404)},
    auth=AUTH,
    operation_id="export_encounter",
    summary="Export the encounter (a download)",
)
def describe_export(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """GM only: the encounter as one JSON file: settings, combatants, the fight's state and
    the log (the format is in docs/api.md). Import it again with import_encounter."""
    return library.api_export(request, str(encounter_id))


@contract.post(
    "/encounters/import",
    response={201: ImportedOut, **_errors(400, 401, 403, 429)},
    auth=AUTH,
    operation_id="import_encounter",
    summary="Import an encounter from an export",
    openapi_extra=IMPORT_BODY,
)
def describe_import(request: HttpRequest) -> HttpResponse:
    """A GM's new encounter from an export file: resumed where its fight stood (the default)
    or anew in set-up. A file the rules engine would not have made is refused, saying why."""
    return library.api_import(request)


@contract.get(
    "/encounters/{encounter_id}/chat",
    response={200: ChatOut, **_errors(400, 401, 403, 404)},
    auth=AUTH,
    operation_id="read_chat",
    summary="The table talk the caller may read",
)
def describe_read_chat(
    request: HttpRequest, encounter_id: int, before: int | None = None
) -> HttpResponse:
    """The caller's latest 50 messages, oldest first (older ones with ?before=<id>): the
    GM reads everything, a seat what is said to everyone and its own whispers, a spectator
    what is said to everyone once the GM lets spectators read (403 until then)."""
    return chat_api.chat_view(request, str(encounter_id))


@contract.post(
    "/encounters/{encounter_id}/chat",
    response={201: ChatPosted, **_errors(400, 401, 403, 404, 429)},
    auth=AUTH,
    operation_id="post_chat",
    summary="Say something at the table (or whisper, or roll)",
)
def describe_post_chat(request: HttpRequest, encounter_id: int, payload: NewChat) -> HttpResponse:
    """One message from the GM or a seat, as the chat box sends it: to everyone, whispered
    (`to`), or a roll (/r, /gr). A refusal (bad_chat) says why and stores nothing."""
    return chat_api.chat_view(request, str(encounter_id))


# --- the two pages ---------------------------------------------------------------------------


@functools.cache
def openapi_document() -> dict[str, Any]:
    doc: dict[str, Any] = contract.get_openapi_schema(path_prefix="/api")
    doc["servers"] = []
    return doc


def openapi_json(request: HttpRequest) -> JsonResponse:
    """GET /api/openapi.json: the description above. No login needed."""
    if request.method not in ("GET", "HEAD"):
        return api.method_not_allowed("GET")
    return JsonResponse(openapi_document())


def docs_page(request: HttpRequest) -> HttpResponse:
    """GET /api/docs/: Swagger UI (the copy django-ninja ships) over /api/openapi.json."""
    return render(request, "api_docs.html", {"openapi_url": "/api/openapi.json"})
