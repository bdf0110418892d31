"""Stacks, scenarios and one measured run of each, app and stock baseline side by side."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.bench import harness, report
from tests.bench.client import Browser
from tests.bench.servers import (
    HOST,
    LIMITS_OUT_OF_REACH,
    PRODUCTION,
    Daphne,
    clean_env,
    collect_static,
    drop_postgres_database_later,
    migrated_postgres_database,
    migrated_sqlite_file,
    redis_url,
    run_module,
)

APP = "vtt.asgi:application"
BASELINE = "tests.bench.baseline_asgi:application"


# --- scenarios -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    tables: int
    spectators: int  # per table, besides the GM and the players
    rate: float  # actions per second, per table
    actions: int  # per table, full run
    quick_actions: int  # per table, quick run
    group: str = "stream"  # scenarios of a group share their tables, growing in spectators
    quick_tables: int | None = None  # fewer tables in quick mode
    talk: bool = False  # the people talk (table talk) instead of playing
    moves: str | None = None  # on the 40 x 40 map: harness.MapTable's moves ("" attacks)
    # A ramp (the headroom): total commands/s over all the tables, one step after another,
    # each for about `step_seconds`, until a step fails (report.step_held). Embedded only.
    ramp: tuple[float, ...] = ()
    quick_ramp: tuple[float, ...] = ()
    step_seconds: float = 6.0
    quick_step_seconds: float = 3.0

    def count(self, quick: bool) -> int:
        return self.quick_actions if quick else self.actions

    def steps(self, quick: bool) -> tuple[tuple[float, ...], float]:
        """The ramp's total rates and each step's length in seconds."""
        if quick:
            return self.quick_ramp or self.ramp, self.quick_step_seconds
        return self.ramp, self.step_seconds


PLAYERS = 6

SCENARIOS = {
    s.key: s
    for s in [
        Scenario("table", "one table: 1 GM, 6 players, 3 spectators", 1, 3, 10.0, 300, 20),
        Scenario(
            "stream100", "one streamed table + 100 spectators, 10 actions/s", 1, 100, 10.0, 300, 20
        ),
        Scenario(
            "stream500", "one streamed table + 500 spectators, 10 actions/s", 1, 500, 10.0, 200, 30
        ),
        Scenario(
            "fleet", "50 tables x 10 clients, 1 action/s each", 50, 3, 1.0, 30, 3, "fleet", 10
        ),
        # Issue 37: the same tables, four times as many, each a quarter as busy: 50 commands/s
        # over 2,000 sockets (400 in quick mode), most of them idle between two commands.
        Scenario(
            "fleet200",
            "200 tables x 10 clients, 1 action every 4 s each",
            200,
            3,
            0.25,
            8,
            2,
            "fleet200",
            40,
        ),
        # Issue 37's headroom: the fleet's tables (50 x 10, in quick mode too) on one embedded
        # process, at 10, 20, 40 ... commands/s in all, until p95 passes 50 ms, an update
        # is lost or the rate is not reached. No stock run: the figure is the app's alone.
        Scenario(
            "headroom",
            "headroom: 50 tables x 10 clients, commands/s rising by steps",
            50,
            3,
            0.2,
            0,
            0,
            "headroom",
            ramp=(10.0, 20.0, 40.0, 80.0, 120.0, 160.0, 200.0, 240.0),
            quick_ramp=(10.0, 40.0, 100.0, 200.0),
        ),
        # Every message said to everyone: GM, 6 players and 10 spectators (the GM lets
        # spectators read). 2 messages/s keeps each of the 7 speakers under 5 in 10 s.
        Scenario(
            "chat",
            "table talk: 1 GM, 6 players, 10 spectators, 2 messages/s",
            1,
            10,
            2.0,
            60,
            20,
            "chat",
            talk=True,
        ),
        # Issues 34 and 35: one table on a 40 x 40 map with terrain, 10 sockets; each its
        # own table, so that what one does (the attacks engage the Ogre) leaves the next
        # one as it was. Compare the CPU per command of mapgm and mapmove with mapattack's.
        *(
            Scenario(key, title, 1, 3, 10.0, 300, 26, key, moves=moves)
            for key, title, moves in [
                ("mapattack", "map 40 x 40: players attack and end turns, as `table`", ""),
                ("mapgm", "map 40 x 40: the GM drags tokens (placements only)", "gm"),
                (
                    "mapmove",
                    "map 40 x 40: players Move to a cell (path search), end turns",
                    "players",
                ),
            ]
        ),
    ]
}


# --- stacks --------------------------------------------------------------------------------


@dataclass
class Stack:
    """Where the servers run: their environment, how many processes, and the data they serve."""

    key: str
    title: str
    processes: int
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    pg_database: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def embedded(cls, workdir: Path) -> Stack:
        db = workdir / "embedded.sqlite3"
        # Production switches (DEBUG off); one database connection per request, as under ASGI.
        env = clean_env(
            **PRODUCTION,
            **LIMITS_OUT_OF_REACH,
            DATABASE_URL=f"sqlite:///{db}",
            DJANGO_STATIC_ROOT=str(workdir / "static"),
        )
        migrated_sqlite_file(db, env)
        collect_static(env)
        return cls("embedded", "embedded: SQLite + in-memory layer, 1 daphne", 1, workdir, env)

    @classmethod
    def scaleout(cls, workdir: Path) -> Stack:
        env = clean_env(
            **PRODUCTION,
            **LIMITS_OUT_OF_REACH,
            REDIS_URL=redis_url(),
            DJANGO_STATIC_ROOT=str(workdir / "static"),
        )
        collect_static(env)
        name, url = migrated_postgres_database("vtt_bench", env)
        # Our own prefix: other test runs on the same Redis must not hear our pushes.
        env.update(DATABASE_URL=url, CHANNEL_LAYER_PREFIX=name)
        return cls(
            "scaleout",
            "scale-out: PostgreSQL + Redis pub/sub, 2 daphne",
            2,
            workdir,
            env,
            pg_database=name,
        )

    def prepare(self, scenarios: list[Scenario]) -> None:
        spec = {
            "username": "bench-gm",
            "players": PLAYERS,
            "tables": {"warmup": 1, **{s.group: s.tables for s in scenarios}},
        }
        self.data = json.loads(run_module("tests.bench.fixtures", self.env, json.dumps(spec)))

    def servers(self, app: str, tag: str) -> list[Daphne]:
        env = dict(self.env)
        if app == BASELINE:
            env["DJANGO_SETTINGS_MODULE"] = "tests.bench.baseline_settings"
        return [
            Daphne(app, env, self.workdir / f"{self.key}-{tag}-{i}.log")
            for i in range(self.processes)
        ]

    def cleanup(self) -> None:
        if self.pg_database:
            drop_postgres_database_later(self.pg_database)


# --- results -------------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 1)) - 1))
    return s[k]


@dataclass
class Run:
    stack: str
    scenario: str
    kind: str  # "app" or "baseline"
    processes: int
    clients: int
    tables: int
    actions: int
    rate_target: float
    rate_achieved: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    post_p50_ms: float | None
    lost: int
    frames: int
    frame_bytes: float
    cpu_us_per_frame: float | None
    kb_per_connection: float | None
    cpu_percent: float
    duration_s: float
    cpu_ms_per_action: float | None = None
    kb_per_connection_after_run: float | None = None
    client_cpu_percent: float = 0.0
    refused: int = 0
    superseded: int = 0
    notes: list[str] = field(default_factory=list)
    unviewed: int = 0  # pages that never got their first view: the run proves no target
    seat_frame_p50: float | None = None  # median bytes of a frame to a player or spectator
    gm_frame_p50: float | None = None  # median bytes of a frame to the GM's console
    steps: list[dict[str, Any]] | None = None  # a ramp's steps (the headroom), else None
    headroom: float | None = None  # the highest rate of those steps that held


class Progress:
    """One line that updates in place on a terminal, or a line every few seconds otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stdout.isatty()
        self.last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            sys.stdout.write("\r\033[K" + text)
            sys.stdout.flush()
        elif force or now - self.last > 3:
            print("  " + text, flush=True)
            self.last = now

    def done(self, text: str) -> None:
        if self.tty:
            sys.stdout.write("\r\033[K")
        print("  " + text, flush=True)


