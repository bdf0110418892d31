"""A phone that goes offline leaves the GM's list of who is connected, and comes back.

Its socket may stay open on the server, silent: only the missing heartbeats tell. The
server here says so after 3 s without a word (a heartbeat every second), so the test
waits seconds, not the 45 s of the default figures (a heartbeat every 15 s, dropped after
40 s), which tests/realtime/test_presence_timeout.py checks as configured on the page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import serving

HEARTBEAT_SECONDS = 1
PRESENCE_TIMEOUT_SECONDS = 3


@pytest.fixture(scope="module")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A server of this module's own, with short heartbeats (the browsers use it)."""
    with serving(
        django_db_blocker,
        HEARTBEAT_SECONDS=HEARTBEAT_SECONDS,
        PRESENCE_TIMEOUT_SECONDS=PRESENCE_TIMEOUT_SECONDS,
    ) as url:
        yield url


def test_a_phone_gone_offline_leaves_the_gm_list_and_comes_back(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    people.gm.page.get_by_test_id("start-combat").click()
    seat = people.gm.page.get_by_test_id(f"presence-seat-{t.seat1.pk}")
    expect(seat).to_contain_text("Player 1 connected")

    people.p1.context.set_offline(True)
    offline_at = time.monotonic()
    expect(seat).to_contain_text("Player 1 not connected")
    took = time.monotonic() - offline_at
    # Its last heartbeat was at most one interval before it went; then the timeout.
    assert took <= HEARTBEAT_SECONDS + PRESENCE_TIMEOUT_SECONDS + 2, took
    # The other player's page, still heartbeating, stays on the list.
    expect(people.gm.page.get_by_test_id(f"presence-seat-{t.seat2.pk}")).to_contain_text(
        "Player 2 connected"
    )

    people.p1.context.set_offline(False)
    expect(seat).to_contain_text("Player 1 connected")
    expect(people.p1.page.get_by_test_id("connection")).to_contain_text("Back")
