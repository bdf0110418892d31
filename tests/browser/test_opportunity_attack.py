"""Action Points: an NPC leaves Ana's reach, and only Ana's player is asked to react.

The GM puts the Goblin in melee with Ana and moves it away on its turn. The prompt
(with its Accept button) appears on player 1's page, not on player 2's; player 1
accepts, and the Opportunity Attack is in everyone's log, with Ana's Reaction spent.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import HIDDEN, HP, act, end_turn


def open_card(gm, cid: str) -> None:
    """The GM clicks a combatant's row in the initiative list: its card opens under it."""
    card = gm.page.get_by_test_id(f"combatant-{cid}")
    if card.get_attribute("open") is None:
        gm.order_row(cid).locator(".gm-row").click()
    expect(card).to_have_attribute("open", "")


def newest(person, seq: int, pattern: str):
    return person.log.locator(f"li[data-seq='{seq}'] .text").filter(has_text=re.compile(pattern))


def test_opportunity_attack_is_offered_to_the_right_player(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1, p2, spectator = people.gm, people.p1, people.p2, people.spectator
    seq = int(gm.log.locator("li").first.get_attribute("data-seq") or 0)

    gm.page.get_by_test_id("start-combat").click()
    seq += 1
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    end_turn(p1, t.ana)
    seq += 1
    expect(p2.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    end_turn(p2, t.bram)
    seq += 1
    for p in people.everyone:
        expect(p.turn_mark(t.goblin), p.name).to_have_attribute("aria-current", "step")

    # The GM puts the Goblin in melee with Ana.
    open_card(gm, t.goblin)
    goblin_card = gm.page.locator(f"#combatants [data-combatant='{t.goblin}']")
    goblin_card.locator(f"#engage-{t.goblin}").select_option(t.ana)
    goblin_card.get_by_test_id(f"engage-{t.goblin}").click()
    seq += 1
    for p in people.everyone:
        expect(newest(p, seq, r"^Goblin and Ana are in melee\.$"), p.name).to_have_count(1)
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_text("In melee with Goblin")
    for p in people.everyone:
        expect(p.resource(t.ana, "reaction"), p.name).to_have_attribute("data-value", "1")

    # Nobody has been asked anything yet.
    for p in (gm, p1, p2):
        expect(p.page.locator("#reactions [data-testid^='window-']"), p.name).to_have_count(0)

    # The Goblin walks away (the GM acts for it): it leaves Ana's reach.
    act(gm, t.goblin, "move")
    seq += 1
    leaves = r"^Goblin leaves Ana's reach: Ana may make an Opportunity Attack\.$"
    for p in people.everyone:
        expect(newest(p, seq, leaves), p.name).to_have_count(1)

    # Player 1 is asked, with a button to accept; player 2 sees no button of any kind.
    window = p1.page.locator(f"#reactions [data-testid^='window-'][data-reactor='{t.ana}']")
    expect(window).to_have_count(1)
    expect(window).to_contain_text("Opportunity attack")
    expect(window).to_contain_text("Ana may react to Goblin now")
    wid = (window.get_attribute("data-testid") or "").removeprefix("window-")
    assert wid, "the window has no id"
    accept = p1.page.get_by_test_id(f"accept-{wid}")
    expect(accept).to_be_visible()
    expect(accept).to_be_enabled()
    expect(p1.page.get_by_test_id(f"reaction-alert-{wid}")).to_contain_text(
        "Reaction available: Opportunity attack for Ana against Goblin"
    )
    expect(p2.page.locator("[data-testid^='reaction-alert-']")).to_have_count(0)
    expect(p2.page.locator("#reactions [data-testid^='accept-']")).to_have_count(0)
    expect(p2.page.locator("#reactions [data-testid^='decline-']")).to_have_count(0)
    expect(p2.page.locator("#reactions")).not_to_contain_text(" now.")
    expect(spectator.page.locator("[data-testid^='accept-']")).to_have_count(0)
    # The Goblin must wait for the answer before it does anything else.
    expect(
        gm.page.locator(f"#turn [data-testid='action-{t.goblin}-basic_attack']")
    ).to_have_attribute("data-allowed", "false")

    accept.click()
    seq += 1
    attack = (
        r"^Ana: Opportunity Attack \(Reaction, 0 AP\) on Goblin, \d+ against melee "
        r"defence \d+: hit for 1 damage\.$"
    )
    for p in people.everyone:
        expect(newest(p, seq, attack), p.name).to_have_count(1)
        expect(p.hp(t.goblin), p.name).to_have_text(f"HP {HP - 1} of {HP}")
        expect(p.resource(t.ana, "reaction"), p.name).to_have_attribute("data-value", "0")
        expect(p.resource(t.ana, "reaction"), p.name).to_contain_text("Reaction used")
    for p in (gm, p1, p2):
        expect(p.page.locator("#reactions [data-testid^='window-']"), p.name).to_have_count(0)
    expect(p1.page.locator("[data-testid^='reaction-alert-']")).to_have_count(0)
    expect(p1.page.locator(f"#panel-{t.ana} .engaged")).to_have_count(0)
    expect(p1.page.get_by_test_id("refusal")).to_have_count(0)

    # The Goblin's turn goes on: the GM advances to the hidden Troll's.
    gm.page.get_by_test_id("advance-turn").click()
    expect(gm.turn_mark(t.troll)).to_have_attribute("aria-current", "step")
    for p in people.not_gm:
        expect(p.status.get_by_test_id("turn"), p.name).to_have_text("Waiting for the GM…")

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()
    for p in people.not_gm:
        assert HIDDEN not in p.everything_received(), f"{HIDDEN} reached {p.name}"
