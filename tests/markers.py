"""Waiting on a marker instead of a quiet window: what reached a socket so far.

"Nothing more arrives" is not something a test can wait for; a reply the server sends
after everything it had already sent is. A resync is answered with the whole view, after
any push the server sent the socket before it was asked, so the frames before that answer
are everything pushed so far, however slow the machine.
"""

from __future__ import annotations

import json

from channels.testing import WebsocketCommunicator

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
