"""Pages and form posts. Each view: one access check, parse, call a service, render.

A refused command is never an error page: htmx posts get the sentence in the
flash region, plain posts a message and a redirect back. The changed view
reaches every page, the poster's included, over its socket.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import Resolver404, reverse
from django.views.decorators.cache import never_cache
from django_htmx.middleware import HtmxDetails

from combat import api, broadcast, chat, forms, ratelimit, screens, services, tapmove
from combat.access import (
    Viewer,
    encounter_by_spectator_token,
    gm_encounter,
    gm_viewer,
    seat_by_token,
    seat_viewer,
    spectator_viewer,
)
from combat.models import ApiToken, Encounter
from combat.rules import Encounter as State
from combat.rules import Refusal, get_ruleset, rulesets
from combat.rules import preview as rules_preview
from combat.rules.base import HEALTH_MODES, NPC_HEALTH
from combat.rules.view import veiled_ids

log = logging.getLogger(__name__)


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class UserHttpRequest(HttpRequest):
    """A request behind @login_required."""

    user: User


# --- refusals that are not the rules' ------------------------------------------------------
#
# Every "no" the site gives is a sentence with the right status code: JSON under /api/, the
# flash sentence for htmx (htmx 4 swaps 4xx answers into #flash like any other), and a
# short page otherwise. Never Django's bare error pages, never an empty body.


def flash_status(refusal: Refusal | None) -> int:
    """The status of an htmx answer: as the API's for bad input (400), "not yours to do"
    (403) and "no such thing" (404); 200 for a rules refusal ("not now"), which is the
    ordinary course of play and not an error."""
    if refusal is None:
        return 200
    if refusal.code in api.BAD_INPUT:
        return 400
    if refusal.code in api.FORBIDDEN:
        return 403
    return 404 if refusal.code == "not_found" else 200


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def refuse(request: HttpRequest, status: int, message: str, code: str = "refused") -> HttpResponse:
    """Say no in words: JSON for the API, the flash sentence for htmx, a short page otherwise."""
    if request.path.startswith("/api/"):
        return api.error(code, message, status)
    refusal = Refusal(code, message)
    if _is_htmx(request):
        flash = render_to_string("combat/components/flash.html", {"refusal": refusal})
        return HttpResponse(flash, status=status)
    return render(request, "refusal.html", {"refusal": refusal, "status": status}, status=status)


def too_many(request: HttpRequest, limited: ratelimit.Limited) -> HttpResponse:
    """429 with the sentence saying how long to wait (in the flash region for htmx)."""
    response = refuse(request, 429, limited.message, "rate_limited")
    response["Retry-After"] = str(limited.wait)
    return response


def command_limit(request: HttpRequest, who: str) -> HttpResponse | None:
    """One more command for `who` (a seat, or a GM's account); 429 once past the limit."""
    limited = ratelimit.hit("commands", who, settings.VTT_RATE_COMMANDS, "commands")
    return None if limited is None else too_many(request, limited)


def making_limit(request: HttpRequest, kind: str) -> ratelimit.Limited | None:
    """One more `kind` (encounters, seats, links, tokens) made by the logged-in account."""
    return ratelimit.making(kind, request.user.pk)


def too_many_on_page(
    request: HttpRequest, limited: ratelimit.Limited, template: str, context: dict[str, Any]
) -> HttpResponse:
    """429 with the sentence: the flash of the same page for a plain form (what was typed
    stays), the flash region for htmx."""
    if _is_htmx(request):
        return too_many(request, limited)
    messages.error(request, limited.message)
    response = render(request, template, context, status=429)
    response["Retry-After"] = str(limited.wait)
    return response


def allow(*methods: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Like Django's require_http_methods, but the 405 says which methods in words."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = refuse(
                    request,
                    405,
                    f"This address does not take {request.method}; use {' or '.join(methods)}.",
                    "method_not_allowed",
                )
                response["Allow"] = ", ".join(methods)
                return response
            return view(request, *args, **kwargs)

        return inner

    return decorator


require_GET = allow("GET")
require_POST = allow("POST")


def require_http_methods(methods: list[str]) -> Any:
    return allow(*methods)


def login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The GM's pages: a page visit goes to the log-in form; anything else is refused in words.

    A post or an htmx request would be redirected to a form it cannot use (htmx would swap
    the whole log-in page into the flash region), so it gets a sentence and 403 instead.
    """

    @wraps(view)
    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if request.method == "GET" and not _is_htmx(request):
            return redirect_to_login(request.get_full_path())
        return refuse(
            request,
            403,
            "Only the GM, logged in, can do that. Players and spectators use the link "
            "the GM gave them.",
            "login_required",
        )

    return inner


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a post without the page's CSRF token, refused in words."""
    log.warning("CSRF refusal on %s: %s", request.path, reason)
    return refuse(
        request,
        403,
        "This form was refused because it did not carry the page's security token "
        "(CSRF). Reload the page and try again; if it keeps happening, allow cookies "
        "for this site.",
        "csrf",
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: too large a request, too many fields, or malformed."""
    return refuse(
        request,
        400,
        "The request could not be read: it is malformed or too large.",
        "bad_request",
    )


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler403."""
    return refuse(request, 403, "You are not allowed to do that.", "forbidden")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: the sentence of the Http404 raised (written for people), or a plain one."""
    message = "There is nothing at this address."
    if exception is not None and not isinstance(exception, Resolver404):
        said = exception.args[0] if exception.args else ""
        if isinstance(said, str) and said:
            message = said
    return refuse(request, 404, message, "not_found")


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: no templates and no database, which may be what failed."""
    message = "Something went wrong on the server; nothing you did caused it. Try again."
    if request.path.startswith("/api/"):
        return api.error("server_error", message, 500)
    if _is_htmx(request):
        body = (
            f'<p class="flash error" data-testid="refusal" data-code="server_error">{message}</p>'
        )
    else:
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Server error · VTT</title></head><body><h1>Server error</h1><p>{message}</p>"
            '<p><a href="/">Back to the start</a></p></body></html>'
        )
    return HttpResponse(body, status=500)


def _bad_input(request: HttpRequest) -> HttpResponse | None:
    """A form post holding text no field may hold (a NUL byte, or far too long): refused."""
    problem = forms.input_problem(request.POST)
    if problem is None:
        return None
    return refuse(request, 400, problem, "bad_option")


# --- answering a post ---------------------------------------------------------------------


def _form_key(request: HttpRequest, viewer: Viewer) -> services.FormKey | None:
    """The one-time key of this form post (services.form_key): a repeat acts once."""
    return services.form_key(viewer, request.path, request.POST)


def _notice(
    result: services.Result,
    viewer: Viewer,
    hidden: tuple[str, ...],
    veiled: tuple[str, ...] = (),
) -> str:
    for event in result.events:
        ev = screens.for_gm(event) if viewer.is_gm else screens.event_for(event, hidden, veiled)
        if ev is not None:
            return str(ev.get("text", "Done."))
    return "Done."


def answer(
    request: HtmxHttpRequest,
    viewer: Viewer,
    *,
    refusal: Refusal | None = None,
    notice: str = "",
    back: str,
    extra: str = "",
) -> HttpResponse:
    """Tell the person what happened: for htmx the flash sentence only, otherwise a redirect.

    The new view itself arrives over the poster's socket like everyone else's. Putting it
    in this answer too would race the socket: an answer delivered after a newer push would
    take the page back in time, and only the socket keeps its frames in version order.
    """
    # A refusal is shown as the engine wrote it: it names other combatants by public name
    # only and never repeats what the caller sent, so there is nothing to rewrite.
    if request.htmx:
        flash = render_to_string(
            "combat/components/flash.html", {"refusal": refusal, "notice": notice}
        )
        return HttpResponse(flash + extra, status=flash_status(refusal))
    if refusal is not None:
        messages.error(request, refusal.message)
    elif notice:
        messages.success(request, notice)
    return redirect(back)


def answer_result(
    request: HtmxHttpRequest, viewer: Viewer, result: services.Result, back: str
) -> HttpResponse:
    if not result.ok:
        return answer(request, viewer, refusal=result.refusal, back=back)
    hidden: tuple[str, ...] = ()
    veiled: tuple[str, ...] = ()
    if not viewer.is_gm:
        state = result.state
        if state is None:
            state = State.from_dict(Encounter.objects.get(pk=viewer.encounter_id).state)
        hidden, veiled = screens.hidden_ids(state), veiled_ids(state)
    return answer(request, viewer, notice=_notice(result, viewer, hidden, veiled), back=back)


# --- accounts -----------------------------------------------------------------------------


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "combat/landing.html")
    rows = []
    for e in Encounter.objects.filter(owner=request.user):
        rs = rulesets().get(e.ruleset)
        rows.append(
            {
                "pk": e.pk,
                "name": e.name,
                "ruleset_name": rs.name if rs else e.ruleset,
                "phase_label": screens.PHASES.get(e.state.get("phase", ""), ""),
                "updated": e.updated,
            }
        )
    return render(request, "combat/encounters.html", {"encounters": rows})


