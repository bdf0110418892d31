"""The GM console as a dense game table (issue 30, first step).

On a 1366x768 laptop, with ten combatants and combat started, the GM sees every name in
the initiative list and the acting combatant's panel (its heading, its end-turn button
and its basic attack) without scrolling; each row is 48-64 px tall; a row opens its
combatant's card in place under it, one card at a time, and damage dealt from that card shows on the
row's HP bar.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import HIDDEN, HP, SURE, arrive, logged_in_cookie, open_person

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
WIDE = {"viewport": {"width": 1920, "height": 1080}}
# Pictures to look at, never kept in the repository.
SHOTS = Path(os.environ.get("GM_CONSOLE_SHOTS", "/tmp/gm-console-shots"))
EXTRA = ["Cutthroat", "Archer", "Brute", "Shaman", "Wolf", "Sellsword"]
# Each ruleset's basic attack (screens.FIRST_ACTIONS).
ATTACK = {"action_points": "basic_attack", "action_ladder": "attack", "initiative_passes": "attack"}


def add(enc, **fields) -> str:
    from combat import services
    from combat.access import gm_viewer

    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


@contextmanager
def console(browser, live_server_url: str, t, screen: dict = LAPTOP) -> Iterator[Any]:
    """The GM, logged in, on the encounter's console on this screen; closed afterwards."""
    gm = open_person(browser, "gm", "GM", **screen)
    try:
        gm.context.add_cookies([logged_in_cookie(t.enc.owner, live_server_url)])
        arrive(gm, f"{live_server_url}/enc/{t.enc.pk}/")
        yield gm
    finally:
        gm.context.close()


def in_view(box: dict | None, width: int, height: int) -> bool:
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and box["y"] + box["height"] <= height
    )


