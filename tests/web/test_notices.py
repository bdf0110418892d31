"""Players see what happened to them (issue 12 item 3), as the pages render it.

The actor's page carries the outcome of their own command (hit or miss, damage, the
cost); a player whose combatant another's command hit, prompted or defeated gets a
notice too; nothing about a hidden combatant; and a notice does not outlive its turn.
The fading itself is the browser's (tests/browser/test_notices.py).
"""

from __future__ import annotations

import re

import pytest

from combat import services
from combat.access import gm_viewer

from .conftest import HIDDEN, TableFixture

pytestmark = pytest.mark.django_db


def notice(html: str) -> str:
    """The seat's notice as text ("" when there is none)."""
    m = re.search(r'<section id="notice".*?</section>', html, re.S)
    assert m, "no notice region"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group())).strip()


def test_the_actor_sees_the_outcome_and_the_one_hit_sees_it_too(fight: TableFixture):
    r = fight.p1_post(
        type="act", actor=fight.ana, action="basic_attack", opt_target=fight.bram, opt_ranged="0"
    )
    assert r.status_code == 200
    mine = notice(fight.p1.get(fight.player1_url).content.decode())
    assert mine.startswith("Your action")
    assert "Basic Attack for 1 AP on Bram" in mine and "hit" in mine and "damage" in mine
    theirs = notice(fight.p2.get(fight.player2_url).content.decode())
    assert theirs.startswith("What happened to you") and "on Bram" in theirs
    # Spectators have no notice region at all.
    assert 'id="notice"' not in fight.spectator.get(fight.spectator_url).content.decode()


def test_a_notice_ends_with_its_turn(fight: TableFixture):
    fight.p1_post(type="act", actor=fight.ana, action="basic_attack", opt_target=fight.goblin)
    assert "Your action" in notice(fight.p1.get(fight.player1_url).content.decode())
    fight.p1_post(type="end_turn", actor=fight.ana)  # her own: "ends the turn", Bram's turn
    assert "ends the turn" in notice(fight.p1.get(fight.player1_url).content.decode())
    # Bram ends his turn: a later turn has begun, and Ana's notice is gone.
    fight.p2.post(
        f"{fight.player2_url}command/",
        {"type": "end_turn", "actor": fight.bram},
        HTTP_HX_REQUEST="true",
    )
    assert notice(fight.p1.get(fight.player1_url).content.decode()) == ""


def test_a_hidden_combatants_attack_is_told_without_naming_it(table: TableFixture):
    """Bram is hit by the hidden Troll: his player is told, in words that do not say by
    whom (docs/decisions.md, "The outcome, in the defender's words"); Ana's is not."""
    gm = gm_viewer(table.enc)
    first = {"type": "set_initiative", "actor": table.troll, "initiative": 99}
    services.run_command(table.enc.pk, gm, first)
    services.run_command(table.enc.pk, gm, {"type": "start_combat"})
    out = services.run_command(
        table.enc.pk,
        gm,
        {"type": "act", "actor": table.troll, "action": "basic_attack", "target": table.bram},
    )
    assert out.ok, out.refusal
    html = table.p2.get(table.player2_url).content.decode()
    assert notice(html).startswith("What happened to you Someone unseen: Basic Attack on Bram")
    assert HIDDEN not in html and table.troll not in html
    assert notice(table.p1.get(table.player1_url).content.decode()) == ""


def test_setting_the_table_up_is_no_notice(table: TableFixture):
    # Before combat the players' pages carry no notice for the GM adding or editing their
    # combatants: a fresh page is not greeted with "Ana joins the encounter".
    assert notice(table.p1.get(table.player1_url).content.decode()) == ""
    r = table.gm_post(type="update_combatant", actor=table.ana, hp="30")
    assert r.status_code == 200
    assert notice(table.p1.get(table.player1_url).content.decode()) == ""
    # What the GM does to her in play still is.
    table.gm_post(type="damage", actor=table.ana, amount="3")
    assert "Ana takes 3 damage" in notice(table.p1.get(table.player1_url).content.decode())
