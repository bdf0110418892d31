"""The JSON API: the same commands as the pages, for bots, overlays and scripts.

Authentication: `Authorization: Bearer <token>` with a player seat's token, a
spectator token or a GM API token, or the GM's logged-in session (then the
CSRF token is required on POST, as for the pages). Errors are
`{"error": {"code": ..., "message": ...}}`: 400 bad input, 401 no or unknown
credentials, 403 not allowed, 404 no such thing (or not yours), 409 refused by
the rules or a version conflict, 429 too many commands (Retry-After says how many
seconds to wait). See docs/api.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from combat import ratelimit, screens, services
from combat.access import Viewer, gm_viewer, seat_viewer, spectator_viewer, token_shape
from combat.models import ApiToken, Encounter, Seat, hash_token
from combat.rules import Encounter as State
from combat.rules import Refusal, rulesets
from combat.rules.view import availability, redacted, veiled_ids

MAX_BODY = 64 * 1024
# Deeper than any command (options hold a list at most) but far from Python's recursion limit.
MAX_DEPTH = 16
MAX_SEAT_NAME = 80
MAX_SEAT_COMBATANTS = 200
# The command fields that hold an object (an action's options, a combatant's stats).
STRUCTURED_FIELDS = frozenset({"options", "stats"})

BAD_INPUT = frozenset(
    {
        "bad_json",
        "bad_command",
        "unknown_command",
        "bad_option",
        "bad_dice",
        "too_long",
        "missing_option",
        "unknown_combatant",
        "unknown_action",
        "unknown_setting",
        "unknown_resource",
        "unknown_modifier",
        "unknown_ruleset",
        "bad_request",
        "too_large",
        "too_many",
        "bad_import",
        "bad_chat",
    }
)
FORBIDDEN = frozenset({"forbidden", "gm_only"})


def error(code: str, message: str, status: int, args: dict[str, Any] | None = None) -> JsonResponse:
    """The error body; a refusal's typed arguments (`args`) go with its code."""
    body: dict[str, Any] = {"code": code, "message": message}
    if args is not None:
        body["args"] = args
    response = JsonResponse({"error": body}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="vtt"'
    return response


def refusal_response(refusal: Refusal) -> JsonResponse:
    if refusal.code in BAD_INPUT:
        status = 400
    elif refusal.code in FORBIDDEN:
        status = 403
    elif refusal.code == "not_found":
        status = 404
    else:
        status = 409
    return error(refusal.code, refusal.message, status, dict(refusal.args))


# --- who is calling -------------------------------------------------------------------------


@dataclass
class Caller:
    user: AbstractBaseUser | None = None
    seat: Seat | None = None
    spectating: Encounter | None = None
    session: bool = False
    token_id: int | None = None

    @property
    def rate_key(self) -> str:
        """Whose commands these count as: the seat's link, or the GM's account.

        All of an account's API tokens and its console count together (the console posts
        as `user:<id>` too), so a second token gives no more commands than the first.
        """
        if self.seat is not None:
            return f"seat:{self.seat.pk}"
        if self.user is not None:
            return f"user:{self.user.pk}"
        return "spectator"

    def viewer(self, encounter_id: int) -> Viewer | None:
        """This caller's place in one encounter, or None (treated as "no such encounter")."""
        if self.user is not None:
            enc = Encounter.objects.filter(pk=encounter_id, owner_id=self.user.pk).first()
            return gm_viewer(enc) if enc else None
        if self.seat is not None:
            return seat_viewer(self.seat) if self.seat.encounter_id == encounter_id else None
        if self.spectating is not None:
            return spectator_viewer(self.spectating) if self.spectating.pk == encounter_id else None
        return None


def authenticate(request: HttpRequest) -> Caller | JsonResponse:
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return error("unauthenticated", "Send `Authorization: Bearer <token>`.", 401)
        if not token_shape(token):
            return error("unauthenticated", "That token is not valid.", 401)
        seat = Seat.objects.filter(token=token, revoked=False).first()
        if seat is not None:
            return Caller(seat=seat)
        enc = Encounter.objects.filter(spectator_token=token).first()
        if enc is not None:
            return Caller(spectating=enc)
        key = ApiToken.objects.select_related("user").filter(key_hash=hash_token(token)).first()
        if key is not None and key.user.is_active:
            ApiToken.objects.filter(pk=key.pk).update(last_used=timezone.now())
            return Caller(user=key.user, token_id=key.pk)
        return error("unauthenticated", "That token is not valid (it may have been revoked).", 401)
    if request.user.is_authenticated:
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            # The pages' CSRF rule, applied here because bearer callers are exempt from it.
            check = CsrfViewMiddleware(lambda r: HttpResponse())
            rejected = check.process_view(request, None, (), {})  # type: ignore[arg-type]
            if rejected is not None:
                return error(
                    "csrf", "A session caller must send the CSRF token (X-CSRFToken).", 403
                )
        return Caller(user=request.user, session=True)
    return error("unauthenticated", "Log in, or send `Authorization: Bearer <token>`.", 401)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    # 1e999 reads as infinity, which neither PostgreSQL's JSON nor a rule can hold.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


DEEP, NUL, SURROGATE = "deep", "nul", "surrogate"


def text_problem(data: Any, max_depth: int, *, nul: bool = True) -> str | None:
    """The first of DEEP (nested past `max_depth`), NUL (with `nul`) or SURROGATE in `data`.

    Walked with a list, not recursion, so no depth the decoder managed can overflow here.
    """
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return DEEP
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            if nul and "\x00" in item:
                return NUL
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return SURROGATE
    return None


def json_problem(data: Any) -> str | None:
    """What no command may hold, though JSON allows it: deep nesting, NUL and lone surrogates.

    Neither PostgreSQL nor a UTF-8 page can hold a NUL or half a surrogate pair, so one
    would fail when stored or shown instead of being refused here.
    """
    return {
        None: None,
        DEEP: f"The body is nested too deeply: at most {MAX_DEPTH} levels.",
        NUL: "Text in the body holds a NUL character (\\u0000), which no field accepts.",
        SURROGATE: "Text in the body holds half of a surrogate pair: it is not valid Unicode.",
    }[text_problem(data, MAX_DEPTH)]


def read_json(request: HttpRequest) -> Any | JsonResponse:
    too_large = error("too_large", f"The body may be at most {MAX_BODY} bytes.", 400)
    try:
        announced = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        announced = 0
    if announced > MAX_BODY or len(request.body) > MAX_BODY:
        return too_large
    try:
        return strict_loads(request.body or b"null")
    except ValueError as e:
        return error("bad_json", str(e), 400)


def strict_loads(raw: bytes | str) -> Any:
    """JSON as stored and shown here can hold it, or ValueError with a sentence saying why.

    On top of json.loads: no NaN, Infinity or 1e999, no nesting past MAX_DEPTH (nor past
    what the decoder manages), no NUL character and no half of a surrogate pair.
    """
    try:
        data = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError):
        # ValueError covers bad UTF-8 and numbers of over 4300 digits as well.
        raise ValueError("The body is not valid JSON.") from None
    problem = json_problem(data)
    if problem is not None:
        raise ValueError(problem)
    return data


