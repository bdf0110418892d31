"""One click counts once (issue 12, item 1): a double click, or a rapid triple tap on a
phone, on Start combat, an action or End turn gives one log entry and one charge, and no
"Refused" banner, in each ruleset.

Two things stop the repeat, and these tests go through both as a person would: the
button is busy (disabled, aria-busy) while its post is on its way, so most repeats never
leave the page; and every post carries the version the page showed, so a repeat that
does leave is the same command under the same key and acts once (tests/web/test_form_keys.py).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from combat.models import LogEntry

from .conftest import Person, action_form

# A repeatable action that charges each time, per ruleset: (action, resource it costs).
REPEATABLE = {
    "action_points": ("defensive_stance", "ap"),
    "action_ladder": ("step", "bonus"),
    "initiative_passes": ("reload", "ap"),
}


def commands(t, kind: str) -> int:
    return LogEntry.objects.filter(encounter_id=t.enc.pk, command__type=kind).count()


def value(p: Person, cid: str, key: str) -> int:
    return int(p.resource(cid, key).get_attribute("data-value"))


def triple_tap(p: Person, locator) -> None:
    """Three taps on the same spot as fast as the touchscreen sends them (no waiting for
    the button to be ready again, as Playwright's own tap would)."""
    # As a person would: the button in the middle of the screen, not half under the
    # sticky "Your turn" strip, and steady (Playwright's trial tap waits until it is
    # visible, stable, enabled and the one that would get the tap).
    locator.evaluate("b => b.scrollIntoView({block: 'center'})")
    locator.tap(trial=True)
    box = locator.bounding_box()
    assert box, "the button is not on screen"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    under = p.page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.dataset.testid",
        [x, y],
    )
    assert under == locator.get_attribute("data-testid"), f"the finger would tap {under}"
    for _ in range(3):
        p.page.touchscreen.tap(x, y)


def settle(people) -> None:
    """Every post the clicks sent is answered (a repeat that left the page is logged by
    now), and none of the answers was a refusal."""
    for p in people:
        p.wait_for_posts_answered()
        expect(p.page.get_by_test_id("refusal")).to_have_count(0)


@pytest.mark.parametrize("ruleset", list(REPEATABLE))
def test_double_click_counts_once(ruleset, make_table, sit_down):
    t = make_table(ruleset)
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    action, pool = REPEATABLE[ruleset]

    # Start combat, double-clicked: one start.
    gm.page.get_by_test_id("start-combat").dblclick()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    settle([gm])
    assert commands(t, "start_combat") == 1

    # An action, double-clicked by the player: one entry, one charge.
    before = value(p1, t.ana, pool)
    acts = commands(t, "act")
    action_form(p1, t.ana, action).get_by_test_id(f"action-button-{t.ana}-{action}").dblclick()
    expect(p1.resource(t.ana, pool)).to_have_attribute("data-value", str(before - 1))
    settle([p1, gm])
    assert commands(t, "act") == acts + 1
    assert value(p1, t.ana, pool) == before - 1
    assert t.state()["combatants"][t.ana]["res"][pool] == before - 1

    # End turn, double-clicked by the GM: Ana's turn ends, and only hers.
    gm.page.locator("#turn").get_by_test_id(f"end-turn-{t.ana}").dblclick()
    expect(p1.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    settle([gm])
    assert commands(t, "end_turn") == 1
    assert t.state()["turn"] == t.bram

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()


@pytest.mark.parametrize("ruleset", list(REPEATABLE))
def test_rapid_triple_tap_on_a_phone_counts_once(ruleset, make_table, sit_down, tmp_path):
    t = make_table(ruleset)
    people = sit_down(t, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    gm, p1 = people.gm, people.p1
    action, pool = REPEATABLE[ruleset]

    triple_tap(gm, gm.page.get_by_test_id("start-combat"))
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    settle([gm])
    assert commands(t, "start_combat") == 1

    before = value(p1, t.ana, pool)
    button = action_form(p1, t.ana, action).get_by_test_id(f"action-button-{t.ana}-{action}")
    triple_tap(p1, button)
    expect(p1.resource(t.ana, pool)).to_have_attribute("data-value", str(before - 1))
    settle([p1, gm])
    assert commands(t, "act") == 1
    assert t.state()["combatants"][t.ana]["res"][pool] == before - 1

    end = p1.page.locator(f"#panel-{t.ana}").get_by_test_id(f"end-turn-{t.ana}")
    triple_tap(p1, end)
    expect(p1.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    settle([p1, gm])
    assert commands(t, "end_turn") == 1
    assert t.state()["turn"] == t.bram
    if ruleset == "action_points":
        p1.page.screenshot(path=str(tmp_path / "double-tap-phone.png"))  # to look at

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()


def test_the_button_is_busy_while_its_post_is_on_its_way(make_table, sit_down, tmp_path):
    """A slow answer: the pressed button is disabled and aria-busy until it comes."""
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")

    held = []

    def slow(route):
        held.append(route)

    p1.page.route("**/command/", slow)
    button = action_form(p1, t.ana, "defensive_stance").get_by_test_id(
        f"action-button-{t.ana}-defensive_stance"
    )
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("aria-busy", "true")
    p1.page.screenshot(path=str(tmp_path / "busy-button.png"))  # to look at
    button.click(force=True)  # pressing again while busy sends nothing
    p1.page.wait_for_timeout(300)
    assert len(held) == 1
    held[0].continue_()
    expect(p1.resource(t.ana, "ap")).to_have_attribute("data-value", "2")
    expect(button).to_be_enabled()
    expect(button).not_to_have_attribute("aria-busy", "true")
    p1.page.unroute("**/command/")
    assert commands(t, "act") == 1


def test_a_repeated_tap_never_presses_another_button_the_page_moved_under_it(make_table, sit_down):
    """A phone's second tap lands where the first did, but the page has changed meanwhile
    and another of its buttons, one that was already on the page, now sits under the
    finger (as when a push adds a line above it). The second tap is the same tap again,
    not a press of that button: only the first action is taken."""
    t = make_table("action_points")
    people = sit_down(
        t,
        fake_clock=True,
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
    )
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    first = action_form(p1, t.ana, "defensive_stance")
    other = action_form(p1, t.ana, "move")
    button = first.get_by_test_id(f"action-button-{t.ana}-defensive_stance")
    button.evaluate("b => b.scrollIntoView({block: 'center'})")
    button.tap(trial=True)
    box = button.bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    held = []  # the answers wait, so no push redraws the page between the two taps

    def hold(route) -> None:
        held.append(route)

    p1.page.route("**/command/", hold)
    # The page's clock stands still from the first tap to the second: the second comes
    # within a double tap's time however slow the machine running the test is.
    p1.page.clock.pause_at(int(time.time() * 1000) + 1000)
    p1.page.touchscreen.tap(x, y)
    # The page changes under the finger: Move's form takes Defensive Stance's place.
    first.evaluate(
        "(form, other) => { form.before(other); form.hidden = true; }", other.element_handle()
    )
    under = p1.page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.dataset.testid",
        [x, y],
    )
    assert under == f"action-button-{t.ana}-move", f"the finger is over {under}"
    p1.page.touchscreen.tap(x, y)
    p1.page.evaluate("0")  # a round trip: a post the second tap sent has been routed
    p1.page.clock.resume()
    for route in held:
        route.continue_()
    p1.page.unroute("**/command/")

    settle([p1])
    assert len(held) == 1, "the second tap sent a post"
    assert commands(t, "act") == 1
    assert LogEntry.objects.filter(encounter_id=t.enc.pk, command__action="move").count() == 0
