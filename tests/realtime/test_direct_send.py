"""Under daphne a pushed frame is written straight to each socket, framed once per process.

The end-to-end proof that frames arrive this way is every test that runs a real daphne
(tests/browser, tests/integrity, tests/scaleout). These check the mechanics: the socket's
daphne protocol is found through Channels' session wrapper, every socket of a group gets
the very same framed bytes (a socket that negotiated compression is framed by autobahn
for itself), and a socket that daphne did not serve (a test communicator)
or that is not open goes through Channels' ordinary send.
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

from channels.sessions import InstanceSessionWrapper
from daphne.ws_protocol import WebSocketProtocol

from combat.consumers import SpectatorConsumer, _daphne_protocol


class FakeServer:
    """Stands in for daphne's server: what its `handle_reply` was asked to send."""

    def __init__(self) -> None:
        self.replies: list[tuple[Any, dict[str, Any]]] = []

    async def handle_reply(self, protocol: Any, message: dict[str, Any]) -> None:
        self.replies.append((protocol, message))


class Transport:
    def __init__(self) -> None:
        self.data: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.data.append(data)


class Wire(WebSocketProtocol):
    """daphne's protocol class with daphne's settings, without a connection: records what
    reaches its transport, and what it is asked to frame itself."""

    def __init__(self, state: int = WebSocketProtocol.STATE_OPEN, compressed: bool = False):
        self.state = state
        self.transport = Transport()
        self.send_queue = deque()
        self._perMessageCompress = object() if compressed else None
        self.maskServerFrames = False
        self.autoFragmentSize = 0
        self.maxMessagePayloadSize = 1024 * 1024
        self.framed_by_autobahn: list[bytes] = []

    def sendMessage(self, payload: bytes, isBinary: bool = False, *args: Any, **kw: Any) -> None:  # noqa: N802
        self.framed_by_autobahn.append(payload)


def unframe(data: bytes) -> str:
    """A server's text frame as RFC 6455 reads it: FIN, opcode 1, no mask, the length."""
    assert data[0] == 0x81 and not data[1] & 0x80
    n, at = data[1] & 0x7F, 2
    if n == 126:
        n, at = int.from_bytes(data[2:4], "big"), 4
    elif n == 127:
        n, at = int.from_bytes(data[2:10], "big"), 10
    assert len(data) == at + n
    return data[at:].decode()


def daphne_send(server: FakeServer, wire: Wire) -> Any:
    """The `send` a consumer gets under daphne, wrapped by Channels' session middleware."""
    send = functools.partial(server.handle_reply, wire)
    wrapper = InstanceSessionWrapper({"type": "websocket", "cookies": {}}, send)
    # What the middleware does before the consumer runs (no cookie: an empty session).
    wrapper.scope["session"]._wrapped = wrapper.session_store(None)
    return wrapper.send


def socket(send: Any) -> SpectatorConsumer:
    consumer = SpectatorConsumer()
    consumer.base_send = send
    consumer.pushed = deque(maxlen=32)
    return consumer


def test_the_protocol_is_found_through_the_session_wrapper():
    server, wire = FakeServer(), Wire()
    assert _daphne_protocol(daphne_send(server, wire)) is wire
    assert _daphne_protocol(functools.partial(server.handle_reply, wire)) is wire
    # Anything else (a test communicator's queue, another server's callable): not found.
    assert _daphne_protocol(server.handle_reply) is None
    assert _daphne_protocol(functools.partial(server.handle_reply, object())) is None


async def test_every_socket_of_the_group_gets_the_same_bytes_framed_once():
    server = FakeServer()
    wires = [Wire() for _ in range(3)]
    sockets = [socket(daphne_send(server, w)) for w in wires]
    for size in (10, 500, 70_000):  # the three ways a frame says its length
        html = "<p>Ana hits the Ogre — " + "x" * size + "</p>"
        event = {"type": "frame.push", "version": size, "prev": size - 1, "html": html}
        for s in sockets:
            await s.frame_push(event)
        written = [w.transport.data[-1] for w in wires]
        assert all(unframe(data) == html for data in written)
        # Framed once, the same bytes for every socket of this process.
        assert written[0] is written[1] is written[2]
    assert server.replies == []  # nothing went through Channels' send
    assert all(w.framed_by_autobahn == [] for w in wires)
    assert [s.version for s in sockets] == [70_000] * 3
    # An older frame is still dropped: a page never goes back in time.
    await sockets[0].frame_push({**event, "version": 6, "html": "<p>older</p>"})
    assert len(wires[0].transport.data) == 3


async def test_a_socket_with_compression_is_framed_by_autobahn():
    plain, compressed = Wire(), Wire(compressed=True)
    event = {"type": "frame.push", "version": 2, "prev": 1, "html": "<p>Bram waits</p>"}
    for wire in (plain, compressed):
        await socket(daphne_send(FakeServer(), wire)).frame_push(event)
    assert unframe(plain.transport.data[0]) == "<p>Bram waits</p>"
    assert compressed.transport.data == []
    assert compressed.framed_by_autobahn == [b"<p>Bram waits</p>"]


async def test_a_socket_not_served_by_daphne_or_not_open_uses_the_ordinary_send():
    server = FakeServer()
    closing = Wire(state=WebSocketProtocol.STATE_CLOSING)
    sent: list[dict[str, Any]] = []

    async def communicator_send(message: dict[str, Any]) -> None:
        sent.append(message)

    event = {"type": "frame.push", "version": 3, "prev": 2, "html": "<p>Bram ends his turn</p>"}
    await socket(communicator_send).frame_push(dict(event))
    await socket(daphne_send(server, closing)).frame_push(dict(event))
    assert sent == [{"type": "websocket.send", "text": "<p>Bram ends his turn</p>"}]
    assert closing.transport.data == closing.framed_by_autobahn == []
    # daphne's own reply path got it, and decides what a closing socket does with it.
    assert [m for _, m in server.replies] == [
        {"type": "websocket.send", "text": "<p>Bram ends his turn</p>"}
    ]