def method_not_allowed(allowed: str) -> JsonResponse:
    response = error("method_not_allowed", f"Use {allowed}.", 405)
    response["Allow"] = allowed
    return response


# --- what a caller sees -----------------------------------------------------------------------


def visible_events(
    events: list[dict[str, Any]], viewer: Viewer, state: State
) -> list[dict[str, Any]]:
    """The events this caller sees: chosen by the ids they involve, never by their text."""
    if viewer.is_gm:
        return [screens.for_gm(e) for e in events]
    hidden, veiled = screens.hidden_ids(state), veiled_ids(state)
    return [ev for e in events if (ev := screens.event_for(e, hidden, veiled)) is not None]


# What players and spectators never see of a visible NPC: the GM's numbers and notes.
# They do see its name, side, health (as the GM chose), resources, conditions and
# initiative, as the pages show.
NPC_PRIVATE = ("notes", "stats", "mods")


def audience_state(state: State, viewer: Viewer) -> dict[str, Any]:
    """The rules engine's redacted state, with a second belt for what only the GM sees.

    Hidden combatants are gone (the engine's redaction); besides, no one but the GM gets
    notes, an NPC's stats or modifiers, a group that only hidden combatants are in, or a
    hidden combatant's id or name inside an effect.
    """
    data = redacted(state, viewer.audience)
    if viewer.is_gm:
        return data
    for c in data.get("combatants", {}).values():
        c.pop("notes", None)
        if c.get("side") != "pc":
            for key in NPC_PRIVATE:
                c.pop(key, None)
    shown = {c.get("group") for c in data.get("combatants", {}).values()}
    data["groups"] = {k: g for k, g in (data.get("groups") or {}).items() if k in shown}
    return data


