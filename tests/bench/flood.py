"""Another table's command-to-push time while one player floods 20 spectator sockets
(issue 36, item 7), and while one account sends commands through its 10 API tokens (item
2); another table's connect time while 20 spectator sockets ask for whole views at the
rate each may (item 6).

`python -m tests.bench.flood` runs it: one production-like daphne on SQLite. A player of
another GM's table sends a roll every 0.2 s through the JSON API and waits for the push of
that version on its own seat socket: first with nothing else going on, then while a player
of the flooding table sends rolls at the allowed rate (6 a second) to 20 spectator sockets
and the seat's own socket. Each loop is bounded (a number of commands, every wait with a
timeout). Prints the other table's command-to-push median, p95 and worst time in each
phase, and the bytes each spectator socket received a second during the flood (the byte
budget per audience, combat/fanout.py, bounds them), and fails if a spectator page did not
end at the final version or received more than the budget allows.

Then the flooding table's GM sends rolls through all 10 API tokens an account may hold,
each at the pace that gave 25 accepted commands a second before limits counted per
account, while the other table's command-to-push time is measured again; and the 20
spectator sockets send resync requests at 2 a second each (what a socket's own message
budget lets through) while the other table's player opens a socket every 0.5 s and times
it until its whole view arrives (the same without the requests first).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from tests.bench.client import connect_websocket, frame_version
from tests.bench.servers import (
    HOST,
    Daphne,
    embedded_folder,
)

SPECTATORS = 20
FLOOD_PER_SECOND = 6  # a seat link's allowed rate (VTT_RATE_COMMANDS: 60 in 10 s)
FLOOD_SECONDS = 8
EVERY = 0.2  # seconds between two of the other table's commands
IDLE_COMMANDS = 25
TOKENS = 10  # the most an account may hold (VTT_MAX_API_TOKENS)
TOKEN_EVERY = 0.4  # seconds between two commands of one token: 25 a second over 10
TOKEN_SECONDS = 6
RESYNC_EVERY = 0.5  # seconds between two resync requests of one spectator socket
RESYNC_SECONDS = 6
CONNECT_EVERY = 0.5
IDLE_CONNECTS = 10
WARM_UP = 3
PUSH_TIMEOUT = 30.0  # seconds a push may take before the run fails
SETTLE_TIMEOUT = 60.0  # seconds the spectator pages may take to reach the final version


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def setup_tables(env: dict[str, str]) -> dict[str, Any]:
    """In this process, on the server's database: the flooding table (a seat and a spectator
    link) and another GM's table with a seat."""
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from combat import services
    from combat.access import gm_viewer
    from combat.models import ApiToken

    def table(owner: str, name: str) -> dict[str, Any]:
        gm = get_user_model().objects.create_user(owner)
        enc = services.create_encounter(gm, name, "action_points", {})
        added = services.run_command(
            enc.pk, gm_viewer(enc), {"type": "add_combatant", "name": "Ana", "side": "pc", "hp": 10}
        )
        ana = added.events[0]["data"]["id"]
        seat = services.create_seat(enc.pk, "Player 1", [ana])
        spectators = services.set_spectator_link(enc.pk, True)
        enc.refresh_from_db()
        return {
            "id": enc.pk,
            "tokens": [ApiToken.issue(gm)[1] for _ in range(TOKENS)],
            "seat": seat.token,
            "ana": ana,
            "spectators": spectators,
            "version": enc.version,
        }

    return {"flood": table("flooder", "Arena"), "other": table("other-gm", "Cellar")}


