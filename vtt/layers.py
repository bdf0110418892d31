"""The embedded default's channel layer: in memory, one process, each step as cheap as one channel.

Channels' own in-memory layer sweeps every channel and every group membership for expired
entries on each send to a group and on each receive: with fifty tables in a process that is
some four hundred listener channels walked twice for every one of a push's eight messages,
and with two hundred tables some eighteen hundred. This layer keeps Channels' channel layer
contract (the `BaseChannelLayer` API, its name checks and capacities; the groups and flush
extensions) and does the same work only where it is due: a channel's expired messages are
dropped when that channel is sent to or received from, and a group's lapsed memberships when
that group is sent to. As in Channels, a message expires `expiry` seconds after it was sent,
a channel whose message expired unread leaves every group (nobody is reading it), a full
channel drops what is sent to it (ChannelFull, which a group send swallows), and each
receiver gets its own copy of a message. A group message is put on each member's queue in
turn, without a task per member: with one listener per group and process
(combat/fanout.py) a group has one member here.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import string
import time
from collections import deque
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer

# When messages expire and memberships lapse: wall time, as in Channels (a test sets it).
clock = time.time


class _Inbox:
    """One channel's messages (each with the time it expires) and who waits for one."""

    __slots__ = ("messages", "waiters")

    def __init__(self) -> None:
        self.messages: deque[tuple[float, dict[str, Any]]] = deque()
        self.waiters: deque[asyncio.Future[None]] = deque()

    def wake_one(self) -> None:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


class InMemoryChannelLayer(BaseChannelLayer):
    extensions = ["groups", "flush"]

    def __init__(
        self,
        expiry: int = 60,
        group_expiry: int = 86400,
        capacity: int = 100,
        channel_capacity: dict[str, int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            expiry=expiry, capacity=capacity, channel_capacity=channel_capacity, **kwargs
        )
        self.group_expiry = group_expiry
        self.inboxes: dict[str, _Inbox] = {}
        self.groups: dict[str, dict[str, float]] = {}  # group -> {channel: when it joined}
        self.joined: dict[str, set[str]] = {}  # channel -> its groups

    # --- channels ------------------------------------------------------------------------

    def _expire(self, channel: str, inbox: _Inbox) -> None:
        """Drop the channel's expired messages; one that expired unread takes the channel
        out of every group, as in Channels."""
        now = clock()
        expired = False
        while inbox.messages and inbox.messages[0][0] < now:
            inbox.messages.popleft()
            expired = True
        if expired:
            for group in self.joined.pop(channel, set()):
                self._discard(group, channel)

    def _forget_if_idle(self, channel: str, inbox: _Inbox) -> None:
        if not inbox.messages and not inbox.waiters and self.inboxes.get(channel) is inbox:
            del self.inboxes[channel]

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        inbox = self.inboxes.get(channel)
        if inbox is None:
            inbox = self.inboxes[channel] = _Inbox()
        else:
            self._expire(channel, inbox)
        if len(inbox.messages) >= self.get_capacity(channel):
            raise ChannelFull(channel)
        inbox.messages.append((clock() + self.expiry, deepcopy(message)))
        inbox.wake_one()

    async def receive(self, channel: str) -> dict[str, Any]:
        """The first message that arrives on the channel (one waiting receiver gets it)."""
        self.require_valid_channel_name(channel)
        inbox = self.inboxes.get(channel)
        if inbox is None:
            inbox = self.inboxes[channel] = _Inbox()
        while True:
            self._expire(channel, inbox)
            if inbox.messages:
                _, message = inbox.messages.popleft()
                if inbox.messages:
                    inbox.wake_one()  # another receiver may take the next one
                self._forget_if_idle(channel, inbox)
                return message
            waiter = asyncio.get_running_loop().create_future()
            inbox.waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in inbox.waiters:
                    inbox.waiters.remove(waiter)
                elif inbox.messages:
                    inbox.wake_one()  # it was woken for a message: pass the turn on
                self._forget_if_idle(channel, inbox)
                raise

    async def new_channel(self, prefix: str = "specific.") -> str:
        name = "".join(random.choice(string.ascii_letters) for _ in range(12))
        return f"{prefix}.inmemory!{name}"

    # --- groups --------------------------------------------------------------------------

    def _discard(self, group: str, channel: str) -> None:
        members = self.groups.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                del self.groups[group]

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        self.groups.setdefault(group, {})[channel] = clock()
        self.joined.setdefault(channel, set()).add(group)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_channel_name(channel)
        self.require_valid_group_name(group)
        self._discard(group, channel)
        groups = self.joined.get(channel)
        if groups is not None:
            groups.discard(group)
            if not groups:
                del self.joined[channel]

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        members = self.groups.get(group)
        if not members:
            return
        lapsed = clock() - self.group_expiry
        for channel, joined in list(members.items()):
            if joined < lapsed:
                await self.group_discard(group, channel)
                continue
            inbox = self.inboxes.get(channel)
            if inbox is not None:
                self._expire(channel, inbox)  # a channel nobody reads leaves first
                if channel not in self.groups.get(group, ()):
                    continue
            with contextlib.suppress(ChannelFull):  # dropped for that member, as in Channels
                await self.send(channel, message)

    # --- flush ---------------------------------------------------------------------------

    async def flush(self) -> None:
        self.inboxes = {}
        self.groups = {}
        self.joined = {}

    async def close(self) -> None:
        pass
