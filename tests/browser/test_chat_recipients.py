"""The GM's "To" list follows the seats: a seat made after the console opened can be
whispered to at once, a revoked one leaves the list, and what the GM had chosen stays
chosen (static/js/chat.js, from the pushed list of links)."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import arrive, logged_in_cookie, open_person


def test_the_to_list_follows_seats_made_and_revoked(make_table, browser, live_server_url):
    t = make_table("action_points")
    gm = open_person(browser, "gm", "GM", viewport={"width": 1366, "height": 900})
    try:
        gm.context.add_cookies([logged_in_cookie(t.enc.owner, live_server_url)])
        arrive(gm, f"{live_server_url}/enc/{t.enc.pk}/")
        to = gm.page.get_by_test_id("chat-to")
        to.select_option([str(t.seat1.pk)])

        # Made in another tab of the GM's after this page loaded: it reaches this one by
        # the push alone.
        tab = gm.context.new_page()
        tab.goto(f"{live_server_url}/enc/{t.enc.pk}/")
        tab.get_by_test_id("seat-name").fill("Cass")
        tab.get_by_test_id("seat-create").get_by_role("button", name="Create link").click()
        seat3 = tab.locator("[data-chat-seat]", has_text="Cass")
        expect(seat3).to_have_count(1)
        seat3_id = seat3.get_attribute("data-chat-seat")
        option = to.locator(f"option[value='{seat3_id}']")
        expect(option).to_have_text("Cass")
        expect(to).to_have_values([str(t.seat1.pk)])  # the GM's choice is kept

        # A whisper to the new seat is taken: the server knows it as a recipient.
        to.select_option([str(t.seat1.pk), str(seat3_id)])
        box = gm.page.get_by_test_id("chat-text")
        box.fill("The door creaks behind you")
        expect(gm.page.get_by_test_id("chat-send")).to_be_enabled()
        box.press("Enter")
        expect(gm.page.get_by_test_id("chat-sent")).to_be_visible()
        line = gm.page.locator("#chat-messages li", has_text="The door creaks behind you")
        expect(line.get_by_test_id("chat-whisper")).to_contain_text("Cass")

        # Revoked (from the other tab): gone from the list; the other seats and the GM's
        # choice among them stay.
        tab.get_by_test_id(f"seat-revoke-{seat3_id}").click()
        tab.get_by_test_id(f"seat-revoke-confirm-{seat3_id}").click()
        expect(option).to_have_count(0)
        expect(to.locator("option")).to_have_count(4)  # everyone, the GM, two seats
        expect(to).to_have_values([str(t.seat1.pk)])
        assert not gm.errors, gm.errors
    finally:
        gm.context.close()