@dataclass
class Socket:
    """One test socket: every view it received (version, bytes, when)."""

    views: list[tuple[int, int, float]] = field(default_factory=list)
    bytes: int = 0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def on_message(self, payload: bytes, t: float) -> None:
        self.bytes += len(payload)
        version = frame_version(payload)
        if version is not None:
            self.views.append((version, len(payload), t))
            self.arrived.set()

    @property
    def shown(self) -> int:
        return max((v for v, _, _ in self.views), default=0)

    async def until(self, version: int, timeout: float) -> float:
        """When the first view showing `version` arrived (fails after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            for v, _, t in self.views:
                if v >= version:
                    return t
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"version {version} never arrived (shown {self.shown})")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except TimeoutError:
                continue


def poster(base: str, t: dict[str, Any], token: str | None = None) -> Any:
    """A roll over the API as the table's player (or with the GM's `token`); returns
    (status, version)."""
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {token or t['seat']}"
    s.headers["Content-Type"] = "application/json"
    url = f"{base}/api/encounters/{t['id']}/commands"
    body = json.dumps({"type": "roll", "actor": t["ana"], "dice": "1d6"})

    def post() -> tuple[int, int]:
        r = s.post(url, data=body, timeout=PUSH_TIMEOUT)
        return r.status_code, (r.json().get("version", 0) if r.status_code == 200 else 0)

    return post


async def open_socket(port: int, path: str) -> tuple[Socket, Any]:
    sock = Socket()
    ws = await connect_websocket(HOST, port, path, sock.on_message, origin=f"http://{HOST}:{port}")
    await sock.until(1, PUSH_TIMEOUT)  # the whole view on connecting
    return sock, ws


async def measure_other(
    base: str, t: dict[str, Any], sock: Socket, count: int | None, stop: asyncio.Event
) -> list[float]:
    """The other table's player: a roll every EVERY seconds; each roll's time from posting to
    its push reaching the seat's socket, in ms."""
    post = poster(base, t)
    times: list[float] = []
    while (count is None or len(times) < count) and not stop.is_set():
        started = time.perf_counter()
        status, version = await asyncio.to_thread(post)
        assert status == 200, status
        arrived = await sock.until(version, PUSH_TIMEOUT)
        times.append((arrived - started) * 1000)
        await asyncio.sleep(max(0.0, EVERY - (time.perf_counter() - started)))
    return times


async def flood(
    base: str, t: dict[str, Any], per_second: float, seconds: float, token: str | None = None
) -> tuple[int, int, int]:
    """Rolls at `per_second` for `seconds`: (accepted, refused, last version)."""
    post = poster(base, t, token)
    accepted = refused = last = 0
    started = time.perf_counter()
    for n in range(round(per_second * seconds)):
        status, version = await asyncio.to_thread(post)
        if status == 200:
            accepted, last = accepted + 1, max(last, version)
        else:
            refused += 1
        due = started + (n + 1) / per_second
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
    return accepted, refused, last


async def connects(
    port: int, t: dict[str, Any], count: int | None, stop: asyncio.Event
) -> list[float]:
    """The other table's player opens a socket every CONNECT_EVERY seconds: the time until
    its whole view arrives, in ms."""
    times: list[float] = []
    while (count is None or len(times) < count) and not stop.is_set():
        started = time.perf_counter()
        sock, ws = await open_socket(port, f"/ws/p/{t['seat']}/")
        times.append((sock.views[0][2] - started) * 1000)
        await ws.aclose()
        await asyncio.sleep(max(0.0, CONNECT_EVERY - (time.perf_counter() - started)))
    return times


async def resyncs(sockets: list[Any]) -> None:
    """Every socket asks for the whole view every RESYNC_EVERY seconds for RESYNC_SECONDS."""
    for _ in range(round(RESYNC_SECONDS / RESYNC_EVERY)):
        for ws in sockets:
            ws.send_text(json.dumps({"type": "resync"}))
        await asyncio.sleep(RESYNC_EVERY)


def report(name: str, what: str, times: list[float]) -> None:
    print(
        f"another table's {what}, {name}: {len(times)} times, "
        f"median {statistics.median(times):.0f} ms, p95 {pct(times, 0.95):.0f} ms, "
        f"worst {max(times):.0f} ms"
    )


