"""Rules played from the pages, watched by everyone at the table (issue 14).

Each test drives only the buttons and fields a person would use, and checks what
every page shows afterwards.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import HP, act


def open_card(gm, cid: str) -> None:
    """The GM clicks a combatant's row in the initiative list: its card opens under it."""
    card = gm.page.get_by_test_id(f"combatant-{cid}")
    if card.get_attribute("open") is None:
        gm.order_row(cid).locator(".gm-row").click()
    expect(card).to_have_attribute("open", "")


def log_line(person, text: str):
    return person.log.locator(".text").filter(has_text=re.compile(rf"^{re.escape(text)}$"))


def start(sit_down, t):
    """Everyone sits down; the GM starts combat: Ana's turn."""
    people = sit_down(t)
    people.gm.page.get_by_test_id("start-combat").click()
    expect(people.gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    return people


def test_healing_a_defeated_goblin_brings_it_back(make_table, sit_down):
    """docs/rules.md, HP: the GM heals a defeated Goblin above 0 HP from the console; every
    page logs it back on its feet and its turn comes round again."""
    t = make_table("action_points")
    people = start(sit_down, t)
    gm = people.gm
    open_card(gm, t.goblin)
    card = gm.page.locator(f"#combatants [data-combatant='{t.goblin}']")
    card.get_by_label("Amount").fill(str(HP))
    card.get_by_test_id(f"damage-{t.goblin}").click()
    expect(card.locator(".tag.warn")).to_have_text("defeated")
    card.get_by_label("Amount").fill("5")
    card.get_by_test_id(f"heal-{t.goblin}").click()
    for p in people.everyone:
        expect(log_line(p, "Goblin is back on their feet."), p.name).to_have_count(1)
        expect(p.hp(t.goblin), p.name).to_have_text(f"HP 5 of {HP}")
    expect(card.locator(".tag.warn")).to_have_count(0)
    # Its place (after Ana and Bram) is still to come this round: it takes its turn there.
    gm.page.get_by_test_id("advance-turn").click()
    expect(gm.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    gm.page.get_by_test_id("advance-turn").click()
    for p in people.everyone:
        expect(p.turn_mark(t.goblin), p.name).to_have_attribute("aria-current", "step")
        p.assert_no_errors()


def test_ladder_defender_chooses_dodge_parry_or_block(make_table, sit_down):
    """action-ladder.md, Dodge, Parry and Block: the Goblin attacks Ana; her player and the
    GM are offered Dodge, Parry with STR or AGI and (with a shield) Block, each with its
    bonus; player 2 and the spectator see no buttons. Ana's player Blocks."""
    from combat import services
    from combat.access import gm_viewer

    t = make_table("action_ladder")
    for key, value in (("shield", True), ("block_rating", 3)):
        out = services.run_command(
            t.enc.pk,
            gm_viewer(t.enc),
            {"type": "set_modifier", "actor": t.ana, "key": key, "value": value},
        )
        assert out.ok, out.refusal
    people = start(sit_down, t)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("advance-turn").click()
    expect(gm.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    gm.page.get_by_test_id("advance-turn").click()
    expect(gm.turn_mark(t.goblin)).to_have_attribute("aria-current", "step")
    act(gm, t.goblin, "attack", target=t.ana)
    window = p1.page.locator(f"#reactions [data-reactor='{t.ana}']")
    expect(window).to_have_count(1)
    wid = (window.get_attribute("data-testid") or "").removeprefix("window-")
    for p in (gm, p1):
        offers = p.page.get_by_test_id(f"offers-{wid}")
        expect(offers.locator("button"), p.name).to_have_text(
            [
                "Dodge +0",
                "Parry with STR +0",
                "Parry with AGI +0",
                "Block +3",
                "No reaction: plain defence",
            ]
        )
        expect(offers, p.name).to_contain_text("(RES +0, Block Rating +3; 1 Bonus Action)")
    for p in (people.p2, people.spectator):
        expect(p.page.locator(f"[data-testid^='defend-{wid}-']"), p.name).to_have_count(0)
    p1.page.get_by_test_id(f"defend-{wid}-block").click()
    for p in people.everyone:
        line = p.log.locator(".text").filter(has_text=re.compile(r"Block \(rating 3\) \d+"))
        expect(line, p.name).to_have_count(1)
    for p in (gm, p1):
        expect(p.page.locator("#reactions [data-testid^='window-']"), p.name).to_have_count(0)
    for p in people.everyone:
        p.assert_no_errors()


def effects_of(person, cid: str):
    return person.page.locator(person.region_for(cid)).locator("ul.effects li")


def test_gm_sets_a_condition_with_a_duration_and_everyone_sees_it_end(make_table, sit_down):
    """RULINGS 5: from the console the GM sets Ana Prone until the start of Bram's next
    turn and the Goblin Hexed (a custom condition); every card shows them; Prone ends
    when Bram's turn begins; the GM clears Hexed."""
    t = make_table("action_ladder")
    people = start(sit_down, t)
    gm = people.gm

    open_card(gm, t.ana)
    form = gm.page.get_by_test_id(f"condition-form-{t.ana}")
    gm.page.locator(f"#combatants [data-combatant='{t.ana}'] .conditions summary").click()
    form.get_by_label("Condition").fill("Prone")
    form.get_by_label("Lasts").select_option("turn_start")
    form.get_by_label("Whose turn").select_option(t.bram)
    form.get_by_test_id(f"set-condition-{t.ana}").click()
    for p in people.everyone:
        expect(effects_of(p, t.ana), p.name).to_have_text(
            ["Prone (until the start of Bram's next turn)"]
        )

    open_card(gm, t.goblin)
    goblin = gm.page.locator(f"#combatants [data-combatant='{t.goblin}']")
    goblin.locator(".conditions summary").click()
    form = gm.page.get_by_test_id(f"condition-form-{t.goblin}")
    form.get_by_label("Condition").fill("Hexed")
    form.get_by_label("Stacks").fill("2")
    form.get_by_label("Lasts").select_option("rounds")
    form.get_by_label("Rounds").fill("3")
    form.get_by_test_id(f"set-condition-{t.goblin}").click()
    for p in people.everyone:
        expect(effects_of(p, t.goblin), p.name).to_have_text(["Hexed 2 (until the end of round 3)"])

    gm.page.get_by_test_id("advance-turn").click()  # Bram's turn begins: Prone ends
    for p in people.everyone:
        expect(effects_of(p, t.ana), p.name).to_have_count(0)
        expect(log_line(p, "Ana: Prone ends."), p.name).to_have_count(1)

    goblin.get_by_role("button", name="Clear Hexed").click()
    for p in people.everyone:
        expect(effects_of(p, t.goblin), p.name).to_have_count(0)
        expect(log_line(p, "The GM clears Hexed from Goblin."), p.name).to_have_count(1)
        p.assert_no_errors()
