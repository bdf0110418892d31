"""Sockets: authenticate, join the audience's group, send the whole view, forward pushes.

A socket gets the whole current view when it connects (htmx closes sockets in
hidden tabs, so every reconnect must catch up) and whenever it reports a
version older than the server's. Pushed frames older than what a socket
already has are dropped, so a socket's view never goes back in time.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from combat import broadcast, presence
from combat.access import (
    GM,
    PLAYER,
    SPECTATOR,
    Viewer,
    gm_viewer,
    seat_viewer,
    spectator_viewer,
    still_valid,
)
from combat.models import Encounter, Seat

# Closing codes outside htmx's reconnect list, so a refused page does not retry forever.
REFUSED = 4403

# What a page shows when its link stops working (the socket closes right after).
GONE = (
    '<div id="flash" class="flash-area" role="status" aria-live="polite" data-testid="flash" '
    'hx-swap-oob="true"><p class="flash error" data-testid="link-gone">This link no longer '
    "works: the GM revoked it or made a new one. Ask the GM for the new link.</p></div>"
)

# Push-only handlers touch no database: skip Channels' per-event connection cleanup for them.
_PUSH_TYPES = frozenset({broadcast.FRAME, broadcast.PRESENCE, broadcast.CLOSE})


class TableConsumer(AsyncWebsocketConsumer):
    role: str = ""

    viewer: Viewer | None = None
    token: str | None = None
    version: int = 0
    group: str = ""
    gone: bool = False  # the link died: nothing more is sent on this socket

    async def dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") in _PUSH_TYPES:
            handler = getattr(self, message["type"].replace(".", "_"))
            await handler(message)
            return
        await super().dispatch(message)

    # --- lifecycle ---------------------------------------------------------------------
    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        self.token = kwargs.get("token")
        self.viewer = await database_sync_to_async(self.authenticate)(kwargs)
        if self.viewer is None:
            await self.close(code=REFUSED)
            return
        self.group = broadcast.group_for(self.viewer)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await database_sync_to_async(presence.join)(self.viewer, self.channel_name)
        await self.send_whole_view()
        await database_sync_to_async(broadcast.publish_presence)(self.viewer.encounter_id)

    def authenticate(self, kwargs: dict[str, Any]) -> Viewer | None:
        if self.role == GM:
            user = self.scope.get("user")
            if not getattr(user, "is_authenticated", False):
                return None
            enc = Encounter.objects.filter(pk=kwargs["encounter_id"], owner_id=user.pk).first()
            return gm_viewer(enc) if enc else None
        if self.role == PLAYER:
            seat = Seat.objects.filter(token=self.token, revoked=False).first()
            return seat_viewer(seat) if seat else None
        enc = Encounter.objects.filter(spectator_token=self.token).first() if self.token else None
        return spectator_viewer(enc) if enc else None

    async def disconnect(self, code: int) -> None:
        if self.viewer is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await database_sync_to_async(presence.leave)(self.channel_name)
        await database_sync_to_async(broadcast.publish_presence)(self.viewer.encounter_id)

    # --- from the browser ----------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Heartbeats ({"type": "heartbeat", "version": n}) and resync requests."""
        if self.viewer is None:
            return
        ok = await database_sync_to_async(self.recheck)()
        if not ok:
            self.gone = True
            await self.send(text_data=GONE)
            await self.close(code=REFUSED)
            return
        try:
            msg = json.loads(text_data or "{}")
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        kind = msg.get("type")
        if kind == "resync":
            await self.send_whole_view()
        elif kind == "heartbeat":
            try:
                theirs = int(msg.get("version") or 0)
            except (TypeError, ValueError):
                theirs = 0
            current = await database_sync_to_async(self.current_version)()
            if theirs != current:
                await self.send_whole_view()

    def recheck(self) -> bool:
        assert self.viewer is not None
        if not still_valid(self.viewer, self.token):
            return False
        presence.touch(self.channel_name)
        return True

    def current_version(self) -> int:
        assert self.viewer is not None
        return (
            Encounter.objects.filter(pk=self.viewer.encounter_id)
            .values_list("version", flat=True)
            .first()
            or 0
        )

    async def send_whole_view(self) -> None:
        assert self.viewer is not None
        html, version = await database_sync_to_async(broadcast.render_view)(self.viewer)
        self.version = version
        await self.send(text_data=html)

    # --- from the channel layer ------------------------------------------------------------
    async def frame_push(self, event: dict[str, Any]) -> None:
        if self.gone or event["version"] <= self.version:
            return
        self.version = event["version"]
        await self.send(text_data=event["html"])

    async def presence_push(self, event: dict[str, Any]) -> None:
        if self.gone:
            return
        await self.send(text_data=event["html"])

    async def socket_close(self, event: dict[str, Any]) -> None:
        # Sent when a seat is revoked or a link replaced: check, then go.
        ok = await database_sync_to_async(self.recheck)()
        if not ok:
            self.gone = True
            await self.send(text_data=GONE)
            await self.close(code=REFUSED)


class GmConsumer(TableConsumer):
    role = GM


class PlayerConsumer(TableConsumer):
    role = PLAYER


class SpectatorConsumer(TableConsumer):
    role = SPECTATOR