def _cpu(servers: list[Daphne]) -> float:
    return sum(s.cpu_seconds() for s in servers)


def _rss(servers: list[Daphne]) -> int:
    return sum(s.rss_bytes() for s in servers)


async def _quiet(servers: list[Daphne], limit: float = 8.0) -> None:
    """Wait until the servers are (nearly) idle: what came before must not count."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        a = _cpu(servers)
        await asyncio.sleep(0.25)
        if _cpu(servers) - a < 0.02:
            return


async def _drive(
    tables: list[harness.Table], n: int, rate: float, progress: Progress, label: str
) -> tuple[float, float, list[str]]:
    """Each table sends n commands at `rate`, one at a time; returns (start, end, errors)."""
    errors: list[str] = []
    done = 0
    total = n * len(tables)
    t0 = time.perf_counter() + 0.2

    async def one(table: harness.Table, offset: float) -> None:
        nonlocal done
        for k in range(n):
            delay = t0 + offset + k / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                await table.step()
            except Exception as e:
                errors.append(f"{table.name}: {type(e).__name__}: {e}")
                return
            done += 1

    async def ticker() -> None:
        while done < total:
            progress.show(f"{label}: {done}/{total} actions")
            await asyncio.sleep(0.5)

    tick = asyncio.create_task(ticker())
    await asyncio.gather(*(one(t, i / rate / len(tables)) for i, t in enumerate(tables)))
    tick.cancel()
    end = time.perf_counter()
    return t0, end, errors


async def _settle(tables: list[harness.Table], limit: float = 20.0) -> None:
    """Wait until every client has the last version of its table (or `limit` passes)."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        if all(t.settled() for t in tables):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # stragglers: a frame still in flight would be a duplicate


