"""A page whose heartbeat stops leaves the GM's list of who is connected (issue 12, item 2).

A phone that goes offline leaves its socket open but silent: nothing tells the server it
is gone. Each socket closes itself after PRESENCE_TIMEOUT_SECONDS without a word from its
page and tells the GM at once. These tests shorten the interval to a second; the default
figures (a heartbeat every 15 s, dropped after 40 s, so within 45 s) are checked as
configured, on the page the browser gets.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client

from combat import consumers, presence

from ..markers import is_whole_view
from .conftest import Table, gm_socket, player_socket

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 3
SHORT = 1  # seconds a socket may stay silent in these tests


@pytest.fixture
def short_timeout(settings):
    settings.HEARTBEAT_SECONDS = 0.3
    settings.PRESENCE_TIMEOUT_SECONDS = SHORT


async def connect(comm) -> str:
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return await comm.receive_from(timeout=TIMEOUT)


def version_of(frame: str) -> int:
    return int(re.findall(r'data-version="(\d+)"', frame)[0])


async def heartbeats(comm, version: int, stop: asyncio.Event) -> None:
    """What a live page does: say "still here, at this version" every 0.3 s."""
    while not stop.is_set():
        await comm.send_to(text_data=json.dumps({"type": "heartbeat", "version": version}))
        await asyncio.sleep(0.3)


def seat_line(frame: str, table: Table) -> str:
    found = re.search(rf'data-testid="presence-seat-{table.seat1.pk}">(.*?)</li>', frame, re.S)
    assert found, frame[:400]
    return found.group(1)


async def until_seat(gm, table: Table, says: str, within: float) -> None:
    """Read the GM's frames until the presence list says `says` of Player 1."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        frame = await gm.receive_from(timeout=left)
        if 'id="presence"' in frame and says in seat_line(frame, table):
            return
    raise AssertionError(f"the GM was never told {says!r}")


async def test_a_silent_page_drops_from_the_gm_list(table: Table, short_timeout):
    gm = gm_socket(table)
    version = version_of(await connect(gm))
    stop = asyncio.Event()
    beating = asyncio.create_task(heartbeats(gm, version, stop))
    try:
        p1 = player_socket(table.seat1.token)
        await connect(p1)  # and then says nothing, like a phone that went offline
        await until_seat(gm, table, "Player 1 connected", TIMEOUT)
        silent_since = time.monotonic()
        await until_seat(gm, table, "Player 1 not connected", SHORT + TIMEOUT)
        took = time.monotonic() - silent_since
        assert SHORT - 0.2 <= took <= SHORT + 1.5, took
        print(f"\nsilent for {SHORT} s allowed: the GM told after {took * 1000:.0f} ms")
        # The silent socket is closed with a code the page reconnects on.
        closed = await p1.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": consumers.SILENT}
        rows = await database_sync_to_async(presence.rows)(table.enc.pk)
        assert ("player", table.seat1.pk) not in rows
        assert ("gm", None) in rows  # the GM kept talking and stayed
    finally:
        stop.set()
        await beating
        await gm.disconnect()


async def test_a_page_that_keeps_its_heartbeat_stays(table: Table, short_timeout):
    gm = gm_socket(table)
    version = version_of(await connect(gm))
    p1 = player_socket(table.seat1.token)
    await connect(p1)
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(heartbeats(gm, version, stop)),
        asyncio.create_task(heartbeats(p1, version, stop)),
    ]
    try:
        # Player 2's page opens after Player 1's and says nothing. Once the server has
        # dropped it, Player 1's page has been open longer than a silent page may stay:
        # only its heartbeats can have kept it.
        p2 = player_socket(table.seat2.token)
        await connect(p2)
        closed = await p2.receive_output(timeout=SHORT + TIMEOUT)
        assert closed == {"type": "websocket.close", "code": consumers.SILENT}
        # Player 1's socket is open and was sent nothing: the first thing it gets is the
        # answer to a resync asked now.
        await p1.send_to(text_data=json.dumps({"type": "resync"}))
        answer = await p1.receive_output(timeout=TIMEOUT)
        assert answer["type"] == "websocket.send", answer
        assert is_whole_view(answer["text"])
        rows = await database_sync_to_async(presence.rows)(table.enc.pk)
        assert ("player", table.seat1.pk) in rows
        assert ("player", table.seat2.pk) not in rows
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        await p1.disconnect()
        await gm.disconnect()


def test_by_default_a_page_beats_every_15_s_and_is_dropped_within_45_s(table_sync):
    """The page the browser gets asks for a heartbeat every 15 s, and the server drops a
    socket silent for 40 s: two heartbeats missed, and within the 45 s promised."""
    assert django_settings.HEARTBEAT_SECONDS == 15
    assert 2 * 15 < django_settings.PRESENCE_TIMEOUT_SECONDS <= 45
    page = Client().get(f"/p/{table_sync.seat1.token}/").content.decode()
    assert re.search(r'id="sync"[^>]*hx-trigger="every 15s"', page)


@pytest.fixture
def table_sync(db):
    from .conftest import _build

    return _build()