def action_list(state: State, cid: str, hidden: Collection[str] = ()) -> list[dict[str, Any]]:
    """The actions of `cid` for the API; for a seat, each reason is the refusal written for
    a reader who cannot see `hidden`."""
    out = []
    for a in availability(state, cid, hidden=hidden):
        out.append(
            {
                **{k: v for k, v in a.items() if k not in ("options", "why")},
                "reason": a["reason"],
                "options": [dataclasses.asdict(o) for o in a["options"]],
            }
        )
    return out


def encounter_body(enc: Encounter, viewer: Viewer) -> dict[str, Any]:
    state = State.from_dict(enc.state)
    body: dict[str, Any] = {
        "id": enc.pk,
        "name": enc.name,
        "ruleset": enc.ruleset,
        "version": enc.version,
        "role": viewer.role,
        "state": audience_state(state, viewer),
    }
    if viewer.is_gm:
        body["seats"] = [
            {
                "id": s.pk,
                "name": s.name,
                "combatants": s.combatant_ids,
                "revoked": s.revoked,
                "url": reverse("player", args=[s.token]),
            }
            for s in enc.seats.all()
        ]
        body["spectator_url"] = (
            reverse("spectator", args=[enc.spectator_token]) if enc.spectator_token else None
        )
        if state.turn:
            body["actions"] = {state.turn: action_list(state, state.turn)}
    elif viewer.seat_id is not None:
        seat = Seat.objects.get(pk=viewer.seat_id)
        mine = [
            c
            for c in seat.combatant_ids
            if c in state.combatants and not state.combatants[c].hidden
        ]
        body["seat"] = {"id": seat.pk, "name": seat.name, "combatants": mine}
        hidden = [c.id for c in state.combatants.values() if c.hidden]
        body["actions"] = {cid: action_list(state, cid, hidden) for cid in mine}
    return body


# --- endpoints ------------------------------------------------------------------------------


@csrf_exempt
def rulesets_index(request: HttpRequest) -> JsonResponse:
    """Every ruleset: key, name, settings and the action catalogue with costs. No login needed."""
    if request.method != "GET":
        return method_not_allowed("GET")
    out = []
    for key, rs in rulesets().items():
        out.append(
            {
                "key": key,
                "name": rs.name,
                "currency": rs.currency,
                "settings": [s.to_dict() for s in rs.all_settings()],
                "actions": [
                    {**a.to_dict(), "cost_label": rs.cost_label(a)} for a in rs.catalogue().values()
                ],
            }
        )
    return JsonResponse({"rulesets": out})


@csrf_exempt
def encounters(request: HttpRequest) -> JsonResponse:
    """GET: the GM's encounters. POST {"name", "ruleset", "settings"}: a new one (201)."""
    caller = authenticate(request)
    if isinstance(caller, JsonResponse):
        return caller
    if caller.user is None:
        return error("forbidden", "Only a GM (an account) has encounters.", 403)
    if request.method == "GET":
        rows = [
            {
                "id": e.pk,
                "name": e.name,
                "ruleset": e.ruleset,
                "version": e.version,
                "phase": e.state.get("phase"),
            }
            for e in Encounter.objects.filter(owner_id=caller.user.pk)
        ]
        return JsonResponse({"encounters": rows})
    if request.method != "POST":
        return method_not_allowed("GET, POST")
    data = read_json(request)
    if isinstance(data, JsonResponse):
        return data
    if not isinstance(data, dict):
        return error("bad_request", 'Send an object: {"name", "ruleset", "settings"}.', 400)
    settings = data.get("settings")
    settings = {} if settings is None else settings
    if not isinstance(settings, dict) or not isinstance(data.get("ruleset"), str):
        return error("bad_request", "`ruleset` must be a key and `settings` an object.", 400)
    name = data.get("name") or "Encounter"
    if not isinstance(name, str):
        return error("bad_request", "`name` must be text.", 400)
    if limited := _making_limit("encounters", caller.user.pk):
        return limited
    made = services.create_encounter(caller.user, name, data["ruleset"], settings)
    if isinstance(made, Refusal):
        return refusal_response(made)
    body = encounter_body(made, gm_viewer(made))
    response = JsonResponse(body, status=201)
    response["Location"] = f"/api/encounters/{made.pk}/"
    return response