@pytest.mark.parametrize("ruleset", ["action_points", "action_ladder", "initiative_passes"])
def test_ten_combatants_and_the_turn_fit_a_laptop_screen(
    ruleset, make_table, browser, live_server_url
):
    t = make_table(ruleset)
    ids = [t.ana, t.bram, t.goblin, t.troll]
    for n, name in enumerate(EXTRA):
        ids.append(add(t.enc, name=name, side="npc", hp=HP, initiative=9 - n, stats=SURE))
    names = ["Ana", "Bram", "Goblin", "Lurking Troll", *EXTRA]
    assert len(ids) == 10

    with console(browser, live_server_url, t) as gm:
        page = gm.page
        page.get_by_test_id("start-combat").click()
        expect(gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{ruleset}-started.png"))

        # The whole list and the acting combatant's panel, without scrolling.
        assert page.evaluate("() => window.scrollY") == 0
        width, height = LAPTOP["viewport"]["width"], LAPTOP["viewport"]["height"]
        for cid, name in zip(ids, names, strict=True):
            row_name = gm.order_row(cid).locator(".name")
            expect(row_name).to_have_text(name)
            assert in_view(row_name.bounding_box(), width, height), f"{name} is off the screen"
            row = gm.order_row(cid).locator(".gm-row")
            tall = row.bounding_box()["height"]
            assert 48 <= tall <= 64, f"{name}'s row is {tall} px tall"
        turn = page.get_by_test_id("turn-panel")
        expect(turn.get_by_role("heading", level=2)).to_have_text("Ana's turn")
        assert in_view(turn.get_by_role("heading", level=2).bounding_box(), width, height)
        end = turn.get_by_test_id(f"end-turn-{t.ana}")
        assert in_view(end.bounding_box(), width, height), "Ana's End turn is off the screen"
        advance = page.get_by_test_id("advance-turn")
        assert in_view(advance.bounding_box(), width, height)
        attack = turn.get_by_test_id(f"action-button-{t.ana}-{ATTACK[ruleset]}")
        expect(attack).to_be_enabled()
        assert in_view(attack.bounding_box(), width, height), "Ana's attack is off the screen"

        # A row opens its card under it; opening another closes the first.
        goblin_card = page.get_by_test_id(f"combatant-{t.goblin}")
        damage = page.get_by_test_id(f"damage-{t.goblin}")
        expect(damage).to_be_hidden()
        gm.order_row(t.goblin).locator(".gm-row").click()
        expect(goblin_card).to_have_attribute("open", "")
        expect(damage).to_be_visible()
        row_box = gm.order_row(t.goblin).locator(".gm-row").bounding_box()
        damage_box = damage.bounding_box()
        assert damage_box["y"] >= row_box["y"] + row_box["height"] - 1, "the card is not under"
        assert damage_box["y"] - (row_box["y"] + row_box["height"]) < 120, "the card is far"
        page.screenshot(path=str(SHOTS / f"{ruleset}-card-open.png"))

        # Damage from the card: the row's HP text and bar go down.
        bar = gm.order_row(t.goblin).locator("meter.hp-bar")
        expect(bar).to_have_attribute("value", str(HP))
        goblin_card.get_by_label("Amount").fill("60")
        damage.click()
        expect(gm.hp(t.goblin)).to_have_text(f"HP {HP - 60} of {HP}")
        expect(bar).to_have_attribute("value", str(HP - 60))
        expect(gm.order_row(t.goblin).locator(".row-hp")).to_have_class("row-hp hp-mid")
        # The card stays open through the push.
        expect(goblin_card).to_have_attribute("open", "")

        gm.order_row(t.bram).locator(".gm-row").click()
        expect(page.get_by_test_id(f"combatant-{t.bram}")).to_have_attribute("open", "")
        expect(goblin_card).not_to_have_attribute("open", "")
        expect(damage).to_be_hidden()

        # The initiative number turns into a field; Enter sets it.
        gm.order_row(t.bram).locator(".gm-row").click()  # closed again
        gm.order_row(ids[8]).locator(".init-btn").click()
        field = page.locator(f"#init-{ids[8]}")
        expect(field).to_be_focused()
        field.fill("30")
        field.press("Enter")
        expect(gm.order_row(ids[8]).locator(".init-btn")).to_have_text("30")
        expect(field).to_be_hidden()

        # A defeated combatant's row shrinks (and dims).
        last = ids[9]
        gm.order_row(last).locator(".gm-row").click()
        page.get_by_test_id(f"combatant-{last}").get_by_label("Amount").fill(str(HP))
        page.get_by_test_id(f"damage-{last}").click()
        expect(gm.order_row(last).locator(".tag.warn")).to_have_text("defeated")
        gm.order_row(last).locator(".gm-row").click()  # closed
        expect(page.get_by_test_id(f"combatant-{last}")).not_to_have_attribute("open", "")
        assert gm.order_row(last).locator(".gm-row").bounding_box()["height"] < 48
        page.screenshot(
            path=str(SHOTS / f"{ruleset}-after.png"),
            clip={"x": 0, "y": 0, "width": 740, "height": 768},
        )
        gm.assert_no_errors()


def test_what_waits_for_the_gm_stays_pinned_on_a_wide_screen(make_table, browser, live_server_url):
    """On a 1920x1080 screen: list, turn panel and log side by side; when the Goblin's
    attack opens Ana's defence window, a strip saying "1 waiting for you" is pinned on
    top (still there after scrolling), Ana's row carries a badge, and axe finds nothing
    serious, light or dark."""
    from tests.ux.conftest import axe_violations

    from .conftest import act

    t = make_table("action_ladder")
    for n, name in enumerate(EXTRA):
        add(t.enc, name=name, side="npc", hp=HP, initiative=9 - n, stats=SURE)
    with console(browser, live_server_url, t, WIDE) as gm:
        page = gm.page
        page.get_by_test_id("start-combat").click()
        expect(gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
        for who in (t.bram, t.goblin):
            page.get_by_test_id("advance-turn").click()
            expect(gm.turn_mark(who)).to_have_attribute("aria-current", "step")
        # The log is beside the list, on the first screen.
        log_box = gm.log.bounding_box()
        list_box = page.get_by_test_id("order").bounding_box()
        assert log_box["x"] > list_box["x"] + list_box["width"], "the log is not beside"
        assert log_box["y"] < 1080

        act(gm, t.goblin, "attack", target=t.ana)
        strip = page.get_by_test_id("reactions")
        expect(strip.get_by_test_id("pending-count")).to_have_accessible_name("1 waiting for you")
        expect(gm.order_row(t.ana).get_by_test_id(f"reacting-{t.ana}")).to_be_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => window.scrollTo(0, 0)")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            page.screenshot(path=str(SHOTS / f"wide-reaction-{scheme}.png"))
            found = axe_violations(page, () if scheme == "light" else ("color-contrast",))
            assert not found, f"{scheme}:\n" + "\n".join(found)
        open_row = gm.order_row(t.goblin).locator(".gm-row")
        open_row.click()
        expect(page.get_by_test_id(f"combatant-{t.goblin}")).to_have_attribute("open", "")
        found = axe_violations(page)
        assert not found, "a card open:\n" + "\n".join(found)
        # On a laptop the page scrolls (the side column is below): the strip stays on top.
        page.set_viewport_size(LAPTOP["viewport"])
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_function("() => window.scrollY > 200")
        box = strip.bounding_box()
        assert box is not None and 0 <= box["y"] <= 10, f"the strip scrolled away: {box}"
        gm.assert_no_errors()


def goblins_turn(gm, t) -> Any:
    """Starts the combat and ends Ana's and Bram's turns: the Goblin's turn panel."""
    gm.page.get_by_test_id("start-combat").click()
    for who in (t.bram, t.goblin):
        gm.page.get_by_test_id("advance-turn").click()
        expect(gm.turn_mark(who)).to_have_attribute("aria-current", "step")
    return gm.page.get_by_test_id("turn-panel")


@pytest.mark.parametrize("ruleset", ["action_points", "action_ladder", "initiative_passes"])
def test_an_npc_turn_is_three_clicks(ruleset, make_table, browser, live_server_url):
    """On the Goblin's turn the attack already aims at the first standing enemy (Ana) and
    its target list names the enemies first; the GM clicks Bram's row's "Target", the
    attack and End turn: Bram loses 1 HP (or, in the Action Ladder, his defence waits)
    and the turn moves on, three clicks in all."""
    t = make_table(ruleset)
    with console(browser, live_server_url, t) as gm:
        page, turn = gm.page, goblins_turn(gm, t)
        expect(turn.get_by_role("heading", level=2)).to_have_text("Goblin's turn")
        form = turn.get_by_test_id(f"action-{t.goblin}-{ATTACK[ruleset]}")
        select = form.locator("select[name='opt_target']")
        # Enemies first, then allies; the Goblin itself is not in the list.
        groups = select.locator("optgroup")
        expect(groups.first).to_have_attribute("label", "Enemies")
        expect(groups.first.locator("option")).to_have_text(["Ana", "Bram"])
        expect(groups.nth(1)).to_have_attribute("label", "Allies")
        expect(groups.nth(1).locator("option")).to_have_text(["Lurking Troll"])
        expect(select).to_have_value(t.ana)
        expect(gm.order_row(t.goblin).get_by_test_id(f"pick-target-{t.goblin}")).to_have_count(0)
        expect(gm.order_row(t.ana).get_by_test_id(f"pick-target-{t.ana}")).to_have_attribute(
            "aria-pressed", "true"
        )

        # 1: Bram's row is the target; 2: the attack; 3: End turn.
        pick = gm.order_row(t.bram).get_by_test_id(f"pick-target-{t.bram}")
        pick.click()
        expect(select).to_have_value(t.bram)
        expect(pick).to_have_attribute("aria-pressed", "true")
        expect(page.get_by_test_id(f"combatant-{t.bram}")).not_to_have_attribute("open", "")
        form.get_by_test_id(f"action-button-{t.goblin}-{ATTACK[ruleset]}").click()
        if ruleset == "action_ladder":
            # The attack waits for Bram's defence (his player's choice), aimed at him.
            expect(gm.order_row(t.bram).get_by_test_id(f"reacting-{t.bram}")).to_be_visible()
        else:
            expect(gm.hp(t.bram)).to_have_text(f"HP {HP - 1} of {HP}")
        expect(gm.hp(t.ana)).to_have_text(f"HP {HP} of {HP}")
        if ruleset == "initiative_passes":
            # 1 AP left: ending the turn asks whether to hold it; "No" is the third click.
            ask = turn.get_by_test_id(f"hold-ask-{t.goblin}")
            expect(ask.get_by_role("paragraph")).to_have_text("End turn: hold 1 AP for Interrupts?")
            expect(ask.get_by_test_id(f"hold-{t.goblin}")).to_have_text("Hold 1 AP")
        turn.get_by_test_id(f"end-turn-{t.goblin}").click()
        expect(gm.turn_mark(t.troll)).to_have_attribute("aria-current", "step")
        gm.assert_no_errors()


def test_an_npc_turn_by_keys_alone(make_table, browser, live_server_url):
    """The same NPC turn without the mouse: 2 focuses Bram's row (second in the order), G
    makes him the target, A takes the Goblin's attack, N ends the turn; the list of
    shortcuts names G and A."""
    t = make_table("action_points")
    with console(browser, live_server_url, t) as gm:
        page, turn = gm.page, goblins_turn(gm, t)
        select = turn.get_by_test_id(f"action-{t.goblin}-basic_attack").locator(
            "select[name='opt_target']"
        )
        expect(select).to_have_value(t.ana)
        page.locator("body").focus()
        page.keyboard.press("2")
        expect(gm.order_row(t.bram)).to_be_focused()
        page.keyboard.press("g")
        expect(select).to_have_value(t.bram)
        pick = gm.order_row(t.bram).get_by_test_id(f"pick-target-{t.bram}")
        expect(pick).to_have_attribute("aria-pressed", "true")
        page.keyboard.press("a")
        expect(gm.hp(t.bram)).to_have_text(f"HP {HP - 1} of {HP}")
        expect(gm.hp(t.ana)).to_have_text(f"HP {HP} of {HP}")
        # N is the advance button pressed again: it waits out the double-tap guard
        # (static/js/posts.js) of the last advance, as a person's second press would.
        expect(page.get_by_test_id("advance-turn")).to_be_enabled()
        page.keyboard.press("n")
        expect(gm.turn_mark(t.troll)).to_have_attribute("aria-current", "step")
        page.keyboard.press("?")
        shortcuts = page.locator("#shortcuts")
        expect(shortcuts).to_contain_text("Make the focused combatant the target")
        expect(shortcuts).to_contain_text("Take the acting combatant's first action")
        gm.assert_no_errors()


def test_holding_the_ap_left_is_asked_when_a_pass_turn_ends(make_table, browser, live_server_url):
    """Initiative Passes: after Ana's Reload (1 AP of 3), her turn panel asks "Hold 2 AP for
    Interrupts?"; answering Hold ends her turn, her row says "holding" and the log says
    she holds; at the start of a turn (nothing spent) there is no question."""
    t = make_table("initiative_passes")
    with console(browser, live_server_url, t) as gm:
        page = gm.page
        page.get_by_test_id("start-combat").click()
        expect(gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
        turn = page.get_by_test_id("turn-panel")
        expect(turn.get_by_test_id(f"hold-ask-{t.ana}")).to_have_count(0)
        expect(turn.get_by_test_id(f"end-turn-{t.ana}")).to_have_text("End turn")
        turn.get_by_test_id(f"action-button-{t.ana}-reload").click()
        ask = turn.get_by_test_id(f"hold-ask-{t.ana}")
        expect(ask.get_by_role("paragraph")).to_have_text("End turn: hold 2 AP for Interrupts?")
        ask.get_by_test_id(f"hold-{t.ana}").click()
        expect(gm.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
        expect(gm.order_row(t.ana).locator(".tag", has_text="holding")).to_be_visible()
        expect(gm.log).to_contain_text("Ana holds: 2 AP kept for Interrupts only")
        gm.assert_no_errors()


def test_dragging_a_row_among_the_tied_reorders_them(make_table, browser, live_server_url):
    """Three wolves tied on 7: dragging the last onto the first puts it first (two steps
    of "moves up among the tied" in the log); the arrows stay for the keyboard."""
    t = make_table("action_points")
    wolves = [add(t.enc, name=f"Wolf {x}", side="npc", hp=HP, initiative=7) for x in "ABC"]
    with console(browser, live_server_url, t) as gm:
        page = gm.page
        names = page.locator("#combatants > li .name")
        expect(names).to_have_text(["Ana", "Bram", "Goblin", "Wolf A", "Wolf B", "Wolf C", HIDDEN])
        gm.order_row(wolves[2]).locator(".gm-row").drag_to(
            gm.order_row(wolves[0]).locator(".gm-row")
        )
        expect(names).to_have_text(["Ana", "Bram", "Goblin", "Wolf C", "Wolf A", "Wolf B", HIDDEN])
        expect(gm.log.get_by_text("Wolf C moves up among the tied.")).to_have_count(2)
        gm.assert_no_errors()


def test_a_drag_past_another_initiative_is_the_gms_ruling(make_table, browser, live_server_url):
    """Issue 30: 'any other move as a logged GM ruling, with the keyboard alternative kept'.
    Wolf B (7) dropped on the Goblin (10) goes right before it, at initiative 10; then its
    up arrow, from the keyboard, takes it past Bram (a PC at 15) at initiative 16."""
    t = make_table("action_points")
    wolves = [add(t.enc, name=f"Wolf {x}", side="npc", hp=HP, initiative=7) for x in "AB"]
    with console(browser, live_server_url, t) as gm:
        page = gm.page
        names = page.locator("#combatants > li .name")
        expect(names).to_have_text(["Ana", "Bram", "Goblin", "Wolf A", "Wolf B", HIDDEN])
        gm.order_row(wolves[1]).locator(".gm-row").drag_to(
            gm.order_row(t.goblin).locator(".gm-row")
        )
        expect(names).to_have_text(["Ana", "Bram", "Wolf B", "Goblin", "Wolf A", HIDDEN])
        expect(
            gm.log.get_by_text("The GM moves Wolf B before Goblin in the order (initiative 10).")
        ).to_be_visible()
        expect(gm.order_row(wolves[1]).locator(".init-btn")).to_have_text("10")
        gm.order_row(wolves[1]).locator(".init-btn").click()
        # The number field takes the focus as the editor opens (its `toggle` event comes
        # a moment after the click); then the GM tabs on to the arrow.
        expect(page.locator(f"#init-{wolves[1]}")).to_be_focused()
        up = page.get_by_test_id(f"up-{wolves[1]}")
        expect(up).to_have_attribute("aria-label", "Move Wolf B up in the order, as a ruling")
        up.focus()
        page.keyboard.press("Enter")
        expect(names).to_have_text(["Ana", "Wolf B", "Bram", "Goblin", "Wolf A", HIDDEN])
        expect(
            gm.log.get_by_text("The GM moves Wolf B before Bram in the order (initiative 16).")
        ).to_be_visible()
        gm.assert_no_errors()
