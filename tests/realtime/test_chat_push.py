"""Table talk over the sockets: a new message reaches each socket that may see it as one
small fragment (not a whole view), and a whisper reaches its recipients only."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from combat import broadcast, services
from combat.access import gm_viewer, seat_viewer
from combat.models import ChatMessage
from tests.markers import before_resync, first_view, is_view, pushed_so_far

from .conftest import Table, gm_socket, player_socket, spectator_socket

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10  # a bound, not a wait: a whole console is rendered first, slowly under load


async def open_all(t: Table) -> dict:
    socks = {
        "gm": (gm_socket(t), broadcast.group_name(t.enc.pk, "gm")),
        "p1": (player_socket(t.seat1.token), broadcast.group_name(t.enc.pk, "player", t.seat1.pk)),
        "p2": (player_socket(t.seat2.token), broadcast.group_name(t.enc.pk, "player", t.seat2.pk)),
        "public": (
            spectator_socket(t.enc.spectator_token),
            broadcast.group_name(t.enc.pk, "spectator"),
        ),
    }
    for comm, _ in socks.values():
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        await first_view(comm)
    for comm, _ in socks.values():
        await before_resync(comm)  # the presence updates of the others connecting
    return socks


async def close_all(socks: dict) -> None:
    for comm, _ in socks.values():
        await comm.disconnect()


async def got(socks: dict) -> dict[str, list[str]]:
    """What reached each socket so far (the GM's presence list passed over)."""
    out = {}
    for name, (comm, group) in socks.items():
        out[name] = [f for f in await pushed_so_far(comm, group) if 'id="presence"' not in f]
    return out


async def test_a_message_reaches_every_table_socket_as_one_small_fragment(table: Table):
    await database_sync_to_async(services.set_chat_spectators)(table.enc.pk, True)
    socks = await open_all(table)
    await got(socks)  # the spectators' chat region, pushed when the GM opened it
    await database_sync_to_async(services.post_chat)(
        seat_viewer(table.seat1), "Over the bridge!", ["all"]
    )
    frames = await got(socks)
    for name, pushed in frames.items():
        said = [f for f in pushed if "Over the bridge!" in f]
        assert len(said) == 1, (name, pushed)
        frame = said[0]
        assert not is_view(frame), name  # the message alone, not the table's view
        assert 'hx-swap-oob="beforeend:#chat-messages"' in frame
        assert len(frame) < 2000, len(frame)
    assert any("chat-delete-" in f for f in frames["gm"])
    assert not any("chat-delete-" in f for f in frames["p2"])
    await close_all(socks)


async def test_a_whisper_reaches_only_its_recipients_sockets(table: Table):
    await database_sync_to_async(services.set_chat_spectators)(table.enc.pk, True)
    socks = await open_all(table)
    await got(socks)
    await database_sync_to_async(services.post_chat)(
        gm_viewer(table.enc), "The bells toll for Ana", [str(table.seat1.pk)]
    )
    await database_sync_to_async(services.post_chat)(
        seat_viewer(table.seat2), "/gr 1d1+6 secret plan", ["all"]
    )
    frames = await got(socks)
    bells = {name for name, pushed in frames.items() if any("The bells toll" in f for f in pushed)}
    plan = {name for name, pushed in frames.items() if any("secret plan" in f for f in pushed)}
    assert bells == {"gm", "p1"}
    assert plan == {"gm", "p2"}
    # Nothing else of theirs reached the others either (the roll's total, say).
    assert not any("1d1+6" in f for f in frames["p1"] + frames["public"])
    await close_all(socks)


async def test_a_deletion_reaches_everyone_who_saw_the_message(table: Table):
    socks = await open_all(table)
    msg = await database_sync_to_async(services.post_chat)(
        gm_viewer(table.enc), "Wrong words", ["all"]
    )
    await got(socks)
    await database_sync_to_async(services.delete_chat)(table.enc.pk, msg.pk)
    frames = await got(socks)
    for name in ("gm", "p1", "p2"):
        about = [f for f in frames[name] if f'id="chat-msg-{msg.pk}"' in f and not is_view(f)]
        assert len(about) == 1, (name, frames[name])
        frame = about[0]
        assert f'id="chat-msg-{msg.pk}"' in frame and 'hx-swap-oob="outerHTML"' in frame
        assert "message deleted by the GM" in frame and "Wrong words" not in frame
    # Spectators were not let in: they never had it, and get nothing now.
    assert frames["public"] == []
    assert await database_sync_to_async(ChatMessage.objects.filter(deleted=True).count)() == 1
    await close_all(socks)


async def test_a_socket_that_connects_gets_its_own_table_talk_with_the_whole_view(table: Table):
    await database_sync_to_async(services.post_chat)(
        gm_viewer(table.enc), "For Player 2 alone", [str(table.seat2.pk)]
    )
    await database_sync_to_async(services.post_chat)(gm_viewer(table.enc), "For all", ["all"])
    seen = {}
    for name, comm in (
        ("p1", player_socket(table.seat1.token)),
        ("p2", player_socket(table.seat2.token)),
        ("public", spectator_socket(table.enc.spectator_token)),
    ):
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        seen[name] = await first_view(comm)
        await comm.disconnect()
    assert "For all" in seen["p1"] and "For Player 2 alone" not in seen["p1"]
    assert "For all" in seen["p2"] and "For Player 2 alone" in seen["p2"]
    # The GM has not let spectators read chat: their region says so, and holds nothing.
    assert "chat-closed" in seen["public"]
    # The chat's addresses are relative to the page: no secret link travels over a socket.
    for frame in seen.values():
        assert table.seat1.token not in frame and table.seat2.token not in frame
        assert table.enc.spectator_token not in frame
    assert "For all" not in seen["public"] and "For Player 2 alone" not in seen["public"]