# Ids are 64-bit database keys: a longer run of digits names no encounter.
MAX_ID_DIGITS = 18


def caller_and_viewer(
    request: HttpRequest, encounter_id: str
) -> tuple[Caller, Viewer] | JsonResponse:
    """Who is asking, and their place in this encounter; or the error response."""
    no_such = error("not_found", "There is no such encounter (or it is not yours).", 404)
    # Who is calling comes first, as for any other id: nobody learns more without a token.
    caller = authenticate(request)
    if isinstance(caller, JsonResponse):
        return caller
    if len(encounter_id) > MAX_ID_DIGITS:
        return no_such
    viewer = caller.viewer(int(encounter_id))
    if viewer is None:
        return no_such
    return caller, viewer


def _viewer_or_error(request: HttpRequest, encounter_id: str) -> Viewer | JsonResponse:
    found = caller_and_viewer(request, encounter_id)
    return found if isinstance(found, JsonResponse) else found[1]


def _command_limit(caller: Caller) -> JsonResponse | None:
    """One more command for this seat or GM account; 429 once past the limit."""
    limited = ratelimit.hit("commands", caller.rate_key, settings.VTT_RATE_COMMANDS, "commands")
    return None if limited is None else too_many(limited)


def _making_limit(kind: str, account: object) -> JsonResponse | None:
    """One more encounter or seat made by this GM account; 429 once past the limit."""
    limited = ratelimit.making(kind, account)
    return None if limited is None else too_many(limited)


def too_many(limited: ratelimit.Limited) -> JsonResponse:
    response = error("rate_limited", limited.message, 429)
    response["Retry-After"] = str(limited.wait)
    return response


@csrf_exempt
def encounter_detail(request: HttpRequest, encounter_id: str) -> JsonResponse:
    """The encounter as the caller may see it: hidden combatants only for the GM."""
    if request.method != "GET":
        return method_not_allowed("GET")
    viewer = _viewer_or_error(request, encounter_id)
    if isinstance(viewer, JsonResponse):
        return viewer
    enc = Encounter.objects.get(pk=viewer.encounter_id)
    return JsonResponse(encounter_body(enc, viewer))


@csrf_exempt
def commands(request: HttpRequest, encounter_id: str) -> JsonResponse:
    """POST one command. `by` comes from the credentials; `expected_version` may ride along."""
    if request.method != "POST":
        return method_not_allowed("POST")
    found = caller_and_viewer(request, encounter_id)
    if isinstance(found, JsonResponse):
        return found
    caller, viewer = found
    data = read_json(request)
    if isinstance(data, JsonResponse):
        return data
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return error("bad_command", "A command must be an object with a type.", 400)
    command = dict(data)
    for field, value in command.items():
        # Only these hold an object; every other field is one value, as a form posts it.
        if field not in STRUCTURED_FIELDS and isinstance(value, list | dict):
            return error(
                "bad_request",
                f"`{field[:40]}` must be one value (text, a number or true/false), "
                "not a list or an object.",
                400,
            )
    expected = command.pop("expected_version", None)
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        return error("bad_request", "`expected_version` must be a whole number.", 400)
    key = request.headers.get("Idempotency-Key") or None
    if key is not None and (len(key) > 200 or not key.isprintable() or not key.isascii()):
        return error(
            "bad_request",
            "An Idempotency-Key is at most 200 printable ASCII characters.",
            400,
        )
    # Counted once the command is readable: what reaches the write path is what is limited.
    if limited := _command_limit(caller):
        return limited
    result = services.run_command(
        viewer.encounter_id, viewer, command, idempotency_key=key, expected_version=expected
    )
    # The GM sees every event; anyone else only those that involve nobody hidden now.
    state = (
        None
        if viewer.is_gm
        else State.from_dict(
            Encounter.objects.values_list("state", flat=True).get(pk=viewer.encounter_id)
        )
    )
    if not result.ok:
        assert result.refusal is not None
        refusal = result.refusal
        response = refusal_response(refusal)
        if refusal.code == "version_conflict":
            response["ETag"] = f'"{result.version}"'
        return response
    body = {
        "ok": True,
        "version": result.version,
        "seq": result.seq,
        "replayed": result.replayed,
        "events": (
            [screens.for_gm(e) for e in result.events]
            if state is None
            else visible_events(result.events, viewer, state)
        ),
    }
    response = JsonResponse(body)
    if result.replayed:
        response["Idempotent-Replayed"] = "true"
    return response


