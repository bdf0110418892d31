"""Under daphne a pushed frame is written straight to each socket, encoded once per process.

The end-to-end proof that frames arrive this way is every test that runs a real daphne
(tests/browser, tests/integrity, tests/scaleout). These check the mechanics: the socket's
daphne protocol is found through Channels' session wrapper, every socket of a group gets
the very same encoded bytes, and a socket that daphne did not serve (a test communicator)
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


class Wire(WebSocketProtocol):
    """daphne's protocol class, without a connection: records what it is asked to write."""

    def __init__(self, state: int = WebSocketProtocol.STATE_OPEN) -> None:
        self.state = state
        self.written: list[tuple[bytes, bool]] = []

    def sendMessage(self, payload: bytes, isBinary: bool = False, *args: Any, **kw: Any) -> None:  # noqa: N802
        self.written.append((payload, isBinary))


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


async def test_every_socket_of_the_group_gets_the_same_bytes_encoded_once():
    server = FakeServer()
    wires = [Wire() for _ in range(3)]
    sockets = [socket(daphne_send(server, w)) for w in wires]
    event = {"type": "frame.push", "version": 7, "prev": 6, "html": "<p>Ana hits the Ogre — 9</p>"}
    for s in sockets:
        await s.frame_push(event)
    payloads = [w.written for w in wires]
    assert all(p == [("<p>Ana hits the Ogre — 9</p>".encode(), False)] for p in payloads)
    # One encoding, the same object for every socket of this process.
    assert payloads[0][0][0] is payloads[1][0][0] is payloads[2][0][0] is event["payload"]
    assert server.replies == []  # nothing went through Channels' send
    assert [s.version for s in sockets] == [7, 7, 7]
    # An older frame is still dropped: a page never goes back in time.
    await sockets[0].frame_push({**event, "version": 6, "html": "<p>older</p>"})
    assert len(wires[0].written) == 1


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
    assert closing.written == []
    # daphne's own reply path got it, and decides what a closing socket does with it.
    assert [m for _, m in server.replies] == [
        {"type": "websocket.send", "text": "<p>Bram ends his turn</p>"}
    ]
