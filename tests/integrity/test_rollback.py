"""A command that fails half-way leaves nothing behind: no row changed, no frame pushed.

The failure is injected inside the service's transaction, after the new state
and version are saved: once where the log entry is written, once after the
push has been registered with on_commit. Sockets of all four audiences (GM,
two players, spectators) listen the whole time, through the real ASGI
application.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from combat import broadcast, services
from combat.access import seat_viewer
from combat.models import Encounter, LogEntry, Seat
from tests.markers import first_view, is_view, pushed_so_far
from vtt.asgi import application

from .conftest import Table, build_table, figure

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 3


class Boom(RuntimeError):
    pass


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row the write path may touch."""
    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (Encounter, LogEntry, Seat)
    }


def sockets(t: Table) -> dict[str, WebsocketCommunicator]:
    client = Client()
    client.force_login(get_user_model().objects.get(pk=t.enc.owner_id))
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    origin = (b"origin", b"http://testserver")
    paths = {
        "gm": (f"/ws/enc/{t.enc.pk}/gm/", [(b"cookie", f"sessionid={cookie}".encode())]),
        "player 1": (t.player_path(t.seat1), []),
        "player 2": (t.player_path(t.seat2), []),
        "spectators": (t.spectator_path, []),
    }
    return {
        name: WebsocketCommunicator(application, path, headers=[origin, *extra])
        for name, (path, extra) in paths.items()
    }


def groups(t: Table) -> dict[str, str]:
    """The channel-layer group each of `sockets(t)` listens on."""
    return {
        "gm": broadcast.group_name(t.enc.pk, "gm"),
        "player 1": broadcast.group_name(t.enc.pk, "player", t.seat1.pk),
        "player 2": broadcast.group_name(t.enc.pk, "player", t.seat2.pk),
        "spectators": broadcast.group_name(t.enc.pk, "spectator"),
    }


async def views_so_far(t: Table, socks: dict[str, WebsocketCommunicator]) -> dict[str, list[str]]:
    """Each socket's view frames pushed so far (all sockets at once), presence left out."""
    names = groups(t)
    got = await asyncio.gather(*(pushed_so_far(c, names[n]) for n, c in socks.items()))
    views = [[f for f in frames if is_view(f)] for frames in got]
    return dict(zip(socks, views, strict=True))


def spend(t: Table) -> services.Result:
    command = {"type": "act", "actor": t.ana, "action": "quick_utility", "options": {}}
    return services.run_command(t.enc.pk, seat_viewer(t.seat1), command)


@pytest.mark.parametrize("where", ["writing the log entry", "once the push is registered"])
async def test_an_error_midway_changes_no_row_and_pushes_no_frame(where: str, monkeypatch):
    t = await database_sync_to_async(build_table)()
    socks = await database_sync_to_async(sockets)(t)
    for comm in socks.values():
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        await first_view(comm)
    await views_so_far(t, socks)  # and the presence updates for the GM as the others came

    before = await database_sync_to_async(snapshot)()
    reached = []
    if where == "writing the log entry":
        real_create = LogEntry.objects.create

        def create(**fields: Any) -> Any:
            # The encounter row already holds the new state and version at this point.
            reached.append(Encounter.objects.get(pk=t.enc.pk).version)
            raise Boom("the disk is full")

        monkeypatch.setattr(LogEntry.objects, "create", create)
    else:
        real_publish = services._publish_on_commit

        def publish_then_fail(enc: Encounter) -> None:
            real_publish(enc)
            reached.append(enc.version)
            raise Boom("something after the push was registered")

        monkeypatch.setattr(services, "_publish_on_commit", publish_then_fail)

    with pytest.raises(Boom):
        await database_sync_to_async(spend)(t)

    assert reached == [t.enc.version + 1], "the failure came before the state was saved"
    assert await database_sync_to_async(snapshot)() == before
    assert await views_so_far(t, socks) == {name: [] for name in socks}

    # The same command, committed: exactly one frame per audience, with the new version.
    monkeypatch.undo()
    if where == "writing the log entry":
        assert LogEntry.objects.create == real_create
    result = await database_sync_to_async(spend)(t)
    assert result.ok and result.version == t.enc.version + 1
    for name, frames in (await views_so_far(t, socks)).items():
        versions = [set(re.findall(r'data-version="(\d+)"', f)) for f in frames]
        assert versions == [{str(result.version)}], (name, versions)
        assert f'data-prev-version="{result.version - 1}"' in frames[0], name
    for comm in socks.values():
        await comm.disconnect()
    figure(
        f"error {where}: 0 rows changed (Encounter, LogEntry, Seat), 0 frames to 4 "
        "audiences; the same command committed: 1 frame per audience, new version"
    )
