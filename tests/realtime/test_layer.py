"""The embedded channel layer: Channels' in-memory layer with its expiry sweep once a second.

A group message reaches every member in order, a full queue still drops (and says so
nowhere, as in Channels), and an expired message is still gone, a second late at worst.
"""

from __future__ import annotations

import pytest

from vtt import layers
from vtt.layers import InMemoryChannelLayer


async def test_a_group_message_reaches_every_member_in_order():
    layer = InMemoryChannelLayer(capacity=10)
    a, b = await layer.new_channel("hub."), await layer.new_channel("hub.")
    for ch in (a, b):
        await layer.group_add("enc.1.public", ch)
    await layer.group_add("enc.2.public", a)
    for n in range(3):
        await layer.group_send("enc.1.public", {"type": "frame.push", "version": n})
    await layer.group_send("enc.2.public", {"type": "frame.push", "version": 99})
    got_a = [(await layer.receive(a))["version"] for _ in range(4)]
    got_b = [(await layer.receive(b))["version"] for _ in range(3)]
    assert got_a == [0, 1, 2, 99] and got_b == [0, 1, 2]
    # Each member has its own copy, as in Channels.
    await layer.group_send("enc.1.public", {"type": "frame.push", "version": 5, "x": []})
    one, two = await layer.receive(a), await layer.receive(b)
    assert one == two and one is not two


async def test_a_full_queue_drops_the_message_for_that_member_only():
    layer = InMemoryChannelLayer(capacity=2)
    full, free = await layer.new_channel("hub."), await layer.new_channel("hub.")
    await layer.group_add("g", full)
    for n in range(2):
        await layer.send(full, {"type": "t", "n": n})
    await layer.group_add("g", free)
    await layer.group_send("g", {"type": "t", "n": 2})
    assert [(await layer.receive(full))["n"] for _ in range(2)] == [0, 1]
    assert (await layer.receive(free))["n"] == 2


async def test_expired_messages_are_swept_at_most_once_a_second(monkeypatch: pytest.MonkeyPatch):
    clock = [1000.0]
    monkeypatch.setattr(layers.time, "monotonic", lambda: clock[0])
    layer = InMemoryChannelLayer(expiry=60)
    stale, fresh = await layer.new_channel("hub."), await layer.new_channel("hub.")
    await layer.group_add("g", stale)
    await layer.send(stale, {"type": "t", "n": "old"})
    # The message is past its expiry (its own clock is wall time): the next sweep drops it
    # and the channel with it, and sweeps are a second apart.
    layer.channels[stale]._queue[0] = (0.0, layer.channels[stale]._queue[0][1])
    await layer.group_send("g", {"type": "t", "n": 1})  # the first sweep: dropped
    assert stale not in layer.channels and stale not in layer.groups.get("g", {})
    await layer.group_add("g", stale)
    await layer.send(stale, {"type": "t", "n": "old again"})
    layer.channels[stale]._queue[0] = (0.0, layer.channels[stale]._queue[0][1])
    await layer.send(fresh, {"type": "t", "n": "kept"})
    await layer.group_send("g", {"type": "t", "n": 2})  # within the second: no sweep yet
    assert stale in layer.channels
    clock[0] += layers.SWEEP_EVERY
    assert (await layer.receive(fresh))["n"] == "kept"  # a receive sweeps again
    assert stale not in layer.groups.get("g", {})
