"""The embedded default's channel layer: Channels' in-memory layer, minus two costs per push.

Channels' layer sweeps every channel and every group membership for expired entries on
each send to a group and on each receive: with fifty tables in a process that is some
four hundred listener channels walked twice for every one of a push's eight messages.
Here the sweep runs at most once a second (a message still expires about 60 s after it
was sent, a second later at worst). And a group message is put on each member's queue in
turn, where Channels makes a task for every member and waits for them all; with one
listener per group and process (combat/fanout.py) a group has one member, and a put never
waits. Nothing else changes: same queues, same capacity, same ChannelFull dropping.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as StockInMemoryChannelLayer

SWEEP_EVERY = 1.0  # seconds


class InMemoryChannelLayer(StockInMemoryChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._swept = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept < SWEEP_EVERY:
            return
        self._swept = now
        super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):  # dropped, as Channels drops it
                await self.send(channel, message)
