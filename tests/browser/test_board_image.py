"""Issue 34, the battle map's background image in real browsers: the GM uploads a picture
from the console, sees it under the grid, and so does the player, live; removing it takes
it away from both."""

from __future__ import annotations

import io

from PIL import Image
from playwright.sync_api import expect

PX, MARGIN = 40, 24  # combat/board.py: one cell, and the room for the labels
GREEN = (46, 139, 87)  # seagreen


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), GREEN).save(out, "PNG")
    return out.getvalue()


def cell_color(person, x: int, y: int) -> tuple[int, int, int]:
    """The colour a person sees in the middle of cell (x, y)."""
    svg = person.page.get_by_test_id("board-svg")
    shot = Image.open(io.BytesIO(svg.screenshot())).convert("RGB")
    scale = shot.width / float(svg.get_attribute("width") or 1)
    px = shot.getpixel(
        (int((MARGIN + x * PX + PX / 2) * scale), int((MARGIN + y * PX + PX / 2) * scale))
    )
    assert isinstance(px, tuple)
    return px[0], px[1], px[2]


def sees(person, color: tuple[int, int, int], tries: int = 20) -> bool:
    """Whether cell C3 shows `color`: a few screenshots at most (painting follows the load)."""
    return any(near(cell_color(person, 2, 2), color) for _ in range(tries))


def near(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return all(abs(u - v) <= 12 for u, v in zip(a, b, strict=True))


def test_the_gm_uploads_a_map_image_and_everyone_sees_it_under_the_grid(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("board-width").fill("8")
    gm.page.get_by_test_id("board-height").fill("6")
    gm.page.get_by_test_id("board-add-submit").click()
    expect(p1.page.get_by_test_id("board-svg")).to_be_visible()
    assert not near(cell_color(gm, 2, 2), GREEN)

    gm.page.get_by_test_id("board-image-tool").locator("summary").click()
    gm.page.get_by_test_id("board-image-file").set_input_files(
        {"name": "cave.png", "mimeType": "image/png", "buffer": picture()}
    )
    gm.page.get_by_test_id("board-image-submit").click()
    expect(
        gm.log.get_by_text("The GM puts a background image under the map (320 × 240 pixels).")
    ).to_have_count(1)
    for person in (gm, p1):
        image = person.page.get_by_test_id("board-image")
        expect(image).to_have_count(1)
        # The picture loads through the person's own link (GM session, seat link).
        size = person.page.evaluate(
            """href => new Promise(done => { const img = new Image();
                 img.onload = () => done(img.naturalWidth); img.onerror = () => done(0);
                 img.src = href; })""",
            image.get_attribute("href"),
        )
        assert size == 320
        assert sees(person, GREEN), "the picture is not drawn under the grid"
    gm.page.get_by_test_id("board").screenshot(path="/tmp/board-image-gm.png")

    # Removed: gone from both, the ground shows again.
    gm.page.once("dialog", lambda d: d.accept())
    gm.page.get_by_test_id("board-image-remove").click()
    expect(p1.page.get_by_test_id("board-image")).to_have_count(0)
    expect(gm.page.get_by_test_id("board-image")).to_have_count(0)
    assert not near(cell_color(p1, 2, 2), GREEN)
