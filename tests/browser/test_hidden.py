"""A hidden NPC never reaches a player's or a spectator's browser, until the GM reveals it.

Checked on what the browsers really got: the page's HTML (`page.content()`) and every
websocket frame received, across a round in which the hidden Lurking Troll takes its
own turn, attacks Ana (her HP drops on every screen) and steps into melee with her.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import HIDDEN, HP, Person, act, end_turn


def open_card(gm, cid: str) -> None:
    """The GM clicks a combatant's row in the initiative list: its card opens under it."""
    card = gm.page.get_by_test_id(f"combatant-{cid}")
    if card.get_attribute("open") is None:
        gm.order_row(cid).locator(".gm-row").click()
    expect(card).to_have_attribute("open", "")


def traces_of(troll: str, text: str) -> list[str]:
    """The hidden NPC's name, or its id as an attribute value (a row, an option, a test id)."""
    found = [HIDDEN] if HIDDEN in text else []
    found += re.findall(rf"[\"'-]{re.escape(troll)}[\"']", text)
    return found


def assert_unseen(people: list[Person], troll: str, when: str) -> None:
    for p in people:
        assert p.frames, f"{p.name} received no frames"
        leaks = traces_of(troll, p.page.content())
        assert not leaks, f"{when}: {p.name}'s page shows {leaks}"
        for n, frame in enumerate(p.frames):
            leaks = traces_of(troll, frame)
            assert not leaks, f"{when}: {p.name}'s frame #{n} carries {leaks}: {frame[:300]}"


def test_hidden_npc_never_reaches_players_or_spectators(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1, p2, spectator = people.gm, people.p1, people.p2, people.spectator
    watchers = people.not_gm

    # The GM sees the Troll, marked hidden; nobody else does.
    expect(gm.order_row(t.troll)).to_contain_text(HIDDEN)
    expect(gm.order_row(t.troll)).to_contain_text("hidden")
    assert_unseen(watchers, t.troll, "on arrival")

    gm.page.get_by_test_id("start-combat").click()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    act(p1, t.ana, "basic_attack", target=t.goblin)
    expect(spectator.hp(t.goblin)).to_have_text(f"HP {HP - 1} of {HP}")
    # Ana's choice of targets never offered the Troll.
    options = p1.page.locator(f"#panel-{t.ana} select[name='opt_target'] option")
    expect(options.filter(has_text="Goblin").first).to_be_attached()
    expect(options.filter(has_text=HIDDEN)).to_have_count(0)
    end_turn(p1, t.ana)
    expect(p2.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    end_turn(p2, t.bram)
    expect(gm.turn_mark(t.goblin)).to_have_attribute("aria-current", "step")
    gm.page.get_by_test_id("advance-turn").click()

    # The Troll's own turn: the GM sees it; the others are told to wait, and see no name.
    expect(gm.turn_mark(t.troll)).to_have_attribute("aria-current", "step")
    expect(gm.page.locator("#turn h2")).to_contain_text(f"{HIDDEN}'s turn")
    for p in watchers:
        expect(p.status.get_by_test_id("turn"), p.name).to_have_text("Waiting for the GM…")
        expect(p.page.locator("#order [aria-current='step']"), p.name).to_have_count(0)

    # It attacks Ana in melee: her HP drops everywhere; only the GM's log says by whom.
    act(gm, t.troll, "basic_attack", target=t.ana)
    for p in people.everyone:
        expect(p.hp(t.ana), p.name).to_have_text(f"HP {HP - 1} of {HP}")
    expect(gm.log).to_contain_text(f"{HIDDEN}: Basic Attack for 1 AP on Ana")
    expect(gm.page.locator(f"#combatants [data-combatant='{t.ana}'] .engaged")).to_have_text(
        f"In melee with Goblin, {HIDDEN}"
    )
    # Ana's own panel (and everyone else's view of her) only knows of the Goblin.
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_text("In melee with Goblin")
    gm.page.get_by_test_id("advance-turn").click()
    for p in people.everyone:
        expect(p.status.get_by_test_id("round"), p.name).to_have_text("Round 2")
        expect(p.turn_mark(t.ana), p.name).to_have_attribute("aria-current", "step")
    assert_unseen(watchers, t.troll, "after the Troll's turn")

    # Player 1's page, a socket frame and the spectator have all seen plenty by now.
    for p in watchers:
        assert len(p.frames) >= 6, f"{p.name} got only {len(p.frames)} frames"

    # The GM reveals it: now everyone sees it, without reloading.
    open_card(gm, t.troll)
    gm.page.locator(f"#combatants [data-combatant='{t.troll}']").get_by_test_id(
        f"reveal-{t.troll}"
    ).click()
    for p in people.everyone:
        expect(p.log.locator("li .text").first, p.name).to_have_text(f"{HIDDEN} is revealed.")
        expect(p.order_row(t.troll), p.name).to_contain_text(HIDDEN)
    expect(spectator.page.locator(f"#roster [data-testid='roster-{t.troll}']")).to_contain_text(
        HIDDEN
    )
    expect(p2.page.locator(f"#others [data-testid='other-{t.troll}']")).to_contain_text(HIDDEN)
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_text(
        f"In melee with Goblin, {HIDDEN}"
    )
    expect(options.filter(has_text=HIDDEN).first).to_be_attached()
    for p in watchers:
        assert any(HIDDEN in f for f in p.frames), f"{p.name} got no frame naming it"
        expect(p.order_row(t.troll), p.name).not_to_contain_text("hidden")

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()


def test_npc_health_bands_on_the_phone_and_the_screen(make_table, sit_down):
    """Issue 31: with NPC health as a band (the default), the players' phones and the
    spectators' screen read the Goblin's band, never its HP nor the damage dealt to it, in
    the page or in any frame; the GM reads both."""
    t = make_table("action_points", settings={"npc_health": "band"})
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("start-combat").click()
    for p in people.not_gm:
        expect(p.page.get_by_test_id(f"health-{t.goblin}"), p.name).to_have_text("Unhurt")
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    act(p1, t.ana, "basic_attack", target=t.goblin)  # every die is 1d1: 1 damage
    expect(gm.hp(t.goblin)).to_have_text(f"HP {HP - 1} of {HP}")
    expect(gm.log).to_contain_text("hit for 1 damage")
    for p in people.not_gm:
        expect(p.page.get_by_test_id(f"health-{t.goblin}"), p.name).to_have_text("Hurt")
        expect(p.hp(t.goblin), p.name).to_have_count(0)
        expect(p.log, p.name).to_contain_text("on Goblin")
        seen = p.page.content() + "".join(p.frames)
        assert f"HP {HP - 1}" not in seen and "1 damage" not in seen, p.name
