"""Tables of people on sockets, commands through the real HTTP path, and what reached whom.

A `LiveTable` is one encounter with its GM, players and spectators, each
connected the way a page connects: the page is fetched through its real link
(the GM logs in first), then the page's websocket is opened with the page's
cookies and Origin. Commands are the forms the pages post (htmx headers, CSRF
token from the page), sent by whoever would send them: the player whose turn it
is, or the GM for the Ogre. A table sends its next command only once the answer
to the last one has come back, as a person clicking would; the version each
accepted command produces is then known exactly (each bumps it by one).

Every frame a client receives is stamped on arrival. A client "has" version v
from the first frame showing v or later; an action's latency is from the moment
its POST was sent to the moment the LAST client of the table had it. A version
a client never received as its own frame (skipped or never reached) is a lost
update.

`ChatTable` is a live table whose people talk instead of playing: each message is
numbered in its text, and a client "has" message n from the first frame carrying it (the
message pushed alone, or a whole view that lists it). Its latency is from the POST to the
last client having it; a message some client never had is lost.

`StockTable` is the same layout against the stock baseline (tests/bench/baseline_asgi).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.bench.client import Browser, WebSocket, frame_prev_version, frame_version
from tests.bench.servers import HOST


@dataclass
class Counters:
    """What every client of a run received (shared by all tables of a run)."""

    frames: int = 0
    bytes: int = 0
    versioned: int = 0
    versioned_bytes: int = 0
    # The size of each versioned frame a player's or a spectator's page received.
    seat_sizes: list[int] = field(default_factory=list)
    # ... and the GM's console.
    gm_sizes: list[int] = field(default_factory=list)

    def reset(self) -> None:
        self.frames = self.bytes = self.versioned = self.versioned_bytes = 0
        self.seat_sizes = []
        self.gm_sizes = []


@dataclass
class Client:
    role: str  # "gm", "player", "spectator"
    table: Table
    port: int
    maxv: int = 0
    expects_view: bool = True  # the app sends the whole view first; it is not an update
    coalesces: bool = True  # a newer whole view may stand for the pushes before it (the app)
    skipped: int = 0  # versions jumped over by a push that did not cover them: lost
    superseded: int = 0  # versions jumped over by a view that covers them
    ws: WebSocket | None = None
    next_beat: float = 0.0
    said: set[int] = field(default_factory=set)  # table talk: the messages it has had

    def handler(self, counters: Counters) -> Callable[[bytes, float], None]:
        reach = self.table.reach
        table = self.table
        talk = table.heard if isinstance(table, ChatTable) else None
        seat = self.role != "gm"

        def on_message(payload: bytes, t: float) -> None:
            counters.frames += 1
            counters.bytes += len(payload)
            if talk is not None:
                talk(self, payload, t, counters)
            v = frame_version(payload)
            if v is None:
                return
            counters.versioned += 1
            counters.versioned_bytes += len(payload)
            (counters.seat_sizes if seat else counters.gm_sizes).append(len(payload))
            last = self.maxv
            if v <= last:
                return
            self.maxv = v
            if self.expects_view:
                self.expects_view = False
                return
            if v > last + 1:
                prev = frame_prev_version(payload) if self.coalesces else last + 1
                if prev is None or prev <= last:  # a whole view, or a push covering the gap
                    self.superseded += v - last - 1
                else:
                    self.skipped += v - last - 1
            for vv in range(last + 1, v + 1):
                r = reach.get(vv)
                if r is None:
                    reach[vv] = [1, t]
                else:
                    r[0] += 1
                    r[1] = t  # frames are stamped in arrival order: the latest is the last

        return on_message


@dataclass
class Table:
    """Common to the app's tables and the baseline's: clients, versions sent, versions reached."""

    name: str
    clients: list[Client] = field(default_factory=list)
    reach: dict[int, list[Any]] = field(default_factory=dict)
    sent: dict[int, float] = field(default_factory=dict)  # version -> when its POST was sent
    answered: dict[int, float] = field(default_factory=dict)  # version -> POST round trip
    version: int = 0
    refused: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    offset: int = 0

    def port_for(self, i: int) -> int:
        """The server of the table's i-th client: round robin, as a proxy would spread them."""
        return self.ports[(self.offset + i) % len(self.ports)]

    def reset(self) -> None:
        """Forget what earlier runs measured; the clients stay connected."""
        self.reach.clear()
        self.sent.clear()
        self.answered.clear()
        self.refused.clear()
        for c in self.clients:
            c.skipped = 0
            c.superseded = 0

    async def step(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def settled(self) -> bool:
        """Has every client what was sent?"""
        return all(c.maxv >= self.version for c in self.clients)

    def outcome(self) -> tuple[list[float], int, int]:
        """(latencies in seconds, lost updates, actions) over the versions sent in the run.

        Lost: a socket that never had the version (by the end of the run), or jumped over
        it on a push that did not cover it. A version jumped over on a newer whole view is
        not lost (the page shows it); `superseded` counts those.
        """
        n = len(self.clients)
        lat: list[float] = []
        unreached = 0
        for v, t0 in self.sent.items():
            r = self.reach.get(v)
            count = r[0] if r else 0
            if count >= n:
                lat.append(r[1] - t0)  # type: ignore[index]
            else:
                unreached += n - count
        skipped = sum(c.skipped for c in self.clients)
        return lat, unreached + skipped, len(self.sent)


# --- the app -------------------------------------------------------------------------------


@dataclass
class LiveTable(Table):
    """One encounter from tests.bench.fixtures, played through the pages' own forms."""

    info: dict[str, Any] = field(default_factory=dict)
    gm: Browser | None = None
    players: list[Browser] = field(default_factory=list)
    turn: int = 0  # index into the seats; len(seats) is the Ogre
    attacked: bool = False

    @property
    def enc_id(self) -> int:
        return int(self.info["id"])

    def next_command(self) -> tuple[Browser, str, dict[str, str]]:
        seats = self.info["seats"]
        if self.turn < len(seats):
            seat = seats[self.turn]
            path = f"/p/{seat['token']}/command/"
            if not self.attacked:
                form = {
                    "type": "act",
                    "actor": seat["actor"],
                    "action": "basic_attack",
                    "target": self.info["npc"],
                }
            else:
                form = {"type": "end_turn", "actor": seat["actor"]}
            return self.players[self.turn], path, form
        assert self.gm is not None
        return (
            self.gm,
            f"/enc/{self.enc_id}/command/",
            {
                "type": "end_turn",
                "actor": self.info["npc"],
            },
        )

    def advance(self) -> None:
        if self.turn < len(self.info["seats"]) and not self.attacked:
            self.attacked = True
            return
        self.attacked = False
        self.turn = (self.turn + 1) % (len(self.info["seats"]) + 1)

    async def step(self) -> None:
        browser, path, form = self.next_command()
        t = time.perf_counter()
        r = await browser.htmx_post(path, form)
        answered = time.perf_counter() - t
        if r.status != 200 or b'data-testid="refusal"' in r.body:
            self.refused.append(f"{form['type']}: HTTP {r.status} {r.text[:200]}")
            # The model of the turn is off: resynchronise from the server's answer is not
            # possible here, so stop driving this table rather than measure nonsense.
            raise RuntimeError(f"{self.name}: command refused: {self.refused[-1]}")
        self.version += 1
        self.sent[self.version] = t
        self.answered[self.version] = answered
        self.advance()


@dataclass
class MapTable(LiveTable):
    """A live table on the 40 x 40 map (tests.bench.fixtures). `moves`: "players" has each
    player Move its hero to its other cell (the destination only: the server finds the
    path) instead of attacking, then end the turn; "gm" has the GM drag one hero after
    another to its other cell (placements, no turn passes); "" plays as LiveTable."""

    moves: str = ""
    placed: int = 0  # the GM's placements so far
    away: dict[str, bool] = field(default_factory=dict)  # hero id: on its second cell

    def _there(self, seat: dict[str, Any]) -> str:
        return str(seat["cells"][0 if self.away.get(seat["actor"]) else 1])

    def next_command(self) -> tuple[Browser, str, dict[str, str]]:
        seats = self.info["seats"]
        if self.moves == "gm":
            assert self.gm is not None
            seat = seats[self.placed % len(seats)]
            form = {"type": "place", "actor": seat["actor"], "cell": self._there(seat)}
            return self.gm, f"/enc/{self.enc_id}/command/", form
        if self.moves == "players" and self.turn < len(seats) and not self.attacked:
            seat = seats[self.turn]
            form = {
                "type": "act",
                "actor": seat["actor"],
                "action": "move",
                "opt_to": self._there(seat),
            }
            return self.players[self.turn], f"/p/{seat['token']}/command/", form
        return super().next_command()

    def advance(self) -> None:
        seats = self.info["seats"]
        if self.moves == "gm":
            actor = seats[self.placed % len(seats)]["actor"]
            self.away[actor] = not self.away.get(actor)
            self.placed += 1
            return
        if self.moves == "players" and self.turn < len(seats) and not self.attacked:
            actor = seats[self.turn]["actor"]
            self.away[actor] = not self.away.get(actor)
        super().advance()


# The number a benchmark message carries in its text (escaping leaves it as it is).
_SAID = re.compile(rb"bench-said-(\d+)-")


@dataclass
class ChatTable(LiveTable):
    """A live table whose GM and players take turns saying something to everyone."""

    said: int = 0  # messages posted so far (over every run: numbers are never reused)

    def speakers(self) -> list[tuple[Browser, str]]:
        assert self.gm is not None
        seats = self.info["seats"]
        return [(self.gm, f"/enc/{self.enc_id}/chat/")] + [
            (b, f"/p/{seat['token']}/chat/") for b, seat in zip(self.players, seats, strict=True)
        ]

    async def step(self) -> None:
        # In turn, so that no one passes the per-person limit (5 messages in 10 s).
        speakers = self.speakers()
        browser, path = speakers[self.said % len(speakers)]
        self.said += 1
        n = self.said
        t = time.perf_counter()
        self.sent[n] = t
        r = await browser.htmx_post(path, {"text": f"bench-said-{n}- hold the line", "to": "all"})
        self.answered[n] = time.perf_counter() - t
        if r.status != 200 or b"data-chat-sent" not in r.body:
            del self.sent[n]
            self.refused.append(f"chat: HTTP {r.status} {r.text[:200]}")
            raise RuntimeError(f"{self.name}: message refused: {self.refused[-1]}")

    def heard(self, client: Client, payload: bytes, t: float, counters: Counters) -> None:
        found = False
        for m in _SAID.finditer(payload):
            n = int(m.group(1))
            if n in client.said:
                continue
            found = True
            client.said.add(n)
            r = self.reach.get(n)
            if r is None:
                self.reach[n] = [1, t]
            else:
                r[0] += 1
                r[1] = t
        if found:  # a message pushed (or a whole view bringing one): its size is counted
            counters.versioned += 1
            counters.versioned_bytes += len(payload)

    def settled(self) -> bool:
        return all(n in c.said for n in self.sent for c in self.clients)


@dataclass
class Retries:
    """Sockets that had to try again, as htmx does when a connection fails."""

    count: int = 0


RETRIES = Retries()


async def open_socket(
    browser: Browser, path: str, on_message: Callable[[bytes, float], None], attempts: int = 6
) -> WebSocket:
    """Open a page's websocket; on failure wait and try again, like htmx's reconnect."""
    delay = 0.25
    for attempt in range(attempts):
        try:
            return await browser.websocket(path, on_message)
        except (ConnectionError, TimeoutError, OSError):
            if attempt == attempts - 1:
                raise
            RETRIES.count += 1
            await asyncio.sleep(delay * random.uniform(1, 2))
            delay *= 2
    raise AssertionError("unreachable")


async def log_in_gm(port: int, username: str, password: str) -> Browser:
    b = Browser(HOST, port)
    await b.log_in(username, password)
    return b


async def open_live_table(
    table: LiveTable,
    ports: list[int],
    gm_cookies: dict[int, dict[str, str]],
    spectators: int,
    counters: Counters,
    gate: asyncio.Semaphore,
    on_connect: Callable[[], None] = lambda: None,
) -> None:
    """Connect the table's GM, players and `spectators` spectators, spread over `ports`."""
    info = table.info
    table.version = int(info["version"])
    table.ports = ports
    table.offset = random.randrange(len(ports))

    async def gm() -> None:
        port = table.port_for(0)
        b = Browser(HOST, port, cookies=dict(gm_cookies[port]))
        async with gate:
            await b.get_page(f"/enc/{table.enc_id}/")
            client = Client("gm", table, port)
            client.ws = await open_socket(
                b, f"/ws/enc/{table.enc_id}/gm/", client.handler(counters)
            )
        table.gm = b
        table.clients.append(client)
        on_connect()

    async def player(k: int, seat: dict[str, Any]) -> Browser:
        port = table.port_for(1 + k)
        b = Browser(HOST, port)
        async with gate:
            await b.get_page(f"/p/{seat['token']}/")
            client = Client("player", table, port)
            client.ws = await open_socket(b, f"/ws/p/{seat['token']}/", client.handler(counters))
        table.clients.append(client)
        on_connect()
        return b

    results = await asyncio.gather(gm(), *(player(k, s) for k, s in enumerate(info["seats"])))
    table.players = [b for b in results[1:] if isinstance(b, Browser)]
    await add_spectators(table, spectators, counters, gate, on_connect)


async def add_spectators(
    table: LiveTable,
    count: int,
    counters: Counters,
    gate: asyncio.Semaphore,
    on_connect: Callable[[], None] = lambda: None,
) -> None:
    """`count` more spectators through the spectator link, spread over the table's ports."""
    token = table.info["spectator"]
    first = len(table.clients)

    async def spectator(i: int) -> None:
        port = table.port_for(i)
        b = Browser(HOST, port)
        async with gate:
            await b.get_page(f"/s/{token}/")
            await b.close()  # a spectator never posts: no idle HTTP connection kept
            client = Client("spectator", table, port)
            client.ws = await open_socket(b, f"/ws/s/{token}/", client.handler(counters))
        table.clients.append(client)
        on_connect()

    await asyncio.gather(*(spectator(first + k) for k in range(count)))


# --- the stock baseline ------------------------------------------------------------------


@dataclass
class StockTable(Table):
    """The same number of sockets in one group of the baseline app, and one POST per action."""

    size: int = 2048
    posters: list[Browser] = field(default_factory=list)

    async def step(self) -> None:
        b = self.posters[(self.version) % len(self.posters)]
        v = self.version + 1
        t = time.perf_counter()
        r = await b.request(
            "POST",
            f"/fire/{self.name}/",
            form={"v": str(v), "size": str(self.size)},
            headers={"Origin": b.origin},
        )
        answered = time.perf_counter() - t
        if r.status != 200:
            raise RuntimeError(f"{self.name}: baseline trigger answered {r.status}: {r.text[:200]}")
        self.version = v
        self.sent[v] = t
        self.answered[v] = answered


async def add_stock_sockets(
    table: StockTable,
    ports: list[int],
    count: int,
    counters: Counters,
    gate: asyncio.Semaphore,
    on_connect: Callable[[], None] = lambda: None,
) -> None:
    """`count` more sockets in the table's group, spread over `ports`."""
    if not table.ports:
        table.ports = ports
        table.offset = random.randrange(len(ports))
        table.posters = [Browser(HOST, p) for p in ports]
    first = len(table.clients)

    async def one(i: int) -> None:
        port = table.port_for(i)
        b = Browser(HOST, port)
        # The baseline sends nothing on connect: its first frame is already an update.
        client = Client("socket", table, port, expects_view=False, coalesces=False)
        async with gate:
            client.ws = await open_socket(b, f"/ws/b/{table.name}/", client.handler(counters))
        client.maxv = table.version
        table.clients.append(client)
        on_connect()

    await asyncio.gather(*(one(first + k) for k in range(count)))


# --- heartbeats, as the page's sync form sends them every 20 s ---------------------------


async def heartbeats(tables: list[Table], stop: asyncio.Event, every: float = 20.0) -> None:
    clients = [c for t in tables for c in t.clients if c.role != "socket"]
    now = time.perf_counter()
    for c in clients:
        c.next_beat = now + random.uniform(0, every)
    while not stop.is_set():
        now = time.perf_counter()
        for c in clients:
            if c.next_beat <= now and c.ws is not None:
                c.ws.send_text(json.dumps({"type": "heartbeat", "version": str(c.maxv)}))
                c.next_beat += every
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)
