"""Rules played from the pages, watched by everyone at the table (issue 14).

Each test drives only the buttons and fields a person would use, and checks what
every page shows afterwards.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import HP


def log_line(person, text: str):
    return person.log.locator(".text").filter(has_text=re.compile(rf"^{re.escape(text)}$"))


def test_healing_a_defeated_goblin_brings_it_back(make_table, sit_down):
    """docs/rules.md, HP: the GM heals a defeated Goblin above 0 HP from the console; every
    page logs it back on its feet and its turn comes round again."""
    t = make_table("action_points")
    people = sit_down(t)
    gm = people.gm
    gm.page.get_by_test_id("start-combat").click()
    expect(gm.order_row(t.ana)).to_have_attribute("aria-current", "step")
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
    expect(gm.order_row(t.bram)).to_have_attribute("aria-current", "step")
    gm.page.get_by_test_id("advance-turn").click()
    for p in people.everyone:
        expect(p.order_row(t.goblin), p.name).to_have_attribute("aria-current", "step")
        p.assert_no_errors()
