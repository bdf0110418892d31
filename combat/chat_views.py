"""Table talk's addresses: post, page back through older messages, delete, open to spectators.

Each view asks who is asking first (combat/access.py); the messages a reader gets are
built for that reader (combat/chat.py). A message that cannot be sent is answered with
a sentence in the chat form (never an error page) and nothing is stored.
"""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string

from combat import broadcast, chat, ratelimit, services
from combat.access import (
    Viewer,
    encounter_by_spectator_token,
    gm_encounter,
    gm_viewer,
    seat_by_token,
    seat_viewer,
    spectator_viewer,
)
from combat.models import Encounter
from combat.views import _is_htmx, login_required, require_GET, require_POST


def _said(
    request: HttpRequest, text: str, status: int, back: str, *, ok: bool = False, sent: bool = False
) -> HttpResponse:
    """The sentence in the chat form's status line (htmx), or a flash and a redirect."""
    if _is_htmx(request):
        cls = "ok" if ok else "error"
        testid = "chat-sent" if sent else "chat-done" if ok else "chat-refusal"
        body = render_to_string(
            "combat/components/chat_status.html",
            {"text": text, "cls": cls, "sent": sent, "testid": testid},
        )
        return HttpResponse(body, status=status)
    (messages.success if ok else messages.error)(request, text)
    return redirect(back)


def _limited(request: HttpRequest, limited: ratelimit.Limited, back: str) -> HttpResponse:
    response = _said(request, limited.message, 429, back)
    response["Retry-After"] = str(limited.wait)
    return response


def _post(
    request: HttpRequest,
    viewer: Viewer,
    who: str,
    back: str,
    spectator: tuple[str, str] | None = None,
    address: str = "",
    sent: str = "Sent.",
) -> HttpResponse:
    limited = ratelimit.hit("chat", who, chat.rate(), "messages")
    if limited is None and address:
        # Every spectator session behind one address together: new sessions gain nothing.
        limited = ratelimit.hit("chat-address", address, chat.address_rate(), "messages")
    if limited is not None:
        return _limited(request, limited, back)
    try:
        services.post_chat(viewer, request.POST.get("text"), request.POST.getlist("to"), spectator)
    except chat.ChatRefused as e:
        return _said(request, str(e), 400, back)
    return _said(request, sent, 200, back, ok=True, sent=True)


# A spectator's name and id, kept in their browser's (signed, server-side) session.
SPECTATOR_KEY = "chat_spectator"


@require_POST
def spectator_post(request: HttpRequest, token: str) -> HttpResponse:
    """A spectator writes (while the GM lets them) under the name they picked once."""
    enc = encounter_by_spectator_token(token)
    back = f"/s/{token}/"
    me = request.session.get(SPECTATOR_KEY)
    if not isinstance(me, dict) or not me.get("id") or not me.get("name"):
        try:
            name = chat.spectator_name(request.POST.get("name"))
        except chat.ChatRefused as e:
            return _said(request, str(e), 400, back)
        me = {"id": secrets.token_urlsafe(12), "name": name}
        request.session[SPECTATOR_KEY] = me
    return _post(
        request,
        spectator_viewer(enc),
        f"spectator:{me['id']}",
        back,
        (me["id"], me["name"]),
        address=request.META.get("REMOTE_ADDR") or "unknown",
        sent=f"Sent as {me['name']} (spectator).",
    )


def _older(request: HttpRequest, viewer: Viewer, enc: Encounter) -> HttpResponse:
    raw = request.GET.get("before", "")
    if not raw.isdigit() or len(raw) > 12:
        return HttpResponse(
            '<li class="muted">Which messages? The address is not complete.</li>', status=400
        )
    ctx = chat.context(viewer, enc, broadcast.chat_urls(viewer))
    ctx.update(chat.page(viewer, enc, before=int(raw)))
    return HttpResponse(render_to_string("combat/components/chat.html#page", ctx, request))


