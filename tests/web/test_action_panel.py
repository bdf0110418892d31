"""The action panel's layout (screens.action_layout), per ruleset, and the player's page
that shows it (issue 31).

On the combatant's own turn the most used actions that can be taken now come first, the
basic attack leading; the other possible actions are grouped by category; those not possible
now are in one group at the bottom, their shared reason said once. Off-turn, nothing is
first, and "Not Ana's turn" is said once, not once per action.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.html import escape

from combat.rules import Encounter as State
from combat.rules.view import visible_ids
from combat.screens import CATEGORIES, FIRST_ACTIONS, action_layout, action_panel

from .conftest import SURE, build_table, gm

BASIC = {"action_points": "basic_attack", "action_ladder": "attack", "initiative_passes": "attack"}


# The Action Ladder's attributes too, so that no action waits for a stat.
STATS = {**SURE, **{s: {"dice": "1d1", "bonus": 0} for s in ("FCS", "AGI", "STR", "RES")}}


def started(gm_user, ruleset: str) -> dict:
    parts = build_table(gm_user, ruleset)
    enc = parts["enc"]
    for cid in (parts["ana"], parts["bram"]):
        gm(enc, type="update_combatant", actor=cid, stats=STATS)
    gm(enc, type="start_combat")
    enc.refresh_from_db()
    return parts


def layout_of(parts: dict, cid: str):
    state = State.from_dict(parts["enc"].state)
    visible = visible_ids(state, "player")
    actions = action_panel(state, cid, visible)
    return actions, action_layout(actions, state.ruleset)


@pytest.mark.parametrize("ruleset", list(BASIC))
def test_on_her_turn_the_basic_attack_comes_first_and_the_rest_is_grouped(gm_user, ruleset):
    parts = started(gm_user, ruleset)
    actions, layout = layout_of(parts, parts["ana"])
    top = [a["key"] for a in layout["top"]]
    assert top[0] == BASIC[ruleset]
    assert top == [k for k in FIRST_ACTIONS[ruleset] if k in top], "in the ruleset's order"
    assert all(a["allowed"] for a in layout["top"])
    grouped = [a for g in layout["groups"] for a in g["actions"]]
    assert all(a["allowed"] for a in grouped)
    for g in layout["groups"]:
        assert g["count"] == len(g["actions"])
        assert {a["category"] for a in g["actions"]} <= {g["category"]}
        assert g["label"] and "_" not in g["label"]
    # A group for every category she has, an empty one too (drawn, not shown: app.css), so
    # that an action becoming possible or not moves between lists that stay.
    assert [g["category"] for g in layout["groups"]] == list(
        dict.fromkeys(g["category"] for g in layout["groups"])
    )
    assert {g["category"] for g in layout["groups"]} == {a["category"] for a in actions}
    assert all(not a["allowed"] for a in layout["blocked"])
    # Every action is in exactly one place.
    placed = top + [a["key"] for a in grouped] + [a["key"] for a in layout["blocked"]]
    assert sorted(placed) == sorted(a["key"] for a in actions)
    assert layout["filter"] is (len(actions) > 8)


@pytest.mark.parametrize("ruleset", list(BASIC))
def test_off_turn_the_shared_reason_is_said_once(gm_user, ruleset):
    parts = started(gm_user, ruleset)
    actions, layout = layout_of(parts, parts["bram"])
    shared = layout["shared_reason"]
    assert shared, "\n".join(sorted({a["reason"] for a in layout["blocked"]}))
    assert sum(a["shared"] == layout["shared_key"] for a in layout["blocked"]) >= 2
    seat = parts["seat2"]
    page = Client().get(f"/p/{seat.token}/").content.decode()
    assert page.count(escape(shared)) == 1, shared
    assert "RULINGS" not in page and "§" not in page


def test_the_order_of_the_ladder_groups(gm_user):
    parts = started(gm_user, "action_ladder")
    _, layout = layout_of(parts, parts["ana"])
    categories = [g["category"] for g in layout["groups"]]
    assert categories[0] == "movement"
    assert categories == sorted(categories, key=list(CATEGORIES).index)
