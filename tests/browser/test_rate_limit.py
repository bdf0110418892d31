"""A seat link flooding the table is told, in the page's flash region, how long to wait.

Issue 12 item 8: commands over HTTP are limited per seat (VTT_RATE_COMMANDS, 60 in 10 s
by default). The flood here is what a script in the player's page could send: posts as
fast as the server answers. The player's next roll by hand then gets the 429 sentence
where every refusal appears, and the log gains nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import arrive, open_person, serving

# The server of this module counts a seat's commands over 600 s instead of 10: the counts
# age out slice by slice (a tenth of the span each), so with 10 s a flood that took more
# than a second on a loaded machine had room again by the time the hand click came (three
# tries in a row were answered 200 in a CI run). Over 600 s nothing leaves the span while
# the test runs: the click after a refused flood is refused too.
RATE = (60, 600)


@pytest.fixture(scope="module")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    with serving(django_db_blocker, VTT_RATE_COMMANDS=RATE) as url:
        yield url


FLOOD = """async ([url, most, actor]) => {
  // Twenty posts at a time, as fast as the server takes them, until one is refused.
  const headers = JSON.parse(document.body.getAttribute("hx-headers:inherited"));
  const post = () => fetch(url, {
    method: "POST",
    body: new URLSearchParams({type: "roll", dice: "1d6", actor}),
    headers: {...headers, "HX-Request": "true"},
  });
  for (let sent = 0; sent < 10 * most; sent += 20) {
    const answers = await Promise.all(Array.from({length: 20}, post));
    if (answers.some((r) => r.status === 429)) return sent + 20;
  }
  return -1;
}"""


def test_a_flooding_seat_sees_the_wait_in_the_flash(make_table, browser, live_server_url):
    from django.conf import settings

    from combat.models import LogEntry

    most, _ = settings.VTT_RATE_COMMANDS
    t = make_table("action_points")
    p1 = open_person(browser, "player", "Player 1")
    try:
        arrive(p1, f"{live_server_url}/p/{t.seat1.token}/")
        url = f"/p/{t.seat1.token}/command/"
        flash = p1.page.get_by_test_id("flash")
        p1.page.get_by_text("Roll dice for Ana").click()
        form = p1.page.locator("form:has(input[name='type'][value='roll'])").first
        form.get_by_label("Dice").fill("1d6")
        # Flood until refused, then roll by hand: refused too (see RATE).
        assert most == RATE[0]
        sent = p1.page.evaluate(FLOOD, [url, most, t.ana])
        assert sent > 0, "no post of the flood was refused"
        logged = LogEntry.objects.filter(encounter=t.enc).count()
        with p1.page.expect_response(lambda r: r.url.endswith(url)) as answer:
            form.get_by_role("button", name="Roll").click()
        assert answer.value.status == 429
        expect(flash).to_contain_text("Too many commands in a short time: wait")
        expect(flash.get_by_test_id("refusal")).to_have_attribute("data-code", "rate_limited")
        assert LogEntry.objects.filter(encounter=t.enc).count() == logged
        # The page itself carries on: no reload, its socket still the first one.
        p1.assert_never_reloaded()
    finally:
        p1.context.close()
