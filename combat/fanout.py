"""Pushes reach the sockets of this process through one listener per group, not one per socket.

Stock Channels delivers a group message to every member channel: with N sockets
in a group that is N queue puts, N task wake-ups and N channel-layer receives
per push (on the Redis layers also N deserialisations; on the in-memory layer
each receive also scans every channel and group, which makes it quadratic and
lets messages be dropped at its capacity). Here each process joins a group
once, with a channel of its own for that group, and when a message arrives it
calls the handler of each of its sockets in that group directly, in one loop:
one receive and one deserialisation per process per push. Messages are plain
Channels group messages; the handler is the consumer's method named after the message type, as in
Channels (`frame.push` -> `frame_push`). Frame and presence handlers only
write to their socket and are called one after the other; the handlers of any
other type (a close, which checks the database) run side by side, and all of
them finish before the next message is handed out, so each socket still sees
its messages in the order they were sent.

One hub per event loop (daphne has one per process); a group's listener stops,
and leaves the channel layer's group, when its last socket here leaves.

Bytes per audience. The frames of a budgeted group (the spectators of an encounter, each
seat: `broadcast.budgeted`) are paid from a byte budget per group and process (a token
bucket: VTT_PUSH_BYTES_BURST at once, then VTT_PUSH_BYTES_PER_SECOND). A frame is sent
while the budget is not overdrawn, and its size is then taken from it; once it is
overdrawn the frames after it are not sent (each is a change on top of the one before,
so none is sent until the page has caught up). When the budget allows again, and at most
once every VTT_PUSH_CATCH_UP_SECONDS, the group's sockets get one whole view of the
newest version, rendered once per link, paid from the same budget: the pages end up
right, however many versions they skipped, and a socket never gets more than the budget
a second on average.

Chat messages to a budgeted group are paid from the same budget: past it they are not sent
either, and the next whole view (which carries the reader's latest messages) is sent even
if no version came meanwhile. A whole view one socket asks for (a resync, a heartbeat that
finds its page behind) waits until its group's budget is not overdrawn and is then paid
from it too (`wait_for_budget`, `pay`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from channels.layers import get_channel_layer
from django.conf import settings

from combat import broadcast

log = logging.getLogger(__name__)

# Types whose handlers only write to the socket (no database, no waiting): called in line.
INLINE_TYPES = frozenset({"frame.push", "presence.push"})
# Messages paid from a budgeted group's bytes (see the module's docstring).
BUDGETED_TYPES = frozenset({broadcast.FRAME, broadcast.CHAT})
# Sockets written to between two turns of the event loop.
YIELD_EVERY = 64


# The budget's clock and its wait (a test makes time pass by hand).
clock: Callable[[], float] = time.monotonic
pause = asyncio.sleep


class Member(Protocol):
    channel_name: str


class ByteBudget:
    """Bytes a group may be sent: `burst` at once, then `per_second`. A frame is sent while
    the budget is not overdrawn and its whole size is then taken (it may overdraw it)."""

    def __init__(self, burst: int, per_second: int) -> None:
        self.burst = float(burst)
        self.per_second = float(per_second)
        self.left = float(burst)
        self.stamp = clock()

    def _refill(self) -> None:
        now = clock()
        self.left = min(self.burst, self.left + (now - self.stamp) * self.per_second)
        self.stamp = now

    def allows(self) -> bool:
        self._refill()
        return self.left >= 0

    def spend(self, size: int) -> None:
        self._refill()
        self.left -= size

    def pay(self, size: int) -> bool:
        """Take `size` if the budget is not overdrawn (then send it); else take nothing."""
        if not self.allows():
            return False
        self.left -= size
        return True

    def wait(self) -> float:
        """Seconds until the budget is no longer overdrawn."""
        self._refill()
        return max(0.0, -self.left) / self.per_second


@dataclass
class _Listener:
    channel: str
    task: asyncio.Task[None]
    members: dict[Member, None] = field(default_factory=dict)  # an insertion-ordered set
    budget: ByteBudget | None = None
    behind: int = 0  # the newest version not sent for want of budget (0: none)
    talk_behind: bool = False  # a chat message was not sent for want of budget
    catching_up: asyncio.Task[None] | None = None
    caught_up_at: float = float("-inf")


def _budget(group: str) -> ByteBudget | None:
    if not broadcast.budgeted(group):
        return None
    return ByteBudget(settings.VTT_PUSH_BYTES_BURST, settings.VTT_PUSH_BYTES_PER_SECOND)


def frame_size(message: dict[str, Any]) -> int:
    """The bytes of a pushed frame's text."""
    return len(message.get("html", "").encode())