@login_required
@require_POST
def encounter_rename(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    refusal = services.rename_encounter(enc.pk, request.POST.get("name"))
    if refusal is not None:
        messages.error(request, refusal.message)
    else:
        messages.success(request, f"Renamed to “{request.POST['name'].strip()}”.")
    return redirect("home")


@login_required
@require_POST
def encounter_delete(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if request.POST.get("confirm") != "yes":
        # Deleting cannot be undone: ask first, on a page of its own.
        return render(request, "combat/encounter_delete.html", {"enc": enc})
    name = enc.name
    services.delete_encounter(enc.pk)
    messages.success(request, f"“{name}” deleted.")
    return redirect("home")


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = forms.SignUpForm(request.POST or None)
    if request.method == "POST" and (bad := _bad_input(request)):
        return bad
    if request.method == "POST":
        # Per address: each account may fill its own share of the disk (imports are
        # bounded per account), so accounts themselves are rate-limited. Every try counts,
        # refused forms too, and before the form is read: "that user name is taken" is the
        # one thing sign-up must say, and this keeps it from being asked name after name.
        address = request.META.get("REMOTE_ADDR") or "unknown"
        limited = ratelimit.hit("signups", address, settings.VTT_RATE_SIGNUPS, "sign-ups")
        if limited is not None:
            return too_many(request, limited)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Create your first encounter.")
        from combat import accounts  # it builds on this module's helpers

        if user.email and accounts.mail_configured():
            accounts.send_confirmation(request, user)
            messages.info(request, accounts.SENT_TO_CONFIRM.format(email=user.email))
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


def _issue_token(request: UserHttpRequest, name: str) -> str | ratelimit.Limited:
    """A new token for the account, shown once; "" and the sentence when it holds the most;
    the refusal when it made too many in a short time (a full account is told that first).

    Each token could once bring its own command allowance; the count is per account now,
    and the cap keeps the list of live secrets an account must look after short.
    """
    most = settings.VTT_MAX_API_TOKENS
    with transaction.atomic():
        # The account's row is the lock: two posts at once cannot both take the last place.
        User.objects.select_for_update().filter(pk=request.user.pk).first()
        held = ApiToken.objects.filter(user=request.user).count()
        if held >= most:
            messages.error(
                request,
                f"You already have {held} API tokens, the most one account may hold: "
                "delete one you no longer use before making another.",
            )
            return ""
        if limited := making_limit(request, "tokens"):
            return limited
        return ApiToken.issue(request.user, name)[1]


@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request: UserHttpRequest) -> HttpResponse:
    new_token = ""
    if request.method == "POST":
        if bad := _bad_input(request):
            return bad
        name = (request.POST.get("name") or "").strip() or "API token"
        if request.POST.get("delete"):
            raw = request.POST["delete"]
            # Only the caller's own tokens: someone else's id deletes nothing, as a wrong one.
            # ASCII digits only: "²" is a digit to str.isdigit() but no id.
            gone = (
                bool(re.fullmatch(r"[0-9]{1,18}", raw))
                and (ApiToken.objects.filter(user=request.user, pk=int(raw)).delete()[0])
            )
            if not gone:
                gone_msg = "There is no such token (it may be deleted already)."
                return refuse(request, 404, gone_msg, "not_found")
            messages.success(request, "Token deleted: programs using it are refused now.")
        elif len(name) > 80:
            messages.error(
                request, f"A token name is at most 80 characters; this one has {len(name)}."
            )
        else:
            made = _issue_token(request, name)
            if isinstance(made, ratelimit.Limited):
                tokens = ApiToken.objects.filter(user=request.user).order_by("-created")
                ctx = {"tokens": tokens, "new_token": ""}
                return too_many_on_page(request, made, "combat/api_tokens.html", ctx)
            new_token = made
    tokens = ApiToken.objects.filter(user=request.user).order_by("-created")
    return render(request, "combat/api_tokens.html", {"tokens": tokens, "new_token": new_token})


# --- encounters ---------------------------------------------------------------------------


def _settings_rows(key: str) -> list[dict[str, Any]]:
    rs = get_ruleset(key)
    return [
        {
            "key": s.key,
            "label": s.label,
            "kind": s.kind,
            "value": s.default,
            "min": s.min,
            "max": s.max,
            "choices": list(s.choices),
            "help": s.help,
            "per_combatant": s.per_combatant,
        }
        for s in rs.all_settings()
    ]


def _new_context(key: str, name: str = "") -> dict[str, Any]:
    return {
        "rulesets": [{"key": k, "name": r.name} for k, r in rulesets().items()],
        "ruleset": {"key": key, "name": get_ruleset(key).name},
        "settings": _settings_rows(key),
        "name": name,
    }


@login_required
@require_http_methods(["GET", "POST"])
def encounter_new(request: HtmxHttpRequest) -> HttpResponse:
    default = next(iter(rulesets()))
    if request.method == "GET":
        return render(request, "combat/encounter_new.html", _new_context(default))
    if bad := _bad_input(request):
        return bad
    key = request.POST.get("ruleset", default)
    name = (request.POST.get("name") or "").strip()
    if key not in rulesets():
        messages.error(request, f"There is no ruleset {key[:40]!r}.")
        return render(request, "combat/encounter_new.html", _new_context(default, name))
    if limited := making_limit(request, "encounters"):
        ctx = _new_context(key, name)
        return too_many_on_page(request, limited, "combat/encounter_new.html", ctx)
    made = services.create_encounter(
        request.user, name, key, forms.encounter_settings(request.POST, key)
    )
    if isinstance(made, Refusal):
        messages.error(request, made.message)
        return render(request, "combat/encounter_new.html", _new_context(key, name))
    messages.success(request, f"{made.name} is ready: add combatants and share the links.")
    return redirect("gm_console", made.pk)


@login_required
@require_GET
def ruleset_settings(request: HttpRequest) -> HttpResponse:
    key = request.GET.get("ruleset", "")
    if key not in rulesets():
        key = next(iter(rulesets()))
    return render(request, "combat/encounter_new.html#settings", _new_context(key))


# --- the GM console -----------------------------------------------------------------------


def combatant_form_context(enc: Encounter, state: State, cid: str | None) -> dict[str, Any]:
    """Values for the add/edit form: the combatant's (or blank), its stats and its seat."""
    rs = get_ruleset(state.ruleset)
    c = state.combatants.get(cid) if cid else None
    seats = [{"id": s.pk, "name": s.name} for s in enc.seats.filter(revoked=False)]
    seat_id = next((s.pk for s in enc.seats.filter(revoked=False) if cid and s.controls(cid)), None)
    rows = screens.stat_rows(rs.stat_uses(state), dict(c.stats) if c else {}, rs.name)
    per = [
        {
            "key": s.key,
            "label": s.label,
            "kind": s.kind,
            "default": state.settings.get(s.key, s.default),
            "value": c.mods.get(s.key) if c else None,
            "min": s.min,
            "max": s.max,
            "help": s.help,
        }
        for s in rs.all_settings()
        if s.per_combatant
    ]
    values: dict[str, Any] = {
        "name": "",
        "side": "npc",
        "hp": None,
        "initiative_bonus": 0,
        "initiative": None,
        "group": "",
        "hidden": False,
        "grit": None,
        "notes": "",
        "npc_health": "",
    }
    if c is not None:
        values = {
            "name": c.name,
            "side": c.side,
            "hp": c.max_hp,
            "initiative_bonus": c.initiative_bonus,
            "initiative": c.initiative,
            "group": state.groups[c.group].name if c.group and c.group in state.groups else "",
            "hidden": c.hidden,
            "grit": c.res.get("grit"),
            "notes": c.notes,
            "npc_health": c.mods.get("npc_health", ""),
        }
    return {
        "mode": "edit" if c else "add",
        "action_url": reverse("combatant_edit", args=[enc.pk, cid])
        if c
        else reverse("combatant_add", args=[enc.pk]),
        "close_url": reverse("combatant_editor_close", args=[enc.pk]),
        "values": values,
        "stat_rows": rows[: forms.MAX_STAT_ROWS],
        "per_settings": per,
        "health_modes": HEALTH_MODES,
        "npc_health_default": state.settings.get("npc_health", NPC_HEALTH.default),
        "seats": seats,
        "seat_id": seat_id,
    }


def _console(
    request: HttpRequest, enc: Encounter, cf: dict[str, Any] | None = None
) -> HttpResponse:
    state = screens.load_state(enc)
    ctx = screens.gm_context(enc, state)
    ctx.update(screens.gm_links(enc))
    ctx["add_cf"] = combatant_form_context(enc, state, None)
    ctx["cf"] = cf
    ctx.update(chat.context(gm_viewer(enc), enc, broadcast.chat_urls(gm_viewer(enc))))
    return render(request, "combat/gm.html", ctx)


@never_cache  # it holds the secret links
@login_required
@require_GET
def gm_console(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _console(request, enc)


@login_required
@require_POST
def gm_command(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if bad := _bad_input(request):
        return bad
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    viewer = gm_viewer(enc)
    result = services.run_command(
        enc.pk, viewer, forms.command_from_post(request.POST), form=_form_key(request, viewer)
    )
    return answer_result(request, viewer, result, reverse("gm_console", args=[enc.pk]))


def _seat_choice(enc: Encounter, raw: str | None) -> int | None:
    if not raw:
        return None
    try:
        seat_id = int(raw)
    except ValueError:
        return None
    return seat_id if enc.seats.filter(pk=seat_id, revoked=False).exists() else None


@login_required
@require_POST
def combatant_add(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if bad := _bad_input(request):
        return bad
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    viewer = gm_viewer(enc)
    command = {"type": "add_combatant", **forms.combatant_fields(request.POST, enc.ruleset)}
    result = services.run_command(enc.pk, viewer, command, form=_form_key(request, viewer))
    seat_id = _seat_choice(enc, request.POST.get("seat"))
    if result.ok and seat_id:
        cid = next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")
        services.assign_combatant(enc.pk, cid, seat_id)
    back = reverse("gm_console", args=[enc.pk])
    if not result.ok:
        return answer(request, viewer, refusal=result.refusal, back=back)
    fresh = _add_form_oob(enc, add_open=True)
    return answer(request, viewer, notice=_notice(result, viewer, ()), back=back, extra=fresh)


def _changed_fields(state: State, cid: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Only what the GM changed: resending max HP would heal, resending initiative re-sorts."""
    c = state.combatants[cid]
    group = state.groups[c.group].name if c.group and c.group in state.groups else ""
    current: dict[str, Any] = {
        "name": c.name,
        "side": c.side,
        "notes": c.notes,
        "initiative_bonus": c.initiative_bonus,
        "initiative": c.initiative,
        "hp": c.max_hp,
        "group": group,
        "hidden": c.hidden,
        "grit": c.res.get("grit"),
        "npc_health": c.mods.get("npc_health", "encounter"),
    }
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "stats":
            stats = {
                k: v
                for k, v in value.items()
                if c.stats.get(k) != {"dice": v["dice"], "bonus": _int(v["bonus"])}
            }
            if stats:
                out["stats"] = stats
            continue
        if key == "hidden":
            if (str(value) in ("1", "true", "on")) != c.hidden:
                out[key] = value
            continue
        old = current.get(key, c.mods.get(key))
        if str(value).strip() != ("" if old is None else str(old)):
            out[key] = value
    return out


def _int(raw: Any) -> Any:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return raw


@login_required
@require_http_methods(["GET", "POST"])
def combatant_edit(request: HtmxHttpRequest, encounter_id: int, cid: str) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    state = screens.load_state(enc)
    if cid not in state.combatants:
        raise Http404("No such combatant.")
    if request.method == "GET":
        cf = combatant_form_context(enc, state, cid)
        if request.htmx:
            return render(request, "combat/gm.html#editor", {"cf": cf, "enc": enc})
        return _console(request, enc, cf)
    if bad := _bad_input(request):
        return bad
    viewer = gm_viewer(enc)
    back = reverse("gm_console", args=[enc.pk])
    changed = _changed_fields(state, cid, forms.combatant_fields(request.POST, enc.ruleset))
    key = _form_key(request, viewer)
    # Sent twice, the second finds nothing changed: it answers as the first did.
    result = services.replayed(enc.pk, viewer, key)
    if result is None and changed:
        result = services.run_command(
            enc.pk, viewer, {"type": "update_combatant", "actor": cid, **changed}, form=key
        )
        if not result.ok:
            return answer(request, viewer, refusal=result.refusal, back=back)
    seat_id = _seat_choice(enc, request.POST.get("seat"))
    services.assign_combatant(enc.pk, cid, seat_id)
    closed = render_to_string("combat/gm.html#editor", {"cf": None, "enc": enc, "oob": True})
    notice = _notice(result, viewer, ()) if result else "Saved."
    return answer(request, viewer, notice=notice, back=back, extra=closed)


@login_required
@require_GET
def combatant_editor_close(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return render(request, "combat/gm.html#editor", {"cf": None, "enc": enc})


def copy_name(state: State, name: str) -> str:
    """ "Goblin" → "Goblin 2", "Goblin 2" → "Goblin 3": the next free number."""
    base = re.sub(r"\s+\d+$", "", name)
    taken = {c.name for c in state.combatants.values()}
    n = 2
    while f"{base} {n}" in taken:
        n += 1
    return f"{base} {n}"


@login_required
@require_POST
def combatant_duplicate(request: HtmxHttpRequest, encounter_id: int, cid: str) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    state = screens.load_state(enc)
    c = state.combatants.get(cid)
    if c is None:
        raise Http404("No such combatant.")
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    rs = get_ruleset(state.ruleset)
    command: dict[str, Any] = {
        "type": "add_combatant",
        "name": copy_name(state, c.name),
        "side": c.side,
        "initiative_bonus": c.initiative_bonus,
        "hidden": c.hidden,
        "notes": c.notes,
        "stats": c.stats,
        "group": state.groups[c.group].name if c.group and c.group in state.groups else "",
    }
    if c.max_hp is not None:
        command["hp"] = c.max_hp
    if "grit" in c.res:
        command["grit"] = c.res["grit"]
    if "npc_health" in c.mods:
        command["npc_health"] = c.mods["npc_health"]
    for s in rs.all_settings():
        if s.per_combatant and s.key in c.mods:
            command[s.key] = c.mods[s.key]
    viewer = gm_viewer(enc)
    # The copy's number comes from the state, so only the form says whether it is a repeat.
    result = services.run_command(enc.pk, viewer, command, form=_form_key(request, viewer))
    return answer_result(request, viewer, result, reverse("gm_console", args=[enc.pk]))


# --- seats and links ----------------------------------------------------------------------


def _add_form_oob(enc: Encounter, *, add_open: bool = False) -> str:
    """A fresh add-combatant form (its seat list changes with the seats)."""
    state = screens.load_state(enc)
    ctx = {
        "enc": enc,
        "oob": True,
        "add_cf": combatant_form_context(enc, state, None),
        "has_combatants": bool(state.combatants),
        "add_open": add_open,
    }
    return render_to_string("combat/gm.html#add_form", ctx)


def _links_oob(enc: Encounter) -> str:
    """The GM's links section, in an HTTP answer (the pushed view never holds a link)."""
    return render_to_string("combat/gm.html#links", {**screens.gm_links(enc), "oob": True})


@never_cache
@login_required
@require_GET
def gm_links(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """ "Show link": the encounter's live links, fetched over HTTP by the GM's page."""
    enc = gm_encounter(request.user, encounter_id)
    return render(request, "combat/gm.html#links", screens.gm_links(enc))


def _seat_form_oob(enc: Encounter) -> str:
    return render_to_string("combat/gm.html#seat_form", {"enc": enc, "oob": True})


@login_required
@require_POST
def seat_create(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if bad := _bad_input(request):
        return bad
    name = (request.POST.get("name") or "").strip()
    back = reverse("gm_console", args=[enc.pk])
    if problem := forms.seat_name_problem(name):
        return answer(request, gm_viewer(enc), refusal=Refusal("bad_option", problem), back=back)
    if limited := making_limit(request, "seats"):
        return too_many(request, limited)
    seat = services.create_seat(enc.pk, name)
    notice = f"Seat {seat.name} created: share {reverse('player', args=[seat.token])}"
    return answer(
        request,
        gm_viewer(enc),
        notice=notice,
        back=back,
        extra=_add_form_oob(enc) + _seat_form_oob(enc) + _links_oob(enc),
    )


@login_required
@require_POST
def seat_revoke(request: HtmxHttpRequest, encounter_id: int, seat_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    seat = enc.seats.filter(pk=seat_id).first()
    if seat is None:
        raise Http404("No such seat in this encounter.")
    if request.POST.get("confirm") != "yes":
        # Cutting a player off cannot be taken back (only replaced): ask first.
        ctx = {"enc": enc, "seat": seat}
        if request.htmx:
            return render(request, "combat/revoke_confirm.html#question", ctx)
        return render(request, "combat/revoke_confirm.html", ctx)
    services.revoke_seat(enc.pk, seat_id)
    back = reverse("gm_console", args=[enc.pk])
    return answer(
        request,
        gm_viewer(enc),
        notice="Seat revoked: its link no longer works.",
        back=back,
        extra=_add_form_oob(enc) + _links_oob(enc),
    )


@login_required
@require_POST
def seat_regenerate(request: HtmxHttpRequest, encounter_id: int, seat_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if not enc.seats.filter(pk=seat_id).exists():
        raise Http404("No such seat in this encounter.")
    if limited := making_limit(request, "links"):
        return too_many(request, limited)
    seat = services.regenerate_seat(enc.pk, seat_id)
    if seat is None:
        raise Http404("No such seat in this encounter.")
    back = reverse("gm_console", args=[enc.pk])
    return answer(
        request,
        gm_viewer(enc),
        notice=f"New link for {seat.name}; the old one is dead.",
        back=back,
        extra=_add_form_oob(enc) + _links_oob(enc),
    )


@login_required
@require_POST
def spectator_link(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    enabled = request.POST.get("do") != "disable"
    # Turning the link off makes nothing, so it is never held back.
    if enabled and (limited := making_limit(request, "links")):
        return too_many(request, limited)
    services.set_spectator_link(enc.pk, enabled)
    notice = "New spectator link; the old one is dead." if enabled else "Spectator link turned off."
    back = reverse("gm_console", args=[enc.pk])
    return answer(request, gm_viewer(enc), notice=notice, back=back, extra=_links_oob(enc))


def _spectator_limit_oob(enc: Encounter) -> str:
    return render_to_string("combat/gm.html#spectator_limit_field", {"enc": enc, "oob": True})


@login_required
@require_POST
def spectator_limit(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    """The GM sets how many screens the spectators' link may hold (from the next connect)."""
    enc = gm_encounter(request.user, encounter_id)
    back = reverse("gm_console", args=[enc.pk])
    limit, problem = forms.spectator_limit(request.POST.get("limit"))
    if limit is None:
        return answer(
            request,
            gm_viewer(enc),
            refusal=Refusal("bad_option", problem or ""),
            back=back,
            extra=_spectator_limit_oob(enc),
        )
    services.set_spectator_limit(enc.pk, limit)
    enc.spectator_limit = limit
    notice = (
        f"The spectator link now takes up to {limit:,} screen{'s' if limit != 1 else ''} "
        "(from the next one to connect; those watching stay)."
    )
    return answer(
        request, gm_viewer(enc), notice=notice, back=back, extra=_spectator_limit_oob(enc)
    )


@login_required
@require_GET
def log_download(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    entries = [
        {
            "seq": e.seq,
            "version": e.version,
            "kind": e.kind,
            "by": e.by,
            "seat": e.seat.name if e.seat else None,
            "command": e.command,
            "events": [screens.for_gm(ev) for ev in e.events],
            "undone": e.undone,
            "created": e.created.isoformat(),
        }
        for e in enc.log.select_related("seat")
        .order_by("seq")
        .defer("state_before", "state_patch")
        .iterator(chunk_size=500)
    ]
    body = {
        "encounter": {
            "id": enc.pk,
            "name": enc.name,
            "ruleset": enc.ruleset,
            "version": enc.version,
        },
        "log": entries,
    }
    response = JsonResponse(body, json_dumps_params={"indent": 2})
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", enc.name).strip("-") or "encounter"
    response["Content-Disposition"] = f'attachment; filename="{slug}-log.json"'
    return response


# --- players and spectators ---------------------------------------------------------------


@require_GET
def player(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    ctx = screens.player_context(seat.encounter, seat)
    talk = chat.context(seat_viewer(seat), seat.encounter, broadcast.chat_urls(seat_viewer(seat)))
    return render(request, "combat/player.html", {**ctx, **talk, "hide_login": True})


@require_POST
def player_command(request: HtmxHttpRequest, token: str) -> HttpResponse:
    try:
        seat = seat_by_token(token)
    except Http404:
        if not request.htmx:
            raise
        # htmx shows 4xx answers: a sentence in the flash region, not a whole error page.
        gone = Refusal("gone", "This link no longer works: ask the GM for the new one.")
        flash = render_to_string("combat/components/flash.html", {"refusal": gone})
        return HttpResponse(flash, status=404)
    if bad := _bad_input(request):
        return bad
    if limited := command_limit(request, f"seat:{seat.pk}"):
        return limited
    viewer = seat_viewer(seat)
    result = services.run_command(
        seat.encounter_id,
        viewer,
        forms.command_from_post(request.POST),
        form=_form_key(request, viewer),
    )
    return answer_result(request, viewer, result, reverse("player", args=[token]))


# The regions an overlay (`?overlay=1&show=...`) may show, and those it shows unasked.
OVERLAY_REGIONS = ("turn", "order", "roster", "log", "board")
OVERLAY_DEFAULT = ("turn", "order", "log")


_CHIP = re.compile(r"chip-[A-Za-z0-9_-]{1,200}")


def _preview(request: HttpRequest, enc: Encounter, cmd: dict[str, Any]) -> HttpResponse:
    """The cost line of an action with the options chosen so far, and (out of band) the
    button's cost chip (`chip-<prefix>-<actor>-<action>`, as action_form.html names it;
    the form's address carries only the prefix). Nothing is changed."""
    cost, line = rules_preview(screens.load_state(enc), cmd)
    chip = f"chip-{request.GET.get('prefix', '')}-{cmd.get('actor')}-{cmd.get('action')}"
    ctx = {"cost": cost, "line": line, "chip": chip if _CHIP.fullmatch(chip) else ""}
    return render(request, "combat/components/cost_preview.html", ctx)


@login_required
@require_GET
def gm_preview(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _preview(request, enc, forms.command_from_post(request.GET))


@require_GET
def player_preview(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    cmd = forms.command_from_post(request.GET)
    if cmd.get("actor") not in seat.combatant_ids:
        cmd = {"actor": None}  # the engine's own "no such combatant": nothing learned
    return _preview(request, seat.encounter, cmd)


def _move_preview(
    request: HttpRequest, enc: Encounter, mine: set[str] | None, post_url: str
) -> HttpResponse:
    """The path to the tapped cell drawn over the board, its cost line and "Move here"
    (combat/tapmove.py), or the refusal's words. Nothing is changed."""
    ctx = tapmove.move_preview(screens.load_state(enc), mine, request.GET)
    return render(request, "combat/components/move_preview.html", {**ctx, "post_url": post_url})


@login_required
@require_GET
def gm_move_preview(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _move_preview(request, enc, None, reverse("gm_command", args=[enc.pk]))


@require_GET
def player_move_preview(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    # Relative to the player's page, as its other forms are.
    return _move_preview(request, seat.encounter, set(seat.combatant_ids), "command/")


def _measure(request: HttpRequest, enc: Encounter, back: str) -> HttpResponse:
    """The distance between two cells of the map (combat/tapmove.py `measure`): the answer's
    line for the map's measuring form, or a short page with it and the way back when the
    form was sent without scripts. Nothing is changed."""
    ctx = {"m": tapmove.measure(screens.load_state(enc), request.GET), "back": back}
    if _is_htmx(request):
        return render(request, "combat/components/measure_answer.html", ctx)
    return render(request, "combat/measure.html", ctx)


@login_required
@require_GET
def gm_measure(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _measure(request, enc, reverse("gm_console", args=[enc.pk]))


@require_GET
def player_measure(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    return _measure(request, seat.encounter, reverse("player", args=[token]))


@require_GET
def spectator_measure(request: HttpRequest, token: str) -> HttpResponse:
    enc = encounter_by_spectator_token(token)
    return _measure(request, enc, reverse("spectator", args=[token]))


@require_GET
def spectator(request: HttpRequest, token: str) -> HttpResponse:
    enc = encounter_by_spectator_token(token)
    show: tuple[str, ...] = ()
    if request.GET.get("overlay") == "1":
        asked = [w.strip() for w in request.GET.get("show", "").split(",") if w.strip()]
        unknown = [w for w in asked if w not in OVERLAY_REGIONS]
        if unknown:
            return HttpResponse(
                f"An overlay can show {', '.join(OVERLAY_REGIONS)}; not {', '.join(unknown)}.",
                status=400,
                content_type="text/plain; charset=utf-8",
            )
        show = tuple(dict.fromkeys(asked)) or OVERLAY_DEFAULT
    ctx = screens.public_context(enc)
    viewer = spectator_viewer(enc)
    talk = chat.context(viewer, enc, broadcast.chat_urls(viewer))
    me = request.session.get("chat_spectator")
    if isinstance(me, dict) and me.get("name"):
        talk["chat_spectator_name"] = me["name"]  # this browser's own, never pushed
    extra = {"hide_login": True, "overlay_show": show}
    return render(request, "combat/spectator.html", {**ctx, **talk, **extra})
