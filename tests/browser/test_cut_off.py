"""A link cut off while its page is open (issue 12, items 4 and 6), in real browsers.

Ana's player (seat 1) has the first turn; the GM makes a new link for that seat. The open
page is told the link no longer works and its tab stops saying "Your turn"; the old link,
opened again, gets the app's page saying so; the GM's links section shows the new link
(an HTTP answer) and the player's page never held it. Revoking seat 2 asks first.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import expect

from .conftest import link_of


def test_a_cut_off_page_is_told_and_the_old_link_gets_the_apps_page(make_table, sit_down):
    table = make_table("action_points")
    people = sit_down(table)
    gm, p1, p2 = people.gm, people.p1, people.p2
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page).to_have_title(re.compile(r"Your turn: Ana"))
    old = p1.page.url

    gm.page.get_by_test_id(f"seat-regenerate-{table.seat1.pk}").click()
    expect(p1.page.get_by_test_id("link-gone")).to_contain_text("Ask the GM for the new link")
    expect(p1.page).to_have_title(re.compile(r"^Link no longer works · "))
    assert "Your turn" not in p1.page.title()
    expect(p1.page.get_by_test_id("turn-alert")).not_to_contain_text("Your turn")

    # The GM's links section got the new link in the answer to "New link".
    old_path = urlsplit(old).path
    link = gm.page.get_by_test_id(f"seat-link-{table.seat1.pk}")
    expect(link).not_to_have_attribute("href", old_path)
    new = link_of(gm, f"seat-link-{table.seat1.pk}")
    assert new != old_path
    assert new.strip("/").split("/")[-1] not in p1.page.content()

    p1.page.goto(old)
    expect(p1.page.get_by_test_id("link-gone-page")).to_contain_text("Ask the GM for a new link")
    expect(p1.page).to_have_title("Link no longer works · VTT")

    # Revoking asks first; only the confirmation cuts seat 2 off.
    gm.page.get_by_test_id(f"seat-revoke-{table.seat2.pk}").click()
    expect(gm.page.get_by_test_id("revoke-confirm")).to_contain_text("Revoke the link of Player 2?")
    expect(p2.page.get_by_test_id("link-gone")).to_have_count(0)
    gm.page.get_by_test_id(f"seat-revoke-confirm-{table.seat2.pk}").click()
    expect(p2.page.get_by_test_id("link-gone")).to_be_visible()
    expect(gm.page.get_by_test_id(f"seat-link-{table.seat2.pk}")).to_have_count(0)
