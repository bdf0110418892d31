"""Issue 34, "The board": "usable on a 390 x 844 phone (pinch-zoom and pan)".

A 40 x 40 map on a phone opens with cells a finger can tap, the player's own token in
view; the zoom buttons change the cells' size, the zoom survives a push that redraws the
board, and a tap beside the token still shows the path and a second tap moves. Only the
map's box scrolls sideways, never the page. The spectators' screen keeps "Fit".
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import SCREENSHOTS
from .test_board import MARGIN, PX, cell_point
from .test_tap_move import ana_on_a_phone

SIDE = 40


def big_map(t) -> None:
    from combat import services
    from combat.access import gm_viewer

    for command in (
        {"type": "set_board", "width": SIDE, "height": SIDE},
        {"type": "place", "actor": t.ana, "cell": "AC31"},  # x 28, y 30: far from the corner
        {"type": "place", "actor": t.goblin, "cell": "B2"},
        {"type": "paint", "cells": "A10:AN10", "terrain": "difficult"},
    ):
        result = services.run_command(t.enc.pk, gm_viewer(t.enc), command)
        assert result.ok, result.refusal


def cell_size(person) -> float:
    """One cell's width on the person's screen, in CSS pixels."""
    box = person.page.get_by_test_id("board-svg").bounding_box()
    assert box is not None
    return box["width"] * PX / (MARGIN + SIDE * PX)


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def assert_token_in_view(person, token_id: str) -> None:
    zoom = person.page.get_by_test_id("board-zoom")
    zoom.scroll_into_view_if_needed()
    token = person.page.get_by_test_id(f"token-{token_id}").bounding_box()
    box = zoom.bounding_box()
    screen = {"x": 0, "y": 0, "width": 390, "height": 844}
    assert token is not None and box is not None
    assert inside(token, box) and inside(token, screen), (token, box)


def no_sideways_scroll(person) -> None:
    width = person.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width


def test_a_big_map_on_a_phone_opens_at_a_tappable_zoom_on_the_players_token(make_table, sit_down):
    t, people = ana_on_a_phone(make_table, sit_down, build=big_map)
    gm, p1, tv = people.gm, people.p1, people.spectator

    # The first view: cells of a finger's size (at "Fit" they would be about 9 px), and
    # Ana's token in the box, on the screen. Only the box scrolls sideways.
    assert cell_size(p1) >= 28, cell_size(p1)
    assert_token_in_view(p1, t.ana)
    no_sideways_scroll(p1)
    zoom = p1.page.get_by_test_id("board-zoom")
    assert zoom.evaluate("el => el.scrollWidth > el.clientWidth")

    # Zoom out, then in: the cells shrink, then grow; "Fit" shows the whole map's width.
    opened = cell_size(p1)
    p1.page.get_by_test_id("board-zoom-out").click()
    smaller = cell_size(p1)
    assert smaller < opened, (smaller, opened)
    p1.page.get_by_test_id("board-zoom-in").click()
    p1.page.get_by_test_id("board-zoom-in").click()
    larger = cell_size(p1)
    assert larger > opened, (larger, opened)
    p1.page.get_by_test_id("board-zoom-fit").click()
    expect(p1.page.get_by_test_id("board-zoom-fit")).to_have_attribute("aria-pressed", "true")
    assert cell_size(p1) < 12, cell_size(p1)
    svg = p1.page.get_by_test_id("board-svg").bounding_box()
    assert svg is not None and svg["x"] >= 0 and svg["x"] + svg["width"] <= 390, svg
    # By keyboard too: the buttons are ordinary buttons.
    p1.page.get_by_test_id("board-zoom-in").focus()
    for _ in range(9):  # 1.25 times larger each: from about 9 px to about 64
        p1.page.keyboard.press("Enter")
    keyed = cell_size(p1)
    assert keyed >= 28, keyed

    # A push that redraws the whole board (the GM changes the diagonals rule) keeps the
    # zoom the player chose.
    gm.page.get_by_text("Resize, diagonals, or remove the map").click()
    gm.page.get_by_test_id("board-diagonals").select_option("1-1-1")
    gm.page.get_by_role("button", name="Change the map").click()
    expect(gm.log).to_contain_text("1-1-1")
    expect(p1.page.get_by_test_id("board-zoom-fit")).to_have_attribute("aria-pressed", "false")
    assert abs(cell_size(p1) - keyed) < 0.5, (cell_size(p1), keyed)

    # Tap the cell right of the token: the path and its cost; tap again: Ana moves.
    p1.page.get_by_test_id(f"token-{t.ana}").scroll_into_view_if_needed()
    p1.page.touchscreen.tap(*cell_point(p1, 29, 30))
    expect(p1.page.get_by_test_id("move-line")).to_contain_text("Move, 1 AP: 1 of 6 m")
    expect(p1.page.get_by_test_id("move-dest")).to_have_count(1)
    # The path is drawn over the cell tapped, at the zoom of the map.
    dest = p1.page.get_by_test_id("move-dest").bounding_box()
    x, y = cell_point(p1, 29, 30)
    assert dest is not None and inside({"x": x, "y": y, "width": 0, "height": 0}, dest), dest
    from tests.ux.conftest import axe_violations

    assert axe_violations(p1.page) == []
    no_sideways_scroll(p1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    p1.page.screenshot(path=str(SCREENSHOTS / "map-zoom-phone.png"))
    p1.page.touchscreen.tap(*cell_point(p1, 29, 30))
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "AD31")
    expect(p1.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "AD31")
    expect(p1.page.get_by_test_id("move-dest")).to_have_count(0)
    p1.wait_for_posts_answered()

    # The spectators' screen and the GM's console (wide screens, a mouse) open at "Fit":
    # the whole map, no box to scroll.
    for person in (tv, gm):
        fit = person.page.get_by_test_id("board-zoom-fit")
        expect(fit).to_have_attribute("aria-pressed", "true")
        assert not person.page.get_by_test_id("board-zoom").evaluate(
            "el => el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight"
        )
    for person in (gm, p1, tv):
        person.assert_no_errors()