@login_required
@require_POST
def gm_post(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    back = f"/enc/{enc.pk}/"
    return _post(request, gm_viewer(enc), f"user:{request.user.pk}", back)


@require_POST
def player_post(request: HttpRequest, token: str) -> HttpResponse:
    try:
        seat = seat_by_token(token)
    except Http404:
        if not _is_htmx(request):
            raise
        return _said(request, "This link no longer works: ask the GM for the new one.", 404, "/")
    return _post(request, seat_viewer(seat), f"seat:{seat.pk}", f"/p/{token}/")


@login_required
@require_GET
def gm_older(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _older(request, gm_viewer(enc), enc)


@require_GET
def player_older(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    return _older(request, seat_viewer(seat), seat.encounter)


@require_GET
def spectator_older(request: HttpRequest, token: str) -> HttpResponse:
    enc = encounter_by_spectator_token(token)
    return _older(request, spectator_viewer(enc), enc)


@login_required
@require_POST
def gm_delete(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    raw = request.POST.get("message", "")
    back = f"/enc/{enc.pk}/"
    if not raw.isdigit() or len(raw) > 12 or not services.delete_chat(enc.pk, int(raw)):
        return _said(request, "That message is not here (it may be deleted already).", 404, back)
    return _said(request, "Message deleted for everyone.", 200, back, ok=True)


@login_required
@require_POST
def gm_spectators(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    on = request.POST.get("on") == "1"
    services.set_chat_spectators(enc.pk, on)
    enc.refresh_from_db()
    text = (
        "Spectators now read what is said to everyone (never whispers)."
        if on
        else "Spectators no longer read the table talk."
    )
    response = _said(request, text, 200, f"/enc/{enc.pk}/", ok=True)
    if _is_htmx(request):
        ctx = chat.context(gm_viewer(enc), enc, broadcast.chat_urls(gm_viewer(enc)))
        toggle = render_to_string(
            "combat/components/chat.html#toggle", {**ctx, "oob": True}, request
        )
        response.content += toggle.encode()
    return response


def _gm_tools(request: HttpRequest, enc: Encounter, response: HttpResponse) -> HttpResponse:
    """With htmx, the GM's switches and muted list come back fresh beside the sentence."""
    if _is_htmx(request):
        enc.refresh_from_db()
        ctx = chat.context(gm_viewer(enc), enc, broadcast.chat_urls(gm_viewer(enc)))
        tools = render_to_string(
            "combat/components/chat.html#toggle", {**ctx, "oob": True}, request
        )
        response.content += tools.encode()
    return response


@login_required
@require_POST
def gm_spectators_write(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    on = request.POST.get("on") == "1"
    services.set_chat_spectators_write(enc.pk, on)
    text = (
        "Spectators may now write, each under a name they pick."
        if on
        else "Spectators read only: they no longer write."
    )
    return _gm_tools(request, enc, _said(request, text, 200, f"/enc/{enc.pk}/", ok=True))


@login_required
@require_POST
def gm_mute(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    raw = request.POST.get("message", "")
    back = f"/enc/{enc.pk}/"
    name = None
    if raw.isdigit() and len(raw) <= 12:
        name = services.mute_spectator(enc.pk, int(raw))
    if name is None:
        return _said(request, "That message is not a spectator's here.", 404, back)
    said = _said(
        request, f"{name} (spectator) is muted: their messages are refused.", 200, back, ok=True
    )
    return _gm_tools(request, enc, said)


@login_required
@require_POST
def gm_unmute(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    back = f"/enc/{enc.pk}/"
    name = services.unmute_spectator(enc.pk, request.POST.get("spectator", "")[:40])
    if name is None:
        return _said(request, "That spectator is not muted.", 404, back)
    said = _said(request, f"{name} (spectator) may write again.", 200, back, ok=True)
    return _gm_tools(request, enc, said)
