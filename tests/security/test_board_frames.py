"""Issue 34: a frame pushed to a player's seat or a spectator draws no hidden combatant's
token and nothing under fog, while the GM's frame of the same change does (so the search
would find a leak)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from combat import broadcast, services
from combat.access import gm_viewer
from combat.models import Encounter
from tests.markers import pushed_so_far

from .conftest import HIDDEN
from .sockets import build, connect, socket

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_frame_pushed_to_a_seat_contains_no_hidden_token():
    t, gm_cookie, _ = await build()
    socks = {
        "gm": socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=gm_cookie),
        "p1": socket(f"/ws/p/{t.seat1.token}/"),
        "public": socket(f"/ws/s/{t.enc.spectator_token}/"),
    }
    groups = {
        "gm": broadcast.group_name(t.enc.pk, broadcast.GM),
        "p1": broadcast.group_name(t.enc.pk, broadcast.PLAYER, t.seat1.pk),
        "public": broadcast.group_name(t.enc.pk, broadcast.SPECTATOR),
    }
    for comm in socks.values():
        await connect(comm)

    def gm(**command: Any) -> None:
        enc = Encounter.objects.get(pk=t.enc.pk)
        result = services.run_command(enc.pk, gm_viewer(enc), command)
        assert result.ok, (command, result.refusal)

    def setup() -> None:
        gm(type="set_board", width=10, height=10)
        gm(type="place", actor=t.ana, cell="A1")
        gm(type="place", actor=t.troll, cell="J10")
        gm(type="place", actor=t.goblin, cell="E5")
        gm(type="paint", cells="F6", terrain="wall")
        gm(type="fog", cells="E5:F6")

    await database_sync_to_async(setup)()
    frames = {who: await pushed_so_far(comm, groups[who]) for who, comm in socks.items()}
    for who in ("p1", "public"):
        assert frames[who], f"{who} got no frame"
        text = "\n".join(frames[who])
        assert 'data-testid="board-svg"' in text
        assert f"token-{t.ana}" in text
        # In no frame at all: the hidden troll.
        assert HIDDEN not in text and t.troll not in text
        # Once the fog is down (the last frame): the goblin and the wall under it.
        last = frames[who][-1]
        assert f"token-{t.ana}" in last and 'fill="url(#pat-fog)"' in last
        assert f"token-{t.goblin}" not in last
        assert 'data-terrain="wall"' not in last
    # The GM's frames of the same changes draw both (each frame carries what changed for
    # the GM: the troll's token when placed, the wall's row when painted).
    gm_text = "\n".join(frames["gm"])
    assert f"token-{t.troll}" in gm_text and f"token-{t.goblin}" in gm_text
    assert 'data-terrain="wall"' in gm_text
    for comm in socks.values():
        await comm.disconnect()
