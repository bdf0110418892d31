"""An action a player can no longer pay for is shown disabled, with the reason in words.

Before spending, the action is offered (enabled, no reason); after spending, the same
action is still listed, with its button disabled, the reason visible next to it and
tied to the button (aria-describedby). The GM's turn panel says the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Person, act, reveal


@dataclass
class Case:
    spend: tuple[str, dict[str, Any]]  # what Ana does first, with its options
    pool: str  # the resource it is paid from
    after: int  # what is left
    # action -> the start of the sentence on its disabled button
    out_of_reach: dict[str, str]
    still_fine: list[str]
    # Then an action she can still pay for: its options, and (resource, what is left).
    cheap: tuple[str, dict[str, Any], str, int]


CASES = {
    "action_points": Case(
        ("empowered_attack", {"target": "Goblin", "damage": 1}),
        "ap",
        1,
        {
            "complex_utility": "Not enough AP: Complex Utility costs 2, Ana has 1.",
            "disengage": "Not enough AP: Disengage costs 2, Ana has 1.",
        },
        ["quick_utility", "move", "defensive_stance"],
        ("quick_utility", {"target": "", "text": "braces"}, "ap", 0),
    ),
    "action_ladder": Case(
        ("run", {}),
        "effort",
        0,
        {
            "walk": "Not enough effort: Walk costs ½ Action, Ana has no Actions left this turn.",
            "brace": "Not enough effort: Brace costs 1 Action, Ana has no Actions left this turn.",
            "attack": "Not enough effort: Attack costs ½ Action, Ana has no Actions left",
        },
        ["step", "aim"],
        ("step", {}, "bonus", 1),
    ),
    "initiative_passes": Case(
        ("attack", {"target": "Goblin"}),
        "ap",
        1,
        {
            "hack": "Not enough AP: Hack under Pressure costs 2, Ana has 1 left this round",
            "major_action": "Not enough AP: Major Action costs 2, Ana has 1 left this round",
        },
        ["minor_action", "reload", "speak", "move"],
        ("minor_action", {"target": "", "text": "braces"}, "ap", 0),
    ),
}


def form(p: Person, scope: str, cid: str, key: str):
    return p.page.locator(scope).get_by_test_id(f"action-{cid}-{key}")


def assert_allowed(p: Person, scope: str, cid: str, key: str) -> None:
    f = form(p, scope, cid, key)
    expect(f, f"{p.name}: {key}").to_have_attribute("data-allowed", "true")
    expect(f.get_by_test_id(f"action-button-{cid}-{key}")).to_be_enabled()
    expect(f.get_by_test_id("reason")).to_have_count(0)


def assert_disabled(p: Person, scope: str, cid: str, key: str, reason: str) -> None:
    f = form(p, scope, cid, key)
    expect(f, f"{p.name}: {key}").to_have_attribute("data-allowed", "false")
    button = f.get_by_test_id(f"action-button-{cid}-{key}")
    expect(button).to_be_disabled()
    reveal(f)
    why = f.get_by_test_id("reason")
    expect(why).to_be_visible()
    expect(why).to_contain_text(reason)
    described_by = button.get_attribute("aria-describedby")
    assert described_by and why.get_attribute("id") == described_by


@pytest.mark.parametrize("ruleset", list(CASES))
def test_unaffordable_action_is_disabled_with_its_reason(ruleset, make_table, sit_down):
    case = CASES[ruleset]
    t = make_table(ruleset)
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    mine = f"#panel-{t.ana}"

    gm.page.get_by_test_id("start-combat").click()
    expect(p1.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
    for key in [*case.out_of_reach, *case.still_fine]:
        assert_allowed(p1, mine, t.ana, key)
        assert_allowed(gm, "#turn", t.ana, key)

    key, options = case.spend
    act(p1, t.ana, key, **{k: t.ids.get(v, v) for k, v in options.items()})
    for p in people.everyone:
        expect(p.resource(t.ana, case.pool), p.name).to_have_attribute(
            "data-value", str(case.after)
        )
    expect(p1.page.get_by_test_id("refusal")).to_have_count(0)

    for key, reason in case.out_of_reach.items():
        assert_disabled(p1, mine, t.ana, key, reason)
        assert_disabled(gm, "#turn", t.ana, key, reason)
    for key in case.still_fine:
        assert_allowed(p1, mine, t.ana, key)
    # Player 2 gets no buttons for Ana at all.
    expect(people.p2.page.get_by_test_id(f"actions-{t.ana}")).to_have_count(0)

    # What is still affordable goes through, and its cost comes off on every page.
    key, options, resource, left = case.cheap
    act(p1, t.ana, key, **options)
    for p in people.everyone:
        expect(p.resource(t.ana, resource), p.name).to_have_attribute("data-value", str(left))
    expect(p1.page.get_by_test_id("refusal")).to_have_count(0)

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()
