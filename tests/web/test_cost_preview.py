"""The cost preview of an action's form: as options are chosen, the page asks the server
what the action will cost and do, and the answer comes from the ruleset's own pricing.

Asking changes nothing; a player may ask only about their own combatant; the GM about any.
"""

from __future__ import annotations

import pytest
from django.test import Client

from .conftest import build_table


def ask(client: Client, url: str, prefix: str = "", **fields: str):
    return client.get(url, {**fields, **({"prefix": prefix} if prefix else {})})


def test_an_empowered_attack_is_priced_with_its_options_and_nothing_changes(fight):
    version = fight.refresh().version
    url = f"{fight.player1_url}preview/"
    r = ask(
        fight.p1,
        url,
        prefix="action",
        actor=fight.ana,
        action="empowered_attack",
        opt_target=fight.goblin,
        opt_to_hit="1",
        opt_damage="1",
    )
    assert r.status_code == 200
    text = r.content.decode()
    assert "Empowered Attack: 3 AP, +1 to hit, +2 damage" in text
    # The button's chip follows, out of band.
    assert f'id="chip-action-{fight.ana}-empowered_attack" hx-swap-oob="innerHTML">3 AP<' in text
    r = ask(fight.p1, url, actor=fight.ana, action="empowered_attack", opt_to_hit="2")
    assert "Empowered Attack: 3 AP, +2 to hit" in r.content.decode()
    assert fight.refresh().version == version


def test_a_player_asks_only_about_their_own_combatant_and_bad_options_are_said(fight):
    url = f"{fight.player1_url}preview/"
    r = ask(fight.p1, url, actor=fight.bram, action="basic_attack")
    assert r.status_code == 200
    assert "Bram" not in r.content.decode() and "AP" not in r.content.decode()
    r = ask(fight.p1, url, actor=fight.ana, action="empowered_attack", opt_to_hit="lots")
    assert "must be a whole number" in r.content.decode() and "is-refused" in r.content.decode()
    # A hidden combatant's id as a target is neither used nor answered differently.
    r1 = ask(fight.p1, url, actor=fight.ana, action="basic_attack", opt_target=fight.troll)
    r2 = ask(fight.p1, url, actor=fight.ana, action="basic_attack", opt_target="nobody")
    assert r1.content == r2.content
    assert ask(fight.outsider, f"/enc/{fight.enc.pk}/preview/").status_code in (302, 404)


def test_the_gm_previews_any_combatant(fight):
    r = ask(
        fight.gm,
        f"/enc/{fight.enc.pk}/preview/",
        actor=fight.goblin,
        action="empowered_attack",
        opt_damage="2",
    )
    assert "Empowered Attack: 3 AP, +4 damage" in r.content.decode()


@pytest.mark.django_db
def test_a_slowed_aim_costs_half_an_action_in_the_action_ladder(gm_user):
    from combat import services
    from combat.access import gm_viewer

    parts = build_table(gm_user, "action_ladder")
    enc = parts["enc"]
    assert services.run_command(enc.pk, gm_viewer(enc), {"type": "start_combat"}).ok
    client = Client()
    url = f"/p/{parts['seat1'].token}/preview/"
    r = ask(client, url, actor=parts["ana"], action="aim", opt_pace="slowed")
    assert "Aim: ½ Action, slowed" in r.content.decode()
    r = ask(client, url, actor=parts["ana"], action="aim", opt_pace="standard")
    assert "Aim: Bonus Action" in r.content.decode()


def test_the_action_forms_ask_for_the_preview(fight):
    page = fight.p1.get(fight.player1_url).content.decode()
    assert 'hx-get="preview/?prefix=action"' in page
    assert 'hx-trigger="change"' in page
    gm_page = fight.gm.get(f"/enc/{fight.enc.pk}/").content.decode()
    assert f'hx-get="/enc/{fight.enc.pk}/preview/?prefix=' in gm_page
