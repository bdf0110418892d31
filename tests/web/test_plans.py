"""Planning off-turn from the player's page (issue 31): the panel offers "Plan for my
turn" where the action cannot be taken now; the plan is shown with a way to cancel it; the
GM sees a "planned" chip on the combatant's row; the action is taken when the turn starts."""

from __future__ import annotations

from .conftest import HIDDEN, TableFixture


def p2_post(fight: TableFixture, **data):
    return fight.p2.post(f"{fight.player2_url}command/", data, HTTP_HX_REQUEST="true")


def test_a_player_plans_off_turn_and_the_attack_is_taken_on_the_turn(fight: TableFixture):
    page = fight.p2.get(fight.player2_url).content.decode()
    assert f'data-testid="action-plan-{fight.bram}-basic_attack"' in page
    assert "Plan for my turn" in page

    r = p2_post(
        fight, type="plan", actor=fight.bram, action="basic_attack", opt_target=fight.goblin
    )
    assert r.status_code == 200 and b"data-code" not in r.content
    page = fight.p2.get(fight.player2_url).content.decode()
    assert "Planned:</strong> Basic Attack on Goblin" in page
    assert f'data-testid="cancel-plan-{fight.bram}"' in page
    gm_page = fight.gm.get(fight.gm_url).content.decode()
    assert f'data-testid="planned-{fight.bram}"' in gm_page
    # Another seat reads nothing of it.
    other = fight.p1.get(fight.player1_url).content.decode()
    assert "Planned:" not in other and f'data-testid="planned-{fight.bram}"' not in other

    fight.gm_post(type="end_turn", actor=fight.ana)
    state = fight.refresh().state
    assert state["turn"] == fight.bram
    assert state["combatants"][fight.goblin]["hp"] < 10
    assert state["combatants"][fight.bram]["plan"] is None
    page = fight.p2.get(fight.player2_url).content.decode()
    assert "Bram takes the planned Basic Attack." in page and "Planned:" not in page


def test_a_plan_is_cancelled_from_the_page(fight: TableFixture):
    p2_post(fight, type="plan", actor=fight.bram, action="basic_attack", opt_target=fight.goblin)
    r = p2_post(fight, type="cancel_plan", actor=fight.bram)
    assert r.status_code == 200 and b"data-code" not in r.content
    assert fight.refresh().state["combatants"][fight.bram]["plan"] is None
    assert "Planned:" not in fight.p2.get(fight.player2_url).content.decode()


def test_no_plan_against_a_hidden_combatant(fight: TableFixture):
    r = p2_post(fight, type="plan", actor=fight.bram, action="basic_attack", opt_target=fight.troll)
    assert b'data-code="unknown_combatant"' in r.content
    assert HIDDEN.encode() not in r.content
    assert fight.refresh().state["combatants"][fight.bram]["plan"] is None


def test_where_the_rules_allow_an_interrupt_the_button_says_so(gm_user):
    """Initiative Passes (RULINGS, Initiative Passes 4): 'Interrupt actions are paid from the
    remaining AP outside the combatant's turn': off-turn, Bram's attack is offered now, as an
    Interrupt, not as a plan. Under Action Points it is planned, never an Interrupt."""
    from django.test import Client

    from .conftest import build_table, gm

    for ruleset, key, interrupt in (
        ("initiative_passes", "attack", True),
        ("action_points", "basic_attack", False),
    ):
        parts = build_table(gm_user, ruleset)
        gm(parts["enc"], type="start_combat")
        page = Client().get(f"/p/{parts['seat2'].token}/").content.decode()
        form = page.split(f'data-testid="action-{parts["bram"]}-{key}"', 1)[1].split("</form>")[0]
        assert ("Now, as an Interrupt:" in form) is interrupt, ruleset
        assert ("Plan for my turn" in form) is not interrupt, ruleset
