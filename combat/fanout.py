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
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# Types whose handlers only write to the socket (no database, no waiting): called in line.
INLINE_TYPES = frozenset({"frame.push", "presence.push"})
# Sockets written to between two turns of the event loop.
YIELD_EVERY = 64


class Member(Protocol):
    channel_name: str


@dataclass
class _Listener:
    channel: str
    task: asyncio.Task[None]
    members: dict[Member, None] = field(default_factory=dict)  # an insertion-ordered set


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
                listener = self.groups[group] = _Listener(channel, task)
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
                await self.deliver(message, list(listener.members))

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


async def join(group: str, member: Member) -> None:
    await hub().join(group, member)


async def leave(group: str, member: Member) -> None:
    await hub().leave(group, member)
