"""Sockets per link and whole views per link (issue 36 items 3 and 6).

- A link takes at most its cap of sockets, counted before a socket joins anything: of 21
  opened at once on the spectators' link (cap 20) exactly 20 get the view and one is
  told why and closed with 4409; the GM hears of the 20, never of the one turned away.
- Asking for the whole view again (a resync, or a heartbeat naming another version) is
  budgeted per link, not per socket: the 20 sockets of one link asking together get no
  more whole views than one socket asking alone, and each one asked is answered when
  the budget allows, never dropped.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from combat import broadcast, consumers, presence, services
from combat.access import GM, spectator_viewer
from tests.markers import before_resync, first_view, is_whole_view, pushed_so_far

from .sockets import TIMEOUT, build, socket

pytestmark = pytest.mark.django_db(transaction=True)


async def outcome(comm: WebsocketCommunicator) -> tuple[str, str]:
    """("admitted", the whole view) or ("refused", what the page was told and the reason)."""
    first = await comm.receive_output(timeout=TIMEOUT)
    assert first["type"] == "websocket.send", first
    text = first.get("text") or ""
    if is_whole_view(text):
        return "admitted", text
    assert 'data-testid="socket-crowded"' in text, text
    close = await comm.receive_output(timeout=TIMEOUT)
    assert close["type"] == "websocket.close", close
    assert close.get("code") == consumers.CROWDED
    return "refused", f"{text}\n{close.get('reason')}"


async def test_21_sockets_opened_at_once_admit_20_and_the_gm_hears_only_of_those(spectator_cap):
    t, gm_cookie, _ = await build()
    await set_limit(t.enc.pk, spectator_cap)
    gm = socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=gm_cookie)
    assert (await gm.connect(timeout=TIMEOUT))[0]
    gm_group = broadcast.group_name(t.enc.pk, GM)
    await first_view(gm)
    await before_resync(gm)  # answered once its connect is done, its own arrival announced
    await pushed_so_far(gm, gm_group)

    path = f"/ws/s/{t.enc.spectator_token}/"
    comms = [socket(path) for _ in range(spectator_cap + 1)]
    opened = await asyncio.gather(*(c.connect(timeout=TIMEOUT) for c in comms))
    assert all(ok for ok, _ in opened)
    outcomes = await asyncio.gather(*(outcome(c) for c in comms))

    assert Counter(kind for kind, _ in outcomes) == {"admitted": spectator_cap, "refused": 1}
    told = next(words for kind, words in outcomes if kind == "refused")
    sentence = f"This spectator link is open on too many screens ({spectator_cap}): close one."
    assert told.count(sentence) == 2, told  # in the page's flash and as the close reason

    # Every socket's connect and disconnect has run once each has been told the socket
    # closed (as daphne tells it): 20 arrivals and 20 departures, nothing for the other.
    for comm in comms:
        await comm.disconnect()
    # A departure's update may reach the group after the marker that follows the last
    # disconnect (on Redis it is sent from a worker thread): read on, within a bound.
    updates: list[str] = []
    deadline = time.monotonic() + 10
    while len(updates) < 2 * spectator_cap and time.monotonic() < deadline:
        frames = await pushed_so_far(gm, gm_group)
        updates += [f for f in frames if 'id="presence"' in f]
    assert len(updates) == 2 * spectator_cap, len(updates)
    assert not any(f"{spectator_cap + 1} spectators" in f for f in updates)
    await gm.disconnect()


@pytest.fixture
def spectator_cap() -> int:
    """The spectators' cap these tests set (the GM's setting; 100 unless changed)."""
    return 20


set_limit = database_sync_to_async(services.set_spectator_limit)


def test_admission_holds_with_connects_on_threads_of_their_own(spectator_cap):
    """21 admissions at once, each on its own thread and database connection (as processes
    would be): exactly the cap are written."""
    from asgiref.sync import async_to_sync

    t, *_ = async_to_sync(build)()
    services.set_spectator_limit(t.enc.pk, spectator_cap)
    viewer = spectator_viewer(t.enc)

    def admit(n: int) -> bool:
        try:
            return presence.admit(viewer, f"socket.thread-{n}", None) is None
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=spectator_cap + 1) as pool:
        admitted = list(pool.map(admit, range(spectator_cap + 1)))
    assert admitted.count(True) == spectator_cap
    assert presence.on_link(viewer) == spectator_cap


# --- whole views per link (item 6) -------------------------------------------------------


class FakeTime:
    """The rate limits' clock, which only moves when a socket waits for its budget."""

    def __init__(self) -> None:
        self.now = 2_000_000.0

    def __call__(self) -> float:
        return self.now


