"""A hidden NPC attacks Ana, and her player answers on a phone (issue 29).

Both rulesets, the players on phones (390 x 844), the GM and the spectators on wide
screens. The GM turns defence prompts on for Ana from her Edit form (Action Ladder has
them on already; Action Points has them off until the GM says so). At its turn the hidden
Lurking Troll attacks Ana: her player's phone shows the prompt on the first screen, at the
top of the page without scrolling, its buttons with their bonus and cost, against "someone
unseen". The player taps a defence; the outcome reaches the GM's log (naming the Troll)
and the players' logs (not naming it). No page or socket frame of Player 1, Player 2 or
the spectators ever holds the Troll's name or id, before, during or after.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from .conftest import HIDDEN, HP, SCREENSHOTS, People, Person, Table, act, end_turn
from .test_hidden import assert_unseen, open_card

UNSEEN = "someone unseen"
PHONE_HEIGHT = 844


@dataclass(frozen=True)
class Case:
    attack: str  # the Troll's action
    settings: dict[str, str]  # Ana's per-combatant settings set in the GM's Edit form
    tap: str  # the defence the player taps
    offers: tuple[tuple[str, str, str], ...]  # (key, button text, its bonus and cost)
    gm_line: str  # the start of the outcome in the GM's log
    player_line: str  # the start of the outcome in the players' logs
    defence: str  # how the tapped defence reads in the outcome


CASES = {
    "action_ladder": Case(
        attack="attack",
        settings={
            "Ask the defender to Dodge, Parry or Block": "1",
            "Carries a shield": "1",
            "Parry Rating": "3",
            "Block Rating": "2",
        },
        tap="dodge",
        offers=(
            ("dodge", "Dodge +0", "AGI +0; 1 Bonus Action"),
            ("parry-str", "Parry with STR +3", "STR +0, Parry Rating +3; 1 Bonus Action"),
            ("parry-agi", "Parry with AGI +3", "AGI +0, Parry Rating +3; 1 Bonus Action"),
            ("block", "Block +2", "RES +0, Block Rating +2; 1 Bonus Action"),
        ),
        gm_line=f"{HIDDEN}: Attack on Ana",
        player_line="Someone unseen: Attack on Ana",
        defence="Dodge",
    ),
    "action_points": Case(
        attack="basic_attack",
        settings={"Ask the defender to Parry or Intercept": "1"},
        tap="parry",
        offers=(("parry", "Parry +2", "your Reaction"),),
        gm_line=f"{HIDDEN}: Basic Attack for 1 AP on Ana",
        player_line="Someone unseen: Basic Attack on Ana",
        defence="(Parry +2)",
    ),
}


def prompts_on_for_ana(gm: Person, t: Table, settings: dict[str, str]) -> None:
    """The GM opens Ana's Edit form, sets the prompts to "yes" (and her defences)."""
    open_card(gm, t.ana)
    gm.page.locator(f"#combatants [data-combatant='{t.ana}']").get_by_test_id(
        f"edit-{t.ana}"
    ).click()
    form = gm.page.get_by_test_id("combatant-form-edit")
    for label, value in settings.items():
        field = form.get_by_label(label)
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    form.get_by_test_id("cf-submit").click()
    expect(gm.page.get_by_test_id("combatant-form-edit")).to_have_count(0, timeout=15_000)
    gm.wait_for_posts_answered()


