"""Real servers, real sockets and a table to play on, for the integrity tests.

- `Server`: `python -m daphne` in a subprocess, exactly as `make run` starts it,
  with the project's settings pointed at the test database
  (tests/integrity/server_settings.py). It can be killed with SIGKILL and
  started again on the same port.
- `servers`: a module's servers, stopped at the end of the module.
- `WsClient`: a small RFC 6455 client in a thread of its own: it keeps every
  frame it receives with the time it arrived, and the close code.
- `post`: one HTTP request with http.client (one connection each, so a test can
  open many at once from threads).
- `build_table`: an Action Points encounter made through the services and
  committed (every test here uses `transactional_db`, so the servers see it).
- `figure`: a measured figure, printed at the end of the run under
  "integrity figures" (docs/integrity.md quotes them).

The in-memory channel layer allows one server process per database (see
vtt/single_process.py); a test that wants several asks only when REDIS_URL is set.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"
_LISTENING = re.compile(r"Listening on TCP address [^\s:]+:(\d+)")

# Every die is 1d1: every roll is known.
SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 4},
    "defend": {"dice": "1d1", "bonus": 0},
}


def redis_layer() -> bool:
    from django.conf import settings

    return "channels_redis" in settings.CHANNEL_LAYERS["default"]["BACKEND"]


# --- figures --------------------------------------------------------------------------------

_FIGURES: list[str] = []


def figure(text: str) -> None:
    """Keep a measured figure for the end-of-run summary."""
    _FIGURES.append(text)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _FIGURES:
        return
    from django.conf import settings

    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    terminalreporter.section(f"integrity figures ({db}, {layer})", sep="-")
    for line in _FIGURES:
        terminalreporter.line(line)


# --- servers --------------------------------------------------------------------------------


@dataclass
class Server:
    """One daphne process serving the test database, as `make run` would."""

    log_path: Path
    env: dict[str, str]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    ready_at: float = 0.0
    _starts_logged: int = 0  # "Listening" lines in the log before this start

    def start(self) -> Server:
        self._starts_logged = self.log_text().count("Listening on TCP address")
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child keeps it)
        # Port 0 the first time (the kernel picks a free one); the same port on restart.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", HOST, "-p", str(self.port)]
            + ["vtt.asgi:application"],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        return self

    def wait_ready(self, timeout: float = 60) -> Server:
        """Until the server answers HTTP; raises with its log if it dies or takes too long."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daphne exited ({self.proc.returncode}):\n{self.log_text()}")
            found = _LISTENING.findall(self.log_text())
            if len(found) > self._starts_logged:
                self.port = int(found[-1])
                try:
                    status, _, _ = post(self.port, "GET", "/api/rulesets", timeout=2)
                except OSError:
                    status = 0
                if status == 200:
                    self.ready_at = time.monotonic()
                    return self
            time.sleep(0.02)
        raise RuntimeError(f"daphne did not answer within {timeout} s:\n{self.log_text()}")

    def kill(self) -> None:
        """SIGKILL: no goodbye to any socket, no transaction finished."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def pushes(self, encounter_id: int) -> list[tuple[int, int | None, int]]:
        """(version, prev, audiences) of every push this server logged for the encounter."""
        out = []
        pattern = rf"pushed enc={encounter_id} version=(\d+) prev=(\d+|None) audiences=(\d+)"
        for version, prev, audiences in re.findall(pattern, self.log_text()):
            out.append((int(version), None if prev == "None" else int(prev), int(audiences)))
        return out

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"


def _server_env() -> dict[str, str]:
    from django.db import connection

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="server_settings",
        VTT_TEST_DB_NAME=str(connection.settings_dict["NAME"]),
        PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]),
        PYTHONUNBUFFERED="1",
        # Our own groups on a shared Redis; all of this run's servers share them.
        CHANNEL_LAYER_PREFIX=f"vtt-integrity-{os.getpid()}",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


class Servers:
    """The servers of one test module, started on demand, stopped at its end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.running: list[Server] = []

    def start(self, count: int = 1) -> list[Server]:
        """Have at least `count` servers running (started together); the first `count`."""
        env = _server_env()
        for _ in range(count - len(self.running)):
            # Kept in `running` from the start, so a server that fails to come up is stopped too.
            self.running.append(Server(self.directory / f"daphne-{len(self.running)}.log", env))
            self.running[-1].start()
        for s in self.running[:count]:
            if not s.ready_at:
                s.wait_ready()
        return self.running[:count]

    def stop_all(self) -> None:
        for s in self.running:  # all at once: each takes a moment to wind down
            if s.proc is not None and s.proc.poll() is None:
                s.proc.send_signal(signal.SIGTERM)
        for s in self.running:
            s.stop()
        self.running.clear()


