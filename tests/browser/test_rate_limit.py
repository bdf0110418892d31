"""A seat link flooding the table is told, in the page's flash region, how long to wait.

Issue 12 item 8: commands over HTTP are limited per seat (VTT_RATE_COMMANDS, 60 in 10 s
by default). The flood here is what a script in the player's page could send: posts as
fast as the server answers. The player's next roll by hand then gets the 429 sentence
where every refusal appears, and the log gains nothing.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import arrive, open_person

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
        # Fixed windows: a flood that straddles a window's end starts afresh, so flood
        # until refused and roll by hand at once (again, if the window turned meanwhile).
        status = 0
        for _ in range(3):
            sent = p1.page.evaluate(FLOOD, [url, most, t.ana])
            assert sent > 0, "no post of the flood was refused"
            logged = LogEntry.objects.filter(encounter=t.enc).count()
            with p1.page.expect_response(lambda r: r.url.endswith(url)) as answer:
                form.get_by_role("button", name="Roll").click()
            status = answer.value.status
            if status == 429:
                break
        assert status == 429
        expect(flash).to_contain_text("Too many commands in a short time: wait")
        expect(flash.get_by_test_id("refusal")).to_have_attribute("data-code", "rate_limited")
        assert LogEntry.objects.filter(encounter=t.enc).count() == logged
        # The page itself carries on: no reload, its socket still the first one.
        p1.assert_never_reloaded()
    finally:
        p1.context.close()