class Hub:
    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.groups: dict[str, _Listener] = {}
        self.lock = asyncio.Lock()
        self.delivered = 0  # handler calls so far (for tests and profiling)

    async def join(self, group: str, member: Member) -> None:
        async with self.lock:
            listener = self.groups.get(group)
            if listener is None:
                channel = await self.layer.new_channel(prefix="hub.")
                await self.layer.group_add(group, channel)
                task = asyncio.get_running_loop().create_task(self._listen(group, channel))
                listener = self.groups[group] = _Listener(channel, task, budget=_budget(group))
            listener.members[member] = None

    async def leave(self, group: str, member: Member) -> None:
        async with self.lock:
            listener = self.groups.get(group)
            if listener is None or member not in listener.members:
                return
            del listener.members[member]
            if listener.members:
                return
            del self.groups[group]
            listener.task.cancel()
            if listener.catching_up is not None:
                listener.catching_up.cancel()
            await self.layer.group_discard(group, listener.channel)

    async def _listen(self, group: str, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("The push listener of %s could not receive; retrying", group)
                await asyncio.sleep(0.5)
                continue
            listener = self.groups.get(group)
            if listener is not None and listener.members:
                if listener.budget is not None and message.get("type") in BUDGETED_TYPES:
                    await self.deliver_budgeted(group, listener, message)
                else:
                    await self.deliver(message, list(listener.members))

    async def deliver_budgeted(
        self, group: str, listener: _Listener, message: dict[str, Any]
    ) -> None:
        """A frame (or chat message) to a budgeted group: sent if the group is not behind
        and the budget pays for it, else left for the next whole view (see the module's
        docstring). Paid before it is sent: nothing else can spend the same bytes."""
        assert listener.budget is not None
        catching = listener.catching_up is not None and not listener.catching_up.done()
        if (
            listener.behind
            or listener.talk_behind
            or catching
            or not listener.budget.pay(frame_size(message))
        ):
            if message.get("type") == broadcast.CHAT:
                listener.talk_behind = True
            else:
                listener.behind = max(listener.behind, int(message.get("version") or 0))
            if listener.catching_up is None or listener.catching_up.done():
                task = self.catch_up(group, listener)
                listener.catching_up = asyncio.get_running_loop().create_task(task)
            return
        await self.deliver(message, list(listener.members))

    async def catch_up(self, group: str, listener: _Listener) -> None:
        """Once the budget allows, one whole view of the newest version to the group's
        sockets; again while versions (or chat messages) came meanwhile that it did not
        show."""
        assert listener.budget is not None
        every = float(settings.VTT_PUSH_CATCH_UP_SECONDS)
        while (listener.behind or listener.talk_behind) and self.groups.get(group) is listener:
            wait = max(listener.budget.wait(), listener.caught_up_at + every - clock())
            if wait > 0:
                await pause(wait)
                continue
            members = list(listener.members)
            whole_view_to = getattr(members[0], "whole_view_to", None) if members else None
            if whole_view_to is None:
                listener.behind, listener.talk_behind = 0, False
                return
            listener.caught_up_at = clock()
            # Chat messages that come while the view is rendered ask for another round.
            talk, listener.talk_behind = listener.talk_behind, False
            try:
                version = await whole_view_to(members, talk, listener.budget.pay)
            except Exception:
                log.exception("Could not catch %s up", group)
                version = listener.behind
            if version is None:  # the budget was spent while it was rendered: again later
                listener.talk_behind = listener.talk_behind or talk
                continue
            if version >= listener.behind:
                listener.behind = 0

    async def deliver(self, message: dict[str, Any], members: list[Member]) -> None:
        kind = message.get("type", "")
        name = kind.replace(".", "_")
        handlers = [h for h in (getattr(m, name, None) for m in members) if h is not None]
        if kind in INLINE_TYPES:
            for i, handler in enumerate(handlers, 1):
                try:
                    await handler(message)
                except Exception:
                    log.exception("Could not push %s", kind)
                if i % YIELD_EVERY == 0:
                    # Writing to hundreds of sockets takes the loop for tens of ms: let the
                    # answer to the command's POST (and anything else waiting) go out too.
                    await asyncio.sleep(0)
        else:
            # Side by side, but finished before the next message: a socket sees its
            # messages in the order they were sent (a close before the frame after it).
            await asyncio.gather(*(_guarded(h, message) for h in handlers))
        self.delivered += len(handlers)


async def _guarded(handler: Any, message: dict[str, Any]) -> None:
    try:
        await handler(message)
    except Exception:
        log.exception("Could not handle %s", message.get("type"))


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """This event loop's hub (made on first use)."""
    loop = asyncio.get_running_loop()
    layer = get_channel_layer()
    h = _hubs.get(loop)
    if h is None or (h.layer is not layer and not h.groups):
        for old in [lp for lp in _hubs if lp.is_closed()]:
            del _hubs[old]
        h = _hubs[loop] = Hub(layer)
    return h


def _budget_of(group: str) -> ByteBudget | None:
    listener = hub().groups.get(group)
    return None if listener is None else listener.budget


def pay(group: str, size: int) -> bool:
    """Take `size` bytes, about to be sent to one socket of the group, from its budget if it
    is not overdrawn (always, for a group without one); False: send nothing."""
    budget = _budget_of(group)
    return budget is None or budget.pay(size)


async def wait_for_budget(group: str) -> None:
    """Until the group's byte budget is no longer overdrawn (at once if it has none)."""
    while (budget := _budget_of(group)) is not None and (wait := budget.wait()) > 0:
        await pause(wait)


async def join(group: str, member: Member) -> None:
    await hub().join(group, member)


async def leave(group: str, member: Member) -> None:
    await hub().leave(group, member)
