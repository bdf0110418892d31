"""Helpers for the socket tests: the real ASGI application, with and without an Origin."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from combat import consumers, services
from vtt.asgi import application

from .conftest import Table, build_table, snapshot

TIMEOUT = 10  # generous: only a failing test waits this long
# The consumer takes a burst of this many messages, then drops what comes faster than a
# page ever sends (combat/consumers.py). Tests that send many frames spread them over
# sockets of at most PER_SOCKET each, a heartbeat or resync included.
PER_SOCKET = max(1, getattr(consumers, "BURST", 10) - 2)
ORIGIN = (b"origin", b"http://testserver")


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


def _build(ruleset: str = "action_points") -> tuple[Table, str, str]:
    User = get_user_model()
    gm = User.objects.create_user("gina")
    outsider = User.objects.create_user("otto")
    services.create_encounter(outsider, "Otto's own fight", "action_points", {})
    t = build_table(gm, outsider, ruleset)
    return t, session_cookie(gm), session_cookie(outsider)


build = database_sync_to_async(_build)
db_snapshot = database_sync_to_async(snapshot)


def socket(
    path: str, *, cookie: str | None = None, headers: list[tuple[bytes, bytes]] | None = None
) -> WebsocketCommunicator:
    hs = [ORIGIN] if headers is None else list(headers)
    if cookie:
        hs.append((b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return WebsocketCommunicator(application, path, headers=hs)


def role_socket(t: Table, role: str, gm_cookie: str, outsider_cookie: str) -> WebsocketCommunicator:
    """The socket each role's page would open (anonymous and outsider try the GM's)."""
    return {
        "gm": lambda: socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=gm_cookie),
        "owner": lambda: socket(f"/ws/p/{t.seat1.token}/"),
        "other": lambda: socket(f"/ws/p/{t.seat2.token}/"),
        "spectator": lambda: socket(f"/ws/s/{t.enc.spectator_token}/"),
        "revoked": lambda: socket(f"/ws/p/{t.revoked.token}/"),
        "anonymous": lambda: socket(f"/ws/enc/{t.enc.pk}/gm/"),
        "outsider": lambda: socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=outsider_cookie),
    }[role]()


async def connect(comm: WebsocketCommunicator) -> str:
    """Connects and returns the socket's first view. A GM socket may first get who is at
    the table (an earlier socket's departure, which on Redis can overtake the view)."""
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert connected, code
    for _ in range(5):
        frame = await comm.receive_from(timeout=TIMEOUT)
        if 'id="presence"' not in frame or 'data-version="' in frame:
            return frame
    return frame


async def send_json(comm: WebsocketCommunicator, data: Any) -> None:
    await comm.send_to(text_data=json.dumps(data))


async def until_closed(
    comm: WebsocketCommunicator, quiet: float = 1.5
) -> tuple[list[str], int | None]:
    """Every frame the socket gets until the server closes it, and the close code (None if
    it stayed open and quiet for `quiet` seconds)."""
    frames: list[str] = []
    while True:
        if await comm.receive_nothing(timeout=quiet):
            return frames, None
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return frames, out.get("code")
        frames.append(out.get("text") or "")