@csrf_exempt
def log(request: HttpRequest, encounter_id: str) -> JsonResponse:
    """The log, oldest first, as the caller may see it."""
    if request.method != "GET":
        return method_not_allowed("GET")
    viewer = _viewer_or_error(request, encounter_id)
    if isinstance(viewer, JsonResponse):
        return viewer
    enc = Encounter.objects.get(pk=viewer.encounter_id)
    state = State.from_dict(enc.state)
    entries = []
    for e in enc.log.order_by("seq").defer("state_before", "state_patch").iterator(500):
        events = visible_events(e.events, viewer, state)
        if not events and not viewer.is_gm:
            continue
        row: dict[str, Any] = {
            "seq": e.seq,
            "version": e.version,
            "kind": e.kind,
            "undone": e.undone,
            "events": events,
        }
        if viewer.is_gm:
            row.update(command=e.command, by=e.by)
        entries.append(row)
    return JsonResponse({"version": enc.version, "log": entries})


@csrf_exempt
def seats(request: HttpRequest, encounter_id: str) -> JsonResponse:
    """GM only. POST {"name", "combatants": [ids]}: a new player seat and its secret link."""
    viewer = _viewer_or_error(request, encounter_id)
    if isinstance(viewer, JsonResponse):
        return viewer
    if not viewer.is_gm:
        return error("forbidden", "Only the GM manages seats.", 403)
    if request.method == "GET":
        enc = Encounter.objects.get(pk=viewer.encounter_id)
        return JsonResponse({"seats": encounter_body(enc, viewer)["seats"]})
    if request.method != "POST":
        return method_not_allowed("GET, POST")
    data = read_json(request)
    if isinstance(data, JsonResponse):
        return data
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("name"), str)
        or not data["name"].strip()
    ):
        return error("bad_request", "A seat needs a name.", 400)
    name = data["name"].strip()
    if len(name) > MAX_SEAT_NAME:
        return error(
            "too_long",
            f"A seat name is at most {MAX_SEAT_NAME} characters; this one has {len(name)}.",
            400,
        )
    ids = data.get("combatants") or []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return error("bad_request", "`combatants` must be a list of combatant ids.", 400)
    if len(ids) > MAX_SEAT_COMBATANTS:
        return error("too_many", f"A seat controls at most {MAX_SEAT_COMBATANTS} combatants.", 400)
    owner = Encounter.objects.values_list("owner_id", flat=True).get(pk=viewer.encounter_id)
    if limited := _making_limit("seats", owner):
        return limited
    seat = services.create_seat(viewer.encounter_id, name, ids)
    body = {
        "id": seat.pk,
        "name": seat.name,
        "token": seat.token,
        "combatants": seat.combatant_ids,
        "url": reverse("player", args=[seat.token]),
    }
    return JsonResponse(body, status=201)


@csrf_exempt
def no_such_address(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any other address under /api/: JSON, with DEBUG on too (not Django's HTML page)."""
    return error("not_found", "There is nothing at this address.", 404)
