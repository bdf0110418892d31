"""Table talk in the JSON API, for bots: read, post, whisper and roll with a token.

`GET /api/encounters/<id>/chat[?before=<message id>]`: the caller's latest 50 messages
(older ones on request), each built for that caller by combat/chat.py (a whisper is in
no other reader's answer). `POST /api/encounters/<id>/chat` `{"text", "to"}`: one message,
`to` is `["gm"]`, seat ids (the GM only) or absent for everyone; `/r`, `/gr` and `/w` work
as in the chat box. Errors are combat/api.py's; posts count against the chat box's limit.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from combat import api, chat, ratelimit, services
from combat.access import SPECTATOR, Viewer
from combat.models import Encounter, Seat

MAX_TO = 50


def _message(msg: Any, viewer: Viewer) -> dict[str, Any]:
    names = dict(Seat.objects.filter(encounter_id=viewer.encounter_id).values_list("pk", "name"))
    return chat.line(msg, viewer, names)


def _read(request: HttpRequest, viewer: Viewer, enc: Encounter) -> JsonResponse:
    raw = request.GET.get("before")
    before = None
    if raw is not None:
        if not raw.isdigit() or len(raw) > api.MAX_ID_DIGITS:
            return api.error("bad_request", "`before` must be a message id (a whole number).", 400)
        before = int(raw)
    got = chat.page(viewer, enc, before=before)
    return JsonResponse({"messages": got["chat_lines"], "older": got["chat_older"]})


def _chosen(to: Any) -> list[str] | JsonResponse:
    """`to` as the chat form's whisper select sends it, or the error."""
    if to is None:
        return []
    wrong = api.error(
        "bad_request",
        '`to` must be ["gm"], a list of seat ids, or left out for everyone.',
        400,
    )
    if not isinstance(to, list) or len(to) > MAX_TO:
        return wrong
    out = []
    for item in to:
        if item == "gm":
            out.append("gm")
        elif isinstance(item, int) and not isinstance(item, bool) and 0 < item < 10**18:
            out.append(str(item))
        else:
            return wrong
    return out


def _post(request: HttpRequest, caller: api.Caller, viewer: Viewer) -> JsonResponse:
    if viewer.role == SPECTATOR:
        return api.error("forbidden", "A spectator reads the table talk but cannot post.", 403)
    data = api.read_json(request)
    if isinstance(data, JsonResponse):
        return data
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return api.error("bad_request", 'Send an object: {"text": "...", "to": [...]}.', 400)
    chosen = _chosen(data.get("to"))
    if isinstance(chosen, JsonResponse):
        return chosen
    limited = ratelimit.hit("chat", caller.rate_key, chat.rate(), "messages")
    if limited is not None:
        return api.too_many(limited)
    try:
        msg = services.post_chat(viewer, data["text"], chosen)
    except chat.ChatRefused as e:
        return api.error("bad_chat", str(e), 400)
    return JsonResponse({"message": _message(msg, viewer)}, status=201)


@csrf_exempt
def chat_view(request: HttpRequest, encounter_id: str) -> JsonResponse:
    """GET the caller's messages; POST one message."""
    if request.method not in ("GET", "POST"):
        return api.method_not_allowed("GET, POST")
    found = api.caller_and_viewer(request, encounter_id)
    if isinstance(found, JsonResponse):
        return found
    caller, viewer = found
    enc = Encounter.objects.get(pk=viewer.encounter_id)
    if viewer.role == SPECTATOR and not enc.chat_spectators:
        return api.error("forbidden", "The GM has not opened the table talk to spectators.", 403)
    if request.method == "GET":
        return _read(request, viewer, enc)
    return _post(request, caller, viewer)
