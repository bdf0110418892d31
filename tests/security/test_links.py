"""Cut-off links (issue 12, item 6): a replaced or revoked link gets nothing more.

The holder of an old link who keeps reconnecting must never see the new link, nor the
seat's view once the link is replaced: no pushed frame holds a secret link (form
addresses are relative to the page), every whole view is checked against the link after
the socket joined its group, and a pushed frame rendered for another link is not sent.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from combat import broadcast, fanout, services
from combat.access import gm_viewer
from combat.models import Encounter, Seat
from tests.markers import pushed_or_closed

from .conftest import Table
from .sockets import TIMEOUT, build, connect, socket, until_closed

pytestmark = pytest.mark.django_db(transaction=True)

GONE = 'data-testid="link-gone"'


def _run(enc_pk: int, command: dict[str, Any]) -> None:
    enc = Encounter.objects.get(pk=enc_pk)
    result = services.run_command(enc.pk, gm_viewer(enc), command)
    assert result.ok, result.refusal


run = database_sync_to_async(_run)


def _all_secrets() -> set[str]:
    """Every seat and spectator link the database holds now."""
    tokens = set(Seat.objects.values_list("token", flat=True))
    tokens |= {t for t in Encounter.objects.values_list("spectator_token", flat=True) if t}
    return tokens


all_secrets = database_sync_to_async(_all_secrets)


@pytest.mark.parametrize("kind", ["regenerate seat", "revoke seat", "replace spectator link"])
async def test_a_link_cut_off_while_its_socket_joins_gets_only_the_notice(
    monkeypatch: pytest.MonkeyPatch, kind: str
):
    """The window the issue found: the link is checked, the GM replaces it, and only then
    does the socket join its group (so it misses the close). It must still get nothing."""
    t, _, _ = await build()
    old = t.enc.spectator_token if kind == "replace spectator link" else t.seat1.token
    real_join = fanout.join

    async def join_after_the_gm_acts(group: str, member: Any) -> None:
        if kind == "regenerate seat":
            await database_sync_to_async(services.regenerate_seat)(t.enc.pk, t.seat1.pk)
        elif kind == "revoke seat":
            await database_sync_to_async(services.revoke_seat)(t.enc.pk, t.seat1.pk)
        else:
            await database_sync_to_async(services.set_spectator_link)(t.enc.pk, True)
        await real_join(group, member)

    monkeypatch.setattr(fanout, "join", join_after_the_gm_acts)
    path = f"/ws/s/{old}/" if kind == "replace spectator link" else f"/ws/p/{old}/"
    comm = socket(path)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected  # accepted before joining: what follows is all it gets
    frames, code = await until_closed(comm)
    assert code == 4403
    assert len(frames) == 1 and GONE in frames[0], frames
    secrets = await all_secrets()
    assert not any(s in f for f in frames for s in secrets)


async def test_a_lost_close_still_stops_the_pushes(monkeypatch: pytest.MonkeyPatch):
    """The link is replaced but the close never reaches the socket: the next pushed frame,
    rendered for the new link, is not sent; the socket is told and closed."""
    t, _, _ = await build()
    comm = socket(f"/ws/p/{t.seat1.token}/")
    await connect(comm)

    def replace_quietly() -> None:
        Seat.objects.filter(pk=t.seat1.pk).update(token="n" * 43)

    await database_sync_to_async(replace_quietly)()
    await run(t.enc.pk, {"type": "damage", "actor": t.goblin, "amount": 1})
    frames, code = await until_closed(comm)
    assert code == 4403
    assert len(frames) == 1 and GONE in frames[0], frames


async def test_an_old_link_that_keeps_reconnecting_never_gets_the_seat_back():
    """The issue's measurement: the old link reconnects over and over while the GM makes
    new links. Each try either is refused, or is told the link no longer works and closed;
    none stays open, and no frame it receives holds any link."""
    t, _, _ = await build()
    tries, stayed_open, leaked, refused, closed = 30, 0, 0, 0, 0
    for n in range(tries):
        seat = await database_sync_to_async(Seat.objects.get)(pk=t.seat1.pk)
        comm = socket(f"/ws/p/{seat.token}/")

        async def regenerate(delay: float = n * 0.002) -> None:
            # At a different moment of the handshake each try (0 to 58 ms in).
            await asyncio.sleep(delay)
            await database_sync_to_async(services.regenerate_seat)(t.enc.pk, t.seat1.pk)

        (connected, _), _ = await asyncio.gather(comm.connect(timeout=TIMEOUT), regenerate())
        if not connected:
            refused += 1
            continue
        frames, code = await until_closed(comm)
        secrets = await all_secrets()
        leaked += sum(1 for f in frames for s in secrets if s in f)
        if code is None:
            stayed_open += 1
            await comm.disconnect()
        else:
            closed += 1
    print(f"reconnect tries: {tries}, refused {refused}, closed {closed}, open {stayed_open}")
    assert stayed_open == 0 and leaked == 0
    assert refused + closed == tries


async def collect_pushes(
    sockets: dict[str, WebsocketCommunicator],
    groups: dict[str, str],
    frames: dict[str, list[str]],
    closed: set[WebsocketCommunicator],
) -> None:
    """Add to `frames` what each open socket was pushed so far; note the closed ones."""
    for name, comm in list(sockets.items()):
        if comm in closed:  # its link was replaced; the new socket took its place
            continue
        got, was_closed = await pushed_or_closed(comm, groups[name])
        frames[name].extend(got)
        if was_closed:
            closed.add(comm)


async def test_no_pushed_frame_holds_any_secret_link():
    """Every frame pushed to every audience (GM, both seats, spectators) during a fight in
    which links are made, replaced and revoked: none holds a seat or spectator link."""
    t, gm_cookie, _ = await build()
    ever: set[str] = await all_secrets()
    sockets = {
        "gm": socket(f"/ws/enc/{t.enc.pk}/gm/", cookie=gm_cookie),
        "seat2": socket(f"/ws/p/{t.seat2.token}/"),
        "spectator": socket(f"/ws/s/{t.enc.spectator_token}/"),
    }
    frames: dict[str, list[str]] = {name: [] for name in sockets}

    async def open_seat1() -> None:
        seat = await database_sync_to_async(Seat.objects.get)(pk=t.seat1.pk)
        sockets["seat1"] = socket(f"/ws/p/{seat.token}/")
        frames.setdefault("seat1", []).append(await connect(sockets["seat1"]))

    for name, comm in sockets.items():
        frames[name].append(await connect(comm))
    await open_seat1()

    groups = {
        "gm": broadcast.group_name(t.enc.pk, "gm"),
        "seat1": broadcast.group_name(t.enc.pk, "player", t.seat1.pk),
        "seat2": broadcast.group_name(t.enc.pk, "player", t.seat2.pk),
        "spectator": broadcast.group_name(t.enc.pk, "spectator"),
    }
    closed: set[WebsocketCommunicator] = set()

    async def collect() -> None:
        await collect_pushes(sockets, groups, frames, closed)

    steps: list[Any] = [
        {"type": "start_combat"},
        {"type": "damage", "actor": t.goblin, "amount": 1},
        {"type": "end_turn", "actor": t.ana},
        ("create seat",),
        ("regenerate seat1",),
        {"type": "heal", "actor": t.goblin, "amount": 1},
        ("replace spectator link",),
        {"type": "end_turn", "actor": t.bram},
        ("revoke the new seat",),
        {"type": "end_combat"},
    ]
    new_seat: Seat | None = None
    for step in steps:
        if isinstance(step, dict):
            await run(t.enc.pk, step)
        elif step[0] == "create seat":
            new_seat = await database_sync_to_async(services.create_seat)(t.enc.pk, "Latecomer")
        elif step[0] == "regenerate seat1":
            await database_sync_to_async(services.regenerate_seat)(t.enc.pk, t.seat1.pk)
            await collect()
            await open_seat1()
        elif step[0] == "replace spectator link":
            await database_sync_to_async(services.set_spectator_link)(t.enc.pk, True)
            await collect()
            enc = await database_sync_to_async(Encounter.objects.get)(pk=t.enc.pk)
            sockets["spectator"] = socket(f"/ws/s/{enc.spectator_token}/")
            frames["spectator"].append(await connect(sockets["spectator"]))
        else:
            assert new_seat is not None
            await database_sync_to_async(services.revoke_seat)(t.enc.pk, new_seat.pk)
        ever |= await all_secrets()
        await collect()
    count = sum(len(f) for f in frames.values())
    assert all(len(f) >= 5 for f in frames.values()), {k: len(v) for k, v in frames.items()}
    for name, got in frames.items():
        for frame in got:
            for secret in ever:
                assert secret not in frame, (name, frame[:200])
            # Nor anything shaped like a player or spectator address.
            assert not re.search(r"/[ps]/[A-Za-z0-9_-]{20,}", frame), (name, frame[:200])
    print(f"frames scanned: {count} over {len(frames)} audiences, {len(ever)} links")
    for comm in sockets.values():
        await comm.disconnect()


def test_the_gm_gets_the_links_over_http_only(table: Table):
    """The links are in the GM's page and in "Show link" (a GET), for the GM alone."""
    links = f"/enc/{table.enc.pk}/links/"
    page = table.clients["gm"].get(f"/enc/{table.enc.pk}/").content.decode()
    shown = table.clients["gm"].get(links, HTTP_HX_REQUEST="true")
    assert shown.status_code == 200
    for html in (page, shown.content.decode()):
        assert f"/p/{table.seat1.token}/" in html and f"/s/{table.enc.spectator_token}/" in html
        assert table.revoked.token not in html
    for role in ("owner", "spectator", "anonymous", "outsider"):
        refused = table.clients[role].get(links, HTTP_HX_REQUEST="true")
        assert refused.status_code in (403, 404), role
        assert table.seat1.token not in refused.content.decode()
    # A player's own page posts to addresses relative to it: no link inside its forms.
    player = table.clients["owner"].get(f"/p/{table.seat1.token}/").content.decode()
    assert 'hx-post="command/"' in player
    assert player.count(table.seat1.token) == 1  # the socket's address, in the page alone