async def spectators(t, n: int) -> list[WebsocketCommunicator]:
    comms = []
    for _ in range(n):
        comm = socket(f"/ws/s/{t.enc.spectator_token}/")
        assert (await comm.connect(timeout=TIMEOUT))[0]
        await first_view(comm)
        comms.append(comm)
    return comms


def whole_views_left(comm: WebsocketCommunicator) -> int:
    """Whole views in what the socket was sent and the test has not read (its consumer has
    finished: nothing more comes)."""
    count = 0
    while not comm.output_queue.empty():
        out = comm.output_queue.get_nowait()
        count += out["type"] == "websocket.send" and is_whole_view(out.get("text") or "")
    return count


async def test_sockets_of_one_link_share_one_budget_of_whole_views(
    monkeypatch, spectator_cap, settings
):
    """20 sockets of the spectators' link each ask 5 times (3 resyncs, 2 heartbeats naming
    another version), the clock standing still: 10 whole views in all (what one socket
    asking 10 times gets), not 100 (before)."""
    from combat import ratelimit

    # The count of whole views is the link's budget of asks alone: the audience's byte
    # budget (whose waits run on real time) is made too large to hold any back here.
    settings.VTT_PUSH_BYTES_BURST = 1 << 30
    monkeypatch.setattr(ratelimit, "clock", FakeTime())
    never = asyncio.Event()

    async def forever(_seconds: float) -> None:
        await never.wait()

    monkeypatch.setattr(consumers, "pause", forever, raising=False)
    t, *_ = await build()
    comms = await spectators(t, spectator_cap)
    asks = [{"type": "resync"}, {"type": "heartbeat", "version": 0}] * 2 + [{"type": "resync"}]
    for comm in comms:
        for ask in asks:
            await comm.send_to(text_data=json.dumps(ask))
    answered = 0
    for comm in comms:
        # Returns once every message before it was handled (its default bound of 1 s would
        # cancel the socket's renders still to come on a loaded machine).
        await comm.disconnect(timeout=TIMEOUT)
        answered += whole_views_left(comm)
    most = getattr(consumers, "RESYNCS_PER_LINK", (consumers.BURST, 0))[0]
    # At most the link's budget; one fewer when a push reached a socket while its whole
    # view was rendered (that view is dropped: the page already has a newer version).
    assert most - 1 <= answered <= most, answered

    # One socket alone, on a link of its own (a seat's), gets as many.
    seat = socket(f"/ws/p/{t.seat1.token}/")
    assert (await seat.connect(timeout=TIMEOUT))[0]
    await first_view(seat)
    for _ in range(consumers.BURST):
        await seat.send_to(text_data=json.dumps({"type": "resync"}))
    await seat.disconnect(timeout=TIMEOUT)
    assert most - 1 <= whole_views_left(seat) <= most


async def test_a_resync_past_the_budget_is_answered_once_it_allows(monkeypatch, spectator_cap):
    """Every socket that asked gets the whole view: those past the budget once the clock
    has moved on far enough (a fake clock, moved by the socket's own wait)."""
    from combat import ratelimit

    clock = FakeTime()
    monkeypatch.setattr(ratelimit, "clock", clock)
    waits: list[float] = []

    async def let_time_pass(seconds: float) -> None:
        waits.append(seconds)
        clock.now += seconds
        await asyncio.sleep(0)

    monkeypatch.setattr(consumers, "pause", let_time_pass, raising=False)
    t, *_ = await build()
    comms = await spectators(t, spectator_cap)
    for comm in comms:
        await comm.send_to(text_data=json.dumps({"type": "resync"}))
    for comm in comms:
        assert is_whole_view(await comm.receive_from(timeout=TIMEOUT))
    assert waits, "some were past the budget"
    for comm in comms:
        await comm.disconnect()
        assert whole_views_left(comm) == 0
