"""A pushed frame goes to each socket through the send the server gave it (issue 37).

No socket's frames are written around the server: each gets the ASGI message Channels'
`send` would make, handed to the `send` the application was given (under daphne, daphne
frames it for that socket, compression and all). The message is made once per push and
process, so every socket of a group shares it and its text, and nothing is encoded per
socket here. A socket's view still never goes back in time.
"""

from __future__ import annotations

from typing import Any

from combat.consumers import SpectatorConsumer


def socket(sent: list[dict[str, Any]]) -> SpectatorConsumer:
    async def server_send(message: dict[str, Any]) -> None:
        sent.append(message)

    consumer = SpectatorConsumer()
    consumer.base_send = server_send
    return consumer


async def test_every_socket_of_the_group_gets_the_same_message_through_its_send():
    outboxes: list[list[dict[str, Any]]] = [[], [], []]
    sockets = [socket(box) for box in outboxes]
    html = "<p>Ana hits the Ogre — " + "x" * 70_000 + "</p>"
    event = {"type": "frame.push", "version": 7, "prev": 6, "html": html}
    for s in sockets:
        await s.frame_push(event)
    (a,), (b,), (c,) = outboxes
    assert a == {"type": "websocket.send", "text": html}
    assert a is b is c, "the message is made once for every socket of the process"
    assert a["text"] is html, "the text is the push's own, not a copy"
    assert [s.version for s in sockets] == [7, 7, 7]
    # An older frame is still dropped: a page never goes back in time.
    await sockets[0].frame_push({**event, "version": 6, "html": "<p>older</p>"})
    assert len(outboxes[0]) == 1


async def test_presence_and_chat_go_the_same_way():
    sent: list[dict[str, Any]] = []
    s = socket(sent)
    await s.presence_push({"type": "presence.push", "html": "<p>2 connected</p>"})
    await s.chat_push({"type": "chat.push", "html": "<p>Bram: hi</p>", "cred": s.cred})
    assert [m["text"] for m in sent] == ["<p>2 connected</p>", "<p>Bram: hi</p>"]
