"""The spectators' screen on a TV or a stream, and its overlay for a streaming program.

On 1920x1080 twelve combatants fit without scrolling (a defeated one shrinks to its
name), who is acting and the last outcome (the newest log line with its roll) are in
large type, and nothing on the screen means nothing to a viewer: no version number, no
button. It passes axe-core in light and in dark. `?overlay=1&show=...` gives a
transparent page with only the chosen regions, and they follow the game live.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.ux.conftest import api, axe_violations

from .conftest import HP, SURE, _add, arrive, open_person

TV = {"viewport": {"width": 1920, "height": 1080}}
RAIDERS = 9  # with Ana, Bram and the Goblin: twelve combatants a spectator sees


def twelve_and_a_blow(t: Any) -> list[str]:
    """Nine raiders join (the first with 1 HP), combat starts, and Ana's attack fells it."""
    from combat import services
    from combat.access import gm_viewer

    raiders = [
        _add(
            t.enc,
            name=f"Raider {n}",
            side="npc",
            hp=1 if n == 1 else HP,
            initiative=9 - n,
            stats=SURE,
        )
        for n in range(1, RAIDERS + 1)
    ]
    gm = gm_viewer(t.enc)
    for command in (
        {"type": "start_combat"},
        {
            "type": "act",
            "actor": t.ana,
            "action": "basic_attack",
            "options": {"target": raiders[0]},
        },
    ):
        result = services.run_command(t.enc.pk, gm, command)
        assert result.ok, result.refusal
    return raiders


def font_px(locator: Any) -> float:
    return float(locator.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))


def test_twelve_combatants_fit_a_tv_with_the_acting_one_and_the_last_outcome_large(
    make_table, browser, live_server_url
):
    t = make_table("action_points")
    raiders = twelve_and_a_blow(t)
    tv = open_person(browser, "spectator", "TV", **TV)
    try:
        arrive(tv, f"{live_server_url}/s/{t.enc.spectator_token}/")
        page = tv.page
        page.screenshot(path="/tmp/tv-spectator.png")
        names = {t.ana: "Ana", t.bram: "Bram", t.goblin: "Goblin"}
        names |= {cid: f"Raider {n}" for n, cid in enumerate(raiders, 1)}
        assert len(names) == 12
        for cid, name in names.items():
            for where in (f"roster-{cid}", f"order-{cid}"):
                label = page.get_by_test_id(where).get_by_text(name, exact=True)
                expect(label).to_be_in_viewport(ratio=1)
                # Whole, not cut short with an ellipsis.
                assert label.evaluate("el => el.scrollWidth <= el.clientWidth"), (where, name)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 1920

        acting = page.get_by_test_id("spotlight-acting")
        expect(acting).to_have_text("Ana")
        outcome = page.get_by_test_id("spotlight-outcome")
        expect(outcome).to_contain_text("Raider 1")
        expect(outcome.locator(".roll")).not_to_have_count(0)
        assert font_px(acting) >= 28 and font_px(outcome) >= 28
        expect(acting).to_be_in_viewport(ratio=1)
        expect(outcome).to_be_in_viewport(ratio=1)

        # The fallen raider shrinks; the living keep their size.
        fallen = page.get_by_test_id(f"roster-{raiders[0]}")
        expect(fallen).to_contain_text("defeated")
        living = page.get_by_test_id(f"roster-{raiders[1]}")
        assert fallen.bounding_box()["height"] < living.bounding_box()["height"] * 0.7

        # Nothing a viewer cannot use: no version number, no button, no field.
        expect(page.locator("#status")).not_to_contain_text("v1")
        expect(page.locator("#status .version")).to_have_count(0)
        expect(
            page.locator("#table").locator("button, input:not([type=hidden]), select")
        ).to_have_count(0)

        page.emulate_media(color_scheme="light", reduced_motion="reduce")
        assert not axe_violations(page), "light"
        page.emulate_media(color_scheme="dark", reduced_motion="reduce")
        assert not axe_violations(page, ("color-contrast",)), "dark"
        tv.assert_no_errors()
    finally:
        tv.context.close()


