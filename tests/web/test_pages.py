"""Pages: who may open what, what each audience sees, and the GM's forms."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from combat.models import Encounter

from .conftest import HIDDEN, TableFixture

pytestmark = pytest.mark.django_db


def test_anonymous_visitor_sees_the_landing_page_with_sign_up():
    r = Client().get("/")
    assert r.status_code == 200
    assert b"Sign up" in r.content


def test_sign_up_creates_a_gm_and_logs_them_in():
    c = Client()
    r = c.post(
        "/signup/",
        {
            "username": "newgm",
            "password1": "a-long-passphrase-9",
            "password2": "a-long-passphrase-9",
        },
    )
    assert r.status_code == 302
    assert get_user_model().objects.filter(username="newgm").exists()
    assert b"Your encounters" in c.get("/").content


def test_log_in_page_renders():
    r = Client().get("/accounts/login/")
    assert r.status_code == 200
    assert b'name="password"' in r.content


def test_encounter_list_shows_only_the_gms_own(table: TableFixture):
    mine = table.gm.get("/").content.decode()
    theirs = table.outsider.get("/").content.decode()
    assert "Bridge fight" in mine
    assert "Bridge fight" not in theirs


def test_gm_console_is_the_owners_only(table: TableFixture):
    assert table.gm.get(table.gm_url).status_code == 200
    assert table.outsider.get(table.gm_url).status_code == 404
    anonymous = Client().get(table.gm_url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_gm_console_has_the_regions_and_the_links(table: TableFixture):
    html = table.gm.get(table.gm_url).content.decode()
    for region in (
        'id="order"',
        'id="log"',
        'id="turn"',
        'id="combatants"',
        'id="presence"',
        'id="seats"',
        f'data-testid="combatant-{table.troll}"',
    ):
        assert region in html, region
    assert table.player1_url in html and table.spectator_url in html
    assert f'hx-ws:connect="/ws/enc/{table.enc.pk}/gm/?v={table.enc.version}"' in html
    # The GM sees the hidden NPC.
    assert HIDDEN in html


def test_page_loads_htmx_without_defer_and_with_the_csp_nonce(table: TableFixture):
    r = table.gm.get(table.gm_url)
    html = r.content.decode()
    assert "htmx-4.0.1/htmx.min.js" in html and "ext/hx-ws.min.js" in html
    assert "defer" not in html
    # Nothing in the head holds up the first paint: the scripts come after the content.
    head = html[: html.index("</head>")]
    assert "<script" not in head
    assert html.index("htmx.min.js") > html.index('id="main"')
    header = r["Content-Security-Policy"]
    nonce = header.split("'nonce-")[1].split("'")[0]
    assert f'nonce="{nonce}"' in html
    assert "hx-headers:inherited" in html


def test_player_page_shows_the_seat_panel_and_no_hidden_npc(fight: TableFixture):
    r = fight.p1.get(fight.player1_url)
    html = r.content.decode()
    assert r.status_code == 200
    assert f'data-testid="panel-{fight.ana}"' in html
    assert f'data-testid="panel-{fight.bram}"' not in html  # another seat's combatant
    assert "AP 3 of 3" in html
    assert f'data-testid="action-{fight.ana}-basic_attack"' in html
    assert HIDDEN not in html
    # The bare id is short enough to turn up inside a random token: look for it as an id.
    assert not re.search(rf"[\"'-]{fight.troll}[\"']", html)


def test_player_page_lists_every_action_with_cost_and_reasons(fight: TableFixture):
    html = fight.p2.get(fight.player2_url).content.decode()  # Bram: not his turn
    assert f'data-testid="action-{fight.bram}-empowered_attack"' in html
    assert "1 AP + extra" in html
    # The disabled buttons say why, once for all of them.
    assert html.count('data-testid="shared-reason">Not Bram&#x27;s turn<') == 1
    assert 'data-allowed="false"' in html


def test_spectator_page_is_read_only_and_hides_the_hidden(fight: TableFixture):
    r = fight.spectator.get(fight.spectator_url)
    html = r.content.decode()
    assert r.status_code == 200
    assert 'data-testid="roster"' in html and 'data-testid="order"' in html
    assert HIDDEN not in html
    assert "<button" not in html.split("<main", 1)[1]  # no controls at all


def test_bad_links_are_not_found(table: TableFixture):
    assert Client().get("/p/not-a-token/").status_code == 404
    assert Client().get("/s/not-a-token/").status_code == 404


def test_hidden_combatant_turn_never_names_it_to_players(table: TableFixture):
    # The Troll acts first: players see that someone is acting, not who.
    table.gm_post(type="set_initiative", actor=table.troll, initiative=99)
    table.gm_post(type="start_combat")
    assert table.refresh().state["turn"] == table.troll
    for client, url in ((table.p1, table.player1_url), (table.spectator, table.spectator_url)):
        html = client.get(url).content.decode()
        assert HIDDEN not in html
        assert "Troll" not in html
    assert "Waiting for the GM" in table.p1.get(table.player1_url).content.decode()


def test_create_encounter_with_settings(table: TableFixture):
    r = table.gm.get("/enc/new/")
    assert b"AP per turn" in r.content  # the ruleset's settings with defaults
    r = table.gm.post(
        "/enc/new/",
        {
            "name": "Ambush",
            "ruleset": "action_points",
            "setting_initiative_formula": "1d20",
            "setting_ap_pool": "4",
        },
    )
    assert r.status_code == 302
    enc = Encounter.objects.get(name="Ambush")
    assert enc.state["settings"]["initiative_formula"] == "1d20"
    assert enc.state["settings"]["ap_pool"] == 4


def test_create_encounter_refusal_is_a_message_not_an_error_page(table: TableFixture):
    r = table.gm.post(
        "/enc/new/",
        {"name": "Bad", "ruleset": "action_points", "setting_initiative_formula": "banana"},
    )
    assert r.status_code == 200
    assert b'class="flash error' in r.content
    assert not Encounter.objects.filter(name="Bad").exists()


def test_ruleset_settings_fragment_switches_rulesets(table: TableFixture):
    r = table.gm.get("/enc/new/settings/?ruleset=action_points", HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert b'id="ruleset-settings"' in r.content and b"<html" not in r.content


def test_log_download_is_json_for_the_gm_only(fight: TableFixture):
    r = fight.gm.get(f"/enc/{fight.enc.pk}/log.json")
    assert r.status_code == 200
    assert "attachment" in r["Content-Disposition"]
    data = json.loads(r.content)
    assert [e["command"]["type"] for e in data["log"]][-1] == "start_combat"
    assert fight.outsider.get(f"/enc/{fight.enc.pk}/log.json").status_code == 404


def test_api_token_page_issues_a_token_once(table: TableFixture):
    r = table.gm.post("/account/api-tokens/", {"name": "bot"})
    assert r.status_code == 200
    assert b'data-testid="new-token"' in r.content
    again = table.gm.get("/account/api-tokens/")
    assert b'data-testid="new-token"' not in again.content


def test_after_combat_ends_every_page_says_combat_is_over(fight: TableFixture):
    """Issue 12 item 5: once the GM ends combat, the GM's, the players' and the spectators'
    pages say "Combat is over" (status, title, the reasons under the actions), and none
    says that combat has not started."""
    fight.gm_post(type="end_combat")
    pages = {
        "gm": fight.gm.get(fight.gm_url),
        "player": fight.p1.get(fight.player1_url),
        "spectator": fight.spectator.get(fight.spectator_url),
    }
    for who, r in pages.items():
        html = r.content.decode()
        assert r.status_code == 200, who
        status = html[html.index('data-testid="phase"') :]
        assert status.split("<", 1)[0].endswith(">Combat is over"), who
        title = html[html.index("<title>") : html.index("</title>")]
        assert "Combat is over · " in title, who
        assert "not started" not in html, who
    assert "Combat is over: the GM ended it" in pages["player"].content.decode()
    # An action sent anyway is refused in the same words.
    r = fight.p1_post(type="act", actor=fight.ana, action="basic_attack")
    assert "Combat is over" in r.content.decode()
