"""Issue 34: "A change pushes only what changed (a token moved, a cell painted), not the
whole map". On a 40 x 40 map with terrain, a token the GM moves reaches the GM's console,
a spectator's screen and a seat's page as a frame under 2 KB that carries that token, not
the map; a painted cell sends its row of terrain, a stroke the rows it crossed, fog the
rows it covers (and, for players and spectators, nothing of what is under it); the page
with the frame swapped in is what a reload shows."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from combat import broadcast, services
from combat.access import gm_viewer
from combat.rules.board import label
from tests.markers import first_view, is_view, pushed_so_far
from tests.replay import Page, first_difference, fragments, normalised

from .conftest import HIDDEN, Table, gm_socket, player_socket, spectator_socket

pytestmark = pytest.mark.django_db(transaction=True)

SIDE = 40
KINDS = ("difficult", "wall", "water", "climbable")


def terrain_cells() -> dict[str, list[str]]:
    """About a fifth of a 40 x 40 map, spread over the four kinds, away from row 1 and 2."""
    cells: dict[str, list[str]] = {k: [] for k in KINDS}
    for y in range(2, SIDE):
        for x in range(SIDE):
            if (x * 7 + y * 3) % 5 == 0:
                cells[KINDS[(x + y) % len(KINDS)]].append(label(x, y))
    return cells


def gm(t: Table, **command) -> None:
    result = services.run_command(t.enc.pk, gm_viewer(t.enc), command)
    assert result.ok, (command, result.refusal)


async def gm_command(t: Table, **command) -> None:
    await database_sync_to_async(gm)(t, **command)


def build_map(t: Table) -> None:
    gm(t, type="set_board", width=SIDE, height=SIDE)
    for kind, cells in terrain_cells().items():
        gm(t, type="paint", cells=" ".join(cells), terrain=kind)
    for cid, cell in ((t.ana, "A1"), (t.bram, "C1"), (t.goblin, "E1"), (t.troll, "G1")):
        gm(t, type="place", actor=cid, cell=cell)
    gm(t, type="start_combat")


class Screen:
    def __init__(self, t: Table, url: str, ws, group: str, cookie: str | None = None) -> None:
        self.url, self.group, self.client = url, group, Client()
        self.is_gm = cookie is not None
        if cookie is not None:
            self.client.cookies[django_settings.SESSION_COOKIE_NAME] = cookie
        self.comm = ws
        self.page: Page | None = None

    def fetch(self) -> str:
        response = self.client.get(self.url)
        assert response.status_code == 200
        return response.content.decode()

    async def open(self) -> None:
        self.page = Page(await database_sync_to_async(self.fetch)())
        connected, _ = await self.comm.connect(timeout=3)
        assert connected
        self.page.apply(await first_view(self.comm))

    async def frame(self) -> str:
        """The one frame the last command pushed, swapped into the page."""
        assert self.page is not None
        (frame,) = [f for f in await pushed_so_far(self.comm, self.group) if is_view(f)]
        self.page.apply(frame)
        return frame

    async def true_to_a_reload(self) -> None:
        assert self.page is not None
        fresh = normalised(await database_sync_to_async(self.fetch)())
        replayed = normalised(self.page.html)
        assert replayed == fresh, first_difference(replayed, fresh)
        assert self.page.missing == []


def screens_of(t: Table) -> list[Screen]:
    return [
        Screen(
            t,
            reverse("gm_console", args=[t.enc.pk]),
            gm_socket(t),
            broadcast.group_name(t.enc.pk, broadcast.GM),
            cookie=t.gm_cookie,
        ),
        Screen(
            t,
            reverse("spectator", args=[t.enc.spectator_token]),
            spectator_socket(t.enc.spectator_token),
            broadcast.group_name(t.enc.pk, broadcast.SPECTATOR),
        ),
        Screen(
            t,
            reverse("player", args=[t.seat2.token]),
            player_socket(t.seat2.token),
            broadcast.group_name(t.enc.pk, broadcast.PLAYER, t.seat2.pk),
        ),
    ]


async def watching_the_map(t: Table) -> list[Screen]:
    """The GM's console, the spectators' screen and Player 2's page on the big map, past a
    first push."""
    await database_sync_to_async(build_map)(t)
    screens = screens_of(t)
    for s in screens:
        await s.open()
    # A first move once everyone watches: from here on, each push has one to compare with.
    await gm_command(t, type="place", actor=t.goblin, cell="F1")
    for s in screens:
        await s.frame()
    return screens


def ids_of(frame: str) -> list[str]:
    return [ident for ident, _ in fragments(frame)[0]]


async def test_a_token_moved_on_a_big_map_reaches_every_screen_as_a_small_frame(table: Table):
    screens = await watching_the_map(table)

    await gm_command(table, type="place", actor=table.ana, cell="B2")
    for s in screens:
        frame = await s.frame()
        ids = ids_of(frame)
        assert f"board-token-{table.ana}" in ids, ids
        assert "board" not in ids and "board-tokens" not in ids, ids
        assert f"board-token-{table.bram}" not in ids, ids
        assert not any(i.startswith(("board-terrain", "board-fog")) for i in ids), ids
        assert 'data-cell="B2"' in frame
        assert s.is_gm or HIDDEN not in frame
        assert len(frame.encode()) < 2048, (s.url, len(frame.encode()), ids)
        await s.true_to_a_reload()


async def test_a_painted_cell_sends_its_row_alone_and_the_page_matches_a_reload(table: Table):
    screens = await watching_the_map(table)

    await gm_command(table, type="paint", cells="B2", terrain="wall")
    for s in screens:
        frame = await s.frame()
        ids = ids_of(frame)
        board = [i for i in ids if i.startswith("board")]
        # Row 2 of the map is the second row of cells (y = 1).
        assert board == ["board-terrain-1"], ids
        assert "order" not in ids, ids
        assert 'data-cell="B2" data-terrain="wall"' in frame
        assert s.is_gm or HIDDEN not in frame
        assert len(frame.encode()) < 2048, (s.url, len(frame.encode()), ids)
        await s.true_to_a_reload()


async def test_a_stroke_sends_the_rows_it_crossed(table: Table):
    screens = await watching_the_map(table)

    await gm_command(table, type="paint", cells="B2 C2 D3 D4", terrain="difficult")
    for s in screens:
        frame = await s.frame()
        board = sorted(i for i in ids_of(frame) if i.startswith("board"))
        assert board == ["board-terrain-1", "board-terrain-2", "board-terrain-3"], board
        await s.true_to_a_reload()


async def test_fog_sends_the_rows_it_covers_and_nothing_under_it_to_the_table(table: Table):
    screens = await watching_the_map(table)
    # A wall at B3 and the goblin beside it, at C3: then the GM fogs both cells.
    for command in (
        {"type": "paint", "cells": "B3", "terrain": "wall"},
        {"type": "place", "actor": table.goblin, "cell": "C3"},
    ):
        await gm_command(table, **command)
        for s in screens:
            await s.frame()

    await gm_command(table, type="fog", cells="B3 C3", fogged=True)
    for s in screens:
        frame = await s.frame()
        ids = ids_of(frame)
        assert "board" not in ids, ids
        assert "board-fog-2" in ids, ids
        if s.is_gm:
            # The GM still sees the wall and the goblin, marked as in the fog.
            assert "board-terrain-2" not in ids, ids
            assert f"board-token-{table.goblin}" in ids, ids
        else:
            # The wall's row is drawn again without it, the goblin's token is gone.
            assert "board-terrain-2" in ids, ids
            assert 'data-cell="B3"' not in frame and 'data-cell="C3"' not in frame
            assert f"board-token-{table.goblin}" not in frame and "Goblin" not in frame
            assert HIDDEN not in frame
        await s.true_to_a_reload()
