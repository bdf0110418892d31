"""A choice made in an action's form stays while pushes redraw the form, as long as it is
still offered (static/js/choices.js).

Ana's player, on a phone, aims her Basic Attack at the Lurking Troll (revealed, the second
enemy of her list; the Goblin is the form's default). Before she presses the button the GM
hides the Goblin: the push redraws her list of targets with the Troll as its default. The
list still shows the Troll (before the page kept choices, it fell back to "no target", and
the attack was refused), it still does when the Goblin is back, and pressing the button
attacks the Troll. A choice no longer offered is not kept: while the Troll is hidden her
list shows the server's default, and goes on showing it when the Troll is back.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import HIDDEN, action_form, reveal
from .test_hidden import open_card


def gm_toggles(gm, cid: str, what: str) -> None:
    """The GM hides ("hide") or reveals ("reveal") a combatant from its card.

    As a person would, not within a double tap's time of the last tap: a tap there, on
    the button that took the place of the one just pressed, would be dropped as the same
    tap again (static/js/posts.js)."""
    gm.wait_for_posts_answered()
    gm.page.wait_for_timeout(700)
    open_card(gm, cid)
    gm.page.locator(f"#combatants [data-combatant='{cid}']").get_by_test_id(f"{what}-{cid}").click()


def test_a_chosen_target_stays_while_a_push_redraws_the_list(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t, phones=True)
    gm, p1 = people.gm, people.p1
    gm_toggles(gm, t.troll, "reveal")
    expect(p1.log.locator("li .text").first).to_have_text(f"{HIDDEN} is revealed.")
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    p1.wait_for_posts_answered()

    form = action_form(p1, t.ana, "basic_attack")
    reveal(form)
    target = form.locator("select[name='opt_target']")
    chosen = target.locator("option:checked")
    troll_offered = target.locator("option", has_text=HIDDEN)
    goblin_offered = target.locator("option", has_text="Goblin")
    expect(chosen).to_have_text("Goblin")  # the server's default: the first enemy

    # A choice no longer offered is forgotten: the list shows the server's default, and
    # goes on showing it when the Troll is back.
    target.select_option(label=HIDDEN)
    gm_toggles(gm, t.troll, "hide")
    expect(troll_offered).to_have_count(0)
    expect(chosen).to_have_text("Goblin")
    gm_toggles(gm, t.troll, "reveal")
    expect(troll_offered).to_have_count(1)
    expect(p1.log.locator("li .text").first).to_have_text(f"{HIDDEN} is revealed.")
    expect(chosen).to_have_text("Goblin")

    # Ana's player aims at the Troll again. Before she presses the button, the GM hides the
    # Goblin: her list is pushed again, without the Goblin and with the Troll as its
    # default. (Before the page kept choices, it showed "no target" then.)
    target.select_option(label=HIDDEN)
    expect(chosen).to_have_text(HIDDEN)
    gm_toggles(gm, t.goblin, "hide")
    expect(goblin_offered).to_have_count(0)
    expect(p1.page.locator(f"#others [data-testid='other-{t.goblin}']")).to_have_count(0)
    expect(chosen).to_have_text(HIDDEN)
    expect(target).to_have_value(t.troll)

    # The GM shows the Goblin again, the server's default once more: her choice stays.
    gm_toggles(gm, t.goblin, "reveal")
    expect(goblin_offered).to_have_count(1)
    expect(p1.page.locator(f"#others [data-testid='other-{t.goblin}']")).to_have_count(1)
    expect(chosen).to_have_text(HIDDEN)

    # Pressing the button attacks the Troll.
    form.get_by_test_id(f"action-button-{t.ana}-basic_attack").click()
    expect(p1.log.locator("li .text").first).to_have_text(
        re.compile(rf"^Ana: Basic Attack for 1 AP on {re.escape(HIDDEN)}\b")
    )
    expect(gm.log.locator("li .text").first).to_contain_text(f"on {HIDDEN}")
    expect(p1.page.get_by_test_id("refusal")).to_have_count(0)

    for p in (gm, p1):
        p.assert_never_reloaded()
        p.assert_no_errors()
