"""Who is looking: the GM, a player's seat, or a spectator, resolved from the request.

Every view, API endpoint and socket asks one of these functions first. The seat
comes from the secret link or the bearer token, never from the payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Literal
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user
from django.http import Http404, HttpRequest
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

from combat.models import Encounter, Seat

GM: Literal["gm"] = "gm"
PLAYER: Literal["player"] = "player"
SPECTATOR: Literal["spectator"] = "spectator"

Role = Literal["gm", "player", "spectator"]


@dataclass(frozen=True)
class Viewer:
    """A person at the table, as far as the server is concerned."""

    role: Role
    encounter_id: int
    seat_id: int | None = None
    user_id: int | None = None

    @property
    def audience(self) -> str:
        """The rules engine's audience name for redaction."""
        return {GM: "gm", PLAYER: "player", SPECTATOR: "public"}[self.role]

    @property
    def is_gm(self) -> bool:
        return self.role == GM

    @property
    def seat_pk(self) -> int:
        """The seat of a player viewer (a bug to ask for anyone else's)."""
        if self.seat_id is None:
            raise ValueError(f"A {self.role} viewer has no seat.")
        return self.seat_id


def gm_viewer(enc: Encounter) -> Viewer:
    return Viewer(GM, enc.pk, user_id=enc.owner_id)


def seat_viewer(seat: Seat) -> Viewer:
    return Viewer(PLAYER, seat.encounter_id, seat_id=seat.pk)


def spectator_viewer(enc: Encounter) -> Viewer:
    return Viewer(SPECTATOR, enc.pk)


def gm_encounter(user, encounter_id: int) -> Encounter:
    """The encounter if `user` is its GM; 404 otherwise (an outsider learns nothing)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such encounter.")
    try:
        return Encounter.objects.get(pk=encounter_id, owner_id=user.pk)
    except Encounter.DoesNotExist:
        raise Http404("No such encounter.") from None


# Secret links are URL-safe base64 (models.new_token); anything else is not a link of ours.
# Checked before any query: PostgreSQL refuses text with a NUL byte with an error, not a miss.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")


def token_shape(token: Any) -> bool:
    """Whether `token` could be a secret link or an API key at all."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


def seat_by_token(token: str) -> Seat:
    """The live seat behind a player link; 404 for an unknown or revoked link."""
    seat = (
        Seat.objects.select_related("encounter").filter(token=token, revoked=False).first()
        if token_shape(token)
        else None
    )
    if seat is None:
        raise Http404("This player link is not valid (it may have been revoked).")
    return seat


def encounter_by_spectator_token(token: str) -> Encounter:
    enc = Encounter.objects.filter(spectator_token=token).first() if token_shape(token) else None
    if enc is None:
        raise Http404("This spectator link is not valid (it may have been replaced).")
    return enc


def still_valid(viewer: Viewer, token: str | None) -> bool:
    """Re-check a socket's credentials: a revoked seat or a replaced link stops at once."""
    if viewer.role == PLAYER:
        return Seat.objects.filter(pk=viewer.seat_pk, token=token, revoked=False).exists()
    if viewer.role == SPECTATOR:
        return Encounter.objects.filter(pk=viewer.encounter_id, spectator_token=token).exists()
    return Encounter.objects.filter(pk=viewer.encounter_id, owner_id=viewer.user_id).exists()


def session_still_valid(session_key: str | None, user_id: int | None) -> bool:
    """Whether the log-in a GM's socket was opened with still holds: not logged out, and the
    password not changed since (Django's own check of the session's password hash)."""
    if not session_key or user_id is None:
        return False
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = get_user(request)
    return bool(user.is_authenticated and user.pk == user_id)


# --- websocket handshakes -------------------------------------------------------------------


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    values = [v for k, v in scope.get("headers", []) if k.lower() == name]
    if len(values) != 1:
        return None  # absent, or sent twice: neither is a browser on our page
    try:
        return values[0].decode("ascii")
    except UnicodeDecodeError:
        return None


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether a websocket handshake comes from one of this site's own pages.

    Browsers always send `Origin` on a websocket handshake, so a missing one, `null`
    (sandboxed frames, local files) or a foreign one is refused. The origin must name a
    host in ALLOWED_HOSTS and the very host the handshake was sent to (what Django's CSRF
    check asks of a form post), or be listed in CSRF_TRUSTED_ORIGINS. Unlike Channels'
    AllowedHostsOriginValidator this holds even with `*` in a development ALLOWED_HOSTS.
    """
    origin = _header(scope, b"origin")
    if not origin or origin.lower() == "null":
        return False
    try:
        parts = urlsplit(origin)
        origin_port = str(parts.port or (443 if parts.scheme == "https" else 80))
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        return False
    allowed = settings.ALLOWED_HOSTS
    host = _header(scope, b"host")
    host_domain, host_port = split_domain_port(host) if host is not None else ("", "")
    if host is not None and not (host_domain and validate_host(host_domain, allowed)):
        return False
    if _trusted(origin, parts.scheme, parts.netloc):
        return True
    # urlsplit drops an IPv6 address's brackets; ALLOWED_HOSTS and Host keep them.
    origin_domain = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if not validate_host(origin_domain, allowed):
        return False
    if host is None:
        # No Host header (only test harnesses do that): ALLOWED_HOSTS alone decides, and a
        # wildcard there allows nothing, since it would allow every origin.
        return "*" not in allowed
    # A TLS-terminating proxy may speak plain ws to us while the page is https: compare
    # host names, and ports only where the Host header names one.
    return origin_domain == host_domain and (not host_port or host_port == origin_port)


def _trusted(origin: str, scheme: str, netloc: str) -> bool:
    """CSRF_TRUSTED_ORIGINS, read as Django's CSRF check reads it (`*.` for subdomains)."""
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if "*" not in trusted:
            if trusted.lower() == origin.lower():
                return True
            continue
        t = urlsplit(trusted)
        if t.scheme == scheme and is_same_domain(netloc.lower(), t.netloc.lstrip("*").lower()):
            return True
    return False


class SameOriginWebsocket:
    """ASGI middleware: refuse websocket handshakes that do not come from our own pages.

    The refusal closes with 4403, outside htmx's reconnect codes, so nothing retries it.
    """

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 4403})
            return
        await self.application(scope, receive, send)
