"""Issue 34, the battle map: "a measuring tool for everyone: pick two cells, see the distance
in metres". The GM, a player and a spectator each ask their own page's measure address;
the answer is counted by the map's diagonal rule and says nothing of what stands or lies
on a cell."""

from __future__ import annotations

import pytest

from combat import services
from combat.rules import paths

from .conftest import HIDDEN, TableFixture
from .test_board import board_of, page, with_board


def measure(client, base: str, **query: str) -> str:
    r = client.get(f"{base}measure/", query, HTTP_HX_REQUEST="true")
    assert r.status_code == 200, r.content
    return r.content.decode()


def readers(table: TableFixture):
    return (
        (table.gm, table.gm_url),
        (table.p1, table.player1_url),
        (table.spectator, table.spectator_url),
    )


def test_every_page_with_a_map_has_the_measuring_form(table):
    with_board(table)
    for client, url in readers(table):
        board = board_of(page(client, url))
        assert 'data-testid="measure-form"' in board
        assert 'hx-get="' in board and "measure/" in board


@pytest.mark.parametrize(
    ("diagonals", "a", "b", "said"),
    [
        # 1-2-1: every second diagonal step counts two (six across, two down: 6 + 1).
        ("1-2-1", "B3", "H5", "From B3 to H5: <strong>7 m</strong> (7 steps of 1 m; every"),
        ("1-1-1", "B3", "H5", "From B3 to H5: <strong>6 m</strong> (6 steps of 1 m)."),
        # Straight along a row: no diagonal to count.
        ("1-2-1", "A1", "A6", "From A1 to A6: <strong>5 m</strong> (5 steps of 1 m)."),
        ("1-2-1", "C3", "C3", "From C3 to C3: <strong>0 m</strong> (0 steps of 1 m)."),
        # One diagonal step counts one: nothing doubled to mention.
        ("1-2-1", "H5", "G3", "From H5 to G3: <strong>2 m</strong> (2 steps of 1 m)."),
    ],
)
def test_the_distance_follows_the_maps_diagonal_rule(table, diagonals, a, b, said):
    r = table.gm_post(type="set_board", width="8", height="6", diagonals=diagonals)
    assert r.status_code == 200
    assert paths.diagonals(table.refresh().state["board"]) == diagonals
    for client, url in readers(table):
        assert said in measure(client, url, **{"from": a, "to": b})


def test_cells_of_two_metres_give_metres(table):
    assert table.gm_post(type="set_board", width="8", height="6", cell_m="2").status_code == 200
    said = measure(table.p1, table.player1_url, **{"from": "A1", "to": "A4"})
    assert "From A1 to A4: <strong>6 m</strong> (3 steps of 2 m)." in said


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"from": "B3"}, "Name the two cells to measure between, like B3 and H5."),
        ({"from": "B3", "to": "Z99"}, "Z99 is off the map: it runs from A1 to H6."),
        ({"from": "hello", "to": "B3"}, "A cell is a column letter and a row number (C4)"),
    ],
)
def test_bad_cells_are_refused_in_words(table, query, words):
    with_board(table)
    for client, url in readers(table):
        said = measure(client, url, **query)
        assert 'data-testid="measure-refusal"' in said and words in said


def test_without_a_map_there_is_nothing_to_measure(table):
    said = measure(table.p1, table.player1_url, **{"from": "A1", "to": "B2"})
    assert "This encounter has no map to measure on." in said


def test_a_fogged_cell_measures_like_any_other_and_tells_nothing(table):
    """The hidden Troll stands at E5 under fog: measuring to it gives the distance, and no
    word of the Troll or the fog."""
    with_board(table)
    assert table.gm_post(type="fog", cells="D4:F6", fogged="1").status_code == 200
    plain = measure(table.p1, table.player1_url, **{"from": "A1", "to": "E5"})
    assert "From A1 to E5: <strong>" in plain
    assert HIDDEN not in plain and "fog" not in plain.lower()
    assert table.gm_post(type="fog", cells="D4:F6", fogged="0").status_code == 200
    assert measure(table.p1, table.player1_url, **{"from": "A1", "to": "E5"}) == plain


def test_without_scripts_the_form_gives_a_page_with_the_way_back(table):
    with_board(table)
    r = table.spectator.get(f"{table.spectator_url}measure/", {"from": "A1", "to": "C3"})
    html = r.content.decode()
    assert r.status_code == 200
    assert "From A1 to C3: <strong>" in html
    assert f'href="{table.spectator_url}"' in html


def test_strangers_and_revoked_links_measure_nothing(table):
    with_board(table)
    query = {"from": "A1", "to": "C3"}
    assert table.outsider.get(f"{table.gm_url}measure/", query).status_code == 404
    player_url, spectator_url = table.player1_url, table.spectator_url
    services.revoke_seat(table.enc.pk, table.seat1.pk)
    assert table.p1.get(f"{player_url}measure/", query).status_code in (404, 410)
    services.set_spectator_link(table.enc.pk, False)
    assert table.spectator.get(f"{spectator_url}measure/", query).status_code in (404, 410)
