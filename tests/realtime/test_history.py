"""A page that missed frames gets exactly those frames back (issue 37, step 3).

Each push keeps, for a short while, the frame it built for each audience and link, under
the version it shows (combat/broadcast.py, "the history of frames"). A page that notices a
gap asks for a resync naming the version it shows (static/js/sync.js); the answer is the
frames it missed, in order, each under the version and gap rule, and the page ends as a
reload shows it. A gap older than the history gets the whole view, as before. A link's
history is its own: a replaced link's frames never reach the new one, nor another seat's.
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import Client

from combat import broadcast, services
from combat.access import gm_viewer
from combat.models import Seat
from tests.markers import TIMEOUT, first_view, is_view, is_whole_view, pushed_so_far
from tests.replay import Page, normalised

from .conftest import Table, player_socket, socket, spectator_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def hit_goblin(t: Table, amount: int = 1) -> None:
    command = {"type": "damage", "actor": t.goblin, "amount": amount}
    result = await database_sync_to_async(services.run_command)(t.enc.pk, gm_viewer(t.enc), command)
    assert result.ok, result.refusal


class Screen:
    """One page as a browser holds it: fetched, its socket connected, frames applied."""

    def __init__(self, url: str, comm, group: str) -> None:
        self.url, self.comm, self.group = url, comm, group
        self.page: Page | None = None

    def fetch(self) -> str:
        response = Client().get(self.url)
        assert response.status_code == 200, response.status_code
        return response.content.decode()

    async def open(self) -> Screen:
        self.page = Page(await database_sync_to_async(self.fetch)())
        connected, _ = await self.comm.connect(timeout=TIMEOUT)
        assert connected
        self.page.apply(await first_view(self.comm))
        return self

    async def pushed(self) -> list[str]:
        return [f for f in await pushed_so_far(self.comm, self.group) if is_view(f)]

    async def resync(self) -> None:
        assert self.page is not None
        shown = self.page.version()
        await self.comm.send_to(text_data=json.dumps({"type": "resync", "version": shown}))

    async def true_to_a_reload(self) -> None:
        assert self.page is not None
        fresh = normalised(await database_sync_to_async(self.fetch)())
        assert normalised(self.page.html) == fresh
        assert self.page.missing == []


def spectators(t: Table) -> Screen:
    token = t.enc.spectator_token
    group = broadcast.group_name(t.enc.pk, "spectator")
    return Screen(f"/s/{token}/", spectator_socket(token), group)


def seat_screen(t: Table, seat: Seat) -> Screen:
    group = broadcast.group_name(t.enc.pk, "player", seat.pk)
    return Screen(f"/p/{seat.token}/", player_socket(seat.token), group)


async def answer(screen: Screen, count: int) -> list[str]:
    """The `count` frames that answer a resync, and proof nothing else came with them."""
    frames = [await screen.comm.receive_from(timeout=TIMEOUT) for _ in range(count)]
    assert await screen.pushed() == []
    return frames


@pytest.mark.parametrize("who", ["spectators", "seat"])
async def test_a_page_that_missed_three_frames_gets_exactly_those(table: Table, who: str):
    screen = spectators(table) if who == "spectators" else seat_screen(table, table.seat1)
    await screen.open()
    assert screen.page is not None
    await hit_goblin(table)
    (first,) = await screen.pushed()
    assert not screen.page.apply(first)
    for _ in range(3):
        await hit_goblin(table)
    lost = await screen.pushed()  # lost on the way: the page never sees them
    assert len(lost) == 3

    await screen.resync()
    frames = await answer(screen, 3)

    assert frames == lost, "the answer is the frames the page missed, as they were pushed"
    assert not any(is_whole_view(f) for f in frames)
    for frame in frames:
        assert not screen.page.apply(frame), "a frame of the answer looked like a gap"
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_a_push_after_a_gap_is_held_back_and_the_page_asks(table: Table):
    """As static/js/sync.js: the push that shows the gap is not applied, the page asks, and
    the answer brings the missed frames and that push again, in order."""
    screen = await spectators(table).open()
    assert screen.page is not None
    for _ in range(2):
        await hit_goblin(table)
    assert len(await screen.pushed()) == 2  # lost
    await hit_goblin(table)
    (after_gap,) = await screen.pushed()
    before = screen.page.html
    assert screen.page.apply(after_gap), "the page asks for what it missed"
    assert screen.page.html == before, "a push after a gap is not applied"

    await screen.resync()
    for frame in await answer(screen, 3):
        assert not screen.page.apply(frame)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_a_gap_older_than_the_history_gets_the_whole_view(table: Table, monkeypatch):
    monkeypatch.setattr(broadcast, "HISTORY_DEPTH", 2)
    screen = await spectators(table).open()
    assert screen.page is not None
    for _ in range(3):
        await hit_goblin(table)
    assert len(await screen.pushed()) == 3  # lost

    await screen.resync()
    whole = await screen.comm.receive_from(timeout=TIMEOUT)

    assert is_whole_view(whole)
    screen.page.apply(whole)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_history_that_expired_gets_the_whole_view(table: Table):
    from django.core.cache import cache

    screen = await spectators(table).open()
    await hit_goblin(table)
    assert len(await screen.pushed()) == 1  # lost
    cache.clear()  # the history's time ran out (or another process's cache restarted)

    await screen.resync()
    assert is_whole_view(await screen.comm.receive_from(timeout=TIMEOUT))
    await screen.comm.disconnect()


async def test_a_replaced_link_never_gets_the_old_links_history(table: Table):
    old = await seat_screen(table, table.seat1).open()
    other = await seat_screen(table, table.seat2).open()
    assert old.page is not None and other.page is not None
    shown = old.page.version()
    await hit_goblin(table)
    old_frames = await old.pushed()
    other_frames = await other.pushed()
    assert len(old_frames) == 1 and len(other_frames) == 1
    assert old_frames != other_frames

    seat = await database_sync_to_async(services.regenerate_seat)(table.enc.pk, table.seat1.pk)
    assert seat is not None
    new = seat_screen(table, seat)
    await new.open()
    # The new link's page asks for what followed a version shown before it existed.
    await new.comm.send_to(text_data=json.dumps({"type": "resync", "version": shown}))
    whole = await new.comm.receive_from(timeout=TIMEOUT)
    assert is_whole_view(whole), "the old link's frames are not the new link's"

    # Another seat asking for the same versions gets its own frames, never seat 1's.
    other_frames += await other.pushed()  # the new link moved the version
    await other.comm.send_to(text_data=json.dumps({"type": "resync", "version": shown}))
    assert await answer(other, len(other_frames)) == other_frames
    for comm in (old.comm, new.comm, other.comm):
        await comm.disconnect()


# --- a page's socket names the version the page shows -----------------------------------------
#
# A page's socket address carries `?v=`, the version the page was rendered at (moved on
# by static/js/sync.js before a reconnect): its first frames are what it missed since, from
# the history, then its #sync form standing alone ("this page is as it is now"), never the
# whole view it already shows, unless the history cannot cover the gap.


async def loaded_page(t: Table) -> tuple[Screen, int]:
    """The spectators' page fetched now, its socket not yet open; and its version."""
    token = t.enc.spectator_token
    screen = Screen(f"/s/{token}/", None, broadcast.group_name(t.enc.pk, "spectator"))
    screen.page = Page(await database_sync_to_async(screen.fetch)())
    shown = screen.page.version()
    assert shown is not None
    return screen, shown


