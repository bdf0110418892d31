"""Posting commands from the pages: permissions, refusals as messages, CSRF, undo, seats."""

from __future__ import annotations

import pytest
from django.test import Client

from combat import services
from combat.access import seat_viewer
from combat.models import LogEntry, Seat
from tests.said import said

from .conftest import HIDDEN, TableFixture

pytestmark = pytest.mark.django_db


def hp(table: TableFixture, cid: str) -> int:
    return table.refresh().state["combatants"][cid]["hp"]


def test_player_acts_for_their_own_combatant(fight: TableFixture):
    v = fight.enc.version
    r = fight.p1_post(
        type="act", actor=fight.ana, action="basic_attack", opt_target=fight.goblin, opt_ranged="0"
    )
    assert r.status_code == 200
    assert b'data-testid="notice"' in r.content
    assert hp(fight, fight.goblin) == 10 - 5
    enc = fight.refresh()
    assert enc.version == v + 1
    entry = enc.log.order_by("-seq").first()
    assert entry.by == "player" and entry.seat_id == fight.seat1.pk
    # The answer is the sentence only: the new view comes over the socket, in version order.
    assert b"hx-swap-oob" not in r.content
    assert b"AP 2 of 3" in fight.p1.get(fight.player1_url).content


def test_by_comes_from_the_seat_not_the_form(fight: TableFixture):
    r = fight.p1_post(type="end_turn", actor=fight.ana, by="gm")
    assert r.status_code == 200
    assert fight.refresh().log.order_by("-seq").first().by == "player"


def test_player_cannot_act_for_another_seats_combatant(fight: TableFixture):
    v = fight.enc.version
    r = fight.p1_post(type="end_turn", actor=fight.bram)
    assert r.status_code == 403  # "not yours to do": a 403 with the sentence
    assert b'data-code="forbidden"' in r.content
    assert b"Player 1 does not control Bram" in r.content
    assert fight.refresh().version == v


def test_player_cannot_send_gm_commands(fight: TableFixture):
    r = fight.p1_post(type="damage", actor=fight.goblin, amount="5")
    assert b'data-code="forbidden"' in r.content
    assert hp(fight, fight.goblin) == 10


def test_player_cannot_name_a_hidden_combatant(fight: TableFixture):
    r = fight.p1_post(type="act", actor=fight.ana, action="basic_attack", opt_target=fight.troll)
    assert b'data-code="unknown_combatant"' in r.content
    assert HIDDEN.encode() not in r.content
    assert hp(fight, fight.troll) == 40


