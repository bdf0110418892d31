"""Issue 34, the battle map in real browsers: the GM adds a map, paints a stroke by
dragging over cells (one command for the whole stroke), places a token with the keyboard
form and moves it by dragging; the player's page shows the token move live, and fog
hides it from the player."""

from __future__ import annotations

from playwright.sync_api import expect

PX, MARGIN = 40, 24  # combat/board.py: one cell, and the room for the labels


def cell_point(person, x: int, y: int) -> tuple[float, float]:
    """The middle of cell (x, y) on the person's screen."""
    svg = person.page.get_by_test_id("board-svg")
    box = svg.bounding_box()
    assert box is not None
    scale = box["width"] / float(svg.get_attribute("width") or 1)
    return (
        box["x"] + (MARGIN + x * PX + PX / 2) * scale,
        box["y"] + (MARGIN + y * PX + PX / 2) * scale,
    )


def drag(person, cells: list[tuple[int, int]]) -> None:
    mouse = person.page.mouse
    mouse.move(*cell_point(person, *cells[0]))
    mouse.down()
    for c in cells[1:]:
        mouse.move(*cell_point(person, *c), steps=4)
    mouse.up()


def test_the_gm_paints_and_places_by_dragging_and_the_player_sees_it_live(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    # No map yet: the player sees none, the GM is offered one.
    expect(p1.page.get_by_test_id("board-svg")).to_have_count(0)
    gm.page.get_by_test_id("board-width").fill("20")
    gm.page.get_by_test_id("board-height").fill("15")
    gm.page.get_by_test_id("board-add-submit").click()
    expect(gm.page.get_by_test_id("board-svg")).to_be_visible()
    expect(p1.page.get_by_test_id("board-svg")).to_be_visible()

    # A stroke of wall from B2 to B4: one command, three cells.
    gm.page.get_by_test_id("brush-wall").check()
    drag(gm, [(1, 1), (1, 2), (1, 3)])
    walls = gm.page.locator('#board [data-terrain="wall"]')
    expect(walls).to_have_count(3)
    expect(p1.page.locator('#board [data-terrain="wall"]')).to_have_count(3)
    # The push redraws the rows the stroke crossed, not the map: the stroke's outline,
    # drawn while dragging, is taken away once the cells are painted.
    expect(gm.page.locator("#board g.board-preview")).to_have_count(0)
    # One stroke, one command: one line in the log.
    expect(gm.log.get_by_text("The GM paints 3 cells: wall.")).to_have_count(1)
    gm.wait_for_posts_answered()

    # The keyboard way: place Ana at A1.
    gm.page.get_by_test_id("board-place-actor").select_option(label="Ana")
    gm.page.get_by_test_id("board-place-cell").fill("A1")
    gm.page.get_by_test_id("board-place-submit").click()
    expect(p1.page.get_by_test_id("board-list")).to_contain_text("Ana: A1")

    # Drag Ana's token to D3: the player's page follows, with no reload.
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "A1")
    gm.page.get_by_test_id("brush-move").check()
    x, y = cell_point(gm, 0, 0)
    gm.page.mouse.move(x, y)
    gm.page.mouse.down()
    gm.page.mouse.move(*cell_point(gm, 3, 2), steps=6)
    gm.page.mouse.up()
    expect(p1.page.get_by_test_id("board-list")).to_contain_text("Ana: D3")
    expect(p1.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "D3")
    # The GM's token is drawn where it landed, not where the pointer left it (the push
    # redraws that token alone).
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_attribute("data-cell", "D3")
    assert gm.page.get_by_test_id(f"token-{t.ana}").get_attribute("transform") is None
    gm.page.screenshot(path="/tmp/board-gm.png", full_page=True)
    p1.page.get_by_test_id("board").screenshot(path="/tmp/board-player.png")

    # Fog over D3 and around: Ana's token leaves the player's board.
    gm.page.get_by_test_id("brush-fog").check()
    drag(gm, [(3, 2), (4, 2), (4, 3)])
    expect(p1.page.get_by_test_id(f"token-{t.ana}")).to_have_count(0)
    expect(p1.page.get_by_test_id("board-list")).not_to_contain_text("Ana: D3")
    expect(gm.page.get_by_test_id(f"token-{t.ana}")).to_have_count(1)
    p1.page.get_by_test_id("board").screenshot(path="/tmp/board-player-fog.png")

    board = t.state()["board"]
    assert (board["width"], board["height"]) == (20, 15)
    assert board["terrain"] == {"1,1": "wall", "1,2": "wall", "1,3": "wall"}
    assert board["tokens"][t.ana]["at"] == [3, 2]
    assert set(board["fog"]) == {"3,2", "4,2", "4,3"}
    p1.assert_never_reloaded()
    for person in (gm, p1):
        person.assert_no_errors()