@dataclass
class Session:
    """One kind of server (the app or the stock baseline) with its clients, for a group of
    scenarios that share tables: each scenario adds the spectators it needs to what is
    already connected, so `table`, `stream100` and `stream500` are one table growing."""

    stack: Stack
    kind: str  # "app" or "baseline"
    servers: list[Daphne]
    quick: bool
    progress: Progress
    group: str
    profile: Path | None = None
    counters: harness.Counters = field(default_factory=harness.Counters)
    tables: list[harness.Table] = field(default_factory=list)
    gm_cookies: dict[int, dict[str, str]] = field(default_factory=dict)

    @property
    def ports(self) -> list[int]:
        return [s.port for s in self.servers]

    async def grow(self, scenario: Scenario, label: str) -> list[str]:
        """Connect what `scenario` needs beyond what is already open; notes for the report."""
        gate = asyncio.Semaphore(16)
        notes: list[str] = []
        retried = harness.RETRIES.count
        per_table = 1 + PLAYERS + scenario.spectators
        expected = per_table * scenario.tables
        connected = sum(len(t.clients) for t in self.tables)

        def on_connect() -> None:
            nonlocal connected
            connected += 1
            self.progress.show(f"{label}: connecting {connected}/{expected} sockets")

        if self.kind == "app":
            if not self.gm_cookies:
                for p in self.ports:
                    b = await harness.log_in_gm(
                        p, self.stack.data["username"], self.stack.data["password"]
                    )
                    self.gm_cookies[p] = dict(b.cookies)
                    await b.close()
            if not self.tables:
                live = [
                    harness.ChatTable(name=f"{self.group}-{i}", info=info)
                    if scenario.talk
                    else harness.MapTable(name=f"{self.group}-{i}", info=info, moves=scenario.moves)
                    if scenario.moves is not None
                    else harness.LiveTable(name=f"{self.group}-{i}", info=info)
                    for i, info in enumerate(self.stack.data["tables"][self.group])
                ]
                await asyncio.gather(
                    *(
                        harness.open_live_table(
                            t,
                            self.ports,
                            self.gm_cookies,
                            scenario.spectators,
                            self.counters,
                            gate,
                            on_connect,
                        )
                        for t in live
                    )
                )
                self.tables = list(live)
            else:
                await asyncio.gather(
                    *(
                        harness.add_spectators(
                            t, per_table - len(t.clients), self.counters, gate, on_connect
                        )
                        for t in self.tables
                        if isinstance(t, harness.LiveTable)
                    )
                )
        else:
            if not self.tables:
                self.tables = [
                    harness.StockTable(name=f"{self.stack.key}{self.group}{i}")
                    for i in range(scenario.tables)
                ]
            await asyncio.gather(
                *(
                    harness.add_stock_sockets(
                        t, self.ports, per_table - len(t.clients), self.counters, gate, on_connect
                    )
                    for t in self.tables
                    if isinstance(t, harness.StockTable)
                )
            )
        # Every page has its first view (and the GM the presence of everyone) before we start.
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline:
            if all(not c.expects_view for t in self.tables for c in t.clients):
                break
            await asyncio.sleep(0.05)
        else:
            unviewed = sum(c.expects_view for t in self.tables for c in t.clients)
            notes.append(f"{unviewed} pages never got their first view")
        if harness.RETRIES.count > retried:
            notes.append(f"{harness.RETRIES.count - retried} socket connections had to be retried")
        return notes

    async def connect(
        self, scenario: Scenario, label: str, quiet: float, after: float | None = None
    ) -> tuple[float, int, list[str], int, int]:
        """The scenario's pages connected, the servers quiet before (`quiet` s) and after
        (`after`, else `quiet`): when it began, the servers' memory before, the notes, the
        pages that never got their first view (counted once every page had its time to
        connect: grow waits for that) and how many sockets were added."""
        servers = self.servers
        t_begin = time.perf_counter()
        await _quiet(servers, quiet)
        rss0 = _rss(servers)
        before = sum(len(t.clients) for t in self.tables)
        notes = await self.grow(scenario, label)
        unviewed = sum(c.expects_view for t in self.tables for c in t.clients)
        added = sum(len(t.clients) for t in self.tables) - before
        await _quiet(servers, quiet if after is None else after)
        return t_begin, rss0, notes, unviewed, added

    async def measure(self, scenario: Scenario, frame_bytes: float = 2048) -> Run:
        label = f"[{self.stack.key}] {scenario.key} {self.kind}"
        servers = self.servers
        quiet = 0.75 if self.quick else 8
        t_begin, rss0, notes, unviewed, added = await self.connect(scenario, label, quiet)
        # What holding the connections costs: every new socket open and its first view sent.
        rss_connected = _rss(servers)
        t_connected = time.perf_counter()

        tables = self.tables
        for t in tables:
            t.reset()
            if isinstance(t, harness.StockTable):
                t.size = int(frame_bytes)
        self.counters.reset()
        stop = asyncio.Event()
        beats = asyncio.create_task(harness.heartbeats(tables, stop))
        spies = _profile(self.profile, servers, f"{self.stack.key}-{scenario.key}-{self.kind}")
        cpu0 = _cpu(servers)
        own0 = time.process_time()
        wall0 = time.perf_counter()
        start, end, errors = await _drive(
            tables, scenario.count(self.quick), scenario.rate, self.progress, label
        )
        await _settle(tables)
        wall = time.perf_counter() - wall0
        cpu = _cpu(servers) - cpu0
        own = time.process_time() - own0
        frames = self.counters.frames
        rss1 = _rss(servers)
        stop.set()
        await beats
        for spy in spies:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)

        lat: list[float] = []
        answered: list[float] = []
        lost = 0
        actions = 0
        first_sent: list[float] = []
        last_sent: list[float] = []
        for t in tables:
            tl, tlost, tn = t.outcome()
            lat += tl
            lost += tlost
            actions += tn
            answered += list(t.answered.values())
            if t.sent:
                first_sent.append(min(t.sent.values()))
                last_sent.append(max(t.sent.values()))
        per_table_rate = 0.0
        if actions > len(tables) and last_sent:
            # The tables start a command apart, spread over one period (`_drive`): every
            # command after the very first falls within the span, whatever the tables.
            span = max(last_sent) - min(first_sent)
            per_table_rate = (actions - 1) / span / len(tables) if span > 0 else 0.0
        notes += errors[:5]
        clients = sum(len(t.clients) for t in tables)
        ms = [x * 1000 for x in lat]
        c = self.counters
        timing = f"connect {t_connected - t_begin:.0f} s, run {wall:.0f} s"
        run = Run(
            stack=self.stack.key,
            scenario=scenario.key,
            kind=self.kind,
            processes=len(servers),
            clients=clients,
            tables=len(tables),
            actions=actions,
            rate_target=scenario.rate * len(tables),
            rate_achieved=per_table_rate * len(tables),
            p50_ms=pct(ms, 0.50),
            p95_ms=pct(ms, 0.95),
            p99_ms=pct(ms, 0.99),
            max_ms=max(ms) if ms else None,
            post_p50_ms=(pct(answered, 0.5) or 0) * 1000 if answered else None,
            lost=lost,
            frames=frames,
            frame_bytes=c.versioned_bytes / c.versioned if c.versioned else 0.0,
            cpu_us_per_frame=cpu / frames * 1e6 if frames else None,
            kb_per_connection=(rss_connected - rss0) / 1024 / added if added else None,
            kb_per_connection_after_run=(rss1 - rss0) / 1024 / added if added else None,
            cpu_percent=cpu / wall * 100 if wall else 0.0,
            duration_s=wall,
            cpu_ms_per_action=cpu / actions * 1000 if actions else None,
            client_cpu_percent=own / wall * 100 if wall else 0.0,
            refused=sum(len(t.refused) for t in tables),
            superseded=sum(c.superseded for t in tables for c in t.clients),
            notes=notes,
            unviewed=unviewed,
            seat_frame_p50=pct([float(n) for n in c.seat_sizes], 0.5),
            gm_frame_p50=pct([float(n) for n in c.gm_sizes], 0.5),
        )
        self.progress.done(
            f"{label}: {actions} actions, p50/p95/p99 {fmt(run.p50_ms)}/{fmt(run.p95_ms)}/"
            f"{fmt(run.p99_ms)} ms, lost {lost}, {fmt(run.cpu_us_per_frame)} µs/frame, "
            f"{fmt(run.kb_per_connection)} KB/conn ({timing})"
            + (f"  NOTE: {'; '.join(notes)}" if notes else "")
        )
        return run

    async def measure_all(self, scenarios: list[Scenario]) -> list[Run]:
        """Each scenario in turn; a ramp (the headroom) is the app's alone, with no stock
        run beside it."""
        return [await (self.ramp(sc) if sc.ramp else self.measure(sc)) for sc in scenarios]

    async def ramp(self, scenario: Scenario) -> Run:
        """The headroom: the tables driven at rising total rates, a few seconds a step, each
        measured as `measure` measures a run, until a step fails (`report.step_held`). The
        Run's figures are those of the headroom step (the first step's if none held); its
        `steps` are every step's."""
        label = f"[{self.stack.key}] {scenario.key} {self.kind}"
        servers = self.servers
        # Quiet for 8 s after connecting in quick mode too: what connecting 500 sockets left
        # queued would be the first step's latency.
        t_begin, rss0, notes, unviewed, added = await self.connect(
            scenario, label, 0.75 if self.quick else 8, after=8
        )
        rss_connected = _rss(servers)
        connect_s = time.perf_counter() - t_begin

        rates, seconds = scenario.steps(self.quick)
        stop = asyncio.Event()
        beats = asyncio.create_task(harness.heartbeats(self.tables, stop))
        # One command a table first, not measured: a table's first push after its pages
        # connected has no earlier regions to compare with, and sends every page its whole
        # view (50 tables' worth at once). The steps measure the push as a fight goes on.
        await self._step(rates[0], 0, f"{label} warm-up")
        await _quiet(servers, 3)
        spies = _profile(self.profile, servers, f"{self.stack.key}-{scenario.key}-{self.kind}")
        own0 = time.process_time()
        wall0 = time.perf_counter()
        steps: list[dict[str, Any]] = []
        try:
            for offered in rates:
                if steps:  # what the last step left queued must not count in this one
                    await _quiet(servers, 3)
                step, errors = await self._step(offered, seconds, f"{label} {offered:g}/s")
                step["unviewed"] = unviewed
                notes += [f"{offered:g}/s: {e}" for e in errors[:5]]
                steps.append(step)
                held = report.step_held(step)
                self.progress.done(
                    f"{label}: {offered:g} commands/s offered: {step['achieved']:.1f}/s achieved,"
                    f" p95 {fmt(step['p95_ms'])} ms, lost {step['lost']},"
                    f" server CPU {step['cpu_percent']:.0f}%: "
                    + ("held" if held else f"failed ({report.why_failed(step)})")
                )
                if not held:
                    break
        finally:
            stop.set()
            await beats
            for spy in spies:
                spy.send_signal(signal.SIGINT)
                spy.wait(30)
        wall = time.perf_counter() - wall0
        own = time.process_time() - own0
        best = report.headroom(steps)
        chosen = next((s for s in steps if s["offered"] == best), steps[0] if steps else {})
        self.progress.done(
            f"{label}: headroom {report.headroom_text(steps)} commands/s "
            f"(target ≥ {report.HEADROOM_TARGET:g}; connect {connect_s:.0f} s, "
            f"ramp {wall:.0f} s)" + (f"  NOTE: {'; '.join(notes)}" if notes else "")
        )
        return Run(
            stack=self.stack.key,
            scenario=scenario.key,
            kind=self.kind,
            processes=len(servers),
            clients=sum(len(t.clients) for t in self.tables),
            tables=len(self.tables),
            actions=chosen.get("actions", 0),
            rate_target=chosen.get("offered", 0.0),
            rate_achieved=chosen.get("achieved", 0.0),
            p50_ms=chosen.get("p50_ms"),
            p95_ms=chosen.get("p95_ms"),
            p99_ms=chosen.get("p99_ms"),
            max_ms=chosen.get("max_ms"),
            post_p50_ms=chosen.get("post_p50_ms"),
            lost=chosen.get("lost", 0),
            frames=chosen.get("frames", 0),
            frame_bytes=chosen.get("frame_bytes", 0.0),
            cpu_us_per_frame=chosen.get("cpu_us_per_frame"),
            kb_per_connection=(rss_connected - rss0) / 1024 / added if added else None,
            kb_per_connection_after_run=(_rss(servers) - rss0) / 1024 / added if added else None,
            cpu_percent=chosen.get("cpu_percent", 0.0),
            duration_s=wall,
            cpu_ms_per_action=chosen.get("cpu_ms_per_action"),
            client_cpu_percent=own / wall * 100 if wall else 0.0,
            refused=sum(s["refused"] for s in steps),
            notes=notes,
            unviewed=unviewed,
            steps=steps,
            headroom=best,
        )

    async def _step(
        self, offered: float, seconds: float, label: str
    ) -> tuple[dict[str, Any], list[str]]:
        """One step of the ramp: `offered` commands/s spread over the tables for about
        `seconds` (at least one command a table), then what reached every page."""
        tables = self.tables
        for t in tables:
            t.reset()
        self.counters.reset()
        per_table = offered / len(tables)
        n = max(1, round(per_table * seconds))
        cpu0 = _cpu(self.servers)
        wall0 = time.perf_counter()
        _start, _end, errors = await _drive(tables, n, per_table, self.progress, label)
        await _settle(tables)
        wall = time.perf_counter() - wall0
        cpu = _cpu(self.servers) - cpu0
        lat: list[float] = []
        answered: list[float] = []
        lost = actions = 0
        sent: list[float] = []
        for t in tables:
            tl, tlost, tn = t.outcome()
            lat += tl
            lost += tlost
            actions += tn
            answered += list(t.answered.values())
            sent += list(t.sent.values())
        span = max(sent) - min(sent) if len(sent) > 1 else 0.0
        ms = [x * 1000 for x in lat]
        c = self.counters
        frames = c.frames
        step = {
            "offered": offered,
            # As `measure` counts it: every command after the first, over the time from the
            # first to the last (the tables start a command apart over one period).
            "achieved": (actions - 1) / span if span > 0 else 0.0,
            "actions": actions,
            "p50_ms": pct(ms, 0.50),
            "p95_ms": pct(ms, 0.95),
            "p99_ms": pct(ms, 0.99),
            "max_ms": max(ms) if ms else None,
            "post_p50_ms": (pct(answered, 0.5) or 0) * 1000 if answered else None,
            "lost": lost,
            "frames": frames,
            "frame_bytes": c.versioned_bytes / c.versioned if c.versioned else 0.0,
            "cpu_us_per_frame": cpu / frames * 1e6 if frames else None,
            "cpu_ms_per_action": cpu / actions * 1000 if actions else None,
            "cpu_percent": cpu / wall * 100 if wall else 0.0,
            "seconds": wall,
            "refused": sum(len(t.refused) for t in tables),
        }
        return step, errors

    async def close(self) -> None:
        """Close everything; the servers' goodbye work (presence, groups) is not measured."""
        for t in self.tables:
            for c in t.clients:
                if c.ws is not None:
                    c.ws.close()
            browsers: list[Browser | None] = []
            if isinstance(t, harness.LiveTable):
                browsers = [t.gm, *t.players]
            elif isinstance(t, harness.StockTable):
                browsers = list(t.posters)
            for b in browsers:
                if b is not None:
                    await b.close()
        self.tables = []
        await asyncio.sleep(0.5)