async def connect_at(screen: Screen, t: Table, version: int) -> None:
    screen.comm = socket(f"/ws/s/{t.enc.spectator_token}/?v={version}")
    connected, _ = await screen.comm.connect(timeout=TIMEOUT)
    assert connected


async def test_a_page_that_is_up_to_date_gets_no_second_copy_of_itself(table: Table):
    screen, shown = await loaded_page(table)
    await connect_at(screen, table, shown)
    first = await screen.comm.receive_from(timeout=TIMEOUT)
    assert 'id="sync"' in first and 'id="order"' not in first, "not the whole view again"
    assert f'data-version="{shown}"' in first
    assert screen.page is not None
    screen.page.apply(first)
    assert await screen.pushed() == []
    await screen.true_to_a_reload()
    # The socket is live: the next push arrives and applies.
    await hit_goblin(table)
    (frame,) = await screen.pushed()
    assert not screen.page.apply(frame)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_a_page_whose_socket_opens_late_gets_the_frames_it_missed(table: Table):
    watching = await spectators(table).open()  # sees every push, as the history keeps it
    screen, shown = await loaded_page(table)
    for _ in range(3):
        await hit_goblin(table)
    pushed = await watching.pushed()
    assert len(pushed) == 3

    await connect_at(screen, table, shown)
    frames = [await screen.comm.receive_from(timeout=TIMEOUT) for _ in range(4)]
    assert frames[:3] == pushed, "the frames it missed, as they were pushed"
    assert 'id="order"' not in frames[3] and is_whole_view(frames[3])
    assert screen.page is not None
    for frame in frames:
        assert not screen.page.apply(frame)
    assert await screen.pushed() == []
    await screen.true_to_a_reload()
    for comm in (screen.comm, watching.comm):
        await comm.disconnect()