def round_to_the_troll(people: People, t: Table) -> None:
    """Ana's and Bram's players end their turns, the GM passes the Goblin's."""
    gm, p1, p2 = people.gm, people.p1, people.p2
    gm.page.get_by_test_id("start-combat").click()
    expect(p1.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
    end_turn(p1, t.ana)
    expect(p2.page.get_by_test_id(f"your-turn-{t.bram}")).to_be_visible()
    end_turn(p2, t.bram)
    expect(gm.turn_mark(t.goblin)).to_have_attribute("aria-current", "step")
    gm.page.get_by_test_id("advance-turn").click()
    expect(gm.turn_mark(t.troll)).to_have_attribute("aria-current", "step")
    for p in people.not_gm:
        expect(p.status.get_by_test_id("turn"), p.name).to_have_text("Waiting for the GM…")


def on_the_first_screen(person: Person, locator) -> dict:
    """The element's box, measured where the page is now; the page has not scrolled."""
    box = locator.evaluate(
        """el => { const r = el.getBoundingClientRect();
                   return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                           width: innerWidth, height: innerHeight, scrolled: scrollY}; }"""
    )
    assert box["scrolled"] == 0, box
    assert box["height"] == PHONE_HEIGHT, box
    assert box["top"] >= 0 and box["bottom"] <= PHONE_HEIGHT, box
    assert box["left"] >= 0 and box["right"] <= box["width"], box
    return box


@pytest.mark.parametrize("ruleset", list(CASES))
def test_the_player_answers_an_unseen_attacker_on_a_phone(ruleset, make_table, sit_down):
    case = CASES[ruleset]
    t = make_table(ruleset)
    people = sit_down(t, phones=True)
    gm, p1, p2 = people.gm, people.p1, people.p2
    watchers = people.not_gm
    assert p1.page.viewport_size == {"width": 390, "height": PHONE_HEIGHT}
    assert gm.page.viewport_size == {"width": 1280, "height": 800}

    prompts_on_for_ana(gm, t, case.settings)
    assert t.state()["combatants"][t.ana]["mods"]["defence_prompts"] is True
    assert_unseen(watchers, t.troll, "on arrival")
    round_to_the_troll(people, t)
    assert_unseen(watchers, t.troll, "at the Troll's turn")

    # The Troll attacks Ana: the attack waits for her player.
    act(gm, t.troll, case.attack, target=t.ana)
    expect(gm.page.locator("#reactions .window")).to_have_count(1)
    [window] = t.state()["pending"]
    assert window["reactor"] == t.ana and window["trigger"] == t.troll
    wid = window["id"]
    expect(gm.page.get_by_test_id(f"window-{wid}")).to_contain_text(f"Ana may react to {HIDDEN}")

    # Player 1's phone: the banner and the prompt, at the top, with nothing scrolled.
    prompt = p1.page.get_by_test_id(f"window-{wid}")
    expect(prompt).to_be_visible()
    expect(prompt).to_contain_text(f"Defend: Ana may react to {UNSEEN} now.")
    alert = p1.page.get_by_test_id(f"reaction-alert-{wid}")
    expect(alert).to_contain_text(f"Reaction available: Defend for Ana against {UNSEEN}")
    on_the_first_screen(p1, alert)
    on_the_first_screen(p1, prompt)
    offers = p1.page.get_by_test_id(f"offers-{wid}")
    for key, label, cost in case.offers:
        button = offers.get_by_test_id(f"defend-{wid}-{key}")
        expect(button).to_contain_text(label)
        expect(button.locator("xpath=..")).to_contain_text(cost)
        on_the_first_screen(p1, button)
    on_the_first_screen(p1, offers.get_by_test_id(f"decline-{wid}"))
    expect(offers.get_by_test_id(f"defend-{wid}-{case.tap}")).to_be_enabled()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    p1.page.screenshot(path=str(SCREENSHOTS / f"unseen-prompt-phone-{ruleset}.png"))
    # Bram's player and the spectators are not asked, and see no attacker either.
    for p in (p2, people.spectator):
        expect(p.page.get_by_test_id(f"offers-{wid}"), p.name).to_have_count(0)
        expect(p.page.get_by_test_id(f"reaction-alert-{wid}"), p.name).to_have_count(0)
    for p in watchers:
        expect(p.order_row(t.troll), p.name).to_have_count(0)
    assert_unseen(watchers, t.troll, "with the prompt open")

    # She taps her defence; the attack resolves.
    offers.get_by_test_id(f"defend-{wid}-{case.tap}").tap()
    expect(p1.page.get_by_test_id(f"window-{wid}")).to_have_count(0)
    expect(p1.page.get_by_test_id(f"reaction-alert-{wid}")).to_have_count(0)
    gm_line = gm.log.locator("li", has_text=case.gm_line).first
    expect(gm_line).to_contain_text(case.defence)
    for p in watchers:
        line = p.log.locator("li", has_text=case.player_line).first
        expect(line, p.name).to_contain_text(case.defence)
        expect(p.hp(t.ana), p.name).to_have_text(f"HP {HP - 1} of {HP}")
    assert t.state()["pending"] == []
    p1.page.screenshot(path=str(SCREENSHOTS / f"unseen-answered-phone-{ruleset}.png"))

    p1.wait_for_posts_answered()
    assert_unseen(watchers, t.troll, "after the answer")
    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()
