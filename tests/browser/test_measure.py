"""Issue 34, the battle map in real browsers: "a measuring tool for everyone: pick two
cells, see the distance in metres". A player measures by tapping two cells on a phone
(on her turn, without asking for a move), the GM by clicking with a paint brush chosen
(without painting), a spectator by typing the cells in the form."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_board import cell_point
from .test_tap_move import ana_on_a_phone


def test_everyone_measures_between_two_cells(make_table, sit_down):
    t, people = ana_on_a_phone(make_table, sit_down)  # 8 x 6, a wall down C, 1-2-1
    gm, p1, spectator = people.gm, people.p1, people.spectator

    # Ana's player, on her turn: "Measure", then A3 and D6 (three across, three
    # down: 3 + 1 for every second diagonal step).
    page = p1.page
    pick = page.get_by_test_id("measure-pick")
    pick.scroll_into_view_if_needed()
    pick.tap()
    expect(pick).to_have_attribute("aria-pressed", "true")
    out = page.get_by_test_id("measure-out")
    expect(out).to_have_text("Tap the first cell to measure from.")
    # The map at the bottom of the screen, clear of what stays on top of the phone's page.
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 0, 2))
    expect(out).to_contain_text("From A3: now tap the cell to measure to.")
    page.touchscreen.tap(*cell_point(p1, 3, 5))
    expect(out).to_have_text(
        "From A3 to D6: 4 m (4 steps of 1 m; every second diagonal step counts two)."
    )
    marks = page.locator("#board [data-testid=measure-mark]")
    expect(marks).to_have_count(2)
    expect(marks.nth(1)).to_have_attribute("data-cell", "D6")
    # Measuring asked for no move: no path, no "Move here", Ana still at A1.
    expect(page.get_by_test_id("move-preview")).to_be_empty()
    expect(page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A1")
    # The button again stops measuring: the next tap asks for a move as before.
    pick.tap()
    expect(pick).to_have_attribute("aria-pressed", "false")
    page.touchscreen.tap(*cell_point(p1, 1, 2))
    expect(page.get_by_test_id("move-line")).to_contain_text("Move, 1 AP")

    # The GM, with the wall brush chosen: measuring paints nothing. Escape stops it.
    gm.page.get_by_test_id("brush-wall").check()
    gm_pick = gm.page.get_by_test_id("measure-pick")
    gm_pick.click()
    gm.page.get_by_test_id("board-svg").scroll_into_view_if_needed()
    gm.page.mouse.click(*cell_point(gm, 4, 0))
    gm.page.mouse.click(*cell_point(gm, 4, 5))
    expect(gm.page.get_by_test_id("measure-out")).to_contain_text("From E1 to E6: 5 m")
    expect(gm.page.locator('#board [data-terrain="wall"]')).to_have_count(6)  # column C only
    gm.page.keyboard.press("Escape")
    expect(gm_pick).to_have_attribute("aria-pressed", "false")

    # The spectator types the cells (the keyboard way, for everyone).
    spectator.page.get_by_test_id("measure-from").fill("B2")
    spectator.page.get_by_test_id("measure-to").fill("H6")
    spectator.page.get_by_test_id("measure-submit").click()
    expect(spectator.page.get_by_test_id("measure-out")).to_contain_text("From B2 to H6: 8 m")
    spectator.page.get_by_test_id("measure-to").fill("Q9")
    spectator.page.get_by_test_id("measure-submit").click()
    expect(spectator.page.get_by_test_id("measure-refusal")).to_have_text(
        "Q9 is off the map: it runs from A1 to H6."
    )
    for p in (gm, p1, spectator):
        p.assert_no_errors()


def test_stopping_or_typing_midway_leaves_no_stale_prompt_or_mark(make_table, sit_down):
    """Issue 34, the measuring tool: a person who taps "Measure" and then changes their mind
    is not left with words that no longer hold. Stopping before the second cell takes away
    "now tap the cell to measure to" and the first cell's mark (a tap now moves, not
    measures); typing the two cells in the form after one tap marks the two typed cells,
    and the next tap starts a new measure instead of finishing the abandoned one."""
    t, people = ana_on_a_phone(make_table, sit_down)
    p1 = people.p1
    page = p1.page
    pick = page.get_by_test_id("measure-pick")
    out = page.get_by_test_id("measure-out")
    marks = page.locator("#board [data-testid=measure-mark]")
    pick.scroll_into_view_if_needed()

    # "Measure", then "Stop measuring" at once: no instruction left behind.
    pick.tap()
    expect(out).to_have_text("Tap the first cell to measure from.")
    pick.tap()
    expect(pick).to_have_attribute("aria-pressed", "false")
    expect(out).to_have_text("")

    # One cell tapped, then stopped: neither the half-done sentence nor its mark stays.
    pick.tap()
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 0, 2))
    expect(out).to_contain_text("From A3: now tap the cell to measure to.")
    expect(marks).to_have_count(1)
    pick.scroll_into_view_if_needed()
    pick.tap()
    expect(out).to_have_text("")
    expect(marks).to_have_count(0)

    # One cell tapped, then the two cells typed in the form, Enter: the typed cells are
    # the ones marked, and the next tap is the first cell of a new measure.
    pick.tap()
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 0, 2))
    expect(marks).to_have_count(1)
    page.get_by_test_id("measure-from").fill("B2")
    page.get_by_test_id("measure-to").fill("H6")
    page.get_by_test_id("measure-to").press("Enter")
    expect(out).to_contain_text("From B2 to H6: 8 m")
    expect(marks).to_have_count(2)
    expect(marks.nth(0)).to_have_attribute("data-cell", "B2")
    expect(marks.nth(1)).to_have_attribute("data-cell", "H6")
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 3, 5))
    expect(out).to_contain_text("From D6: now tap the cell to measure to.")
    expect(marks).to_have_count(1)
    expect(page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A1")
    for p in people.everyone:
        p.assert_no_errors()


def test_the_instruction_stays_when_the_gm_resizes_the_map_midway(make_table, sit_down):
    """Issue 34, the measuring tool: the GM widening the map sends the map whole to every
    screen. A player who has tapped one cell, and a spectator who has just pressed
    "Measure", still read what to tap next (not an empty line under "Stop measuring"),
    and the player's next tap finishes the measure from the cell tapped before."""
    t, people = ana_on_a_phone(make_table, sit_down)
    gm, p1, spectator = people.gm, people.p1, people.spectator
    page = p1.page
    pick = page.get_by_test_id("measure-pick")
    pick.scroll_into_view_if_needed()
    pick.tap()
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 0, 2))
    expect(page.get_by_test_id("measure-out")).to_have_text(
        "From A3: now tap the cell to measure to."
    )
    spectator.page.get_by_test_id("measure-pick").click()
    expect(spectator.page.get_by_test_id("measure-out")).to_have_text(
        "Tap the first cell to measure from."
    )

    # The GM makes the map one column wider.
    g = gm.page
    resize = g.locator("form", has=g.get_by_test_id("board-diagonals"))
    resize.locator("xpath=ancestor::details[1]/summary").click()
    resize.locator("[name=width]").fill("9")
    resize.locator("button[type=submit]").click()
    for p in (p1, spectator):
        expect(p.page.get_by_test_id("board-svg"), p.name).to_have_attribute("data-width", "9")
        expect(p.page.get_by_test_id("measure-pick"), p.name).to_have_text("Stop measuring")
    expect(page.get_by_test_id("measure-out")).to_have_text(
        "From A3: now tap the cell to measure to."
    )
    expect(page.locator("#board [data-testid=measure-mark]")).to_have_count(1)
    expect(spectator.page.get_by_test_id("measure-out")).to_have_text(
        "Tap the first cell to measure from."
    )
    page.get_by_test_id("board-svg").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.touchscreen.tap(*cell_point(p1, 3, 5))
    expect(page.get_by_test_id("measure-out")).to_contain_text("From A3 to D6: 4 m")
    for p in people.everyone:
        p.assert_no_errors()