async def run(port: int, tables: dict[str, Any], budget: tuple[int, int]) -> int:
    base = f"http://{HOST}:{port}"
    # The players, tokens and the measuring table post side by side, each on a thread.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(TOKENS + 4))
    other, arena = tables["other"], tables["flood"]
    other_sock, other_ws = await open_socket(port, f"/ws/p/{other['seat']}/")
    # The server's first answers import and warm what they use: not counted.
    await measure_other(base, other, other_sock, WARM_UP, asyncio.Event())
    idle = await measure_other(base, other, other_sock, IDLE_COMMANDS, asyncio.Event())

    opened = [await open_socket(port, f"/ws/s/{arena['spectators']}/") for _ in range(SPECTATORS)]
    opened.append(await open_socket(port, f"/ws/p/{arena['seat']}/"))
    spectators = [s for s, _ in opened[:SPECTATORS]]
    before = [s.bytes for s in spectators]
    stop = asyncio.Event()
    measuring = asyncio.create_task(measure_other(base, other, other_sock, None, stop))
    began = time.perf_counter()
    accepted, refused, final = await flood(base, arena, FLOOD_PER_SECOND, FLOOD_SECONDS)
    flooded = time.perf_counter() - began
    stop.set()
    during = await measuring
    for s in spectators:
        await s.until(final, SETTLE_TIMEOUT)
    settled = time.perf_counter() - began
    received = [s.bytes - b for s, b in zip(spectators, before, strict=True)]
    largest = max(size for s in spectators for _, size, _ in s.views)

    # Item 2: one account's 10 tokens at 2.5 commands a second each.
    stop = asyncio.Event()
    measuring = asyncio.create_task(measure_other(base, other, other_sock, None, stop))
    sent = await asyncio.gather(
        *(flood(base, arena, 1 / TOKEN_EVERY, TOKEN_SECONDS, tok) for tok in arena["tokens"])
    )
    stop.set()
    during_tokens = await measuring
    token_accepted = sum(a for a, _, _ in sent)

    # Item 6: resyncs from every spectator socket, the other table's connects meanwhile.
    idle_connects = await connects(port, other, IDLE_CONNECTS, asyncio.Event())
    views_before = sum(len(s.views) for s in spectators)
    stop = asyncio.Event()
    measuring = asyncio.create_task(connects(port, other, None, stop))
    await resyncs([ws for _, ws in opened[:SPECTATORS]])
    stop.set()
    during_resyncs = await measuring
    asked_views = sum(len(s.views) for s in spectators) - views_before

    for _, ws in [*opened, (other_sock, other_ws)]:
        await ws.aclose()

    burst, per_second = budget
    bound = burst + per_second * settled + largest
    print(
        f"flood: {accepted} rolls accepted ({refused} refused) in {flooded:.1f} s to "
        f"{SPECTATORS} spectator sockets; the pages showed the final version after {settled:.1f} s"
    )
    print(
        f"bytes per spectator socket: {statistics.median(received) / flooded / 1000:.1f} KB/s "
        f"median, {max(received) / flooded / 1000:.1f} KB/s most, over the flood "
        f"(budget {per_second // 1024} KiB/s after a {burst // 1024} KiB burst; "
        f"{max(received):,} bytes at most, bound {bound:,.0f})"
    )
    push = "command to its push"
    report("idle", push, idle)
    report("during the flood", push, during)
    print(
        f"tokens: {token_accepted} of {sum(a + r for a, r, _ in sent)} commands accepted from "
        f"{TOKENS} tokens of one account in {TOKEN_SECONDS} s"
    )
    report(f"during the {TOKENS} tokens' commands", push, during_tokens)
    print(
        f"resyncs: {SPECTATORS} sockets asked {round(RESYNC_SECONDS / RESYNC_EVERY)} times each; "
        f"{asked_views} whole views reached them meanwhile"
    )
    report("idle", "connect to its whole view", idle_connects)
    report("during the resyncs", "connect to its whole view", during_resyncs)
    if max(received) > bound:
        print("A spectator socket received more than the byte budget allows.")
        return 1
    return 0


def main() -> int:
    folder, env = embedded_folder("vtt-bench-flood-")
    tables = setup_tables(env)
    from django.conf import settings

    budget = (settings.VTT_PUSH_BYTES_BURST, settings.VTT_PUSH_BYTES_PER_SECOND)
    server = Daphne("vtt.asgi:application", env, folder / "daphne.log").start().wait_ready()
    try:
        return asyncio.run(run(server.port, tables, budget))
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
