"""Sockets: authenticate, join the audience's group, catch the page up, forward pushes.

A page's socket names the version the page shows (`?v=` on its address): on connecting it
gets the frames it missed since from the short history each push keeps, or nothing but
its #sync form when it is up to date, so a page just loaded is not sent itself again.
htmx closes sockets in hidden tabs, so every reconnect must catch up: a socket that names
no version, or one the history cannot cover, gets the whole current view, as does one
that asks for a resync, or whose heartbeat names a version older than the encounter's,
that the history cannot answer.
Pushed frames older than what a socket already has are dropped, so a socket's view
never goes back in time.

What a browser sends is bounded before anything else is done with it. A
message over 64 KiB closes the socket (4413). Messages beyond a token bucket
per socket (10 at once, then 2 a second) are dropped unread; a socket that
keeps sending past it (120 dropped, forgiven at one a second) is closed (4429).
A page sends a heartbeat every 15 s and a resync when it notices a gap, but
htmx queues what it could not send while disconnected and sends it all on
reconnect: that burst is dropped, not punished. Both close codes are outside
htmx's reconnect list, so a page that misbehaves stops instead of coming back
to do it again; it is told why first.

A seat's link holds at most MAX_SOCKETS sockets, the spectators' link as many as the GM set
(Encounter.spectator_limit, 100 unless changed), and one client address at most
VTT_SPECTATORS_PER_ADDRESS of the spectators' (so a leaked link cannot be held open by
thousands of sockets from one machine). Sockets are admitted before joining anything
(combat/presence.py); one more is told why in words (a full link, or too many screens from
one address) and closed with CROWDED, which a page retries about once a minute. A
resync that names the version the page shows, or a heartbeat naming an older version than
the encounter's, is answered with the frames the page missed, from the short history each
push keeps (combat/broadcast.py), when that history covers the gap; a frame the answer
brought is not sent again when its push arrives.
The whole views a page asks for (resync, a heartbeat the history cannot answer) are budgeted per
link (RESYNCS_PER_LINK), over all its sockets; one past the budget is sent once it allows.
Whole views asked for are also paid from the audience's byte budget (combat/fanout.py):
each waits until the budget is not overdrawn, and its size is then taken from it.

A socket that says nothing for PRESENCE_TIMEOUT_SECONDS (a phone that went offline
leaves its connection open but silent) leaves the GM's list of who is connected at
once and is closed with SILENT, which the pages reconnect on (static/js/sync.js).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from combat import broadcast, fanout, presence, ratelimit
from combat.access import (
    GM,
    PLAYER,
    SPECTATOR,
    Viewer,
    gm_viewer,
    seat_viewer,
    session_still_valid,
    spectator_viewer,
    still_valid,
    token_shape,
)
from combat.models import Encounter, Seat

# Closing codes outside htmx's reconnect list, so a refused page does not retry forever.
REFUSED = 4403
TOO_BIG = 4413  # like HTTP 413 (autobahn lets an application use 1000 and 3000-4999 only)
TOO_MANY = 4429  # like HTTP 429
SILENT = 4408  # like HTTP 408: no heartbeat came; a page that is still there reconnects
LOGGED_OUT = 4401  # like HTTP 401: the GM's log-in ended (logged out, password changed)
CROWDED = 4409  # like HTTP 409: this link already has as many sockets as it may
# Sockets a seat's link may hold at once, across every server process: a seat is one player
# (a phone, a laptop, a tab or two). The spectators' link feeds a room's screens and
# streams: its cap is the GM's setting on the encounter (combat/presence.py).
MAX_SOCKETS: dict[str, int] = {PLAYER: 8}

MAX_MESSAGE_BYTES = 64 * 1024
BURST = 10
PER_SECOND = 2.0
DROP_LIMIT = 120  # above htmx's outgoing queue (100 messages)
DROPS_FORGIVEN_PER_SECOND = 1.0
# Whole views a page may ask for (a resync, a heartbeat naming another version), per link:
# a seat's, the spectators', a GM account's, over all their sockets and server processes.
# One socket's own message budget (BURST, PER_SECOND) allows as many; the link's sockets
# share it, so opening more sockets buys no more renders. Past it an answer is owed, and
# sent once the budget allows it.
RESYNCS_PER_LINK = (BURST, int(BURST / PER_SECOND))

# Waits for the budget (a test makes time pass by hand).
pause = asyncio.sleep

# What a page shows when its link stops working (the socket closes right after).
GONE = (
    '<div id="flash" class="flash-area" role="status" aria-live="polite" data-testid="flash" '
    'hx-swap-oob="true"><p class="flash error" data-testid="link-gone">This link no longer '
    "works: the GM revoked it or made a new one. Ask the GM for the new link.</p></div>"
)


LOGGED_OUT_NOTICE = (
    '<div id="flash" class="flash-area" role="status" aria-live="polite" data-testid="flash" '
    'hx-swap-oob="true"><p class="flash error" data-testid="logged-out">You are logged out '
    "or your password was changed, so this page stopped updating. Reload it (and log in again "
    "if asked) to go on."
    "</p></div>"
)


def _notice(testid: str, text: str) -> str:
    """The flash region with one error sentence, swapped in before the socket closes."""
    return (
        '<div id="flash" class="flash-area" role="status" aria-live="polite" '
        f'data-testid="flash" hx-swap-oob="true"><p class="flash error" data-testid="{testid}">'
        f"{text}</p></div>"
    )


ENCOUNTER_GONE = _notice(
    "encounter-gone",
    "This encounter is no longer yours or no longer exists, so this page stopped updating.",
)


def crowded_reason(who: str, cap: int) -> str:
    """Why a socket was turned away (at most 123 bytes: it is also the close reason)."""
    return (
        f"This {who} is open on too many screens ({cap}): close one. "
        "This page tries again in a minute."
    )


def address_crowded_reason(cap: int) -> str:
    """Why a spectator socket was turned away for its address (at most 123 bytes)."""
    return (
        f"This device or network already shows this table on {cap} screens: close one. "
        "This page tries again in a minute."
    )


def client_address(scope: dict[str, Any]) -> str:
    """The client's address as the server tells it: what Django's requests call REMOTE_ADDR,
    which the rate limits count by (behind a proxy, daphne's --proxy-headers puts the
    client's own address there; a header the client sends itself is never read here).
    "" when the server does not say (then the cap per address does not apply)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


TOO_BIG_NOTICE = _notice(
    "socket-too-big",
    f"This page sent a message larger than {MAX_MESSAGE_BYTES // 1024} KiB, so the server "
    "closed its connection. Reload the page to reconnect.",
)
TOO_MANY_NOTICE = _notice(
    "socket-too-many",
    "This page sent too many messages too quickly, so the server closed its connection. "
    "Reload the page to reconnect.",
)


class TokenBucket:
    """At most `burst` messages at once, then `per_second` on average."""

    def __init__(
        self,
        burst: int = BURST,
        per_second: float = PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = float(burst)
        self.per_second = per_second
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> bool:
        """Spend one token if there is one; False means "too many"."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def page_version(scope: dict[str, Any]) -> int | None:
    """The version the page that opened the socket shows (`?v=` on its address), if any."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    value = (query.get("v") or [""])[0]
    return int(value) if value.isdigit() and len(value) < 12 else None


class TableConsumer(AsyncWebsocketConsumer):
    role: str = ""
    # Pushes reach a socket through its process's listener per group (combat/fanout.py),
    # never through a channel of its own: an alias with no layer behind it makes Channels
    # skip that channel (no queue, no waiting receive task, no Redis subscription per
    # socket). `channel_name` is then only this socket's name, for presence.
    channel_layer_alias = "no-channel-per-socket"

    viewer: Viewer | None = None
    token: str | None = None
    version: int = 0
    group: str = ""
    gone: bool = False  # the link died (or the page misbehaved): nothing more is sent
    held: list[dict[str, Any]] | None = None  # pushes waiting while missed frames are sent
    owed: asyncio.Task[None] | None = None  # a whole view asked for, waiting for the budget
    checking: asyncio.Task[None] | None = None
    cred: str = ""
    gm_cred: str = ""  # the GM's frames' credential (broadcast.gm_secret), set when the GM connects
    session_key: str | None = None
    logged_out: bool = False  # why the last re-check failed, for the GM's notice
    groups_joined: list[str] = []  # besides `group` (the GM's account group)
    joined: bool = False  # admitted: in the list of who is connected and its groups
    bucket: TokenBucket | None = None
    strikes: TokenBucket | None = None

    watchdog: asyncio.Task[None] | None = None
    heard: float = 0.0  # when the browser last sent anything (time.monotonic)

    async def dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") == "websocket.receive":
            self.heard = time.monotonic()  # a message dropped unread still says "here"
        # Before Channels' dispatch, which hops to the database thread for every event:
        # a flood is turned away here at the cost of a subtraction.
        if message.get("type") == "websocket.receive" and not await self.admit(message):
            return
        await super().dispatch(message)

    async def admit(self, message: dict[str, Any]) -> bool:
        """May this message from the browser be handled? Refuse (and close) if not."""
        if self.gone:
            return False
        raw = message.get("bytes")
        size = len(raw) if raw is not None else len((message.get("text") or "").encode())
        if size > MAX_MESSAGE_BYTES:
            await self.refuse(TOO_BIG_NOTICE, TOO_BIG)
            return False
        if self.bucket is None or self.strikes is None:
            self.bucket = TokenBucket()
            self.strikes = TokenBucket(DROP_LIMIT, DROPS_FORGIVEN_PER_SECOND)
        if self.bucket.take():
            return True
        if not self.strikes.take():
            await self.refuse(TOO_MANY_NOTICE, TOO_MANY)
        return False

    # --- lifecycle ---------------------------------------------------------------------
    async def connect(self) -> None:
        self.channel_name = f"socket.{uuid.uuid4().hex}"
        kwargs = self.scope["url_route"]["kwargs"]
        self.token = kwargs.get("token")
        self.viewer = await database_sync_to_async(self.authenticate)(kwargs)
        if self.viewer is None:
            await self.close(code=REFUSED)
            return
        self.group = broadcast.group_for(self.viewer)
        if self.role == GM:
            assert self.viewer.user_id is not None
            self.groups_joined = [broadcast.user_group(self.viewer.user_id)]
        self.cred = self.gm_cred if self.role == GM else broadcast.credential(self.token)
        # Counted and written in one step before anything else: a socket its link has no
        # room for never joins a group or the list of who is connected, so the GM hears
        # nothing of it, and sockets opened at once cannot all count each other out.
        refused = await database_sync_to_async(presence.admit)(
            self.viewer,
            self.channel_name,
            MAX_SOCKETS.get(self.role),
            address=client_address(self.scope),
            per_address=settings.VTT_SPECTATORS_PER_ADDRESS,
        )
        self.joined = refused is None
        await self.accept()
        if refused is not None:
            await self.crowded(refused)
            return
        # One listener per group and process hands pushes to this socket (combat/fanout.py).
        await fanout.join(self.group, self)
        for group in self.groups_joined:
            await fanout.join(group, self)
        # A page names the version it was rendered at (`?v=`): it gets what it missed since
        # from the history, not the whole view it already shows. Either way the link is
        # checked again now that the socket is in its group: a link replaced between the
        # check above and joining (whose close this socket missed) gets nothing but the
        # notice that it no longer works.
        await self.send_first(page_version(self.scope))
        if self.gone:
            return
        await database_sync_to_async(broadcast.publish_presence)(self.viewer.encounter_id)
        self.heard = time.monotonic()
        if settings.PRESENCE_TIMEOUT_SECONDS:
            self.watchdog = asyncio.get_running_loop().create_task(
                self.watch(float(settings.PRESENCE_TIMEOUT_SECONDS))
            )

    async def watch(self, timeout: float) -> None:
        """Drop this socket from the GM's list, and close it, once it has been silent for
        `timeout` seconds: the page's heartbeats stopped (offline, asleep, gone)."""
        assert self.viewer is not None
        while not self.gone:
            wait = self.heard + timeout - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self.gone = True
            # Now, not when the close handshake ends: a vanished phone never answers it.
            await database_sync_to_async(presence.leave)(self.channel_name)
            await database_sync_to_async(broadcast.publish_presence)(self.viewer.encounter_id)
            await self.close(code=SILENT)
            return

    def authenticate(self, kwargs: dict[str, Any]) -> Viewer | None:
        if self.role == GM:
            user = self.scope.get("user")
            if not getattr(user, "is_authenticated", False):
                return None
            enc = Encounter.objects.filter(pk=kwargs["encounter_id"], owner_id=user.pk).first()
            self.gm_cred = broadcast.credential(broadcast.gm_secret(enc)) if enc else ""
            session = self.scope.get("session")
            self.session_key = getattr(session, "session_key", None)
            return gm_viewer(enc) if enc else None
        # Not a link of ours at all (PostgreSQL answers a NUL byte with an error, not a miss).
        if not token_shape(self.token):
            return None
        if self.role == PLAYER:
            seat = Seat.objects.filter(token=self.token, revoked=False).first()
            return seat_viewer(seat) if seat else None
        enc = Encounter.objects.filter(spectator_token=self.token).first()
        return spectator_viewer(enc) if enc else None

    async def disconnect(self, code: int) -> None:
        if self.viewer is None or not self.joined:
            return
        for task in (self.watchdog, self.owed):
            if task is not None and not task.done():
                task.cancel()
        await fanout.leave(self.group, self)
        for group in self.groups_joined:
            await fanout.leave(group, self)
        await database_sync_to_async(presence.leave)(self.channel_name)
        await database_sync_to_async(broadcast.publish_presence)(self.viewer.encounter_id)

    # --- from the browser ----------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Heartbeats ({"type": "heartbeat", "version": n}) and resync requests."""
        if self.viewer is None:
            return
        ok = await database_sync_to_async(self.recheck)()
        if not ok:
            await self.link_gone()
            return
        try:
            msg = json.loads(text_data or "{}")
        except (ValueError, RecursionError):  # not JSON, or nested deeper than it decodes
            return
        if not isinstance(msg, dict):
            return
        kind = msg.get("type")
        if kind == "resync":
            shown = msg.get("version")
            if isinstance(shown, int) and not isinstance(shown, bool) and shown >= 0:
                await self.resync_from(shown)
            else:
                await self.whole_view_asked()
        elif kind == "heartbeat":
            try:
                theirs = int(msg.get("version") or 0)
            except (TypeError, ValueError, OverflowError):  # 1e999 decodes to infinity
                theirs = 0
            current = await database_sync_to_async(self.current_version)()
            if theirs > current:
                await self.whole_view_asked()  # a version this encounter never had
            elif theirs < current:
                await self.resync_from(theirs, current)

    async def resync_from(self, shown: int, upto: int = 0) -> None:
        """The frames a page showing version `shown` missed, up to the newest this socket
        was sent (or `upto`, the encounter's version, for a heartbeat), from the history of
        its audience and link (combat/broadcast.py), each as it was pushed, so the page
        applies them in order under the version and gap rule; the whole view, as asked for,
        when the history cannot cover the gap or the audience's byte budget is overdrawn.
        Pushes that arrive meanwhile wait until the missed frames are sent, so none
        overtakes them, and those the answer covered are not sent again."""
        if self.held is not None:
            return  # the page's previous request is being answered
        self.held = []
        upto = max(upto, self.version)
        frames: list[str] | None = None
        try:
            if shown <= upto:
                frames = await sync_to_async(broadcast.frames_since)(
                    self.group, self.cred, shown, upto
                )
            if frames is not None and not fanout.pay(
                self.group, sum(len(html.encode()) for html in frames)
            ):
                frames = None
            for html in frames or []:
                await self.send(text_data=html)
            if frames is not None:
                self.version = upto
        finally:
            held, self.held = self.held, None
            for event in held:
                await self.frame_push(event)
        if frames is None:
            await self.whole_view_asked()

    async def whole_view_asked(self) -> None:
        """Answer the page's request for the whole view now if its link's budget allows,
        else once it does: a page is never left stale, and asking again meanwhile adds
        nothing (it gets the one whole view, as it is when sent)."""
        if self.owed is not None and not self.owed.done():
            return
        limited = await self.spend_resync()
        if limited is None:
            await self.send_whole_view(paid=True)
            return

        async def later(wait: float) -> None:
            while not self.gone:
                await pause(wait)
                refused = await self.spend_resync()
                if refused is None:
                    await self.send_whole_view(paid=True)
                    return
                wait = refused.after

        self.owed = asyncio.get_running_loop().create_task(later(limited.after))

    async def spend_resync(self) -> ratelimit.Limited | None:
        link = f"{self.role}:{self.cred}"
        return await sync_to_async(ratelimit.hit)("resync", link, RESYNCS_PER_LINK, "resyncs")

    async def refuse(self, notice: str, code: int) -> None:
        """Tell the page why, then close; whatever it sends after that is ignored."""
        self.gone = True
        await self.send(text_data=notice)
        await self.close(code=code)

    def recheck(self) -> bool:
        assert self.viewer is not None
        if not still_valid(self.viewer, self.token):
            self.logged_out = False
            return False
        if self.role == GM and not session_still_valid(self.session_key, self.viewer.user_id):
            self.logged_out = True
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

    async def send_first(self, shown: int | None) -> None:
        """The socket's first frames: those the page missed since the version it shows, or
        the whole view (no version given, a gap the history cannot cover, a link gone).
        Pushes that arrive meanwhile wait until these are sent, so none overtakes them."""
        assert self.viewer is not None
        caught_up = None
        if shown is not None:
            self.held = []
            try:
                caught_up = await database_sync_to_async(broadcast.first_frames)(
                    self.viewer, self.token, self.cred, shown
                )
                if caught_up is not None:
                    frames, self.version = caught_up
                    for html in frames:
                        await self.send(text_data=html)
            finally:
                held, self.held = self.held, None
                for event in held:
                    await self.frame_push(event)
        if caught_up is None:
            await self.send_whole_view()

    async def send_whole_view(self, paid: bool = False) -> None:
        """The whole view to this socket. One the page asked for is `paid` from its
        audience's byte budget: sent once the budget is not overdrawn (checked again after
        rendering, as other sockets of the group may have spent it meanwhile)."""
        assert self.viewer is not None
        while not self.gone:
            if paid:
                await fanout.wait_for_budget(self.group)
            view = await database_sync_to_async(broadcast.render_view_checked)(
                self.viewer, self.token
            )
            if view is None:
                await self.link_gone()
                return
            html, version = view
            if version < self.version:
                return  # a newer push reached the page while this one was rendered
            if paid and not fanout.pay(self.group, len(html.encode())):
                continue  # another socket of the group spent the budget meanwhile
            self.version = version
            await self.send(text_data=html)
            return

    # --- from the channel layer ------------------------------------------------------------
    async def frame_push(self, event: dict[str, Any]) -> None:
        if self.gone or event["version"] <= self.version:
            return
        if event.get("cred", self.cred) != self.cred:
            # Rendered for another link of this seat (or spectators): this socket's link was
            # replaced, or it is newer than the frame. Not sent; the database decides which.
            self.check_soon()
            return
        if self.held is not None:
            self.held.append(event)  # after the missed frames being sent (resync_from)
            return
        self.version = event["version"]
        await self.send_pushed(event)

    async def send_pushed(self, event: dict[str, Any]) -> None:
        """Send a frame that every socket of the group in this process gets alike, as the
        ASGI message Channels' `send` would make of it (`base_send`, the server's `send`
        as the consumer was given it): made once per push and process (the group's event is
        this process's own copy, shared by its sockets), its text never encoded here."""
        message = event.get("message")
        if message is None:
            message = event["message"] = {"type": "websocket.send", "text": event["html"]}
        await self.base_send(message)

    async def whole_view_to(
        self, members: list[Any], talk: bool, pay: Callable[[int], bool]
    ) -> int | None:
        """The whole view to each socket of a group that skipped frames for want of budget
        (combat/fanout.py): rendered once per link among them, sent to those it is newer
        for (with `talk`, chat messages were skipped: to those it is not older for), each
        link's paid with `pay` first. The version shown; None if `pay` refused."""
        links: dict[str, list[TableConsumer]] = {}
        for member in members:
            if isinstance(member, TableConsumer) and not member.gone:
                links.setdefault(member.cred, []).append(member)
        shown = 0
        for sockets in links.values():
            first = sockets[0]
            assert first.viewer is not None
            view = await database_sync_to_async(broadcast.render_view_checked)(
                first.viewer, first.token
            )
            if view is None:
                for socket in sockets:
                    await socket.link_gone()
                continue
            html, version = view
            shown = max(shown, version)
            behind = [
                s
                for s in sockets
                if not s.gone and (version > s.version or talk and version == s.version)
            ]
            if not behind:
                continue
            if not pay(len(html.encode())):
                return None
            event: dict[str, Any] = {"type": broadcast.FRAME, "version": version, "html": html}
            for socket in behind:
                socket.version = version
                await socket.send_pushed(event)
        return shown

    async def presence_push(self, event: dict[str, Any]) -> None:
        if self.gone:
            return
        await self.send_pushed(event)

    async def chat_push(self, event: dict[str, Any]) -> None:
        """One chat message, rendered for this socket's audience: like a frame, sent only
        if it was rendered for this socket's own link (a replaced link gets nothing)."""
        if self.gone:
            return
        if event.get("cred", self.cred) != self.cred:
            self.check_soon()
            return
        await self.send_pushed(event)

    async def socket_close(self, event: dict[str, Any]) -> None:
        # Sent when a seat is revoked or a link replaced: check, then go.
        if self.gone:
            return
        ok = await database_sync_to_async(self.recheck)()
        if not ok:
            await self.link_gone()

    async def crowded(self, refused: presence.Crowded) -> None:
        """Tell a socket its link (or its address) had no room for it (it joined nothing),
        then close it with 4409 and the same sentence as the reason, which the page shows."""
        if refused.why == presence.Crowded.ADDRESS:
            reason = address_crowded_reason(refused.cap)
        else:
            who = "player link" if self.role == PLAYER else "spectator link"
            reason = crowded_reason(who, refused.cap)
        self.gone = True
        await self.send(text_data=_notice("socket-crowded", reason))
        await self.close(code=CROWDED, reason=reason)

    def check_soon(self) -> None:
        """Re-check this socket's link in a task of its own (pushes are handed out in line)."""
        if self.checking is not None and not self.checking.done():
            return
        self.checking = asyncio.get_running_loop().create_task(self.socket_close({}))

    async def link_gone(self) -> None:
        """The link (or the GM's log-in) stopped working: say so in words, then close with
        4403 (4401 for a log-in that ended)."""
        if self.gone:
            return
        self.gone = True
        if self.role == GM:
            if self.logged_out:
                await self.send(text_data=LOGGED_OUT_NOTICE)
                await self.close(code=LOGGED_OUT)
            else:
                await self.send(text_data=ENCOUNTER_GONE)
                await self.close(code=REFUSED)
            return
        await self.send(text_data=GONE)
        await self.close(code=REFUSED)


class GmConsumer(TableConsumer):
    role = GM


class PlayerConsumer(TableConsumer):
    role = PLAYER


class SpectatorConsumer(TableConsumer):
    role = SPECTATOR
