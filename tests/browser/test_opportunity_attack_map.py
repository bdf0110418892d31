"""Issue 35, "Reach from positions", in real browsers: "A path that leaves an enemy's reach
without Disengage stops at the cell where it leaves, opens that enemy's Opportunity Attack
... window exactly as today, and continues once it is answered or closed"; the proof asks
that "a move out of an enemy's reach brings the Opportunity Attack prompt to that enemy's
player".

Action Points and the Action Ladder (Initiative Passes has no such attack), on an
8 x 6 map: the Goblin stands next to Ana. On its turn the GM taps a cell a few columns
away and taps again; the Goblin does not get past the last cell Ana reaches, and Ana's
player, on a phone, is asked (a banner and a button); Bram's player is not. Ana accepts,
the blow lands (in the Ladder, once the GM has answered for the Goblin's defence), and the
Goblin walks on to the cell the GM chose, on every page.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import HIDDEN, HP, end_turn
from .test_board import cell_point


def with_map(t) -> None:
    from combat import services
    from combat.access import gm_viewer

    for command in (
        {"type": "set_board", "width": 8, "height": 6},
        {"type": "place", "actor": t.ana, "cell": "A1"},
        {"type": "place", "actor": t.bram, "cell": "A6"},
        {"type": "place", "actor": t.goblin, "cell": "B2"},
    ):
        result = services.run_command(t.enc.pk, gm_viewer(t.enc), command)
        assert result.ok, result.refusal


# Per ruleset: where the GM sends the Goblin (column, row), the path's line, and the blow.
PLAY = {
    "action_points": (
        (5, 1),
        "Move, 1 AP: 4 of 6 m",
        r"Ana: Opportunity Attack \(Reaction, 0 AP\) on Goblin",
    ),
    "action_ladder": (
        (3, 1),
        re.compile(r"Walk, [^:]+: 2 of"),
        r"Ana attacks Goblin with Attack of Opportunity",
    ),
}


@pytest.mark.parametrize("ruleset", list(PLAY))
def test_leaving_reach_on_the_map_asks_the_enemys_player_on_a_phone(ruleset, make_table, sit_down):
    (x, y), line, blow_text = PLAY[ruleset]
    dest = f"{chr(65 + x)}{y + 1}"
    t = make_table(ruleset)
    with_map(t)
    people = sit_down(t, phones=True)
    gm, p1, p2 = people.gm, people.p1, people.p2

    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    # Standing next to each other is being in melee: nobody chose it.
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_text("In melee with Goblin")
    end_turn(p1, t.ana)
    expect(p2.page.get_by_test_id(f"your-turn-{t.bram}")).to_be_visible()
    end_turn(p2, t.bram)
    expect(gm.turn_mark(t.goblin)).to_have_attribute("aria-current", "step")

    # The GM taps a cell for the acting Goblin, reads the path's price, and taps again.
    token = gm.page.get_by_test_id(f"token-{t.goblin}")
    gm.page.get_by_test_id("board-svg").scroll_into_view_if_needed()
    gm.page.mouse.click(*cell_point(gm, x, y))
    expect(gm.page.get_by_test_id("move-line")).to_contain_text(line)
    expect(token).to_have_attribute("data-cell", "B2")
    gm.page.mouse.click(*cell_point(gm, x, y))

    # Its next step would leave Ana's reach: it stops in B2 and Ana's player is asked.
    window = p1.page.locator(f"#reactions [data-testid^='window-'][data-reactor='{t.ana}']")
    expect(window).to_have_count(1)
    expect(window).to_contain_text("Opportunity attack")
    wid = (window.get_attribute("data-testid") or "").removeprefix("window-")
    assert wid, "the window has no id"
    expect(p1.page.get_by_test_id(f"reaction-alert-{wid}")).to_contain_text(
        "Reaction available: Opportunity attack for Ana against Goblin"
    )
    accept = p1.page.get_by_test_id(f"accept-{wid}")
    expect(accept).to_be_visible()
    expect(accept).to_be_in_viewport()
    for p in people.everyone:
        expect(p.page.get_by_test_id(f"token-{t.goblin}"), p.name).to_have_attribute(
            "data-cell", "B2"
        )
    expect(p2.page.locator("[data-testid^='reaction-alert-']")).to_have_count(0)
    expect(p2.page.locator("#reactions [data-testid^='accept-']")).to_have_count(0)
    expect(people.spectator.page.locator("[data-testid^='accept-']")).to_have_count(0)

    accept.click()
    if ruleset == "action_ladder":
        # The Ladder lets the Goblin defend (Dodge or Parry): the GM answers for it.
        defence = gm.page.locator(f"#reactions [data-testid^='window-'][data-reactor='{t.goblin}']")
        expect(defence).to_have_count(1)
        did = (defence.get_attribute("data-testid") or "").removeprefix("window-")
        gm.page.get_by_test_id(f"decline-{did}").click()
    # The blow is in every log, and the Goblin walks on to where the GM sent it.
    blow = re.compile(blow_text)
    for p in people.everyone:
        expect(p.log, p.name).to_contain_text(blow)
        expect(p.hp(t.goblin), p.name).not_to_have_text(f"HP {HP} of {HP}")
        expect(p.page.get_by_test_id(f"token-{t.goblin}"), p.name).to_have_attribute(
            "data-cell", dest
        )
    expect(p1.page.locator("[data-testid^='reaction-alert-']")).to_have_count(0)
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_count(0)

    for p in people.everyone:
        p.wait_for_posts_answered()
        p.assert_never_reloaded()
        p.assert_no_errors()
    for p in people.not_gm:
        assert HIDDEN not in p.everything_received(), f"{HIDDEN} reached {p.name}"
