"""Small, cheap asyncio clients for HTTP/1.1 and websockets, as a page uses them.

The benchmark runs hundreds of sockets in one process on the same machine as
the servers it measures, so every microsecond spent here is taken from them.
These clients parse only what a page needs: status, headers, cookies and body
for HTTP; text frames, pings and closes for websockets (RFC 6455, client side).
Every received frame is stamped with `time.perf_counter()` (CLOCK_MONOTONIC,
comparable across processes) as soon as it is complete.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

_CSRF_IN_PAGE = re.compile(r'"X-CSRFToken": "([^"]+)"')
_CSRF_IN_FORM = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


# --- HTTP ---------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass
class Browser:
    """One person's cookies against one origin, over one keep-alive connection."""

    host: str
    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    csrf: str = ""
    _reader: asyncio.StreamReader | None = None
    _writer: asyncio.StreamWriter | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self._reader = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> Response:
        async with self._lock:
            for attempt in (1, 2):
                try:
                    return await asyncio.wait_for(
                        self._request(method, path, form, headers or {}), timeout
                    )
                except (ConnectionError, asyncio.IncompleteReadError):
                    # The server closed an idle keep-alive connection: reconnect once.
                    await self.close()
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")

    async def _request(
        self, method: str, path: str, form: dict[str, str] | None, extra: dict[str, str]
    ) -> Response:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None and self._writer is not None
        body = urlencode(form).encode() if form is not None else b""
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Connection: keep-alive",
            f"Content-Length: {len(body)}",
        ]
        if form is not None:
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if self.cookies:
            lines.append(f"Cookie: {self.cookie_header()}")
        lines += [f"{k}: {v}" for k, v in extra.items()]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            if not line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                cookie = value.split(";", 1)[0]
                k, _, v = cookie.partition("=")
                if v and v != '""':
                    self.cookies[k.strip()] = v.strip()
                else:
                    self.cookies.pop(k.strip(), None)
            headers[name] = value
        if "content-length" in headers:
            data = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self._reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            data = b"".join(chunks)
        else:
            data = await self._reader.read()
            await self.close()
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Response(status, headers, data)

    async def get_page(self, path: str) -> Response:
        """GET a page and keep its CSRF token, as htmx takes it from `hx-headers` on <body>."""
        r = await self.request("GET", path)
        m = _CSRF_IN_PAGE.search(r.text)
        if m:
            self.csrf = m.group(1)
        return r

    async def htmx_post(self, path: str, form: dict[str, str], referer: str = "") -> Response:
        """What htmx sends for a form with hx-post: the form, the CSRF header, HX-Request."""
        headers = {
            "HX-Request": "true",
            "X-CSRFToken": self.csrf,
            "Origin": self.origin,
            "Referer": self.origin + (referer or path),
        }
        return await self.request("POST", path, form=form, headers=headers)

    async def log_in(self, username: str, password: str) -> None:
        page = await self.request("GET", "/accounts/login/")
        m = _CSRF_IN_FORM.search(page.text)
        if not m:
            raise RuntimeError(f"No CSRF token on the log-in page (HTTP {page.status}).")
        r = await self.request(
            "POST",
            "/accounts/login/",
            form={"username": username, "password": password, "csrfmiddlewaretoken": m.group(1)},
            headers={"Origin": self.origin, "Referer": self.origin + "/accounts/login/"},
        )
        if r.status != 302 or "sessionid" not in self.cookies:
            raise RuntimeError(f"Log-in as {username} failed (HTTP {r.status}).")

    async def websocket(self, path: str, on_message: Callable[[bytes, float], None]) -> WebSocket:
        return await connect_websocket(
            self.host, self.port, path, on_message, origin=self.origin, cookie=self.cookie_header()
        )


# --- websockets ---------------------------------------------------------------------------


