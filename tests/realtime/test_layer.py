"""The embedded channel layer (vtt/layers.py): Channels' in-memory contract, work only where due.

A group message reaches every member in order, each its own copy; a full queue drops for
that member only (and says so nowhere, as in Channels); a message expires `expiry` seconds
after it was sent, and a channel whose message expired unread leaves its groups. What one
send or receive does touches that channel (or group) only, so a process with two thousand
listeners pays for one per push, not for all of them.
"""

from __future__ import annotations

import asyncio

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
    # A channel that left a group gets nothing more from it.
    await layer.group_discard("enc.1.public", b)
    await layer.group_send("enc.1.public", {"type": "frame.push", "version": 6})
    assert (await layer.receive(a))["version"] == 6
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(b), 0.01)


async def test_a_waiting_listener_gets_what_is_sent_later_and_two_share_a_channel():
    layer = InMemoryChannelLayer()
    ch = await layer.new_channel("hub.")
    first, second = (asyncio.create_task(layer.receive(ch)) for _ in range(2))
    await asyncio.sleep(0)  # both are waiting now
    await layer.send(ch, {"type": "t", "n": 1})
    await layer.send(ch, {"type": "t", "n": 2})
    got = sorted(m["n"] for m in await asyncio.gather(first, second))
    assert got == [1, 2], "each message went to one receiver"
    # A receiver that gives up leaves nothing behind that would swallow the next message.
    gave_up = asyncio.create_task(layer.receive(ch))
    await asyncio.sleep(0)
    gave_up.cancel()
    await layer.send(ch, {"type": "t", "n": 3})
    assert (await layer.receive(ch))["n"] == 3


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


async def test_an_expired_message_is_gone_and_its_channel_leaves_its_groups(
    monkeypatch: pytest.MonkeyPatch,
):
    clock = [1000.0]
    monkeypatch.setattr(layers, "clock", lambda: clock[0])
    layer = InMemoryChannelLayer(expiry=60)
    stale, fresh = await layer.new_channel("hub."), await layer.new_channel("hub.")
    for ch in (stale, fresh):
        await layer.group_add("g", ch)
    await layer.send(stale, {"type": "t", "n": "old"})
    clock[0] += 61  # nobody read it within a minute
    await layer.group_send("g", {"type": "t", "n": "new"})
    assert (await layer.receive(fresh))["n"] == "new"
    assert stale not in layer.groups["g"], "a channel nobody reads stays in its group"
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(stale), 0.01)  # the old message is gone too


async def test_a_send_touches_only_its_own_channel(monkeypatch: pytest.MonkeyPatch):
    """Two thousand listeners with unread expired messages: a push to another group leaves
    them as they are (each is dealt with when its own channel is used)."""
    clock = [1000.0]
    monkeypatch.setattr(layers, "clock", lambda: clock[0])
    layer = InMemoryChannelLayer(expiry=60)
    idle = [await layer.new_channel("hub.") for _ in range(2000)]
    for n, ch in enumerate(idle):
        await layer.group_add(f"enc.{n}.gm", ch)
        await layer.send(ch, {"type": "t"})
    clock[0] += 61
    busy = await layer.new_channel("hub.")
    await layer.group_add("enc.busy.gm", busy)
    await layer.group_send("enc.busy.gm", {"type": "t", "n": 1})
    assert (await layer.receive(busy))["n"] == 1
    assert all(layer.groups[f"enc.{n}.gm"] for n in range(2000)), "other groups were swept"
    await layer.group_send("enc.7.gm", {"type": "t"})  # its own turn: swept now
    assert "enc.7.gm" not in layer.groups
