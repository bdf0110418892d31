"""Crashes and gaps: a killed server loses no half command; pages catch up by themselves.

- SIGKILL in the middle of 100 concurrent commands: every command is wholly
  recorded (log entry, state, version) or wholly absent; the log replays to the
  state; retried with their Idempotency-Keys after the restart they all count
  exactly once. An open page and a socket are back on the database's state
  within 2 s of the server answering again.
- A socket that was down for 10 updates gets the current version on reconnect.
- A page whose socket stayed up but lost 10 pushes notices the gap on the next
  push (it follows a version the page never saw), does not apply it, and asks for
  what it missed (static/js/sync.js): the server's history of frames sends each
  one, in order; a push that follows on from what it shows asks nothing.
"""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import pytest
from django.db import connection

from combat import statediff
from combat.models import LogEntry
from combat.rules import Encounter as State
from combat.rules import apply

from .conftest import (
    HandshakeRefused,
    Page,
    Request,
    Table,
    WsClient,
    bearer,
    figure,
    ms,
    open_page,
    post,
    prev_of,
    requests_at_once,
    version_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


def damage(table: Table) -> dict[str, Any]:
    return {"type": "damage", "actor": table.goblin, "amount": 1}


def gm_command(port: int, table: Table, key: str | None = None) -> dict[str, Any]:
    status, body, _ = post(
        port, "POST", table.commands_path, damage(table), bearer(table.gm_token, key)
    )
    assert status == 200, body
    return body


class ComesBack:
    """A socket that reconnects by itself, as a page does (sync.js: 250 ms doubling to 0.5 s)."""

    def __init__(self, port: int, path: str) -> None:
        self.port, self.path = port, path
        self.sockets: list[WsClient] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        delay = 0.25
        while not self._stop.is_set():
            if self.sockets and self.sockets[-1].close_code is None:
                time.sleep(0.01)
                continue
            try:
                self.sockets.append(WsClient(self.port, self.path).connect(timeout=1))
                delay = 0.25
            except (OSError, HandshakeRefused):
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def wait_for_version(self, version: int, timeout: float = 10) -> float:
        """time.monotonic() when the socket of the moment received `version` (or later)."""
        deadline = time.monotonic() + timeout
        while True:
            for frame in list(self.sockets[-1].frames) if self.sockets else []:
                if (frame.version or 0) >= version:
                    return frame.at
            if time.monotonic() > deadline:
                got = [s.versions() for s in self.sockets]
                raise AssertionError(f"no socket got version {version}: {got}")
            time.sleep(0.005)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for s in self.sockets:
            s.close()


def assert_log_replays(entries: list[LogEntry], final_state: dict[str, Any]) -> None:
    # The log keeps the way back from each state (combat/statediff.py): walk it from now.
    walked = list(statediff.history(reversed(entries), final_state))[::-1]
    for entry, before, after in walked:
        outcome = apply(State.from_dict(before), entry.command, random.Random(0))
        assert outcome.refusal is None and outcome.state.to_dict() == after, entry.seq
        assert outcome.events == entry.events, entry.seq


def test_sigkill_during_100_in_flight_commands_loses_no_half_command(
    table: Table, servers, browser
):
    server = servers.start(1)[0]
    v0 = table.enc.version
    hp0 = table.enc.state["combatants"][table.goblin]["hp"]
    socket = ComesBack(server.port, table.spectator_path)
    socket.wait_for_version(v0)
    url = server.url + f"/s/{table.enc.spectator_token}/"
    page: Page = browser.call(lambda b: open_page(b, url))
    browser.call(lambda b: page.wait_for_version(v0))
    # static/js/sync.js caps htmx's reconnect delay (htmx alone doubles it up to a minute).
    assert browser.call(lambda b: page.page.evaluate("htmx.config.ws.reconnectMaxDelay")) == 500

    keys = [f"crash-{i:03d}" for i in range(100)]

    def command(key: str) -> Request:
        headers = bearer(table.gm_token, key)
        return Request(server.port, "POST", table.commands_path, damage(table), headers)

    requests = [command(k) for k in keys]
    answers: list[Any] = []
    flying = threading.Thread(target=lambda: answers.extend(requests_at_once(requests)))
    flying.start()
    deadline = time.monotonic() + 30
    while table.refresh().version < v0 + 10:  # a tenth of them committed: kill now
        assert time.monotonic() < deadline, "the commands did not start"
        time.sleep(0.005)
    server.kill()
    flying.join(60)

    # --- while the server is dead: the database on its own --------------------------------
    ok = {k for k, a in zip(keys, answers, strict=True) if not isinstance(a, BaseException)}
    assert all(a[0] == 200 for a in answers if not isinstance(a, BaseException))
    cut = 100 - len(ok)
    enc = table.refresh()
    entries = list(LogEntry.objects.filter(encounter=enc, version__gt=v0).order_by("seq"))
    recorded = {e.idempotency_key for e in entries}
    n = len(entries)
    assert cut > 0, "the server finished every command before it was killed"
    assert ok <= recorded <= set(keys) and len(recorded) == n  # answered => recorded
    assert enc.version == v0 + n
    assert [e.version for e in entries] == list(range(v0 + 1, v0 + n + 1))
    assert enc.state["combatants"][table.goblin]["hp"] == hp0 - n
    assert_log_replays(entries, enc.state)
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA integrity_check")
            assert cursor.fetchone()[0] == "ok"

    # --- back up: the page and the socket show the database's state -------------------------
    waiting = browser.submit(lambda b: page.wait_for_version(enc.version, timeout=20))
    server.start().wait_ready()
    back = server.ready_at
    socket_at = socket.wait_for_version(enc.version, timeout=10)
    page_at = waiting.result(30)
    socket_after, page_after = max(0.0, socket_at - back), max(0.0, page_at - back)
    assert socket_after < 2.0 and page_after < 2.0

    # --- the client retries every command with its key: each counts exactly once ------------
    retried = requests_at_once([command(k) for k in keys])
    assert all(not isinstance(r, BaseException) and r[0] == 200 for r in retried), retried[:3]
    replayed = {k for k, r in zip(keys, retried, strict=True) if r[1]["replayed"]}
    assert replayed == recorded
    enc = table.refresh()
    assert enc.version == v0 + 100
    assert enc.state["combatants"][table.goblin]["hp"] == hp0 - 100
    entries = list(LogEntry.objects.filter(encounter=enc, version__gt=v0).order_by("seq"))
    assert sorted(e.idempotency_key for e in entries) == keys
    assert_log_replays(entries, enc.state)
    # The retried commands' pushes reach the page and the socket; under a load of 10 on two
    # cores the 48 or so versions took longer than 10 s to show once (issue 28, not yet
    # explained): the bound is a correctness bound, the time is reported below.
    retried_at = time.monotonic()
    caught_up_at = browser.call(lambda b: page.wait_for_version(v0 + 100, timeout=30), 40)
    socket.wait_for_version(v0 + 100, timeout=30)
    socket.stop()
    browser.call(lambda b: page.context.close())
    figure(
        f"SIGKILL with 100 commands in flight: {len(ok)} answered, {n} recorded "
        f"({n - len(ok)} recorded but unanswered), {100 - n} absent, 0 half-recorded; "
        f"log replays to the state. After restart: socket current in {ms(socket_after)}, "
        f"page in {ms(page_after)} of the server answering; retrying all 100 keys: "
        f"{len(replayed)} replayed, {100 - len(replayed)} applied -> exactly 100, on the "
        f"page {ms(max(0.0, caught_up_at - retried_at))} after the retries were answered"
    )


def test_a_socket_down_for_10_updates_is_current_on_reconnect(table: Table, servers):
    server = servers.start(1)[0]
    v0 = table.enc.version
    first = WsClient(server.port, table.spectator_path).connect()
    first.wait_for_version(v0)
    first.close()
    for _ in range(10):
        gm_command(server.port, table)
    t0 = time.monotonic()
    again = WsClient(server.port, table.spectator_path).connect()
    frame = again.wait_for_version(v0 + 10, timeout=1)
    assert again.frames[0] is frame and frame.prev is None  # the whole view, at once
    again.close()
    figure(f"socket down for 10 updates: current version {ms(frame.at - t0)} after reconnecting")


def test_a_page_that_lost_10_pushes_notices_and_resyncs(table: Table, servers, browser):
    server = servers.start(1)[0]
    v0 = table.enc.version
    wire: dict[str, Any] = {"drop": False, "lost": [], "to_page": [], "resyncs": []}

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()

        def to_server(message: Any) -> None:
            if json.loads(message).get("type") == "resync":
                wire["resyncs"].append(time.monotonic())
            upstream.send(message)

        def to_page(message: Any) -> None:
            if wire["drop"]:
                wire["lost"].append((version_of(message), prev_of(message)))
                return
            wire["to_page"].append((time.monotonic(), message))
            ws.send(message)

        ws.on_message(to_server)
        upstream.on_message(to_page)

    def until(condition: Any, what: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"{what}: {wire}"
            time.sleep(0.01)

    url = server.url + f"/s/{table.enc.spectator_token}/"
    page: Page = browser.call(lambda b: open_page(b, url, route))
    # The page shows v0 as loaded; its socket's whole view (on connect) must be in, too.
    until(lambda: wire["to_page"], "the socket's first view never came")
    assert version_of(wire["to_page"][0][1]) == v0

    # Ten pushes lost on the way; the socket itself stays up.
    wire["drop"] = True
    for _ in range(10):
        gm_command(server.port, table)
    until(lambda: (v0 + 10, v0 + 9) in wire["lost"], "not every push reached the route")
    wire["drop"] = False
    pushes = [(v, prev) for v, prev in wire["lost"] if prev is not None]  # not a heartbeat's
    assert pushes == [(v, v - 1) for v in range(v0 + 1, v0 + 11)]
    assert browser.call(lambda b: page.version()) == v0

    # The eleventh follows version v0 + 10, which the page never saw: the page does not
    # apply it, and asks for what it missed since v0, which the history of frames answers.
    delivered = len(wire["to_page"])
    gm_command(server.port, table)
    browser.call(lambda b: page.wait_for_version(v0 + 11))
    until(lambda: len(wire["to_page"]) >= delivered + 12, "the missed frames never came")
    gap_at, gap = wire["to_page"][delivered]
    answer = wire["to_page"][delivered + 1 : delivered + 12]
    whole_at = answer[-1][0]
    assert f'data-prev-version="{v0 + 10}"' in gap
    assert len(wire["resyncs"]) == 1 and gap_at <= wire["resyncs"][0] <= answer[0][0]
    assert [(version_of(m), prev_of(m)) for _, m in answer] == [
        (v, v - 1) for v in range(v0 + 1, v0 + 12)
    ], "the answer is every frame the page missed, in order, and no whole view"
    assert whole_at - gap_at < 1.0

    # A push that follows on from what the page shows asks for nothing.
    gm_command(server.port, table)
    browser.call(lambda b: page.wait_for_version(v0 + 12))
    browser.call(lambda b: page.page.wait_for_timeout(300))
    assert len(wire["resyncs"]) == 1
    errors = browser.call(lambda b: list(page.errors))
    browser.call(lambda b: page.context.close())
    assert not errors, errors
    figure(
        f"page lost 10 pushes: the next push (follows v{v0 + 10}, page at v{v0}) -> 1 resync "
        f"sent {ms(wire['resyncs'][0] - gap_at)} after it arrived, the 11 missed frames up "
        f"to v{v0 + 11} {ms(whole_at - gap_at)} after it; a chained push -> no resync"
    )
