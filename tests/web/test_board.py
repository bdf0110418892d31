"""Issue 34, the battle map (first step), from the pages: the GM changes the board through
the console's ordinary post URL; players and spectators see the board drawn from their
own view-model, with "hidden tokens and fogged cells absent"."""

from __future__ import annotations

import re

from .conftest import HIDDEN, TableFixture


def page(client, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200
    return r.content.decode()


def board_of(html: str) -> str:
    """The board region of a page."""
    m = re.search(r'<section id="board".*?</section>', html, re.S)
    assert m, "no board region"
    return m.group(0)


def with_board(table: TableFixture) -> None:
    assert table.gm_post(type="set_board", width="8", height="6").status_code == 200
    for cid, cell in ((table.ana, "A1"), (table.goblin, "C3"), (table.troll, "E5")):
        r = table.gm_post(type="place", actor=cid, cell=cell)
        assert r.status_code == 200, r.content


def test_a_board_less_encounter_shows_no_board_to_players_and_add_a_map_to_the_gm(table):
    """ "An encounter without a board plays exactly as today"."""
    for url, client in ((table.player1_url, table.p1), (table.spectator_url, table.spectator)):
        html = page(client, url)
        assert 'data-testid="board-svg"' not in html
        assert "Where everyone stands" not in html
    gm = page(table.gm, table.gm_url)
    assert "Add a map" in gm
    assert 'data-testid="board-svg"' not in gm


def test_the_gm_adds_a_map_paints_and_places_through_the_post_url(table):
    with_board(table)
    r = table.gm_post(type="paint", cells="B2 B3 B4", terrain="wall")
    assert r.status_code == 200
    board = table.refresh().state["board"]
    assert board["width"] == 8 and board["height"] == 6
    assert board["terrain"] == {"1,1": "wall", "1,2": "wall", "1,3": "wall"}
    assert board["tokens"][table.ana]["at"] == [0, 0]
    gm = board_of(page(table.gm, table.gm_url))
    assert "Ana: A1" in gm and "Goblin: C3" in gm and f"{HIDDEN}: E5" in gm
    assert gm.count('data-terrain="wall"') == 3
    assert "<title>Ana (A1)</title>" in gm
    # The log says what the GM did, in words.
    log = page(table.gm, table.gm_url)
    assert "The GM paints 3 cells: wall." in log
    assert "The GM places Ana on the map." in log


def test_refusals_are_shown_in_words_and_change_nothing(table):
    with_board(table)
    before = table.refresh().state
    r = table.gm_post(type="place", actor=table.goblin, cell="A1")
    assert "Ana already stands at A1: one token a cell." in r.content.decode()
    r = table.gm_post(type="paint", cells="Z9", terrain="wall")
    assert "Z9 is off the map: it runs from A1 to H6." in r.content.decode()
    r = table.gm_post(type="paint", cells="C3", terrain="wall")
    assert "a wall cannot go under a token" in r.content.decode()
    assert table.refresh().state == before


def test_a_player_cannot_post_board_commands(table):
    with_board(table)
    r = table.p1_post(type="place", actor=table.ana, cell="H6")
    assert r.status_code == 403
    assert table.refresh().state["board"]["tokens"][table.ana]["at"] == [0, 0]


def test_players_and_spectators_see_no_hidden_token_and_nothing_under_fog(table):
    with_board(table)
    table.gm_post(type="paint", cells="F1 G1", terrain="deep_water")
    table.gm_post(type="paint", cells="D1", terrain="climbable")
    table.gm_post(type="fog", cells="C3 F1")
    for url, client in ((table.player1_url, table.p1), (table.spectator_url, table.spectator)):
        html = page(client, url)
        board = board_of(html)
        assert 'data-testid="board-svg"' in board
        assert "Ana: A1" in board
        # The hidden troll: no token, no name, no id, anywhere on the page.
        assert HIDDEN not in html and table.troll not in html
        # The goblin stands in fog: its token is absent from the board.
        assert f"token-{table.goblin}" not in board and "Goblin: C3" not in board
        # Fogged F1's deep water is not drawn; unfogged G1's is; the fog is.
        assert 'data-cell="F1"' not in board and 'data-cell="G1"' in board
        assert 'data-cell="C3"' not in board
        assert 'fill="url(#pat-fog)"' in board
    gm = board_of(page(table.gm, table.gm_url))
    assert f"token-{table.goblin}" in gm and 'data-cell="F1"' in gm


def test_the_api_state_of_a_player_carries_no_hidden_token_nor_fogged_terrain(table):
    with_board(table)
    table.gm_post(type="paint", cells="H6", terrain="wall")
    table.gm_post(type="fog", cells="H6")
    r = table.p1.get(
        f"/api/encounters/{table.enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {table.seat1.token}"
    )
    board = r.json()["state"]["board"]
    assert set(board["tokens"]) == {table.ana, table.goblin}
    assert board["terrain"] == {}
    assert board["fog"] == ["7,5"]


def test_undo_puts_the_board_back(table):
    with_board(table)
    table.gm_post(type="place", actor=table.ana, cell="B1")
    assert table.refresh().state["board"]["tokens"][table.ana]["at"] == [1, 0]
    table.gm_post(type="undo")
    assert table.refresh().state["board"]["tokens"][table.ana]["at"] == [0, 0]


def test_the_acting_combatant_is_highlighted(fight):
    with_board(fight)
    board = board_of(page(fight.p1, fight.player1_url))
    token = re.search(rf'<g class="token[^"]*"[^>]*data-token="{fight.ana}"', board).group(0)
    assert "is-turn" in token
    assert 'Ana: A1 <span class="tag now">acting</span>' in board


def test_a_player_moves_to_a_cell_through_the_form_and_the_gm_sees_it(fight):
    """Issue 35: "A player ... picks a movement action and a destination"; the server finds
    the path, moves the token and logs where; "A path longer than the allowance is refused
    with the numbers"."""
    with_board(fight)
    player = page(fight.p1, fight.player1_url)
    assert 'name="opt_to"' in player and "To (cell, e.g. C4)" in player
    r = fight.p1_post(type="act", actor=fight.ana, action="move", opt_mode="walk", opt_to="C4")
    assert r.status_code == 200, r.content
    gm = page(fight.gm, fight.gm_url)
    assert "Ana: C4" in board_of(gm)
    assert "Ana moves (walk, 1 AP) 4 m to C4." in gm
    r = fight.p1_post(type="act", actor=fight.ana, action="move", opt_to="A6")
    assert r.status_code == 200
    # Leaving the Goblin's reach at C4 holds the move for its Opportunity Attack; once the
    # GM passes it, the move walks on to A6.
    assert "Ana stops at C4 as it leaves an enemy" in page(fight.gm, fight.gm_url)
    assert fight.gm_post(type="close_windows").status_code == 200
    before = fight.refresh().state
    r = fight.p1_post(type="act", actor=fight.ana, action="move", opt_to="H1")
    said = r.content.decode()
    assert "Move reaches 6 m; H1 is 9 m away by the shortest path." in said
    assert fight.refresh().state == before
    assert before["board"]["tokens"][fight.ana]["at"] == [0, 5]


def test_the_destination_field_shows_only_with_a_map(fight):
    assert 'name="opt_to"' not in page(fight.p1, fight.player1_url)
