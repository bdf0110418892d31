"""Issue 37: the GM sets the spectator link's limit on the console, beside the link.

The number typed and "Set" pressed: the console says so and the field keeps the number;
a number out of range is refused in a sentence and the field goes back to the one in
force (the limit itself is proven on sockets in tests/security/test_spectator_limit.py).
"""

from __future__ import annotations

from playwright.sync_api import expect

from .test_gm_console import console


def test_the_gm_sets_the_spectator_limit_and_a_bad_number_is_refused_in_words(
    make_table, browser, live_server_url
):
    from combat.models import Encounter

    t = make_table("action_points")
    with console(browser, live_server_url, t) as gm:
        page = gm.page
        field = page.get_by_test_id("spectator-limit")
        expect(field).to_have_value("100")
        field.fill("3")
        field.press("Enter")
        expect(page.get_by_test_id("notice")).to_contain_text(
            "The spectator link now takes up to 3 screens"
        )
        # The field the answer put back (its attribute is the number in force).
        expect(page.get_by_test_id("spectator-limit")).to_have_attribute("value", "3")
        assert Encounter.objects.get(pk=t.enc.pk).spectator_limit == 3
        # "Set" is held a moment after its answer (static/js/posts.js: one tap counts once).
        expect(page.get_by_test_id("spectator-limit-form").get_by_role("button")).to_be_enabled()

        # The field's own range would stop 5000 before it is sent (an older page, a
        # browser that ignores it): without it, the server's sentence is what the GM reads.
        page.get_by_test_id("spectator-limit").evaluate("input => input.removeAttribute('max')")
        page.get_by_test_id("spectator-limit").fill("5000")
        with page.expect_response("**/spectator/limit/") as answer:
            page.get_by_test_id("spectator-limit").press("Enter")
        assert answer.value.status == 400
        expect(page.get_by_test_id("refusal")).to_contain_text(
            "The spectator limit is a whole number of screens from 1 to 1,000, not 5,000"
        )
        expect(page.get_by_test_id("spectator-limit")).to_have_value("3")
        assert Encounter.objects.get(pk=t.enc.pk).spectator_limit == 3
