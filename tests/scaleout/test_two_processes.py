"""Two daphne processes on one PostgreSQL and one Redis serve one table together.

This runs in every `make test`, not only in CI's PostgreSQL + Redis pass: the
servers are started here with DATABASE_URL and REDIS_URL pointing at the local
services (or at the ones this run was given), a database of their own, made and
migrated for this module, and a channel-layer prefix of their own, so that no
other test run on the same Redis hears these pushes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.bench.client import Browser, frame_version
from tests.bench.servers import (
    HOST,
    PRODUCTION,
    Daphne,
    clean_env,
    collect_static,
    drop_postgres_database_later,
    migrated_postgres_database,
    redis_url,
    run_module,
)
from tests.scaleout.conftest import Frames, need_services

pytestmark = pytest.mark.scaleout

APP = "vtt.asgi:application"
TIMEOUT = 15


@dataclass
class Cluster:
    a: Daphne
    b: Daphne
    table: dict[str, Any]
    gm: tuple[str, str]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    need_services()
    logs: Path = tmp_path_factory.mktemp("two-processes")
    env = clean_env(**PRODUCTION, REDIS_URL=redis_url(), DJANGO_STATIC_ROOT=str(logs / "static"))
    # Production pages link the hashed names that collectstatic writes.
    collect_static(env)
    name, url = migrated_postgres_database("vtt_scaleout", env)
    # A channel-layer prefix of its own: other runs on this Redis must not hear our pushes.
    env.update(DATABASE_URL=url, CHANNEL_LAYER_PREFIX=name)
    servers = [Daphne(APP, env, logs / f"daphne-{i}.log") for i in (1, 2)]
    try:
        for s in servers:
            s.start()
        # The table is made while the servers start (each takes a few seconds to import).
        spec = json.dumps({"tables": {"t": 1}, "players": 2, "username": name})
        made = json.loads(run_module("tests.bench.fixtures", env, spec))
        for s in servers:
            s.wait_ready()
        yield Cluster(
            servers[0], servers[1], made["tables"]["t"][0], (made["username"], made["password"])
        )
    finally:
        for s in servers:
            s.stop()
        drop_postgres_database_later(name)


async def test_a_player_acting_on_one_process_reaches_a_spectator_on_the_other(
    cluster: Cluster,
) -> None:
    table = cluster.table
    seat = table["seats"][0]

    # The spectator's page and socket are on process 2.
    watcher = Browser(HOST, cluster.b.port)
    page = await watcher.get_page(f"/s/{table['spectator']}/")
    assert page.status == 200
    seen = Frames()
    ws = await watcher.websocket(f"/ws/s/{table['spectator']}/", seen.add)
    first = await seen.next(TIMEOUT)
    start = frame_version(first)
    assert start == table["version"]

    # The player's page, socket and command go through process 1.
    player = Browser(HOST, cluster.a.port)
    assert (await player.get_page(f"/p/{seat['token']}/")).status == 200
    own = Frames()
    own_ws = await player.websocket(f"/ws/p/{seat['token']}/", own.add)
    await own.next(TIMEOUT)
    answer = await player.htmx_post(
        f"/p/{seat['token']}/command/",
        {"type": "act", "actor": seat["actor"], "action": "basic_attack", "target": table["npc"]},
    )
    assert answer.status == 200, answer.text
    assert 'data-testid="refusal"' not in answer.text, answer.text

    pushed = await seen.next_version(start + 1, TIMEOUT)
    assert "Hero 1" in pushed and "Basic Attack" in pushed
    assert frame_version((await own.next_version(start + 1, TIMEOUT)).encode()) == start + 1

    # And back: the GM, logged in on process 2, ends the turn; the player on process 1 sees it.
    gm = Browser(HOST, cluster.b.port)
    await gm.log_in(*cluster.gm)
    await gm.get_page(f"/enc/{table['id']}/")
    answer = await gm.htmx_post(
        f"/enc/{table['id']}/command/", {"type": "end_turn", "actor": seat["actor"]}
    )
    assert answer.status == 200 and 'data-testid="refusal"' not in answer.text, answer.text
    await own.next_version(start + 2, TIMEOUT)
    await seen.next_version(start + 2, TIMEOUT)

    for socket in (ws, own_ws):
        await socket.aclose()
    for b in (watcher, player, gm):
        await b.close()
