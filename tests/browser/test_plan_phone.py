"""Planning off-turn on a phone (issue 31, proof: "off-turn planning sends on the turn").

Bram's player, on a 390 x 844 phone, sets up a Basic Attack on the Goblin during Ana's
turn; the page says "Planned: Basic Attack on Goblin" and the GM's row of Bram carries a
"planned" chip. The GM ends Ana's turn: the attack happens at once, on Bram's turn, and both
pages show it.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import action_form, end_turn, reveal


def test_a_planned_attack_is_taken_when_the_turn_starts(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t, phones=True)
    gm, p2 = people.gm, people.p2
    gm.page.get_by_test_id("start-combat").click()
    expect(gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")

    form = action_form(p2, t.bram, "basic_attack")
    expect(form).to_have_count(1)
    reveal(form)
    form.locator("select[name=opt_target]").select_option(t.goblin)
    plan = form.get_by_test_id(f"action-plan-{t.bram}-basic_attack")
    expect(plan).to_have_text("Plan for my turn")
    plan.click()
    planned = p2.page.get_by_test_id(f"planned-{t.bram}")
    expect(planned).to_contain_text("Planned: Basic Attack on Goblin")
    expect(gm.order_row(t.bram).get_by_test_id(f"planned-{t.bram}")).to_be_visible()
    p2.page.screenshot(path="/tmp/phone-planned.png")
    from tests.ux.conftest import axe_violations

    for person in (p2, gm):
        for scheme in ("light", "dark"):
            person.page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            # In dark only the colours change: only colour contrast is checked again.
            found = axe_violations(person.page, () if scheme == "light" else ("color-contrast",))
            assert not found, f"{person.role} {scheme}:\n" + "\n".join(found)

    end_turn(gm, t.ana)
    expect(gm.turn_mark(t.bram)).to_have_attribute("aria-current", "step")
    expect(gm.log).to_contain_text("Bram takes the planned Basic Attack.")
    expect(gm.order_row(t.bram).get_by_test_id(f"planned-{t.bram}")).to_have_count(0)
    expect(p2.page.locator("body")).to_contain_text("Bram takes the planned Basic Attack.")
    expect(planned).to_have_count(0)
    p2.page.screenshot(path="/tmp/phone-plan-taken.png")
    gm.assert_no_errors()
    p2.assert_no_errors()
