"""Issue 35, "Moving": a player "picks a movement action and a destination by tapping or
clicking a cell ... The server finds the cheapest path ... and shows it with its length and
cost; only a second tap or Enter commits it. The path and every check come from the server;
the browser draws what it is told." These tests read the answer to the tap (a GET)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from .conftest import HIDDEN, TableFixture, build_table
from .test_board import board_of, page, with_board


def tap(client, url: str, **fields: str) -> str:
    r = client.get(url, fields)
    assert r.status_code == 200
    return r.content.decode()


def test_a_tap_answers_the_path_its_cost_and_a_move_here_form_and_changes_nothing(fight):
    with_board(fight)
    version = fight.refresh().version
    said = tap(fight.p1, f"{fight.player1_url}move/", to="C4")
    assert 'data-testid="move-line">Move, 1 AP: 4 of 6 m' in said
    assert "C4 is 4 m away by the shortest path" in said
    # The path is drawn: the cells stepped into (round the goblin at C3), the last one
    # marked as the destination.
    assert len(re.findall(r'class="move-(?:step|dest)"', said)) >= 3
    assert said.count('data-testid="move-dest"') == 1
    # "Move here" is the ordinary command post, to the cell asked.
    assert 'action="command/"' in said and 'name="opt_to" value="C4"' in said
    assert 'name="type" value="act"' in said
    assert fight.refresh().version == version


def test_the_answer_moves_the_token_when_sent_and_the_gm_sees_it(fight):
    with_board(fight)
    r = fight.p1_post(type="act", actor=fight.ana, action="move", opt_to="C4")
    assert r.status_code == 200
    assert "Ana: C4" in board_of(page(fight.gm, fight.gm_url))


def test_an_unreachable_cell_is_refused_in_words_and_nothing_is_drawn(fight):
    with_board(fight)
    fight.gm_post(type="paint", cells="G1 G2 G3 G4 G5 G6", terrain="wall")
    version = fight.refresh().version
    said = tap(fight.p1, f"{fight.player1_url}move/", to="H1")
    assert "Ana cannot reach H1 by any path" in said
    assert "move-dest" not in said and 'data-testid="move-here"' not in said
    said = tap(fight.p1, f"{fight.player1_url}move/", to="F6")
    assert "Move reaches 6 m;" in said and "move-dest" not in said
    said = tap(fight.p1, f"{fight.player1_url}move/", to="A1")
    assert "Ana already stands at A1." in said
    said = tap(fight.p1, f"{fight.player1_url}move/", to="Z99")
    assert "is off the map" in said and "move-dest" not in said
    assert fight.refresh().version == version


def test_a_player_whose_combatant_is_not_acting_is_told_so(fight):
    with_board(fight)
    said = tap(fight.p2, f"{fight.player2_url}move/", to="B2")
    assert "It is not your turn" in said and "move-dest" not in said


def test_no_hidden_combatant_is_named_or_changes_the_path(fight: TableFixture):
    """The troll is hidden and stands on the straight way: the player's path goes through
    its cell as if it were empty, and its name and id are nowhere in the answer."""
    with_board(fight)
    fight.gm_post(type="place", actor=fight.troll, cell="B1")
    said = tap(fight.p1, f"{fight.player1_url}move/", to="C1")
    assert 'data-testid="move-line">Move, 1 AP: 2 of 6 m' in said
    assert HIDDEN not in said and fight.troll not in said
    # Even asking for its very cell says nothing about it.
    said = tap(fight.p1, f"{fight.player1_url}move/", to="B1")
    assert HIDDEN not in said and fight.troll not in said
    assert "stands at" not in said


def test_the_gm_previews_the_acting_combatant_and_a_chosen_action(fight):
    with_board(fight)
    said = tap(fight.gm, f"/enc/{fight.enc.pk}/move/", to="B2", action="disengage")
    assert "Disengage, 2 AP: 1 of 6 m" in said
    assert f'action="/enc/{fight.enc.pk}/command/"' in said
    said = tap(fight.gm, f"/enc/{fight.enc.pk}/move/", to="B2", action="basic_attack")
    assert "does not move to a cell on the map" in said
    # Someone else's encounter: no answer at all.
    assert fight.outsider.get(f"/enc/{fight.enc.pk}/move/", {"to": "B2"}).status_code == 404


def test_the_board_offers_tapping_to_players_and_the_gm_not_to_spectators(fight):
    with_board(fight)
    assert 'data-move="move/"' in board_of(page(fight.p1, fight.player1_url))
    assert f'data-move="/enc/{fight.enc.pk}/move/"' in board_of(page(fight.gm, fight.gm_url))
    assert "data-move" not in page(fight.spectator, fight.spectator_url)


@pytest.fixture
def ladder_fight(gm_user, outsider_user) -> TableFixture:
    """The Action Ladder's table, combat started: Ana's turn."""
    gm = Client()
    gm.force_login(gm_user)
    outsider = Client()
    outsider.force_login(outsider_user)
    t = TableFixture(
        gm=gm,
        p1=Client(),
        p2=Client(),
        outsider=outsider,
        spectator=Client(),
        **build_table(gm_user, "action_ladder"),
    )
    assert t.gm_post(type="start_combat").status_code == 200
    return t


def test_the_ladder_walks_by_default_and_the_panel_s_action_is_taken_when_named(ladder_fight):
    """Action Ladder: "Walk a third of Speed, Run Speed + Athletics"; the tap takes Walk
    unless the panel's movement action comes with it."""
    t = ladder_fight
    with_board(t)
    said = tap(t.p1, f"{t.player1_url}move/", to="B1")
    assert re.search(r'data-testid="move-line">Walk, [^:<]+: 1 of \d+(\.\d+)? m', said), said
    assert 'name="action" value="walk"' in said
    said = tap(t.p1, f"{t.player1_url}move/", to="B1", action="run")
    assert re.search(r'data-testid="move-line">Run, [^:<]+: 1 of \d+(\.\d+)? m', said), said
    assert 'name="action" value="run"' in said