def test_rules_refusal_is_a_message_with_the_engines_sentence(fight: TableFixture):
    r = fight.p2.post(
        f"{fight.player2_url}command/",
        {"type": "act", "actor": fight.bram, "action": "basic_attack"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    assert b'data-code="not_your_turn"' in r.content
    assert b"Not Bram&#x27;s turn: Bram can take Basic Attack only on its own turn" in r.content


def test_refusal_without_htmx_redirects_back_with_the_message(fight: TableFixture):
    url = f"{fight.player2_url}command/"
    r = fight.p2.post(url, {"type": "act", "actor": fight.bram, "action": "basic_attack"})
    assert r.status_code == 302 and r["Location"] == fight.player2_url
    page = fight.p2.get(fight.player2_url).content.decode()
    flash = page[page.index('class="flash error') :]
    said = flash[: flash.index("</")]
    assert "Bram can take Basic Attack only on its own turn." in said
    assert said.endswith("turn.")


def test_garbage_command_is_a_refusal_not_an_error_page(fight: TableFixture):
    for data in (
        {"type": "no_such_thing"},
        {"type": ""},
        {"type": "act", "actor": fight.ana, "action": "basic_attack", "opt_to_hit": "lots"},
    ):
        r = fight.gm_post(**data)
        assert r.status_code == 400, data  # bad input, as the API answers it
        assert b'data-testid="refusal"' in r.content, data


def test_refused_reason_never_names_a_hidden_combatant(table: TableFixture):
    table.gm_post(type="set_initiative", actor=table.troll, initiative=99)
    table.gm_post(type="start_combat")
    r = table.p1_post(type="end_turn", actor=table.ana)
    assert b'data-code="not_your_turn"' in r.content
    assert b"Troll" not in r.content


def test_revoked_seat_cannot_act_even_with_an_open_page(fight: TableFixture):
    services.revoke_seat(fight.enc.pk, fight.seat1.pk)
    assert fight.p1.get(fight.player1_url).status_code == 404
    r = fight.p1_post(type="end_turn", actor=fight.ana)
    assert r.status_code == 404
    assert b'data-code="gone"' in r.content and b"<html" not in r.content
    # And the service refuses a stale viewer too.
    result = services.run_command(
        fight.enc.pk, seat_viewer(fight.seat1), {"type": "end_turn", "actor": fight.ana}
    )
    assert not result.ok and result.refusal.code == "forbidden"


def test_csrf_is_enforced_for_htmx_posts(fight: TableFixture):
    strict = Client(enforce_csrf_checks=True)
    url = f"{fight.player1_url}command/"
    page = strict.get(fight.player1_url)
    token = page.content.decode().split('"X-CSRFToken": "')[1].split('"')[0]
    refused = strict.post(url, {"type": "end_turn", "actor": fight.ana}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    assert fight.refresh().state["turn"] == fight.ana
    ok = strict.post(
        url,
        {"type": "end_turn", "actor": fight.ana},
        HTTP_HX_REQUEST="true",
        HTTP_X_CSRFTOKEN=token,
    )
    assert ok.status_code == 200
    assert fight.refresh().state["turn"] == fight.bram


def test_undo_restores_the_state_again_and_again(fight: TableFixture):
    fight.gm_post(type="damage", actor=fight.goblin, amount="3")
    fight.gm_post(type="damage", actor=fight.goblin, amount="2")
    assert hp(fight, fight.goblin) == 5
    r = fight.gm_post(type="undo")
    assert b"The GM undoes" in r.content
    assert hp(fight, fight.goblin) == 7
    fight.gm_post(type="undo")
    assert hp(fight, fight.goblin) == 10
    fight.gm_post(type="undo")  # undoes start_combat
    assert fight.refresh().state["phase"] == "setup"
    undo_entries = fight.enc.log.filter(kind=LogEntry.UNDO)
    assert undo_entries.count() == 3
    assert all(e.events[0]["ruling"] for e in undo_entries)


def test_nothing_to_undo_is_a_refusal(table: TableFixture):
    table.enc.log.update(undone=True)
    r = table.gm_post(type="undo")
    assert b'data-code="nothing_to_undo"' in r.content


def test_players_cannot_undo(fight: TableFixture):
    r = fight.p1_post(type="undo", actor=fight.ana)
    assert b'data-code="forbidden"' in r.content


def test_gm_grants_a_free_action_logged_as_a_ruling(fight: TableFixture):
    r = fight.gm_post(type="grant", actor=fight.ana, action="move", opt_leave="0")
    assert r.status_code == 200
    enc = fight.refresh()
    assert enc.state["combatants"][fight.ana]["res"]["ap"] == 3
    assert any(e["ruling"] and "grants" in said(e) for e in enc.log.order_by("-seq")[0].events)


def test_gm_adjusts_a_resource(fight: TableFixture):
    fight.gm_post(type="adjust", actor=fight.ana, resource="ap", value="1")
    assert fight.refresh().state["combatants"][fight.ana]["res"]["ap"] == 1


def test_gm_hides_and_reveals(fight: TableFixture):
    fight.gm_post(type="reveal", actor=fight.troll)
    assert HIDDEN in fight.p1.get(fight.player1_url).content.decode()
    fight.gm_post(type="hide", actor=fight.troll)
    assert HIDDEN not in fight.p1.get(fight.player1_url).content.decode()


def test_engage_and_separate(fight: TableFixture):
    fight.gm_post(type="engage", actor=fight.ana, target=fight.goblin, engaged="1")
    assert fight.refresh().state["combatants"][fight.ana]["engaged"] == [fight.goblin]
    fight.gm_post(type="engage", actor=fight.ana, target=fight.goblin, engaged="0")
    assert fight.refresh().state["combatants"][fight.ana]["engaged"] == []


def test_opportunity_attack_prompt_goes_to_the_reactors_player_only(fight: TableFixture):
    # The Goblin stands next to Bram; Bram (Player 2) may strike when it walks away.
    fight.gm_post(type="engage", actor=fight.bram, target=fight.goblin, engaged="1")
    fight.gm_post(type="end_turn", actor=fight.ana)
    fight.gm_post(type="end_turn", actor=fight.bram)
    assert fight.refresh().state["turn"] == fight.goblin
    fight.gm_post(type="act", actor=fight.goblin, action="move", opt_leave="1")
    window = fight.refresh().state["pending"][0]["id"]
    p2 = fight.p2.get(fight.player2_url).content.decode()
    p1 = fight.p1.get(fight.player1_url).content.decode()
    assert f'data-testid="accept-{window}"' in p2 and f'data-testid="decline-{window}"' in p2
    assert f'data-testid="accept-{window}"' not in p1
    r = fight.p2.post(
        f"{fight.player2_url}command/",
        {"type": "react", "actor": fight.bram, "window": window, "accept": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert b'data-testid="notice"' in r.content
    assert fight.refresh().state["pending"] == []
    assert hp(fight, fight.goblin) == 5


def test_tied_pcs_reorder_themselves(table: TableFixture):
    table.gm_post(type="set_initiative", actor=table.bram, initiative=20)
    html = table.p2.get(table.player2_url).content.decode()
    assert f'data-testid="up-{table.bram}"' in html
    r = table.p2.post(
        f"{table.player2_url}command/",
        {"type": "reorder", "actor": table.bram, "direction": "up"},
        HTTP_HX_REQUEST="true",
    )
    assert b'data-testid="notice"' in r.content
    assert table.refresh().state["order"][0] == table.bram


def test_add_combatant_with_stats_and_a_seat(table: TableFixture):
    r = table.gm.post(
        f"/enc/{table.enc.pk}/combatants/",
        {
            "name": "Cleo",
            "side": "pc",
            "hp": "12",
            "initiative_bonus": "2",
            "group": "",
            "hidden": "0",
            "seat": str(table.seat1.pk),
            "ap_pool": "4",
            "stat_name_0": "attack",
            "stat_dice_0": "1d20",
            "stat_bonus_0": "3",
            "stat_name_1": "damage",
            "stat_dice_1": "",
            "stat_bonus_1": "0",
        },
        HTTP_HX_REQUEST="true",
    )
    assert b'data-testid="notice"' in r.content
    state = table.refresh().state
    cleo = next(c for c in state["combatants"].values() if c["name"] == "Cleo")
    assert cleo["stats"] == {"attack": {"dice": "1d20", "bonus": 3}}
    assert cleo["max_hp"] == 12 and cleo["mods"]["ap_pool"] == 4
    assert cleo["id"] in Seat.objects.get(pk=table.seat1.pk).combatant_ids


def test_add_combatant_refusal_is_shown(table: TableFixture):
    r = table.gm.post(
        f"/enc/{table.enc.pk}/combatants/", {"name": "", "side": "npc"}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 400 and b'data-testid="refusal"' in r.content  # bad input


def test_edit_changes_only_what_changed(fight: TableFixture):
    fight.gm_post(type="damage", actor=fight.goblin, amount="4")
    form = fight.gm.get(f"/enc/{fight.enc.pk}/combatants/{fight.goblin}/", HTTP_HX_REQUEST="true")
    assert b'data-testid="combatant-form-edit"' in form.content
    r = fight.gm.post(
        f"/enc/{fight.enc.pk}/combatants/{fight.goblin}/",
        {
            "name": "Goblin boss",
            "side": "npc",
            "hp": "10",
            "initiative_bonus": "0",
            "initiative": "10",
            "group": "",
            "hidden": "0",
            "notes": "",
            "seat": str(fight.seat2.pk),
            "stat_name_0": "attack",
            "stat_dice_0": "1d1",
            "stat_bonus_0": "50",
        },
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200 and b'data-testid="notice"' in r.content
    goblin = fight.refresh().state["combatants"][fight.goblin]
    assert goblin["name"] == "Goblin boss"
    assert goblin["hp"] == 6  # renaming did not heal it
    assert fight.goblin in Seat.objects.get(pk=fight.seat2.pk).combatant_ids


def test_duplicate_numbers_the_copy(table: TableFixture):
    table.gm.post(
        f"/enc/{table.enc.pk}/combatants/{table.goblin}/duplicate/", HTTP_HX_REQUEST="true"
    )
    table.gm.post(
        f"/enc/{table.enc.pk}/combatants/{table.goblin}/duplicate/", HTTP_HX_REQUEST="true"
    )
    names = sorted(c["name"] for c in table.refresh().state["combatants"].values())
    assert "Goblin 2" in names and "Goblin 3" in names
    copy = next(c for c in table.enc.state["combatants"].values() if c["name"] == "Goblin 2")
    assert copy["stats"] == table.enc.state["combatants"][table.goblin]["stats"]


def test_outsider_cannot_post_to_the_gm(fight: TableFixture):
    r = fight.outsider.post(f"/enc/{fight.enc.pk}/command/", {"type": "end_combat"})
    assert r.status_code == 404
    assert fight.refresh().state["phase"] == "combat"


def test_seat_create_revoke_regenerate(table: TableFixture):
    r = table.gm.post(f"/enc/{table.enc.pk}/seats/", {"name": "Player 3"}, HTTP_HX_REQUEST="true")
    assert b"Seat Player 3 created" in r.content
    seat = Seat.objects.get(name="Player 3")
    assert Client().get(f"/p/{seat.token}/").status_code == 200
    revoke = f"/enc/{table.enc.pk}/seats/{seat.pk}/revoke/"
    asked = table.gm.post(revoke, HTTP_HX_REQUEST="true")
    assert b"Revoke the link of <strong>Player 3</strong>?" in asked.content
    assert Client().get(f"/p/{seat.token}/").status_code == 200  # asking revoked nothing
    table.gm.post(revoke, {"confirm": "yes"}, HTTP_HX_REQUEST="true")
    assert Client().get(f"/p/{seat.token}/").status_code == 404
    old = seat.token
    table.gm.post(f"/enc/{table.enc.pk}/seats/{seat.pk}/regenerate/", HTTP_HX_REQUEST="true")
    seat.refresh_from_db()
    assert seat.token != old and not seat.revoked
    assert Client().get(f"/p/{old}/").status_code == 404
    assert Client().get(f"/p/{seat.token}/").status_code == 200


def test_spectator_link_off_and_new(table: TableFixture):
    old = table.spectator_url
    table.gm.post(f"/enc/{table.enc.pk}/spectator/", {"do": "disable"}, HTTP_HX_REQUEST="true")
    assert Client().get(old).status_code == 404
    table.gm.post(f"/enc/{table.enc.pk}/spectator/", {"do": "regenerate"}, HTTP_HX_REQUEST="true")
    table.refresh()
    assert table.spectator_url != old
    assert Client().get(table.spectator_url).status_code == 200


def test_spectators_cannot_act(fight: TableFixture):
    from combat.access import spectator_viewer

    assert fight.spectator.post(fight.spectator_url, {"type": "end_turn"}).status_code == 405
    result = services.run_command(
        fight.enc.pk, spectator_viewer(fight.enc), {"type": "end_turn", "actor": fight.ana}
    )
    assert not result.ok and result.refusal.code == "forbidden"
    assert fight.refresh().state["turn"] == fight.ana
