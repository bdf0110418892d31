"""Players see what happened to them, and the notice goes away (issue 12 item 3).

On phones (390 x 844): Ana's player attacks Bram. Her page shows the outcome of her own
action (the attack, its cost, hit and damage) at the top, in view although she pressed a
button further down, below the sticky "Your turn" banner and not under it. Bram's player
sees that Bram was hit. Both notices fade by themselves after a few seconds, and the one
that went does not come back with the next push.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import HP, Person, act

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# a11y.js: 8 s shown, 0.6 s fading, checked every 0.25 s. The pages run on Playwright's
# clock, moved on by this much instead of waiting for it.
SHOWN_AND_FADED_MS = 8_000 + 600 + 250


def time_passes(*people: Person) -> None:
    for person in people:
        person.page.clock.fast_forward(SHOWN_AND_FADED_MS)


def notice(person: Person):
    return person.page.get_by_test_id("seat-notice")


def in_view_and_uncovered(person: Person) -> None:
    """The notice is inside the screen, and what is at its middle is the notice itself."""
    found = notice(person).evaluate(
        """el => {
            const r = el.getBoundingClientRect();
            const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            const banner = document.getElementById('turn-alert').getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, height: innerHeight, mine: el.contains(at),
                    below: banner.height === 0 || r.top >= banner.bottom - 1};
        }"""
    )
    assert found["mine"], found
    assert found["below"], found
    assert found["top"] >= 0 and found["bottom"] <= found["height"], found


def test_the_actor_and_the_one_hit_see_it_and_it_goes_away(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t, fake_clock=True, **PHONE)
    gm, p1, p2 = people.gm, people.p1, people.p2
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()

    # Ana's button is below the fold of a phone: she scrolls to it and presses it.
    p1.page.locator(f"#panel-{t.ana}").get_by_test_id(
        f"action-button-{t.ana}-basic_attack"
    ).scroll_into_view_if_needed()
    act(p1, t.ana, "basic_attack", target=t.bram)
    expect(p2.hp(t.bram)).to_have_text(f"HP {HP - 1} of {HP}")

    mine = notice(p1)
    expect(mine).to_be_visible()
    expect(mine).to_contain_text("Your action")
    expect(mine).to_contain_text("Basic Attack for 1 AP on Bram")
    expect(mine).to_contain_text("hit")
    in_view_and_uncovered(p1)
    # Further down the page (the rest of her actions), it is still in view.
    p1.page.evaluate("window.scrollTo(0, 1400)")
    assert p1.page.evaluate("window.scrollY") > 1000
    in_view_and_uncovered(p1)
    p1.page.screenshot(path="/tmp/t12-notice-phone.png")

    theirs = notice(p2)
    expect(theirs).to_be_visible()
    expect(theirs).to_contain_text("What happened to you")
    expect(theirs).to_contain_text("on Bram")
    in_view_and_uncovered(p2)
    # The GM and the spectators get no seat's notice.
    assert gm.page.get_by_test_id("seat-notice").count() == 0
    assert people.spectator.page.get_by_test_id("seat-notice").count() == 0

    # They clear themselves.
    time_passes(p1, p2)
    expect(mine).to_be_hidden()
    expect(theirs).to_be_hidden()

    # The GM ends Ana's turn: what that cost her replaces her old notice; Bram's turn
    # begins, and his old notice is not shown again (the banner says it is his turn).
    gm.page.get_by_test_id("advance-turn").click()
    expect(p2.page.get_by_test_id(f"your-turn-{t.bram}")).to_be_visible()
    expect(notice(p1)).to_be_visible()
    expect(notice(p1)).to_contain_text("What happened to you")
    expect(notice(p1)).to_contain_text("unspent AP")
    expect(notice(p1)).not_to_contain_text("Basic Attack")
    expect(notice(p2)).to_have_count(0)
    time_passes(p1)
    expect(notice(p1)).to_be_hidden()

    # Bram moves: a push that renders Ana's (gone) notice again; it stays gone.
    frames = len(p1.frames)
    act(p2, t.bram, "move")
    p1.wait_for_frames(frames + 1)
    p1.page.wait_for_timeout(300)
    expect(notice(p1)).to_have_count(1)
    expect(notice(p1)).to_be_hidden()
    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()


def test_a_notice_going_away_moves_nothing_under_her_finger(make_table, sit_down):
    """Ana's player attacks and reads her panel at the top of her phone. Her notice fades by
    itself while her finger is on its way to End Turn: taken out of the page, it moved the
    panel up by its height and her tap found another button there. It keeps its place,
    unseen, until she next sends something, and End Turn stays where she saw it."""
    t = make_table("action_points")
    people = sit_down(t, fake_clock=True, **PHONE)
    gm, p1, p2 = people.gm, people.p1, people.p2
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    # The GM's "Combat begins" line above the console goes the same way.
    said = gm.page.locator("#flash .flash.ok")
    expect(said).to_be_visible()
    gm.wait_for_posts_answered()
    advance = gm.page.get_by_test_id("advance-turn")
    was = advance.bounding_box()
    time_passes(gm)
    expect(said).to_be_hidden()
    assert advance.bounding_box() == was, "the GM's console moved when the line went"

    act(p1, t.ana, "basic_attack", target=t.bram)
    mine = notice(p1)
    expect(mine).to_contain_text("Basic Attack for 1 AP on Bram")
    p1.wait_for_posts_answered()
    p1.page.evaluate("window.scrollTo(0, 0)")
    end_turn = p1.page.locator(f"#panel-{t.ana}").get_by_test_id(f"end-turn-{t.ana}")
    before = end_turn.bounding_box()
    assert before is not None and before["y"] + before["height"] <= 844, before

    time_passes(p1)
    expect(mine).to_be_hidden()
    after = end_turn.bounding_box()
    assert after == before, f"End Turn moved from {before} to {after} when the notice went"
    assert p1.page.evaluate("window.scrollY") == 0

    # Her tap where End Turn was ends her turn; what she sent takes the old notice's place.
    p1.page.mouse.click(before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
    expect(p2.page.get_by_test_id(f"your-turn-{t.bram}")).to_be_visible()
    expect(mine).to_contain_text("Ana ends the turn.")
    expect(mine).to_be_visible()
    for p in (p1, p2):
        p.assert_never_reloaded()
        p.assert_no_errors()
