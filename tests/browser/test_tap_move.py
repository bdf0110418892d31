"""Issue 35, "Moving", in real browsers: "A player ... picks a movement action and a
destination by tapping or clicking a cell, or with the arrow keys and Enter ... only a
second tap or Enter commits it."

On a phone (390 x 844), in each ruleset, the player taps a cell, reads the path's cost,
taps again, and the GM's page shows the token there and the log says so; the GM moves the
acting combatant with the keyboard alone.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import SCREENSHOTS
from .test_board import cell_point, drag

# What the ruleset's plain move says, with its price (the path is one diagonal step).
LINES = {
    "action_points": "Move, 1 AP: 1 of 6 m",
    "action_ladder": re.compile(r"^Walk, [^:]+: 1 of \d+(\.\d+)? m"),
    "initiative_passes": re.compile(r"^Move, [^:]+: 1 of 6 m"),
}


def with_map(t) -> None:
    from combat import services
    from combat.access import gm_viewer

    for command in (
        {"type": "set_board", "width": 8, "height": 6},
        {"type": "place", "actor": t.ana, "cell": "A1"},
        {"type": "place", "actor": t.goblin, "cell": "H6"},
        {"type": "paint", "cells": "C1 C2 C3 C4 C5 C6", "terrain": "wall"},
    ):
        result = services.run_command(t.enc.pk, gm_viewer(t.enc), command)
        assert result.ok, result.refusal


def ana_on_a_phone(make_table, sit_down, ruleset="action_points", build=with_map):
    """A table with a map (`build`), both players on phones, combat started: Ana's turn."""
    t = make_table(ruleset)
    build(t)
    people = sit_down(t, phones=True)
    people.gm.page.get_by_test_id("start-combat").click()
    expect(people.p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    return t, people


def in_view(person, locator) -> None:
    box = locator.evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, h: innerHeight}; }"
    )
    assert box["top"] >= 0 and box["bottom"] <= box["h"], box


@pytest.mark.parametrize("ruleset", list(LINES))
def test_the_player_taps_a_cell_reads_the_cost_and_taps_again_to_move(
    ruleset, make_table, sit_down
):
    t, people = ana_on_a_phone(make_table, sit_down, ruleset)
    gm, p1 = people.gm, people.p1

    svg = p1.page.get_by_test_id("board-svg")
    svg.scroll_into_view_if_needed()
    # The board fits the phone's width.
    box = svg.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box

    # A cell behind the wall: refused in words ("cannot reach"), nothing to press.
    p1.page.touchscreen.tap(*cell_point(p1, 3, 0))
    line = p1.page.get_by_test_id("move-line")
    expect(line).to_contain_text("cannot reach D1")
    expect(p1.page.get_by_test_id("move-here")).to_have_count(0)

    # B2: the path and its cost; the line and "Move here" are on the screen with the map.
    p1.page.touchscreen.tap(*cell_point(p1, 1, 1))
    expect(line).to_contain_text(LINES[ruleset])
    expect(p1.page.get_by_test_id("move-dest")).to_have_count(1)
    in_view(p1, p1.page.get_by_test_id("move-here"))
    # The page with the path shown passes axe-core (no serious or critical violation).
    from tests.ux.conftest import axe_violations

    assert axe_violations(p1.page) == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if ruleset == "action_ladder":
        p1.page.screenshot(path=str(SCREENSHOTS / "move-phone.png"))
    # Nothing moved yet.
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A1")

    # The second tap on the same cell moves.
    p1.page.touchscreen.tap(*cell_point(p1, 1, 1))
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "B2")
    expect(gm.log).to_contain_text("B2")
    expect(p1.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "B2")
    expect(p1.page.get_by_test_id("move-dest")).to_have_count(0)
    p1.wait_for_posts_answered()


def test_the_gm_moves_the_acting_combatant_with_the_keyboard_alone(make_table, sit_down):
    t = make_table("action_points")
    with_map(t)
    people = sit_down(t)
    gm = people.gm
    gm.page.get_by_test_id("start-combat").click()
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_class(re.compile("is-turn"))

    svg = gm.page.get_by_test_id("board-svg")
    svg.focus()
    expect(gm.page.get_by_test_id("move-cursor")).to_have_attribute("data-cell", "A1")
    gm.page.keyboard.press("ArrowDown")
    gm.page.keyboard.press("ArrowDown")
    expect(gm.page.get_by_test_id("move-cursor")).to_have_attribute("data-cell", "A3")
    gm.page.keyboard.press("Enter")
    expect(gm.page.get_by_test_id("move-line")).to_contain_text("Move, 1 AP: 2 of 6 m")
    # Escape clears it; Enter asks again, Enter again moves.
    gm.page.keyboard.press("Escape")
    expect(gm.page.get_by_test_id("move-line")).to_have_count(0)
    gm.page.keyboard.press("Enter")
    expect(gm.page.get_by_test_id("move-line")).to_contain_text("Move, 1 AP: 2 of 6 m")
    # A wall painted meanwhile: the push redraws the map and the path is asked again
    # (round the wall, no diagonal cutting its corner: B1, B2, B3, A3).
    gm.page.get_by_test_id("board-paint-cells").fill("A2")
    gm.page.get_by_test_id("board-paint-terrain").select_option("wall")
    gm.page.get_by_test_id("board-paint-submit").click()
    expect(gm.page.get_by_test_id("move-line")).to_contain_text("Move, 1 AP: 4 of 6 m")
    svg.focus()
    gm.page.keyboard.press("Enter")
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A3")
    expect(gm.log).to_contain_text("A3")
    expect(people.p1.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A3")
    gm.wait_for_posts_answered()

    # Dragging a token stays a placement (static/js/board.js), not a tap: no path shown.
    drag(gm, [(7, 5), (6, 5)])
    expect(gm.page.get_by_test_id(f"token-{t.goblin}")).to_have_attribute("data-cell", "G6")
    expect(gm.page.get_by_test_id("move-bar")).to_have_count(0)
    gm.wait_for_posts_answered()