def _profile(directory: Path | None, servers: list[Daphne], name: str) -> list[subprocess.Popen]:
    """py-spy on each server for the measured phase (collapsed stacks, one file each)."""
    if directory is None:
        return []
    directory.mkdir(parents=True, exist_ok=True)
    spy = Path(sys.executable).with_name("py-spy")
    return [
        subprocess.Popen(
            [
                str(spy),
                "record",
                "--pid",
                str(s.pid),
                "--rate",
                "250",
                "--nonblocking",
                "--gil",
                "--format",
                "raw",
                "--output",
                str(directory / f"{name}-{i}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, s in enumerate(servers)
    ]


def fmt(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    return f"{x:.{digits}f}"


async def _warm_up(stack: Stack, servers: list[Daphne]) -> None:
    """Load every code path once (templates, sessions, the layer) before anything is measured."""
    counters = harness.Counters()
    ports = [s.port for s in servers]
    gm_cookies = {}
    for p in ports:
        b = await harness.log_in_gm(p, stack.data["username"], stack.data["password"])
        gm_cookies[p] = dict(b.cookies)
        await b.close()
    gate = asyncio.Semaphore(8)
    t = harness.LiveTable(name="warmup", info=stack.data["tables"]["warmup"][0])
    await harness.open_live_table(t, ports, gm_cookies, 2, counters, gate)
    for _ in range(2 * PLAYERS + 1):  # one whole round: the turn is back where it was
        await t.step()
    await _settle([t], 3)
    stack.data["tables"]["warmup"][0]["version"] = t.version
    for c in t.clients:
        if c.ws is not None:
            c.ws.close()
    for b in [t.gm, *t.players]:
        if b is not None:
            await b.close()


async def _warm_up_stock(servers: list[Daphne]) -> None:
    counters = harness.Counters()
    t = harness.StockTable(name="warmup", size=1024)
    await harness.add_stock_sockets(t, [s.port for s in servers], 4, counters, asyncio.Semaphore(4))
    for _ in range(5):
        await t.step()
    await _settle([t], 3)
    for c in t.clients:
        if c.ws is not None:
            c.ws.close()
    for b in t.posters:
        await b.close()


# --- the whole benchmark -----------------------------------------------------------------


async def run_stack(
    stack: Stack,
    scenarios: list[Scenario],
    quick: bool,
    fresh: bool,
    progress: Progress,
    profile: Path | None = None,
) -> list[Run]:
    runs: list[Run] = []
    print(f"\n== {stack.title}", flush=True)
    groups: dict[str, list[Scenario]] = {}
    for sc in scenarios:
        groups.setdefault(sc.group, []).append(sc)
    servers: dict[str, list[Daphne]] = {}
    warmed: list[list[Daphne]] = []

    def launch(kind: str, group: str) -> None:
        for s in servers.pop(kind, []):
            s.stop()
        app = APP if kind == "app" else BASELINE
        servers[kind] = stack.servers(app, f"{kind}-{group}")
        for s in servers[kind]:
            s.start()

    async def ready(kind: str, group: str, renew: bool) -> list[Daphne]:
        if renew or kind not in servers:
            launch(kind, group)
        started = servers[kind]
        for s in started:
            s.wait_ready()
        if not any(w is started for w in warmed):
            if kind == "app":
                await _warm_up(stack, started)
            else:
                await _warm_up_stock(started)
            warmed.append(started)
        return started

    try:
        # The first servers import Django while the tables are made.
        groups_list = list(groups.items())
        launch("app", groups_list[0][0])
        t = time.monotonic()
        stack.prepare(scenarios)
        print(f"  tables made in {time.monotonic() - t:.1f} s", flush=True)
        for i, (group, members) in enumerate(groups_list):
            renew = fresh and i > 0
            members.sort(key=lambda sc: sc.spectators)
            app_servers = await ready("app", group, renew)
            app = Session(stack, "app", app_servers, quick, progress, group, profile)
            app_runs = await app.measure_all(members)
            runs += app_runs
            sizes = {r.scenario: r.frame_bytes or 2048 for r in app_runs}
            await app.close()
            stock = [sc for sc in members if not sc.ramp]
            if not stock:
                continue
            base_servers = await ready("baseline", group, renew)
            base = Session(stack, "baseline", base_servers, quick, progress, group, profile)
            for sc in stock:
                runs.append(await base.measure(sc, sizes[sc.key]))
            await base.close()
    finally:
        for group_servers in servers.values():
            for s in group_servers:
                s.stop()
        stack.cleanup()
    order = {sc.key: i for i, sc in enumerate(scenarios)}
    runs.sort(key=lambda r: (order[r.scenario], r.kind != "app"))
    return runs


def machine() -> dict[str, Any]:
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {
        "cores": os.cpu_count(),
        "loadavg": load,
        "python": sys.version.split()[0],
        "host": HOST,
    }


def on_stack(key: str, scenarios: list[Scenario]) -> tuple[list[Scenario], list[str]]:
    """The scenarios that run on this stack, and a line for each left out: a ramp (the
    headroom) is about one embedded process, so it runs on the embedded stack alone."""
    here = [s for s in scenarios if key == "embedded" or not s.ramp]
    skipped = [
        f"`{s.key}` skipped: its target is the headroom of one embedded process (1 daphne), "
        "not of this stack"
        for s in scenarios
        if s not in here
    ]
    return here, skipped


async def main_async(args: Any) -> dict[str, Any]:
    scenarios = [SCENARIOS[k] for k in args.scenarios]
    if args.quick:
        # The fleets are the scenarios made smaller in quick mode (their tables, not their size).
        scenarios = [
            dataclasses.replace(s, tables=s.quick_tables) if s.quick_tables else s
            for s in scenarios
        ]
    workdir = Path(tempfile.mkdtemp(prefix="vtt-bench-"))
    progress = Progress()
    started = time.time()
    meta = {"quick": args.quick, "started": time.strftime("%Y-%m-%d %H:%M:%S"), **machine()}
    runs: list[Run] = []
    random.seed(args.seed)
    try:
        for key in args.stacks:
            here, skipped = on_stack(key, scenarios)
            for line in skipped:
                print(f"\n== {key}: {line}", flush=True)
            meta.setdefault("skipped", []).extend(f"{key}: {line}" for line in skipped)
            if not here:
                continue
            stack = Stack.embedded(workdir) if key == "embedded" else Stack.scaleout(workdir)
            runs += await run_stack(stack, here, args.quick, args.fresh, progress, args.profile)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"  logs kept in {workdir}")
    meta["seconds"] = round(time.time() - started, 1)
    meta["loadavg_after"] = machine()["loadavg"]
    return {"meta": meta, "runs": [asdict(r) for r in runs]}
