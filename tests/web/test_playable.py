"""What a GM and players can play from the pages (issue 14, "Playable from the browser")."""

from __future__ import annotations

import re

import pytest

from tests.said import said

from .conftest import HIDDEN, TableFixture, build_table

pytestmark = pytest.mark.django_db


def test_healing_a_defeated_combatant_from_the_console_revives_it(fight: TableFixture):
    """docs/rules.md, HP: healed above 0 HP, a defeated combatant is back on its feet."""
    fight.gm_post(type="damage", actor=fight.goblin, amount="10")
    assert fight.refresh().state["combatants"][fight.goblin]["defeated"]
    r = fight.gm_post(type="heal", actor=fight.goblin, amount="4")
    assert r.status_code == 200
    c = fight.refresh().state["combatants"][fight.goblin]
    assert c["hp"] == 4 and not c["defeated"]
    for page in (fight.gm.get(fight.gm_url), fight.p1.get(fight.player1_url)):
        assert b"Goblin is back on their feet." in page.content


LADDER_STATS = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 0},
    "defend": {"dice": "1d1", "bonus": 0},
    "FCS": {"dice": "1d1", "bonus": 0},
    "STR": {"dice": "1d6", "bonus": 3},
    "AGI": {"dice": "1d8", "bonus": 2},
}


@pytest.fixture
def ladder(gm_user) -> TableFixture:
    """The usual table under the Action Ladder: Ana carries a shield (Block Rating 2,
    Parry Rating 1) but has no RES; it is the Goblin's turn."""
    from django.test import Client

    from combat import services
    from combat.access import gm_viewer

    parts = build_table(gm_user, "action_ladder")
    commands = [
        {"type": "update_combatant", "actor": cid, "stats": LADDER_STATS}
        for cid in (parts["ana"], parts["goblin"])
    ] + [
        {"type": "set_modifier", "actor": parts["ana"], "key": key, "value": value}
        for key, value in (("shield", True), ("block_rating", 2), ("parry_rating", 1))
    ]
    for command in commands:
        assert services.run_command(parts["enc"].pk, gm_viewer(parts["enc"]), command).ok
    gm = Client()
    gm.force_login(gm_user)
    clients = {k: Client() for k in ("p1", "p2", "outsider", "spectator")}
    t = TableFixture(gm=gm, **clients, **parts)
    for command in ({"type": "start_combat"}, {"type": "end_turn"}, {"type": "end_turn"}):
        assert t.gm_post(**command).status_code == 200
    assert t.refresh().state["turn"] == t.goblin
    return t


def window_of(t: TableFixture) -> str:
    pending = t.refresh().state["pending"]
    assert len(pending) == 1, pending
    return pending[0]["id"]


def test_defence_prompt_offers_dodge_parry_and_block_with_their_bonus(ladder: TableFixture):
    """action-ladder.md, Dodge, Parry and Block: the defender picks one, each with the
    bonus it rolls; Block needs RES, which Ana lacks, so it is offered disabled."""
    t = ladder
    t.gm_post(type="act", actor=t.goblin, action="attack", opt_target=t.ana)
    wid = window_of(t)
    for page in (t.p1.get(t.player1_url), t.gm.get(t.gm_url)):
        html = page.content.decode()
        assert f'data-testid="defend-{wid}-dodge"' in html
        assert ">Dodge +2</button>" in html
        assert ">Parry with STR +4</button>" in html  # STR 3 and Parry Rating 1
        assert ">Parry with AGI +3</button>" in html
        assert f'data-testid="offer-why-{wid}-block"' in html and "Needs RES" in html
        assert f'data-testid="decline-{wid}"' in html
        assert f'data-testid="accept-{wid}"' not in html
    # Player 2 does not answer for Ana.
    assert f"defend-{wid}".encode() not in t.p2.get(t.player2_url).content
    r = t.p1_post(
        type="react", actor=t.ana, window=wid, accept="1", opt_reaction="parry", opt_with="STR"
    )
    assert r.status_code == 200
    last = t.refresh().log.order_by("-seq").first()
    assert "Parry (STR, rating 1)" in " ".join(said(e) for e in last.events)
    assert t.enc.state["combatants"][t.ana]["res"]["bonus"] == 1


def test_gm_sets_changes_and_clears_a_condition_shown_on_every_card(fight: TableFixture):
    """RULINGS 5: the GM sets a condition with a duration from the console; every card
    shows it and how long it lasts; the GM changes it and clears it."""
    t = fight
    r = t.gm_post(
        type="set_condition",
        actor=t.goblin,
        name="Bleeding",
        stacks="2",
        until="turn_start",
        of=t.bram,
        rounds="1",
    )
    assert r.status_code == 200
    shown = "Bleeding 2 (until the start of Bram&#x27;s next turn)"
    for client, url in ((t.gm, t.gm_url), (t.p1, t.player1_url), (t.spectator, t.spectator_url)):
        assert shown in client.get(url).content.decode(), url
    gm_page = t.gm.get(t.gm_url).content.decode()
    assert f'data-testid="condition-form-{t.goblin}"' in gm_page
    assert "Clear Bleeding" in gm_page
    assert 'data-testid="condition-form-' not in t.p1.get(t.player1_url).content.decode()
    t.gm_post(
        type="set_condition",
        actor=t.goblin,
        name="Bleeding",
        stacks="3",
        until="rounds",
        rounds="2",
    )
    assert "Bleeding 3 (until the end of round 2)" in t.p1.get(t.player1_url).content.decode()
    t.gm_post(type="set_condition", actor=t.goblin, name="Bleeding", stacks="0")
    page = t.p1.get(t.player1_url).content.decode().split('id="log"')[0]
    # The cards, not the latest lines of the log (which say that the GM cleared it).
    assert "Bleeding" not in re.sub(r'<section id="recent".*?</section>', "", page, flags=re.S)
    assert t.refresh().state["combatants"][t.goblin]["effects"] == []


def test_a_condition_timed_by_a_hidden_combatant_does_not_name_it(fight: TableFixture):
    """Hidden combatants stay hidden: a condition lasting until the hidden Troll's turn
    says to players how long it lasts without whose turn (issue 29), and its log line is
    the GM's."""
    t = fight
    t.gm_post(type="set_condition", actor=t.ana, name="Prone", until="turn_start", of=t.troll)
    gm_page = t.gm.get(t.gm_url).content.decode()
    assert "Prone (until the start of Lurking Troll&#x27;s next turn)" in gm_page
    page = t.p1.get(t.player1_url).content.decode()
    assert ">Prone (until the start of a turn)</li>" in page and HIDDEN not in page


def test_actions_say_which_stats_they_roll_and_a_missing_one_disables_them(ladder: TableFixture):
    """action-ladder.md, Attack needs attack, damage and FCS: Bram (no FCS) sees Attack
    disabled with "Needs FCS" before any click; the form's stat rows are the ladder's."""
    t = ladder
    page = t.p2.get(t.player2_url).content.decode()
    assert "Rolls: attack, damage, FCS" in page
    assert ">Needs FCS</p>" in page
    form = t.gm.get(f"/enc/{t.enc.pk}/combatants/{t.goblin}/").content.decode()
    assert 'value="first_aid"' in form and 'value="spell_damage"' not in form
