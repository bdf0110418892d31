"""The player's page on a phone, and the action panel it shares with the GM (issue 31).

The players are on phones (390 x 844). In every ruleset, on Ana's turn, the basic attack
is on the first screen without scrolling and a tap attacks. Off-turn, the shared reason is
said once, not once per action. Every action of the Action Ladder's catalogue can be found
through its group, and the filter box narrows the list to what is typed.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import act, action_form, end_turn, reveal
from .test_unseen_phone import on_the_first_screen

BASIC = {"action_points": "basic_attack", "action_ladder": "attack", "initiative_passes": "attack"}


@pytest.mark.parametrize("ruleset", list(BASIC))
def test_the_basic_attack_is_on_the_first_screen_and_the_reason_is_said_once(
    ruleset, make_table, sit_down
):
    key = BASIC[ruleset]
    t = make_table(ruleset)
    people = sit_down(t, phones=True)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    button = p1.page.locator(f"#panel-{t.ana}").get_by_test_id(f"action-button-{t.ana}-{key}")
    expect(button).to_be_enabled()
    p1.page.screenshot(path=f"/tmp/phone-{ruleset}-turn.png")
    on_the_first_screen(p1, button)
    button.click()
    expect(p1.page.locator("#recent")).to_contain_text(re.compile(r"Ana\b.*Attack"))
    p1.page.screenshot(path=f"/tmp/phone-{ruleset}-attacked.png")

    from combat.models import Encounter

    end_turn(p1, t.ana)
    # Her page shows what End Turn did ("Only 1 attack or spell per turn", said before it,
    # would match the reason looked for below).
    p1.wait_for_posts_answered()
    version = Encounter.objects.get(pk=t.enc.pk).version
    expect(p1.page.get_by_test_id("sync")).to_have_attribute("data-version", str(version))
    panel = p1.page.locator(f"#panel-{t.ana}")
    expect(panel.locator(".combatant-head")).to_be_visible()
    blocked = panel.get_by_test_id(f"action-group-{t.ana}-blocked")
    expect(blocked).to_be_visible()
    shared = blocked.get_by_test_id("shared-reason").first
    expect(shared).to_contain_text(re.compile("turn|react"))
    blocked.locator("summary").click()
    p1.page.screenshot(path=f"/tmp/phone-{ruleset}-off-turn.png", full_page=True)
    words = shared.inner_text()
    assert panel.inner_text().count(words) == 1, words
    # The actions that give that reason carry no line of their own ("Not now: ..."): no
    # reason is written twice.
    own = panel.locator(".reason").all_inner_texts()
    assert len(own) == len(set(own)), own
    assert len(own) < blocked.locator("form.action").count(), own


def test_the_whole_ladder_catalogue_is_within_reach_and_the_filter_narrows_it(make_table, sit_down):
    from combat.rules import get_ruleset

    t = make_table("action_ladder")
    people = sit_down(t, phones=True)
    gm, p1 = people.gm, people.p1
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    keys = list(get_ruleset("action_ladder").catalogue())
    for key in keys:
        form = action_form(p1, t.ana, key)
        reveal(form)
        expect(form.get_by_test_id(f"action-button-{t.ana}-{key}"), key).to_be_visible()

    panel = p1.page.locator(f"#panel-{t.ana}")
    forms = panel.locator("form.action:visible")
    expect(forms).to_have_count(len(keys))
    box = panel.get_by_test_id(f"action-filter-{t.ana}")
    expect(box).to_be_visible()
    box.fill("dodg")
    expect(forms).to_have_count(1)
    expect(forms.first).to_have_attribute("data-action", "dodge")
    p1.page.screenshot(path="/tmp/phone-ladder-filter.png")
    box.fill("")
    expect(forms).to_have_count(len(keys))
    # Filtered to one the player can take now, it works as any other.
    box.fill("step")
    act(p1, t.ana, "step")
    expect(p1.page.locator("#recent")).to_contain_text("Step")
