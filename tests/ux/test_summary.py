"""After combat: spent per round, damage dealt and taken, reactions used, as SVG charts.

A known fight (every die is 1d1: attacks always hit for 3) played through the services:

round 1  Ana: Empowered Attack +1 to hit on the Goblin (2 AP), hit for 3.
         Ana: Move, staying in reach (1 AP). Ana ends her turn.
         Goblin (in melee with Ana since her attack): Move away (1 AP): Ana's Opportunity Attack
         (her Reaction, 0 AP) hits for 3. The GM deals 4 damage to the Goblin by hand.
         The Goblin attacks Ana (1 AP), hit for 3; a Quick Utility (1 AP) is undone.
         The hidden Troll attacks Ana (1 AP), hit for 3.
round 2  Ana: Basic Attack on the Goblin (1 AP), hit for 3. The GM ends combat.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from combat import summary

from .helpers import HIDDEN, SURE, add, client_for, encounter, gm, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight():
    owner = user("gina")
    enc = encounter(owner)
    ana = add(enc, name="Ana", side="pc", hp=30, initiative=20, stats=SURE)
    goblin = add(enc, name="Goblin", side="npc", hp=30, initiative=10, stats=SURE)
    troll = add(enc, name=HIDDEN, side="npc", hp=30, initiative=5, stats=SURE, hidden=True)
    gm(enc, type="start_combat")
    opts = {"target": goblin, "to_hit": "1", "damage": "0"}
    gm(enc, type="act", actor=ana, action="empowered_attack", options=opts)
    gm(enc, type="act", actor=ana, action="move", options={"leave": False})
    gm(enc, type="end_turn", actor=ana)
    gm(enc, type="act", actor=goblin, action="move")
    enc.refresh_from_db()
    window = enc.state["pending"][0]["id"]
    gm(enc, type="react", actor=ana, window=window, accept="1")
    gm(enc, type="damage", actor=goblin, amount="4")
    gm(enc, type="act", actor=goblin, action="basic_attack", options={"target": ana})
    gm(enc, type="act", actor=goblin, action="quick_utility", options={"text": "a potion"})
    gm(enc, type="undo")  # the potion was never drunk
    gm(enc, type="end_turn", actor=goblin)
    gm(enc, type="act", actor=troll, action="basic_attack", options={"target": ana})
    gm(enc, type="end_turn", actor=troll)
    gm(enc, type="act", actor=ana, action="basic_attack", options={"target": goblin})
    gm(enc, type="end_combat")
    enc.refresh_from_db()
    return {"owner": owner, "enc": enc, "ana": ana, "goblin": goblin, "troll": troll}


def test_the_tally_counts_what_the_rules_charged_and_what_hit(fight):
    t = summary.tally(fight["enc"])
    ana, goblin, troll = fight["ana"], fight["goblin"], fight["troll"]
    assert t.rounds == 2
    assert t.spent[ana] == {1: 3, 2: 1}  # Empowered +1 is 2 AP, Move 1; then a Basic Attack
    assert t.spent[goblin] == {1: 2}  # Move and the attack: the undone utility is not counted
    assert t.spent[troll] == {1: 1}
    # Hits of 3 (1d1 + 2); the GM's 4 by hand is taken, not dealt by anyone.
    assert t.dealt[ana] == 9 and t.dealt[goblin] == 3 and t.dealt[troll] == 3
    assert t.taken[goblin] == 9 + 4 and t.taken[ana] == 6 and t.taken[troll] == 0
    assert t.reactions[ana] == 1 and t.reactions[goblin] == 0
    assert t.actions == 6


def test_the_gm_page_draws_three_charts_with_their_numbers(fight):
    client = client_for(fight["owner"])
    r = client.get(f"/enc/{fight['enc'].pk}/summary/")
    assert r.status_code == 200
    html = unescape(r.content.decode())
    assert html.count('<svg class="chart"') == 3
    for chart in ("chart-spent", "chart-damage", "chart-reactions"):
        assert f'aria-labelledby="{chart}-title {chart}-desc"' in html
        assert f'<title id="{chart}-title">' in html
    assert "AP spent per round" in html and "Damage dealt and taken" in html
    # The bars carry their numbers as text: readable without colour and without script.
    spent = html.split('data-testid="chart-spent"')[1].split("</svg>")[0]
    assert len(re.findall(r"<rect [^>]*class=\"bar bar-spent\"", spent)) == 4  # Ana twice
    damage = html.split('data-testid="chart-damage"')[1].split("</svg>")[0]
    assert ">9 dealt<" in damage and ">13 taken<" in damage
    assert 'fill="url(#chart-damage-hatch)"' in damage  # taken is hatched, dealt is solid
    reactions = html.split('data-testid="chart-reactions"')[1].split("</svg>")[0]
    assert ">1 reaction<" in reactions and reactions.count("<polygon") == 1
    # The same numbers in a table.
    assert f'data-testid="dealt-{fight["ana"]}">9<' in html
    assert f'data-testid="taken-{fight["goblin"]}">13<' in html
    assert f'data-testid="reactions-{fight["ana"]}">1<' in html
    assert HIDDEN in html  # the GM sees everyone


def test_players_and_spectators_get_it_without_the_hidden_troll(fight):
    enc = fight["enc"]
    from combat import services

    seat = services.create_seat(enc.pk, "Player 1", [fight["ana"]])
    for url in (f"/s/{enc.spectator_token}/summary/", f"/p/{seat.token}/summary/"):
        r = Client().get(url)
        assert r.status_code == 200, url
        html = unescape(r.content.decode())
        assert HIDDEN not in html and f'summary-row-{fight["troll"]}"' not in html
        assert html.count('<svg class="chart"') == 3
        # Ana's wounds are hers to see, whoever caused them.
        assert f'data-testid="taken-{fight["ana"]}">6<' in html
    assert Client().get("/s/not-a-token/summary/").status_code == 404
    assert Client().get(f"/enc/{enc.pk}/summary/").status_code in (302, 403)
    assert client_for(user("otto")).get(f"/enc/{enc.pk}/summary/").status_code == 404


def test_the_pages_link_to_it(fight):
    enc = fight["enc"]
    from combat import services

    seat = services.create_seat(enc.pk, "Player 1", [fight["ana"]])
    gm_page = client_for(fight["owner"]).get(f"/enc/{enc.pk}/").content.decode()
    assert f'href="/enc/{enc.pk}/summary/"' in gm_page
    # Players and spectators link it relative to their page (no secret link in the markup
    # that pushes repeat): "summary/" under /p/<token>/ is /p/<token>/summary/.
    for page in (f"/p/{seat.token}/", f"/s/{enc.spectator_token}/"):
        html = Client().get(page).content.decode()
        assert 'href="summary/"' in html
        assert Client().get(page + "summary/").status_code == 200


def test_an_encounter_with_no_fight_says_so(fight):
    enc = encounter(fight["owner"], "Empty")
    html = client_for(fight["owner"]).get(f"/enc/{enc.pk}/summary/").content.decode()
    assert "Nobody has fought here yet" in html and "<svg" not in html


def test_an_imported_fight_keeps_its_summary(fight):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from combat.models import Encounter

    client = client_for(fight["owner"])
    exported = client.get(f"/enc/{fight['enc'].pk}/export.json").getvalue()
    client.post("/library/import/", {"file": SimpleUploadedFile("f.json", exported)})
    new = Encounter.objects.exclude(pk=fight["enc"].pk).get(
        owner=fight["owner"], name="Bridge fight"
    )
    t = summary.tally(new)
    by_name = {t.names[c]: c for c in t.names}
    assert t.dealt[by_name["Ana"]] == 9
    assert t.taken[by_name["Goblin"]] == 13
    assert t.reactions[by_name["Ana"]] == 1
    assert t.spent[by_name["Ana"]] == {1: 3, 2: 1}


def _what_the_events_say(enc) -> tuple[dict, dict]:
    """AP paid per actor and round, and damage dealt per attacker, read straight from the
    stored events of the commands that still stand."""
    spent: dict = {}
    dealt: dict = {}
    for entry in enc.log.order_by("seq"):
        if entry.undone or entry.kind == "undo":
            continue
        for ev in entry.events:
            if "paid" in ev:
                per = spent.setdefault(ev["actor"], {})
                per[ev["round"]] = per.get(ev["round"], 0) + ev["paid"].get("ap", 0)
            if ev["data"].get("hit"):
                dealt[ev["actor"]] = dealt.get(ev["actor"], 0) + ev["data"]["damage"]
    return spent, dealt


def test_the_summary_reads_what_was_paid_and_rolled_from_the_events(fight):
    """Issue 29: the summary reads what was paid and rolled from the events."""
    enc, ana = fight["enc"], fight["ana"]
    empowered = next(
        ev for e in enc.log.order_by("seq") for ev in e.events if ev.get("paid") == {"ap": 2}
    )
    assert empowered["actor"] == ana and empowered["reaction"] is False
    spent, dealt = _what_the_events_say(enc)
    t = summary.tally(enc)
    assert dict(t.spent) == spent
    assert dict(t.dealt) == dealt
    assert t.paid[ana] == {"ap": 4}
    html = unescape(client_for(fight["owner"]).get(f"/enc/{enc.pk}/summary/").content.decode())
    assert f'data-testid="paid-{ana}">4 AP<' in html


def test_a_players_summary_leaves_out_what_the_hidden_troll_did(fight):
    """Hidden combatants are absent by construction: the player's tally is built from the
    events as `screens.event_for` gives them to a player."""
    troll, ana = fight["troll"], fight["ana"]
    gm_t = summary.tally(fight["enc"], summary.GM)
    t = summary.tally(fight["enc"], summary.PUBLIC)
    assert troll not in t.spent and troll not in t.dealt and troll not in t.paid
    assert t.actions == gm_t.actions - 1  # the troll's attack is not one the players saw
    assert t.spent[ana] == gm_t.spent[ana] and t.reactions[ana] == 1
    assert t.taken[ana] == 6  # the troll's hit is still felt by Ana


def test_the_summary_prices_nothing_again(fight, monkeypatch):
    """What was paid is a fact of the events: the ruleset's pricing is never asked."""
    from combat.rules.action_points import ActionPoints

    def no_pricing(*args, **kwargs):
        raise AssertionError("the summary priced an action again")

    monkeypatch.setattr(ActionPoints, "price", no_pricing)
    r = client_for(fight["owner"]).get(f"/enc/{fight['enc'].pk}/summary/")
    assert r.status_code == 200
    assert f'data-testid="spent-{fight["ana"]}">4<' in r.content.decode()
