"""A lost connection says so (issue 12, item 2).

- Every live page (GM, player, spectator) says "Reconnecting..." within 2 s of going
  offline, and "Back" once the whole view has arrived again, then hides the line; so
  does a page whose socket is closed from the server's end (as by a restart; the close
  is made by Playwright's socket route, in front of the live server, which must keep
  serving the other tests).
- A phone that went offline leaves the GM's list of who is connected
  (test_presence_offline.py).
- A post that fails says so on the page and offers "Send again", which sends the same
  request with the same key: it acts once, whether the first one was lost on the way
  there (the network failed), on the way back (the server acted, the answer was lost),
  or the server answered with an error.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from playwright.sync_api import expect

from combat import services
from combat.access import gm_viewer
from combat.models import LogEntry

from .conftest import Person, action_form, open_person

WITHIN_MS = 2000


def stances(t) -> int:
    return LogEntry.objects.filter(
        encounter_id=t.enc.pk, command__action="defensive_stance"
    ).count()


def stance_button(p: Person, cid: str):
    return action_form(p, cid, "defensive_stance").get_by_test_id(
        f"action-button-{cid}-defensive_stance"
    )


@pytest.fixture
def fight(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    people.gm.page.get_by_test_id("start-combat").click()
    expect(people.p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    return t, people


def test_every_page_says_reconnecting_then_back(fight, tmp_path):
    t, people = fight
    pages = [people.gm, people.p1, people.spectator]
    for p in pages:
        expect(p.page.get_by_test_id("connection")).to_be_hidden()
    for p in pages:
        p.context.set_offline(True)
    lost_at = time.monotonic()
    for p in pages:
        line = p.page.get_by_test_id("connection")
        expect(line, p.name).to_be_visible(timeout=WITHIN_MS)
        expect(line, p.name).to_contain_text("Reconnecting", timeout=WITHIN_MS)
    took = time.monotonic() - lost_at
    assert took < WITHIN_MS / 1000, took
    print(f"\n'Reconnecting' on 3 pages {took * 1000:.0f} ms after going offline")
    # The page no longer claims to be current: what it shows is dimmed.
    assert people.p1.page.evaluate("document.body.classList.contains('connection-lost')")
    people.p1.page.screenshot(path=str(tmp_path / "reconnecting.png"))  # to look at

    # Meanwhile the table moved on (from this process: no push reaches the server's pages,
    # so only catching up on reconnect can show it). In a thread of its own: Playwright's
    # loop runs in this one.
    def hit() -> bool:
        try:
            command = {"type": "damage", "actor": t.goblin, "amount": 3}
            return services.run_command(t.enc.pk, gm_viewer(t.enc), command).ok
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(hit).result(timeout=30)
    for p in pages:
        p.context.set_offline(False)
    online_at = time.monotonic()
    for p in pages:
        line = p.page.get_by_test_id("connection")
        expect(line, p.name).to_contain_text("Back")
        expect(p.hp(t.goblin), p.name).to_contain_text("97")
    back_ms = (time.monotonic() - online_at) * 1000
    print(f"'Back' with the missed change on 3 pages {back_ms:.0f} ms after going online")
    people.p1.page.screenshot(path=str(tmp_path / "back.png"))  # to look at
    assert not people.p1.page.evaluate("document.body.classList.contains('connection-lost')")
    for p in pages:
        expect(p.page.get_by_test_id("connection"), p.name).to_be_hidden(timeout=8000)
        p.assert_no_errors()


def test_a_post_lost_on_the_way_offers_send_again_which_acts_once(fight, tmp_path):
    t, people = fight
    p1 = people.p1
    p1.page.route("**/command/", lambda route: route.abort("internetdisconnected"))
    stance_button(p1, t.ana).click()
    failed = p1.page.get_by_test_id("post-failed")
    expect(failed).to_contain_text("may not have reached the server")
    expect(failed).to_contain_text("\u201cDefensive Stance\u201d may not")
    p1.page.screenshot(path=str(tmp_path / "post-failed.png"))  # to look at
    assert stances(t) == 0
    p1.page.unroute("**/command/")
    failed.get_by_test_id("send-again").click()
    expect(p1.page.get_by_test_id("notice")).to_contain_text("Defensive Stance")
    expect(p1.resource(t.ana, "ap")).to_have_attribute("data-value", "2")
    expect(failed).to_have_count(0)
    assert stances(t) == 1
    p1.errors.clear()  # the aborted request is reported on the console by the browser


def test_send_again_after_a_lost_answer_does_not_act_twice(fight):
    """The server acted, but the answer never came back: sending again is answered with
    the first answer (the same key), and nothing is charged twice."""
    t, people = fight
    p1 = people.p1

    def reach_then_drop(route):
        route.fetch()  # the server gets it, acts, answers...
        route.abort("connectionreset")  # ...and the answer is lost

    p1.page.route("**/command/", reach_then_drop)
    stance_button(p1, t.ana).click()
    failed = p1.page.get_by_test_id("post-failed")
    expect(failed).to_be_visible()
    expect(p1.resource(t.ana, "ap")).to_have_attribute("data-value", "2")  # it did act
    assert stances(t) == 1
    p1.page.unroute("**/command/")
    failed.get_by_test_id("send-again").click()
    notice = p1.page.get_by_test_id("notice")
    expect(notice).to_contain_text("takes a Defensive Stance for 1 AP")
    expect(p1.page.get_by_test_id("refusal")).to_have_count(0)
    p1.wait_for_posts_answered()
    assert stances(t) == 1
    assert t.state()["combatants"][t.ana]["res"]["ap"] == 2
    expect(p1.resource(t.ana, "ap")).to_have_attribute("data-value", "2")
    p1.errors.clear()


def test_a_server_error_offers_send_again(fight):
    t, people = fight
    gm = people.gm
    calls = []

    def fail_once(route):
        calls.append(route.request.post_data)
        route.fulfill(
            status=503,
            body='<p class="flash error" data-testid="refusal" data-code="server_error">Busy.</p>',
        )

    gm.page.route("**/command/", fail_once)
    gm.page.locator("#turn").get_by_test_id(f"end-turn-{t.ana}").click()
    failed = gm.page.get_by_test_id("post-failed")
    expect(failed).to_contain_text("error 503")
    gm.page.unroute("**/command/")
    failed.get_by_test_id("send-again").click()
    expect(people.p1.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    gm.wait_for_posts_answered()
    assert LogEntry.objects.filter(encounter_id=t.enc.pk, command__type="end_turn").count() == 1
    assert "form_key=" in calls[0]  # the key the second send carried too
    gm.errors.clear()


def test_a_socket_the_server_drops_says_reconnecting_then_back(browser, live_server_url, fight):
    """As when the server restarts: the socket is closed from the server's side (1012,
    "service restart"); the page says "Reconnecting..." within 2 s, reconnects by itself,
    and says "Back" when the whole view has come."""
    t, _ = fight
    watcher = open_person(browser, "spectator", "Second screen")
    routes = []

    def through(ws) -> None:
        routes.append(ws)
        ws.connect_to_server()  # everything passes both ways, as without the route

    try:
        watcher.page.route_web_socket("**/ws/**", through)
        watcher.page.goto(f"{live_server_url}/s/{t.enc.spectator_token}/")
        expect(watcher.page.get_by_test_id("status")).to_be_visible()
        deadline = time.monotonic() + 10
        while not routes and time.monotonic() < deadline:
            watcher.page.wait_for_timeout(50)
        assert routes, "the page opened no socket"
        watcher.page.wait_for_timeout(300)  # the whole view is in
        line = watcher.page.get_by_test_id("connection")
        expect(line).to_be_hidden()
        routes[0].close(code=1012, reason="service restart")
        dropped_at = time.monotonic()
        expect(line).to_contain_text("Reconnecting", timeout=WITHIN_MS)
        took = time.monotonic() - dropped_at
        expect(line).to_contain_text("Back")
        back = time.monotonic() - dropped_at
        print(
            f"\nserver-side close: 'Reconnecting' {took * 1000:.0f} ms, 'Back' {back * 1000:.0f} ms"
        )
        assert took < WITHIN_MS / 1000 and len(routes) == 2  # one reconnect
        watcher.assert_no_errors()
    finally:
        watcher.context.close()


def test_a_page_turned_away_from_a_crowded_link_says_why_and_retries_slowly(
    browser, live_server_url, fight
):
    """Issue 36 item 3: a screen past the spectators' link's limit (the GM's setting, 100
    unless changed) is closed with 4409 and a reason; the page shows that reason and tries
    again about once a minute (the page's timers run on Playwright's clock), not twice a
    second."""
    from combat.consumers import CROWDED, crowded_reason
    from combat.models import SPECTATOR_LIMIT_DEFAULT

    t, _ = fight
    watcher = open_person(browser, "spectator", "Screen 21")
    reason = crowded_reason("spectator link", SPECTATOR_LIMIT_DEFAULT)
    routes = []

    def opened(ws) -> None:  # the page's socket opens, with no server behind it
        routes.append(ws)

    try:
        watcher.page.route_web_socket("**/ws/**", opened)
        watcher.page.goto(f"{live_server_url}/s/{t.enc.spectator_token}/")
        deadline = time.monotonic() + 10
        while not routes and time.monotonic() < deadline:
            watcher.page.wait_for_timeout(50)
        assert routes, "the page opened no socket"
        watcher.page.clock.install()  # the page's timers from now on run on the test's clock
        routes[0].close(code=CROWDED, reason=reason)  # as the server turns one away
        line = watcher.page.get_by_test_id("connection")
        expect(line).to_have_text(reason)
        assert "(100)" in reason and "tries again" in reason
        assert len(routes) == 1
        watcher.page.clock.run_for(30_000)  # a fast retry would have come 60 times by now
        assert len(routes) == 1
        watcher.page.clock.run_for(60_000)
        deadline = time.monotonic() + 10
        while len(routes) < 2 and time.monotonic() < deadline:
            watcher.page.wait_for_timeout(50)
        assert len(routes) == 2, "the page never tried again"
        expect(line).to_have_text(reason)
    finally:
        watcher.context.close()
