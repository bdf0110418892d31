"""Bytes pushed per audience per second (issue 36 item 7, second half).

A player at the allowed command rate (6 a second) makes every spectator socket and the
seat's own sockets receive a frame per command. The frames of each audience are paid from
a byte budget (combat/fanout.py); past it the changes in between are skipped and the
audience gets one whole view of the newest version once the budget allows. Here the
budget is made small (4 KiB at once, 8 KiB a second; unbudgeted, a spectator socket gets
25 KiB a second here) so a few seconds of rolls overrun it:
each socket receives no more than the budget allows, and every page still ends at the
final version, without a gap its page would have to ask about. Chat messages, and the
whole views pages ask for, are paid from the same budget.

Time is a fake clock, moved by the player's pace and by the budget's own waits.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from combat import broadcast, consumers, fanout, ratelimit, services
from combat.access import PLAYER, SPECTATOR, gm_viewer, seat_viewer
from combat.models import Encounter, Seat
from tests.markers import first_view, is_view, is_whole_view, pushed_so_far

from .sockets import TIMEOUT, build, socket

pytestmark = pytest.mark.django_db(transaction=True)

BURST = 4 * 1024
PER_SECOND = 8 * 1024
COMMANDS_PER_SECOND = 6  # a seat link's allowed rate (VTT_RATE_COMMANDS: 60 in 10 s)
SECONDS = 5
SPECTATORS = 20  # as in the finding: 20 spectator sockets of one link


class FakeClock:
    """The budget's clock: while the player plays it moves at the player's pace, and a
    wait ends when it has moved far enough; once the player stops (`quiet`), time passes
    as a wait asks."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.moved = asyncio.Event()
        self.quiet = False

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.moved.set()
        self.moved = asyncio.Event()

    async def pause(self, seconds: float) -> None:
        until = self.now + seconds
        while self.now < until:
            if self.quiet:
                self.advance(until - self.now)
                return
            await self.moved.wait()


def roll(seat_pk: int, ana: str) -> int:
    seat = Seat.objects.get(pk=seat_pk)
    services.run_command(
        seat.encounter_id, seat_viewer(seat), {"type": "roll", "actor": ana, "dice": "1d6"}
    )
    seat.encounter.refresh_from_db()
    return seat.encounter.version


def versions(frame: str) -> tuple[int, int | None]:
    """The version a frame shows and the one it follows (None: a whole view)."""
    sync = frame[frame.index('id="sync"') - 200 :]
    shown = int(re.search(r'data-version="(\d+)"', sync).group(1))  # type: ignore[union-attr]
    follows = re.search(r'data-prev-version="(\d+)"', sync)
    return shown, int(follows.group(1)) if follows else None


async def frames_until(comm: WebsocketCommunicator, version: int) -> list[str]:
    """The views the socket gets until one shows `version` (each wait bounded)."""
    frames = []
    while True:
        frame = await comm.receive_from(timeout=TIMEOUT)
        if not is_view(frame):
            continue
        frames.append(frame)
        if versions(frame)[0] >= version:
            return frames


@pytest.fixture
def clock(settings, monkeypatch) -> FakeClock:
    """A small budget on a fake clock."""
    settings.VTT_PUSH_BYTES_BURST = BURST
    settings.VTT_PUSH_BYTES_PER_SECOND = PER_SECOND
    settings.VTT_PUSH_CATCH_UP_SECONDS = 1
    clock = FakeClock()
    monkeypatch.setattr(fanout, "clock", clock, raising=False)
    monkeypatch.setattr(fanout, "pause", clock.pause, raising=False)
    return clock


def within_budget(sizes: list[int], seconds: float) -> None:
    """At most the budget: all at once, then its rate over the run, and one message (or
    whole view) past it, which is what overdraws it."""
    bound = BURST + PER_SECOND * seconds + max(sizes)
    assert sum(sizes) <= bound, (sum(sizes), bound, len(sizes))


async def spectator_sockets(t) -> list[WebsocketCommunicator]:
    comms = [socket(f"/ws/s/{t.enc.spectator_token}/") for _ in range(SPECTATORS)]
    for comm in comms:
        assert (await comm.connect(timeout=TIMEOUT))[0]
        await first_view(comm)
    return comms


