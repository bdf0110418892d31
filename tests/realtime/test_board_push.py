"""Issue 34: "A change pushes only what changed (a token moved, a cell painted), not the
whole map". On a 40 x 40 map with terrain, a token the GM moves reaches a spectator's
screen and a seat's page as a frame under 2 KB that carries that token, not the map; the
page with the frame swapped in is what a reload shows. A painted cell sends the map."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from combat import broadcast, services
from combat.access import gm_viewer
from combat.rules.board import label
from tests.markers import first_view, is_view, pushed_so_far
from tests.replay import Page, first_difference, fragments, normalised

from .conftest import HIDDEN, Table, player_socket, spectator_socket

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
    def __init__(self, t: Table, url: str, ws, group: str) -> None:
        self.url, self.group, self.client = url, group, Client()
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
    """The spectators' screen and Player 2's page on the big map, past a first push."""
    await database_sync_to_async(build_map)(t)
    screens = screens_of(t)
    for s in screens:
        await s.open()
    # A first move once everyone watches: from here on, each push has one to compare with.
    await gm_command(t, type="place", actor=t.goblin, cell="F1")
    for s in screens:
        await s.frame()
    return screens


async def test_a_token_moved_on_a_big_map_reaches_every_screen_as_a_small_frame(table: Table):
    screens = await watching_the_map(table)

    await gm_command(table, type="place", actor=table.ana, cell="B2")
    for s in screens:
        frame = await s.frame()
        ids = [ident for ident, _ in fragments(frame)[0]]
        assert f"board-token-{table.ana}" in ids, ids
        assert "board" not in ids and "board-tokens" not in ids, ids
        assert f"board-token-{table.bram}" not in ids, ids
        assert 'data-cell="B2"' in frame and HIDDEN not in frame
        assert len(frame.encode()) < 2048, (len(frame.encode()), ids)
        await s.true_to_a_reload()


async def test_a_painted_cell_sends_the_map_and_the_page_matches_a_reload(table: Table):
    screens = await watching_the_map(table)

    await gm_command(table, type="paint", cells="B2", terrain="wall")
    for s in screens:
        frame = await s.frame()
        ids = [ident for ident, _ in fragments(frame)[0]]
        assert "board" in ids and "order" not in ids, ids
        assert not any(i.startswith("board-token") for i in ids), ids
        assert HIDDEN not in frame
        await s.true_to_a_reload()