class WebSocket(asyncio.Protocol):
    """A client websocket: calls `on_message(payload, t)` for every text or binary message."""

    def __init__(self, on_message: Callable[[bytes, float], None], request: bytes) -> None:
        self.on_message = on_message
        self.request = request
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.close_code: int | None = None
        self.handshake_status = 0
        self._buf = bytearray()
        self._open = False
        self._parts: list[bytes] = []
        self.received = 0

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        if not self._open and not self._handshake(buf):
            return
        now = time.perf_counter()
        while (frame := self._next_frame(buf)) is not None:
            opcode, fin, payload = frame
            if opcode in (0x1, 0x2, 0x0):
                if not fin:
                    self._parts.append(payload)
                    continue
                if self._parts:
                    payload = b"".join([*self._parts, payload])
                    self._parts = []
                self.received += 1
                self.on_message(payload, now)
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                self._send_frame(0x8, payload[:2])
                self._finish(code)
                return
            elif opcode == 0x9:
                self._send_frame(0xA, payload)

    def _handshake(self, buf: bytearray) -> bool:
        """Read the server's answer to the upgrade; True once the socket is open."""
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(buf[:end]).decode("latin-1")
        del buf[: end + 4]
        try:
            self.handshake_status = int(head.split(" ", 2)[1])
        except (IndexError, ValueError):
            self.handshake_status = 0
        if self.handshake_status != 101:
            if not self.opened.done():
                self.opened.set_exception(
                    ConnectionRefusedError(f"handshake answered {head.splitlines()[0]!r}")
                )
            self._finish(1006)
            return False
        self._open = True
        self.opened.set_result(None)
        return True

    @staticmethod
    def _next_frame(buf: bytearray) -> tuple[int, int, bytes] | None:
        """Take one whole frame off `buf`: (opcode, fin bit, payload); None if incomplete."""
        n = len(buf)
        if n < 2:
            return None
        b0, b1 = buf[0], buf[1]
        length = b1 & 0x7F
        pos = 2
        if length == 126:
            if n < 4:
                return None
            length = (buf[2] << 8) | buf[3]
            pos = 4
        elif length == 127:
            if n < 10:
                return None
            length = struct.unpack_from("!Q", buf, 2)[0]
            pos = 10
        if b1 & 0x80:  # a masked server frame is a protocol error; tolerate it anyway
            pos += 4
        if n < pos + length:
            return None
        payload = bytes(buf[pos : pos + length])
        del buf[: pos + length]
        return b0 & 0x0F, b0 & 0x80, payload

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionResetError("closed before the handshake"))
        self._finish(self.close_code or 1006)

    # sending
    def _send_frame(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        key = os.urandom(4)
        if n:
            k = int.from_bytes((key * (n // 4 + 1))[:n], "big")
            masked = (int.from_bytes(payload, "big") ^ k).to_bytes(n, "big")
        else:
            masked = b""
        self.transport.write(head + key + masked)

    def send_text(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def close(self, code: int = 1000) -> None:
        self._send_frame(0x8, struct.pack("!H", code))
        if self.transport is not None:
            loop = asyncio.get_running_loop()
            # Give the server a moment to answer the close, then drop the connection.
            loop.call_later(1.0, self._abort)

    async def aclose(self, code: int = 1000, timeout: float = 2.0) -> None:
        """Close and wait for the server's answer (or drop the connection after `timeout`)."""
        self._send_frame(0x8, struct.pack("!H", code))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        self._abort()

    def _abort(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    def _finish(self, code: int) -> None:
        self._open = False
        if self.close_code is None:
            self.close_code = code
        if not self.closed.done():
            self.closed.set_result(code)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


async def connect_websocket(
    host: str,
    port: int,
    path: str,
    on_message: Callable[[bytes, float], None],
    *,
    origin: str,
    cookie: str = "",
    timeout: float = 30.0,
) -> WebSocket:
    """Open a websocket as a browser would (Origin and cookies); raise if it is refused."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        f"Origin: {origin}",
    ]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode()
    loop = asyncio.get_running_loop()
    _, ws = await asyncio.wait_for(
        loop.create_connection(lambda: WebSocket(on_message, request), host, port), timeout
    )
    await asyncio.wait_for(ws.opened, timeout)
    return ws


_VERSION = b'data-version="'
_PREV = b'data-prev-version="'


def _number_after(payload: bytes, marker: bytes) -> int | None:
    i = payload.find(marker)
    if i < 0:
        return None
    i += len(marker)
    j = payload.find(b'"', i)
    try:
        return int(payload[i:j])
    except ValueError:
        return None


def frame_version(payload: bytes) -> int | None:
    """The version a pushed view shows (`data-version` of its status region), if any."""
    return _number_after(payload, _VERSION)


def frame_prev_version(payload: bytes) -> int | None:
    """The version a pushed change follows (`data-prev-version`); None for a whole view."""
    return _number_after(payload, _PREV)
