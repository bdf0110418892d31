"""Live updates: whole view on connect, one push per audience per change, nothing hidden leaks."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async

from combat import broadcast, services
from combat.access import gm_viewer, seat_viewer
from tests.markers import before_resync, is_view, next_matching, next_view, pushed_so_far

from .conftest import HIDDEN, Table, gm_socket, player_socket, socket, spectator_socket

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10  # a bound, not a wait: a whole console is rendered first, slowly under load


def version_of(frame: str) -> int:
    found = set(re.findall(r'data-version="(\d+)"', frame))
    assert len(found) == 1, found
    return int(found.pop())


async def connect(comm) -> str:
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return await comm.receive_from(timeout=TIMEOUT)


async def gm_command(t: Table, **command) -> services.Result:
    result = await database_sync_to_async(services.run_command)(t.enc.pk, gm_viewer(t.enc), command)
    assert result.ok, result.refusal
    return result


async def test_each_socket_gets_the_whole_view_on_connect(table: Table):
    gm, p1, watcher = (
        gm_socket(table),
        player_socket(table.seat1.token),
        spectator_socket(table.enc.spectator_token),
    )
    for comm, regions in (
        # The GM's combatants' cards are inside the initiative list ("order"), pushed with it.
        (gm, ("status", "order", "reactions", "turn", "log", "presence", "seats", "sync")),
        (p1, ("status", "order", "reactions", "panels", "others", "log", "sync")),
        (watcher, ("status", "order", "roster", "log", "sync")),
    ):
        frame = await connect(comm)
        for region in regions:
            assert re.search(rf'id="{region}"[^>]*hx-swap-oob="outerMorph"', frame), region
        assert version_of(frame) == table.enc.version
    for comm in (gm, p1, watcher):
        await comm.disconnect()


async def test_a_command_pushes_exactly_one_frame_per_audience_with_the_new_version(table: Table):
    socks = {
        "gm": gm_socket(table),
        "p1": player_socket(table.seat1.token),
        "p2": player_socket(table.seat2.token),
        "public": spectator_socket(table.enc.spectator_token),
    }
    groups = {
        "gm": broadcast.group_name(table.enc.pk, "gm"),
        "p1": broadcast.group_name(table.enc.pk, "player", table.seat1.pk),
        "p2": broadcast.group_name(table.enc.pk, "player", table.seat2.pk),
        "public": broadcast.group_name(table.enc.pk, "spectator"),
    }
    for comm in socks.values():
        await connect(comm)
    for comm in socks.values():
        await before_resync(comm)  # presence updates from the others connecting
    result = await gm_command(table, type="start_combat")
    for name, comm in socks.items():
        # Presence updates for the GM can still come in between: only views are counted.
        views = [f for f in await pushed_so_far(comm, groups[name]) if is_view(f)]
        assert len(views) == 1, f"{name} got {len(views)} frames"
        assert version_of(views[0]) == result.version, name
    for comm in socks.values():
        await comm.disconnect()


async def test_one_render_per_audience_not_per_socket(table: Table, monkeypatch):
    calls = []
    real = broadcast.render_changes_of

    def counted(audience, *a, **k):
        if audience == broadcast.PLAYER:
            calls.append(1)
        return real(audience, *a, **k)

    monkeypatch.setattr(broadcast, "render_changes_of", counted)
    first, second = player_socket(table.seat1.token), player_socket(table.seat1.token)
    await connect(first)
    await connect(second)
    calls.clear()
    await gm_command(table, type="roll", dice="1d6")
    a, b = await first.receive_from(timeout=TIMEOUT), await second.receive_from(timeout=TIMEOUT)
    assert a == b
    assert len(calls) == 1
    await first.disconnect()
    await second.disconnect()


async def test_hidden_combatant_never_reaches_player_or_public_frames(table: Table):
    gm, p1, watcher = (
        gm_socket(table),
        player_socket(table.seat1.token),
        spectator_socket(table.enc.spectator_token),
    )
    frames = {
        "gm": [await connect(gm)],
        "p1": [await connect(p1)],
        "public": [await connect(watcher)],
    }
    await gm_command(table, type="damage", actor=table.troll, amount=3)
    await gm_command(table, type="roll", dice="1d20", secret=True, label="Troll ambush")
    await gm_command(table, type="set_initiative", actor=table.troll, initiative=99)
    await gm_command(table, type="start_combat")  # the Troll acts first
    for name, comm, group in (
        ("gm", gm, broadcast.group_name(table.enc.pk, "gm")),
        ("p1", p1, broadcast.group_name(table.enc.pk, "player", table.seat1.pk)),
        ("public", watcher, broadcast.group_name(table.enc.pk, "spectator")),
    ):
        frames[name] += await pushed_so_far(comm, group)
        frames[name].append((await before_resync(comm))[1])
    assert any(HIDDEN in f for f in frames["gm"])
    for name in ("p1", "public"):
        assert len(frames[name]) >= 5
        for f in frames[name]:
            # The secret links are random text that can contain "c4" by chance: take
            # them out before looking for the Troll's id.
            for token in (table.seat1.token, table.seat2.token, table.enc.spectator_token):
                f = f.replace(token, "")
            assert HIDDEN not in f and "Troll" not in f and table.troll not in f, name
    for comm in (gm, p1, watcher):
        await comm.disconnect()


async def test_revoked_seat_socket_is_closed(table: Table):
    p1, p2 = player_socket(table.seat1.token), player_socket(table.seat2.token)
    await connect(p1)
    await connect(p2)
    await database_sync_to_async(services.revoke_seat)(table.enc.pk, table.seat1.pk)
    notice = await p1.receive_from(timeout=TIMEOUT)
    assert 'data-testid="link-gone"' in notice
    closed = await p1.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
    # The other seat stays connected and just gets the new view.
    other = await p2.receive_output(timeout=TIMEOUT)
    assert other["type"] == "websocket.send" and 'id="panels"' in other["text"]
    await p2.disconnect()


async def test_regenerated_link_closes_sockets_on_the_old_one(table: Table):
    p1 = player_socket(table.seat1.token)
    await connect(p1)
    await database_sync_to_async(services.regenerate_seat)(table.enc.pk, table.seat1.pk)
    assert 'data-testid="link-gone"' in await p1.receive_from(timeout=TIMEOUT)
    closed = await p1.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close"


async def test_spectators_are_closed_when_the_link_is_replaced(table: Table):
    watcher = spectator_socket(table.enc.spectator_token)
    await connect(watcher)
    await database_sync_to_async(services.set_spectator_link)(table.enc.pk, True)
    assert 'data-testid="link-gone"' in await watcher.receive_from(timeout=TIMEOUT)
    closed = await watcher.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close"


async def test_revoked_seat_is_refused_on_its_next_message_too(table: Table):
    p1 = player_socket(table.seat1.token)
    await connect(p1)

    def revoke_quietly():  # as if the close push were lost
        type(table.seat1).objects.filter(pk=table.seat1.pk).update(revoked=True)

    await database_sync_to_async(revoke_quietly)()
    await p1.send_to(text_data=json.dumps({"type": "resync"}))
    assert 'data-testid="link-gone"' in await p1.receive_from(timeout=TIMEOUT)
    closed = await p1.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close"


async def test_foreign_origin_is_refused(table: Table):
    comm = socket(f"/ws/p/{table.seat1.token}/", origin=(b"origin", b"http://evil.example"))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert not connected


@pytest.mark.parametrize("who", ["unknown token", "no session", "outsider", "revoked seat"])
async def test_bad_credentials_are_refused(table: Table, who: str):
    if who == "unknown token":
        comm = player_socket("not-a-token")
    elif who == "no session":
        comm = socket(f"/ws/enc/{table.enc.pk}/gm/")
    elif who == "outsider":
        comm = gm_socket(table, cookie=table.outsider_cookie)
    else:
        await database_sync_to_async(services.revoke_seat)(table.enc.pk, table.seat1.pk)
        comm = player_socket(table.seat1.token)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert not connected


async def test_presence_is_pushed_to_the_gm(table: Table):
    gm = gm_socket(table)
    await connect(gm)
    await before_resync(gm)
    p1 = player_socket(table.seat1.token)
    await connect(p1)
    seat = rf'data-testid="presence-seat-{table.seat1.pk}">.*?Player 1'
    # The GM's own arrival is also announced, and can come after the resync's answer.
    frame = await next_matching(
        gm, lambda f: re.search(seat + " connected", f, re.S), "Player 1 connected"
    )
    assert 'id="presence"' in frame
    await p1.disconnect()
    await next_matching(
        gm, lambda f: re.search(seat + " not connected", f, re.S), "Player 1 not connected"
    )
    await gm.disconnect()


async def test_heartbeat_with_an_old_version_the_history_lacks_gets_the_whole_view(table: Table):
    p1 = player_socket(table.seat1.token)
    first = await connect(p1)
    current = version_of(first)
    await p1.send_to(text_data=json.dumps({"type": "heartbeat", "version": str(current)}))
    pushed, answer = await before_resync(p1)
    assert pushed == [], "a heartbeat naming the current version got an answer"
    assert version_of(answer) == current
    await p1.send_to(text_data=json.dumps({"type": "heartbeat", "version": str(current - 1)}))
    again = await p1.receive_from(timeout=TIMEOUT)
    assert version_of(again) == current and 'id="panels"' in again
    await p1.send_to(text_data=json.dumps({"type": "resync"}))
    assert version_of(await p1.receive_from(timeout=TIMEOUT)) == current
    await p1.disconnect()


async def test_player_command_reaches_the_gm_and_the_other_player(table: Table):
    gm, p2 = gm_socket(table), player_socket(table.seat2.token)
    await connect(gm)
    await connect(p2)
    await before_resync(gm)
    await gm_command(table, type="start_combat")
    await before_resync(gm)
    await before_resync(p2)
    result = await database_sync_to_async(services.run_command)(
        table.enc.pk,
        seat_viewer(table.seat1),
        {
            "type": "act",
            "actor": table.ana,
            "action": "basic_attack",
            "options": {"target": table.goblin},
        },
    )
    assert result.ok, result.refusal
    for comm in (gm, p2):
        frame = await next_view(comm)
        assert version_of(frame) == result.version
        # The GM reads the damage; the other player reads the hit on the Goblin, an NPC
        # whose health players see as a band by default (docs/rules.md, "NPC health").
        if comm is gm:
            assert "hit for 5 damage" in frame
        else:
            assert ": hit." in frame and "5 damage" not in frame
    await gm.disconnect()
    await p2.disconnect()


async def test_stale_frames_never_take_a_socket_back_in_time(table: Table):
    p1 = player_socket(table.seat1.token)
    current = version_of(await connect(p1))
    layer_group = broadcast.group_name(table.enc.pk, "player", table.seat1.pk)
    from channels.layers import get_channel_layer

    await get_channel_layer().group_send(
        layer_group, {"type": broadcast.FRAME, "html": "old", "version": current}
    )
    # Pushes reach the socket in order: the next one it gets is the newer one.
    await get_channel_layer().group_send(
        layer_group, {"type": broadcast.FRAME, "html": "new", "version": current + 1}
    )
    assert await p1.receive_from(timeout=TIMEOUT) == "new"
    await p1.disconnect()


def test_group_names_come_from_one_function():
    assert broadcast.group_name(7, "gm") == "enc.7.gm"
    assert broadcast.group_name(7, "player", 3) == "enc.7.seat.3"
    assert broadcast.group_name(7, "spectator") == "enc.7.public"