@pytest.fixture(scope="module")
def servers(django_db_setup, tmp_path_factory) -> Iterator[Servers]:
    pool = Servers(tmp_path_factory.mktemp("daphne"))
    try:
        yield pool
    finally:
        pool.stop_all()


# --- HTTP -----------------------------------------------------------------------------------


Answer = tuple[int, Any, dict[str, str]]


def post(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> Answer:
    """One request on its own connection: status, decoded JSON (or text), headers."""
    return Request(port, method, path, body, headers, timeout).connect().send()


@dataclass
class Request:
    """One HTTP request on its own connection, which can be opened ahead of sending."""

    port: int
    method: str
    path: str
    body: Any = None
    headers: dict[str, str] | None = None
    timeout: float = 30
    conn: http.client.HTTPConnection | None = None

    def connect(self) -> Request:
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        self.conn.connect()
        return self

    def send(self) -> Answer:
        assert self.conn is not None
        try:
            data = None if self.body is None else json.dumps(self.body)
            hdrs = {"Content-Type": "application/json", **(self.headers or {})}
            self.conn.request(self.method, self.path, body=data, headers=hdrs)
            response = self.conn.getresponse()
            raw = response.read()
            try:
                decoded: Any = json.loads(raw)
            except ValueError:
                decoded = raw.decode("utf-8", "replace")
            return response.status, decoded, {k.lower(): v for k, v in response.getheaders()}
        finally:
            self.conn.close()


def requests_at_once(requests: list[Request], timeout: float = 60) -> list[Any]:
    """Send every request at the same moment, each from its own thread.

    The connections are opened first, one after the other (a burst of hundreds of
    new connections would overflow the server's listen backlog, which tests nothing
    of ours); then all requests go out together. Answers (or exceptions) in order.
    """
    for r in requests:
        r.connect()
    return all_at_once([r.send for r in requests], timeout)


def bearer(token: str, key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if key:
        headers["Idempotency-Key"] = key
    return headers


def all_at_once(calls: list[Callable[[], Any]], timeout: float = 60) -> list[Any]:
    """Run every call in its own thread, released together; results (or exceptions) in order."""
    results: list[Any] = [None] * len(calls)
    gate = threading.Barrier(len(calls))

    def run(i: int) -> None:
        try:
            gate.wait(timeout)
            results[i] = calls[i]()
        except BaseException as e:  # noqa: BLE001 (reported to the test as a value)
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return results


# --- websockets -----------------------------------------------------------------------------

_VERSION = re.compile(r'<form id="sync"[^>]*?data-version="(\d+)"')
_PREV = re.compile(r'<form id="sync"[^>]*?data-prev-version="(\d+)"')


def version_of(frame: str) -> int | None:
    m = _VERSION.search(frame)
    return int(m.group(1)) if m else None


def prev_of(frame: str) -> int | None:
    m = _PREV.search(frame)
    return int(m.group(1)) if m else None


@dataclass
class Frame:
    at: float  # time.monotonic() when it was complete
    text: str

    @property
    def version(self) -> int | None:
        return version_of(self.text)

    @property
    def prev(self) -> int | None:
        return prev_of(self.text)


class HandshakeRefused(Exception):
    pass


@dataclass
class WsClient:
    """A websocket to one of our servers, read by a thread of its own."""

    port: int
    path: str
    frames: list[Frame] = field(default_factory=list)
    close_code: int | None = None
    close_reason: str = ""
    closed_at: float = 0.0
    _sock: socket.socket | None = None
    _buf: bytes = b""
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _send_lock: threading.Lock = field(default_factory=threading.Lock)

    def connect(self, timeout: float = 10) -> WsClient:
        sock = socket.create_connection((HOST, self.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: http://{HOST}:{self.port}\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                sock.close()
                raise HandshakeRefused("the server closed the connection during the handshake")
            head += chunk
        head, self._buf = head.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0].decode()
        if " 101 " not in status:
            sock.close()
            raise HandshakeRefused(status)
        sock.settimeout(None)
        self._sock = sock
        threading.Thread(target=self._read_loop, daemon=True).start()
        return self

    # -- receiving ---------------------------------------------------------------------------
    def _recv(self, n: int) -> bytes:
        sock = self._sock
        if sock is None:  # closed by this side meanwhile
            raise ConnectionError("closed")
        while len(self._buf) < n:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _read_loop(self) -> None:
        message = b""
        code, reason = 1006, ""
        try:
            while True:
                b0, b1 = self._recv(2)
                opcode, size = b0 & 0x0F, b1 & 0x7F
                if size == 126:
                    (size,) = struct.unpack("!H", self._recv(2))
                elif size == 127:
                    (size,) = struct.unpack("!Q", self._recv(8))
                payload = self._recv(size)
                if opcode == 0x8:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    reason = payload[2:].decode("utf-8", "replace")
                    self._send_frame(0x8, payload[:2])
                    break
                if opcode == 0x9:
                    self._send_frame(0xA, payload)
                    continue
                if opcode in (0x0, 0x1, 0x2):
                    message += payload
                    if b0 & 0x80:
                        with self._cond:
                            self.frames.append(
                                Frame(time.monotonic(), message.decode("utf-8", "replace"))
                            )
                            self._cond.notify_all()
                        message = b""
        except (OSError, ConnectionError, ValueError):
            pass
        finally:
            with self._cond:
                self.close_code, self.close_reason = code, reason
                self.closed_at = time.monotonic()
                self._cond.notify_all()
            self._shutdown()

    def wait_for(self, predicate: Callable[[list[Frame]], Any], timeout: float = 5) -> Any:
        """The first truthy value of predicate(frames) within `timeout`; AssertionError if none."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self.frames)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    versions = [f.version for f in self.frames]
                    raise AssertionError(
                        f"{self.path}: not within {timeout} s; frames' versions {versions}, "
                        f"close code {self.close_code}"
                    )
                self._cond.wait(left)

    def wait_for_version(self, version: int, timeout: float = 5) -> Frame:
        return self.wait_for(
            lambda frames: next((f for f in frames if (f.version or 0) >= version), None),
            timeout,
        )

    def wait_closed(self, timeout: float = 5) -> int:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.close_code is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.path}: still open after {timeout} s")
                self._cond.wait(left)
            return self.close_code

    def versions(self) -> list[int | None]:
        with self._cond:
            return [f.version for f in self.frames]

    # -- sending -----------------------------------------------------------------------------
    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        key = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
        with self._send_lock:
            sock = self._sock
            if sock is None:
                raise ConnectionError("this socket is closed")
            sock.sendall(header + mask + masked)

    def send(self, message: str | dict[str, Any]) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self._send_frame(0x1, text.encode())

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send_frame(0x8, struct.pack("!H", 1000))
        self._shutdown()

    def _shutdown(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


# --- a table ------------------------------------------------------------------------------


@dataclass
class Table:
    enc: Any
    gm_token: str
    seat1: Any  # controls Ana
    seat2: Any  # controls Bram
    ana: str
    bram: str
    goblin: str

    def refresh(self) -> Any:
        self.enc.refresh_from_db()
        return self.enc

    @property
    def commands_path(self) -> str:
        return f"/api/encounters/{self.enc.pk}/commands"

    @property
    def spectator_path(self) -> str:
        return f"/ws/s/{self.enc.spectator_token}/"

    def player_path(self, seat: Any) -> str:
        return f"/ws/p/{seat.token}/"


def _add(enc: Any, **fields: Any) -> str:
    from combat import services
    from combat.access import gm_viewer

    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


def build_table(username: str = "gina", goblin_hp: int = 1000, start: bool = True) -> Table:
    """Ana (Player 1, 3 AP on her turn), Bram (Player 2) and a Goblin; Ana's turn if `start`."""
    from django.contrib.auth import get_user_model

    from combat import services
    from combat.access import gm_viewer
    from combat.models import ApiToken, Encounter

    gm = get_user_model().objects.create_user(username)
    enc = services.create_encounter(gm, "Bridge fight", "action_points", {})
    assert isinstance(enc, Encounter)
    ana = _add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE)
    bram = _add(enc, name="Bram", side="pc", hp=20, initiative=15, stats=SURE)
    goblin = _add(enc, name="Goblin", side="npc", hp=goblin_hp, initiative=10, stats=SURE)
    seat1 = services.create_seat(enc.pk, "Player 1", [ana])
    seat2 = services.create_seat(enc.pk, "Player 2", [bram])
    if start:
        result = services.run_command(enc.pk, gm_viewer(enc), {"type": "start_combat"})
        assert result.ok, result.refusal
    enc.refresh_from_db()
    if start:
        assert enc.state["turn"] == ana and enc.state["combatants"][ana]["res"]["ap"] == 3
    return Table(enc, ApiToken.issue(gm)[1], seat1, seat2, ana, bram, goblin)


@pytest.fixture
def table(transactional_db) -> Table:
    return build_table()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


# --- a real browser, in a thread of its own ---------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class BrowserThread:
    """Chromium through Playwright's sync API, driven from one thread of its own.

    Playwright's sync API keeps an asyncio loop running in the thread that uses it
    (Django then refuses ORM calls there, and pytest-asyncio tests that follow
    break). Here that thread is not the test's: the test hands it functions to run
    (`call`), and the test's own thread stays free for the ORM, HTTP and sockets.
    Between calls the thread keeps Playwright's loop turning, so page events and
    websocket routes are served while the test does something else.
    """

    def __init__(self) -> None:
        import concurrent.futures
        import queue

        self._tasks: queue.Queue[tuple[Callable[[Any], Any] | None, Any]] = queue.Queue()
        self._future = concurrent.futures.Future
        self._started: concurrent.futures.Future[bool] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._main, name="playwright", daemon=True)

    def start(self) -> BrowserThread:
        self._thread.start()
        self._started.result(60)
        return self

    def _main(self) -> None:
        import queue

        from playwright.sync_api import sync_playwright

        try:
            pw = sync_playwright().start()
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            idle = browser.new_page()
        except BaseException as e:  # noqa: BLE001 (handed to the test)
            self._started.set_exception(e)
            return
        self._started.set_result(True)
        try:
            while True:
                try:
                    fn, done = self._tasks.get_nowait()
                except queue.Empty:
                    idle.wait_for_timeout(10)  # lets Playwright deliver events meanwhile
                    continue
                if fn is None:
                    done.set_result(None)
                    return
                try:
                    done.set_result(fn(browser))
                except BaseException as e:  # noqa: BLE001 (handed to the test)
                    done.set_exception(e)
        finally:
            browser.close()
            pw.stop()

    def submit(self, fn: Callable[[Any], Any]) -> Any:
        """Start fn(browser) in the browser's thread; a Future of its result."""
        done = self._future()
        self._tasks.put((fn, done))
        return done

    def call(self, fn: Callable[[Any], Any], timeout: float = 60) -> Any:
        """Run fn(browser) in the browser's thread; its result (or its exception)."""
        return self.submit(fn).result(timeout)

    def stop(self) -> None:
        done = self._future()
        self._tasks.put((None, done))
        done.result(30)
        self._thread.join(30)


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserThread]:
    b = BrowserThread().start()
    try:
        yield b
    finally:
        b.stop()