@pytest.mark.parametrize("case", ["older than the history", "a version never shown"])
async def test_a_page_the_history_cannot_cover_gets_the_whole_view(
    table: Table, monkeypatch, case: str
):
    monkeypatch.setattr(broadcast, "HISTORY_DEPTH", 2)
    screen, shown = await loaded_page(table)
    for _ in range(3):
        await hit_goblin(table)
    await connect_at(screen, table, shown if case == "older than the history" else shown + 99)
    whole = await screen.comm.receive_from(timeout=TIMEOUT)
    assert is_whole_view(whole) and 'id="order"' in whole
    assert screen.page is not None
    screen.page.apply(whole)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


# --- heartbeats (issue 37, step 4: no heartbeat heuristics) --------------------------------


async def heartbeat(screen: Screen) -> None:
    assert screen.page is not None
    shown = screen.page.version()
    await screen.comm.send_to(text_data=json.dumps({"type": "heartbeat", "version": shown}))


async def test_a_heartbeat_behind_gets_the_frames_missed_not_the_whole_view(table: Table):
    """A page whose last frames went astray says so in its next heartbeat (the version it
    shows, static/js/sync.js): the answer is those frames from the history, as a resync's."""
    screen = await spectators(table).open()
    assert screen.page is not None
    for _ in range(2):
        await hit_goblin(table)
    lost = await screen.pushed()  # lost on the way, and no later frame shows the gap
    assert len(lost) == 2

    await heartbeat(screen)
    frames = await answer(screen, 2)

    assert frames == lost and not any(is_whole_view(f) for f in frames)
    for frame in frames:
        assert not screen.page.apply(frame)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_a_push_the_heartbeat_already_brought_is_not_sent_again(table: Table, monkeypatch):
    """A push held up on its way (committed and kept, not yet delivered) when the heartbeat
    comes: the heartbeat's answer brings its frame from the history at once, and the push,
    when it arrives, sends nothing more. No waiting on a clock decides either."""
    screen = await seat_screen(table, table.seat1).open()
    assert screen.page is not None
    shown = screen.page.version()
    held: list[tuple[str, dict]] = []
    monkeypatch.setattr(broadcast, "_send_all", held.extend)
    await hit_goblin(table)
    monkeypatch.undo()
    assert screen.page.version() == shown and len(held) >= 1

    await heartbeat(screen)
    (frame,) = await answer(screen, 1)
    assert not is_whole_view(frame) and not screen.page.apply(frame)
    assert screen.page.version() == shown + 1
    await screen.true_to_a_reload()

    layer = get_channel_layer()
    await broadcast._group_send_each(layer, held)  # the push arrives after all
    assert await screen.pushed() == [], "a frame the page has was sent again"
    await hit_goblin(table)  # and the next push is applied in step
    (after,) = await screen.pushed()
    assert not screen.page.apply(after)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()


async def test_a_heartbeat_the_history_cannot_answer_gets_the_whole_view(table: Table):
    from django.core.cache import cache

    screen = await spectators(table).open()
    assert screen.page is not None
    await hit_goblin(table)
    assert len(await screen.pushed()) == 1  # lost
    cache.clear()  # the history's time ran out

    await heartbeat(screen)
    whole = await screen.comm.receive_from(timeout=TIMEOUT)

    assert is_whole_view(whole)
    screen.page.apply(whole)
    await screen.true_to_a_reload()
    await screen.comm.disconnect()
