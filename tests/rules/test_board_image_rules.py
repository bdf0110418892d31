"""Issue 34, the battle map's background image, in the engine: the state names the image
by its content hash and size (the file is the site's business), the GM alone sets it, each
change is a logged ruling that undo takes back, and a live import checks its shape."""

from __future__ import annotations

import copy
import json

import pytest

from combat.rules.integrity import Inconsistent, restore_and_exercise
from combat.rules.table import Table
from combat.rules.view import redacted
from tests.said import said

NAME = "0123456789abcdef0123456789abcdef"


def table() -> tuple[Table, str]:
    t = Table("action_points", seed=3)
    ana = t.gm("add_combatant", name="Ana", side="pc")
    t.gm("set_board", width=6, height=4)
    return t, ana


def test_the_gm_puts_replaces_and_removes_the_image_each_a_ruling_undo_takes_back():
    t, _ = table()
    before = t.state.to_dict()
    out = t.gm("board_image", image=NAME, width=640, height=480)
    assert out.ok and out.events[-1]["ruling"] is True
    assert (
        said(out.events[-1]) == "The GM puts a background image under the map (640 × 480 pixels)."
    )
    assert t.state.board["image"] == {"name": NAME, "w": 640, "h": 480}
    out = t.gm("board_image", image="f" * 32, width=320, height=200)
    assert said(out.events[-1]) == "The GM replaces the map's background image (320 × 200 pixels)."
    out = t.gm("board_image", image="")
    assert said(out.events[-1]) == "The GM removes the map's background image."
    assert "image" not in t.state.board
    for _ in range(3):
        assert t.undo()
    assert t.state.to_dict() == before


def test_bad_names_sizes_and_players_are_refused():
    t, ana = table()
    for cmd, words in (
        ({"image": "../../etc/passwd", "width": 10, "height": 10}, "32 hex digits"),
        ({"image": NAME, "width": 5000, "height": 10}, "between 1 and 4096"),
        ({"image": NAME}, "Say the image's width in pixels."),
        ({"image": ""}, "The map has no background image."),
    ):
        t.gm("board_image", **cmd)
        assert words in t.refusal().message, cmd
    t.player("board_image", image=NAME, width=10, height=10)
    assert t.refusal() is not None
    assert "image" not in t.state.board


def test_everyone_who_sees_the_map_is_given_the_image():
    t, _ = table()
    t.gm("board_image", image=NAME, width=64, height=48)
    for audience in ("gm", "player", "public"):
        assert redacted(t.state, audience)["board"]["image"]["name"] == NAME


def test_a_live_import_accepts_the_image_and_refuses_a_malformed_one():
    t, _ = table()
    t.gm("board_image", image=NAME, width=64, height=48)
    stored = json.loads(json.dumps(t.state.to_dict()))
    assert restore_and_exercise(stored, "action_points").to_dict() == t.state.to_dict()
    for bad in (
        {"name": "x", "w": 64, "h": 48},
        {"name": NAME, "w": 0, "h": 48},
        {"name": NAME, "w": 64},
        {"name": NAME, "w": 64, "h": 48, "url": "https://evil.example/x.png"},
        "https://evil.example/x.png",
    ):
        broken = copy.deepcopy(stored)
        broken["board"]["image"] = bad
        with pytest.raises(Inconsistent):
            restore_and_exercise(broken, "action_points")