async def test_a_flood_of_rolls_sends_each_socket_no_more_than_its_budget(clock):
    t, *_ = await build()
    comms = [socket(f"/ws/s/{t.enc.spectator_token}/") for _ in range(SPECTATORS)]
    comms.append(socket(f"/ws/p/{t.seat1.token}/"))
    start, began = t.enc.version, clock.now
    for comm in comms:
        assert (await comm.connect(timeout=TIMEOUT))[0]
        shown, _ = versions(await first_view(comm))
        assert shown == start

    final = start
    for _ in range(COMMANDS_PER_SECOND * SECONDS):
        clock.advance(1 / COMMANDS_PER_SECOND)
        final = await database_sync_to_async(roll)(t.seat1.pk, t.ana)
        await asyncio.sleep(0)  # the listeners hand out the push
    assert final == start + COMMANDS_PER_SECOND * SECONDS
    # The player stops: time passes as the budget waits, and the last catch-up goes out.
    clock.quiet = True
    clock.advance(0)

    for n, comm in enumerate(comms):
        frames = await frames_until(comm, final)
        group = (
            broadcast.group_name(t.enc.pk, SPECTATOR)
            if n < SPECTATORS
            else broadcast.group_name(t.enc.pk, PLAYER, t.seat1.pk)
        )
        frames += [f for f in await pushed_so_far(comm, group) if is_view(f)]
        # The page follows every frame without a gap: each change follows what it shows,
        # and a whole view stands on its own.
        shown = start
        for frame in frames:
            version, follows = versions(frame)
            assert follows is None or follows <= shown < version, (shown, version, follows)
            shown = version
        assert shown == final
        within_budget([len(f.encode()) for f in frames], clock.now - began)
        assert any(is_whole_view(f) for f in frames), "the budget never ran out"
        await comm.disconnect()
    # The pages caught up soon after the player stopped.
    assert clock.now - began < SECONDS + 20, clock.now - began


# --- what the frames' budget did not pay for before: chat, and whole views asked for -------

CHAT_PER_SECOND = 40  # many speakers, each within their own chat limit
CHAT_SECONDS = 3


def say(enc_pk: int, text: str) -> None:
    enc = Encounter.objects.get(pk=enc_pk)
    services.post_chat(gm_viewer(enc), text, [])


async def test_a_flood_of_chat_sends_each_spectator_socket_no_more_than_its_budget(clock):
    """Chat messages to the spectators are paid from their byte budget: past it they are not
    sent one by one, and the whole view that follows (which carries the latest messages)
    ends every page at the last word (before: every message went out, budget or not)."""
    t, *_ = await build()
    await database_sync_to_async(services.set_chat_spectators)(t.enc.pk, True)
    comms = await spectator_sockets(t)
    began = clock.now
    count = CHAT_PER_SECOND * CHAT_SECONDS
    for n in range(count):
        clock.advance(1 / CHAT_PER_SECOND)
        last = f"Word {n} of the flood " + "x" * 460
        await database_sync_to_async(say)(t.enc.pk, last)
        await asyncio.sleep(0)
    clock.quiet = True
    clock.advance(0)
    group = broadcast.group_name(t.enc.pk, SPECTATOR)
    for comm in comms:
        received = []
        while not received or f"Word {count - 1} of" not in received[-1]:
            received.append(await comm.receive_from(timeout=TIMEOUT))
        received += await pushed_so_far(comm, group)
        # (The markers the sockets before this one were sent to read what they had are not
        # the table's.)
        received = [m for m in received if not m.startswith("<!-- marker")]
        within_budget([len(m.encode()) for m in received], clock.now - began)
        assert any(is_whole_view(m) for m in received), "the budget never ran out"
        await comm.disconnect()


async def test_whole_views_asked_for_are_paid_from_the_budget(clock, monkeypatch):
    """20 spectator sockets each send a heartbeat naming version 0: every one gets its
    whole view, but the link's sockets together get no more bytes than the budget allows
    (before: 10 at once and 10 more once the resync limit allowed, whatever their size)."""
    monkeypatch.setattr(ratelimit, "clock", clock)
    monkeypatch.setattr(consumers, "pause", clock.pause, raising=False)
    clock.quiet = True
    t, *_ = await build()
    comms = await spectator_sockets(t)
    began = clock.now
    for comm in comms:
        await comm.send_to(text_data=json.dumps({"type": "heartbeat", "version": 0}))
    sizes = []
    for comm in comms:
        view = await comm.receive_from(timeout=TIMEOUT)
        assert is_whole_view(view)
        sizes.append(len(view.encode()))
    within_budget(sizes, clock.now - began)
    for comm in comms:
        await comm.disconnect()
