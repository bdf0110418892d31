"""The cost preview on a player's phone: choosing an Empowered Attack's extra AP changes the
cost shown on its button and a line says what the attack will cost and do."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import PHONE, action_form, arrive, open_person, reveal


def ana_on_her_phone(make_table, browser, live_server_url):
    """An Action Points fight begun, and Ana's player on a phone with her page loaded."""
    from combat import services
    from combat.access import gm_viewer

    t = make_table("action_points")
    assert services.run_command(t.enc.pk, gm_viewer(t.enc), {"type": "start_combat"}).ok
    p1 = open_person(browser, "player", "Player 1", **PHONE)
    try:
        arrive(p1, f"{live_server_url}/p/{t.seat1.token}/")
    except BaseException:
        p1.context.close()
        raise
    return t, p1


def test_choosing_empowered_options_changes_the_cost_shown(make_table, browser, live_server_url):
    t, p1 = ana_on_her_phone(make_table, browser, live_server_url)
    try:
        form = action_form(p1, t.ana, "empowered_attack")
        reveal(form)
        button = form.get_by_test_id(f"action-button-{t.ana}-empowered_attack")
        expect(button.locator(".cost-chip")).to_have_text("1 AP + extra")
        form.locator("[name='opt_to_hit']").last.fill("1")
        form.locator("[name='opt_to_hit']").last.dispatch_event("change")
        expect(form.get_by_test_id("cost-preview")).to_have_text(
            "Empowered Attack: 2 AP, +1 to hit"
        )
        expect(button.locator(".cost-chip")).to_have_text("2 AP")
        form.locator("[name='opt_damage']").last.fill("1")
        form.locator("[name='opt_damage']").last.dispatch_event("change")
        expect(form.get_by_test_id("cost-preview")).to_have_text(
            "Empowered Attack: 3 AP, +1 to hit, +2 damage"
        )
        expect(button.locator(".cost-chip")).to_have_text("3 AP")
        p1.page.screenshot(path="/tmp/cost-preview-phone.png")
        assert p1.frames and not p1.posts_on_the_way
        p1.assert_no_errors()
    finally:
        p1.context.close()


def test_typing_a_number_and_pressing_attack_at_once_attacks(make_table, browser, live_server_url):
    """A player types the extra AP and taps the attack straight away: leaving the field asks
    for a preview at the same moment as the attack is sent. With the preview's answer slow
    (held back here for 3 s), the attack still goes out at once and is done once."""
    from combat import services
    from combat.access import gm_viewer

    t = make_table("action_points")
    assert services.run_command(t.enc.pk, gm_viewer(t.enc), {"type": "start_combat"}).ok
    p1 = open_person(browser, "player", "Player 1", **PHONE)
    held: list[str] = []

    def slow_preview(route):
        held.append(route.request.url)
        p1.page.wait_for_timeout(3000)  # in the browser's own loop: the page keeps running
        route.continue_()

    try:
        arrive(p1, f"{live_server_url}/p/{t.seat1.token}/")
        p1.page.route("**/preview/**", slow_preview)
        form = action_form(p1, t.ana, "empowered_attack")
        reveal(form)
        form.locator("select[name='opt_target']").select_option(label="Goblin")
        form.locator("[name='opt_to_hit']").last.fill("1")
        form.get_by_test_id(f"action-button-{t.ana}-empowered_attack").click()
        line = p1.log.locator("li .text").filter(has_text="Ana: Empowered Attack (+1 to hit")
        expect(line).to_have_count(1, timeout=2500)  # sooner than the held preview's answer
        assert held, "leaving the field asked for a preview"
        p1.assert_no_errors()
    finally:
        # The held preview may still be waiting: let it go quietly with the page.
        p1.page.unroute_all(behavior="ignoreErrors")
        p1.context.close()


def test_the_cost_line_appearing_leaves_the_button_where_it_was(
    make_table, browser, live_server_url
):
    """A player picks a target and taps the attack: the cost line the choice brings appears
    while the finger is on its way, and must not push the button from under it (under load
    it did: the tap landed on the form beside the button and nothing was sent). The line is
    drawn under the buttons, so nothing above them moves."""
    t, p1 = ana_on_her_phone(make_table, browser, live_server_url)
    try:
        form = action_form(p1, t.ana, "empowered_attack")
        reveal(form)
        button = form.get_by_test_id(f"action-button-{t.ana}-empowered_attack")
        preview = form.get_by_test_id("cost-preview")
        expect(preview).to_be_hidden()
        before = button.bounding_box()
        form.locator("[name='opt_to_hit']").last.fill("1")
        form.locator("[name='opt_to_hit']").last.dispatch_event("change")
        expect(preview).to_have_text("Empowered Attack: 2 AP, +1 to hit")
        expect(preview).to_be_visible()
        after = button.bounding_box()
        assert before is not None and after is not None
        assert (round(after["x"]), round(after["y"])) == (round(before["x"]), round(before["y"])), (
            f"the button moved from {before} to {after} when the cost line appeared"
        )
        button.click()
        line = p1.log.locator("li .text").filter(has_text="Ana: Empowered Attack (+1 to hit")
        expect(line).to_have_count(1)
        p1.assert_no_errors()
    finally:
        p1.context.close()


def test_the_button_pressed_while_the_cost_changes_still_acts(make_table, browser, live_server_url):
    """Her finger is down on the attack's button, on its cost, when the answer to her last
    choice changes that cost: lifting it presses the button. (The chip was a new element in
    place of the old, and the button shrank with it: the press began on an element no longer
    in the page and ended beside the button, the browser saw no click, and nothing was
    sent.)"""
    t, p1 = ana_on_her_phone(make_table, browser, live_server_url)
    try:
        form = action_form(p1, t.ana, "empowered_attack")
        reveal(form)
        button = form.get_by_test_id(f"action-button-{t.ana}-empowered_attack")
        chip = button.locator(".cost-chip")
        form.locator("[name='opt_to_hit']").last.fill("1")
        button.scroll_into_view_if_needed()
        box = chip.bounding_box()
        assert box is not None
        p1.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        p1.page.mouse.down()
        form.locator("[name='opt_to_hit']").last.dispatch_event("change")
        expect(chip).to_have_text("2 AP")
        p1.page.mouse.up()
        line = p1.log.locator("li .text").filter(has_text="Ana: Empowered Attack (+1 to hit")
        expect(line).to_have_count(1)
        p1.assert_no_errors()
    finally:
        p1.context.close()