def test_the_overlay_is_transparent_shows_only_the_chosen_regions_and_follows_the_game(
    make_table, browser, live_server_url
):
    from combat.models import ApiToken

    t = make_table("action_points")
    twelve_and_a_blow(t)
    base = live_server_url
    overlay = open_person(browser, "spectator", "Stream overlay", **TV)
    try:
        arrive(overlay, f"{base}/s/{t.enc.spectator_token}/?overlay=1&show=order,turn")
        page = overlay.page
        for sel in ("html", "body", "main"):
            colour = page.evaluate(
                f"() => getComputedStyle(document.querySelector('{sel}')).backgroundColor"
            )
            assert colour == "rgba(0, 0, 0, 0)", (sel, colour)
        expect(page.locator("#order")).to_have_count(1)
        expect(page.locator("#spotlight")).to_have_count(1)
        for absent in ("#roster", "#log", "#board", "#status", "#chat", ".topbar"):
            expect(page.locator(absent).filter(visible=True)).to_have_count(0)
        for absent in ("#roster", "#log", "#board", "#status"):
            expect(page.locator(absent)).to_have_count(0)

        # Live, as the spectators' screen: Ana ends her turn, the overlay shows Bram acting.
        token = ApiToken.issue(t.enc.owner, "overlay test")[1]
        api(base, token, t.enc.pk, type="end_turn", actor=t.ana)
        expect(page.get_by_test_id("spotlight-acting")).to_have_text("Bram")
        expect(page.locator("#roster")).to_have_count(0)
        overlay.assert_no_errors()
        overlay.assert_never_reloaded()

        # A region the overlay does not know is said in words.
        answer = page.request.get(f"{base}/s/{t.enc.spectator_token}/?overlay=1&show=order,dice")
        assert answer.status == 400
        assert "not dice" in answer.text()
    finally:
        overlay.context.close()


def test_a_blow_redraws_only_the_struck_combatants_health_on_the_spectators_screen(
    make_table, browser, live_server_url
):
    """The spectators' screen gets the health on the Goblin's card alone (and the log) when
    the GM wounds it, and a wound to the hidden Troll moves its version and shows nothing."""
    from combat.models import ApiToken, Encounter

    t = make_table("action_points")
    base = live_server_url
    tv = open_person(browser, "spectator", "TV", **TV)
    try:
        arrive(tv, f"{base}/s/{t.enc.spectator_token}/")
        page = tv.page
        token = ApiToken.issue(t.enc.owner, "tv test")[1]
        api(base, token, t.enc.pk, type="start_combat")
        expect(page.get_by_test_id("spotlight-acting")).to_have_text("Ana")
        # Marks on elements a push would replace: only those redrawn lose theirs.
        kept = ["order", "board", "roster", f"roster-{t.ana}", f"roster-{t.goblin}"]
        page.evaluate(
            f"() => {kept + [f'resources-{t.goblin}']!r}.forEach("
            "id => document.getElementById(id).dataset.kept = 'yes')"
        )
        goblin = page.get_by_test_id(f"roster-{t.goblin}")
        unhurt = goblin.inner_text()
        api(base, token, t.enc.pk, type="damage", actor=t.goblin, amount=3)
        expect(goblin).not_to_have_text(unhurt)
        for ident in kept:
            assert page.evaluate(f"() => document.getElementById('{ident}').dataset.kept") == "yes"
        health = f"() => document.getElementById('resources-{t.goblin}').dataset.kept"
        assert page.evaluate(health) is None  # redrawn

        api(base, token, t.enc.pk, type="damage", actor=t.troll, amount=3)
        version = Encounter.objects.get(pk=t.enc.pk).version
        expect(page.get_by_test_id("sync")).to_have_attribute("data-version", str(version))
        expect(page.locator("body")).not_to_contain_text("Lurking Troll")
        tv.assert_no_errors()
        tv.assert_never_reloaded()
    finally:
        tv.context.close()