@dataclass
class Page:
    """One browser page (its own context: its own person) and what it reported."""

    context: Any
    page: Any
    errors: list[str] = field(default_factory=list)
    sent: list[tuple[float, str]] = field(default_factory=list)  # websocket frames it sent

    def version(self) -> int | None:
        value = self.page.get_attribute("#sync", "data-version")
        return int(value) if value else None

    def wait_for_version(self, version: int, timeout: float = 10) -> float:
        """time.monotonic() when the page first shows `version` (polled every 10 ms)."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            if (self.version() or 0) >= version:
                return now
            if now > deadline:
                raise AssertionError(f"the page shows version {self.version()}, not {version}")
            self.page.wait_for_timeout(10)


def open_page(browser: Any, url: str, route: Callable[[Any], None] | None = None) -> Page:
    """A new person opening `url`; with `route`, their page's websockets go through it."""
    context = browser.new_context()
    page = context.new_page()
    p = Page(context, page)
    page.on("console", lambda m: m.type == "error" and p.errors.append(m.text))
    page.on("pageerror", lambda e: p.errors.append(str(e)))

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda data: p.sent.append((time.monotonic(), str(data))))

    page.on("websocket", on_socket)
    if route is not None:
        page.route_web_socket(re.compile(r".*/ws/.*"), route)
    page.goto(url)
    return p
