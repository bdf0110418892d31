"""Waiting on a marker instead of a quiet window: what reached a socket so far.

"Nothing more arrives" is not something a test can wait for; a message sent after
everything else, and seen to arrive, is. Pushes travel through the channel layer (Redis
when scaled out), so the marker does too: `pushed_so_far` sends it to the socket's group
after the pushes a test is waiting for, and each group's messages reach its sockets in
the order they were sent. The answer to a resync comes straight from the socket's own
consumer and can overtake a push still in the layer: `before_resync` is for draining
what connecting produced, not for counting pushes.
"""

from __future__ import annotations

import json
import secrets

from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from combat import broadcast

TIMEOUT = 5


def is_view(frame: str) -> bool:
    """A frame of the table's view (a presence update to the GM is not)."""
    return 'id="sync"' in frame


def is_whole_view(frame: str) -> bool:
    # A push names the version it follows; the whole view (on connecting or asking) does not.
    return is_view(frame) and "data-prev-version" not in frame


async def first_view(comm: WebsocketCommunicator) -> str:
    """The whole view every socket gets on connecting (what came before it is dropped)."""
    while not is_whole_view(frame := await comm.receive_from(timeout=TIMEOUT)):
        pass
    return frame


async def before_resync(comm: WebsocketCommunicator) -> tuple[list[str], str]:
    """Every frame that reaches the socket before the answer to a resync sent now, and
    that answer (the whole view as the server has it)."""
    await comm.send_to(text_data=json.dumps({"type": "resync"}))
    frames = []
    while not is_whole_view(frame := await comm.receive_from(timeout=TIMEOUT)):
        frames.append(frame)
    return frames, frame


async def next_matching(comm: WebsocketCommunicator, wanted, what: str) -> str:
    """The next frame for which `wanted(frame)` holds, passing over the others.

    The GM's presence list is pushed after each socket's whole view, through the channel
    layer (Redis when scaled out): it can reach the GM before or after any other frame.
    Each wait is bounded; a frame that never comes fails with `what`."""
    seen = []
    while True:
        try:
            frame = await comm.receive_from(timeout=TIMEOUT)
        except TimeoutError as gone:  # pragma: no cover - a failing test's message
            raise AssertionError(f"no frame with {what} after {len(seen)} others") from gone
        if wanted(frame):
            return frame
        seen.append(frame)


async def next_view(comm: WebsocketCommunicator) -> str:
    """The next frame of the table's view, passing over presence updates."""
    return await next_matching(comm, is_view, "the table's view")


async def pushed_so_far(comm: WebsocketCommunicator, group: str) -> list[str]:
    """Every frame pushed to `comm` through its group `group` (see `broadcast.group_name`)
    before now: a marker goes to the group after them, and the frames before it are kept."""
    frames, closed = await pushed_or_closed(comm, group)
    assert not closed, "the socket was closed"
    return frames


async def pushed_or_closed(comm: WebsocketCommunicator, group: str) -> tuple[list[str], bool]:
    """As `pushed_so_far`, for a socket the server may close meanwhile: the frames before
    the marker or the close, and whether it was closed."""
    marker = f"<!-- marker {secrets.token_hex(8)} -->"
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(group, {"type": broadcast.PRESENCE, "html": marker})
    frames = []
    while True:
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return frames, True
        frame = out.get("text") or ""
        if frame == marker:
            return frames, False
        frames.append(frame)


# A message over the consumer's 64 KiB limit is refused before the token bucket is asked
# (combat/consumers.py), so even a socket that has spent its burst gets the answer.
TOO_BIG = '{"type": "resync", "pad": "' + "x" * (65 * 1024) + '"}'


async def answered_before_refusal(comm: WebsocketCommunicator) -> list[str]:
    """Every frame the socket sent before answering a message sent now, which it refuses
    (the notice that a message was too big, then the close).

    A socket's consumer handles what its page sends one message at a time, in order: what
    it answered to the messages sent before this one is all in front of the notice. The
    socket is closed after it, so this is a test's last look at a socket. (Pushes travel
    another way; count those with `pushed_so_far`.)"""
    await comm.send_to(text_data=TOO_BIG)
    frames = []
    while True:
        out = await comm.receive_output(timeout=TIMEOUT)
        assert out["type"] == "websocket.send", f"closed before the notice, after {frames}"
        frame = out.get("text") or ""
        if 'data-testid="socket-too-big"' in frame:
            closed = await comm.receive_output(timeout=TIMEOUT)
            assert closed["type"] == "websocket.close", closed
            return frames
        frames.append(frame)
