"""The cost preview on a player's phone: choosing an Empowered Attack's extra AP changes the
cost shown on its button and a line says what the attack will cost and do."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import PHONE, action_form, arrive, open_person, reveal


def test_choosing_empowered_options_changes_the_cost_shown(make_table, browser, live_server_url):
    from combat import services
    from combat.access import gm_viewer

    t = make_table("action_points")
    assert services.run_command(t.enc.pk, gm_viewer(t.enc), {"type": "start_combat"}).ok
    p1 = open_person(browser, "player", "Player 1", **PHONE)
    try:
        arrive(p1, f"{live_server_url}/p/{t.seat1.token}/")
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
