"""Sockets: who may open one, from where, and that nothing sent on one changes anything.

The socket takes heartbeats and resync requests only; commands go over HTTP. These tests
send every command the server knows, in several shapes, on every role's socket, and show
that the encounter, its seats and its log compare equal and nothing was pushed.
"""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter

from ..markers import answered_before_refusal, before_resync
from .conftest import Spy
from .recipes import ALL_COMMANDS, RECIPES
from .sockets import (
    PER_SOCKET,
    TIMEOUT,
    build,
    connect,
    db_snapshot,
    role_socket,
    send_json,
    socket,
)

pytestmark = pytest.mark.django_db(transaction=True)


def version_of(frame: str) -> int:
    found = set(re.findall(r'data-version="(\d+)"', frame))
    assert len(found) == 1, found
    return int(found.pop())


def command_frames(ids: dict[str, str], shapes: int = 1) -> list[dict]:
    """Every command, resolved on the plain table, as a client might send it."""
    frames = []
    for name in ALL_COMMANDS:
        _, _, fields = RECIPES[name]
        resolved = {}
        for k, v in fields.items():
            if isinstance(v, str) and v.startswith("{"):
                key = v[1:-1]
                v = ids.get(key, "w1" if key == "window" else ids["ana"])
            resolved[k] = v
        command = {"type": name, **resolved}
        frames.append(command)
        if shapes > 1:
            # As htmx's socket extension sends a form, claiming to be the GM for good measure.
            frames.append({**command, "HEADERS": {"HX-Request": "true"}, "by": "gm"})
    return frames


async def test_no_command_sent_on_any_socket_changes_anything(spy: Spy):
    t, gm_cookie, outsider_cookie = await build()
    before = await db_snapshot()
    v0 = t.enc.version
    sent = 0
    for role in ("gm", "owner", "other", "spectator"):
        # Both shapes on the GM's socket, the one that could do the most.
        frames = command_frames(t.ids, shapes=2 if role == "gm" else 1)
        for start in range(0, len(frames), PER_SOCKET):
            comm = role_socket(t, role, gm_cookie, outsider_cookie)
            assert version_of(await connect(comm)) == v0
            calls = spy.state_pushes()
            for frame in frames[start : start + PER_SOCKET]:
                await send_json(comm, frame)
                sent += 1
            # The socket answers none of them, and a heartbeat at v0 gets no new view: the
            # server's version is still v0. (The GM may see who is connected change.) The
            # socket answers in order, so the answer to a last message ends what it said.
            await send_json(comm, {"type": "heartbeat", "version": v0})
            for frame in await answered_before_refusal(comm):
                assert 'id="presence"' in frame and "data-version" not in frame, (role, frame)
            assert spy.state_pushes() == calls, f"{role}: a change was pushed"
            await comm.disconnect()
    assert await db_snapshot() == before
    assert sent == 5 * len(ALL_COMMANDS)

    # Sent over HTTP (here, straight to the service) the GM's would have been taken at once:
    # the socket did not refuse them for being invalid.
    def gm_can() -> bool:
        enc = Encounter.objects.get(pk=t.enc.pk)
        return services.run_command(
            enc.pk, gm_viewer(enc), {"type": "damage", "actor": t.goblin, "amount": 3}
        ).ok

    assert await database_sync_to_async(gm_can)()


@pytest.mark.parametrize("role", ["revoked", "anonymous", "outsider"])
async def test_sockets_without_a_place_at_the_table_are_refused(role: str):
    t, gm_cookie, outsider_cookie = await build()
    comm = role_socket(t, role, gm_cookie, outsider_cookie)
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert not connected and code == 4403


@pytest.mark.parametrize(
    "path",
    [
        "/ws/p/not-a-token/",
        "/ws/s/not-a-token/",
        # PostgreSQL answers a NUL byte with an error, not a miss: refused before any lookup.
        "/ws/p/%00%00/",
        "/ws/s/%00/",
        "/ws/s/" + "a" * 300 + "/",
    ],
)
async def test_unknown_or_malformed_links_are_refused(path: str):
    await build()
    connected, code = await socket(path).connect(timeout=3)
    assert not connected and code == 4403


# --- Origin ---------------------------------------------------------------------------------


ORIGINS = {
    "foreign": [(b"origin", b"http://evil.example")],
    "foreign with our host": [(b"origin", b"http://evil.example"), (b"host", b"testserver")],
    "null": [(b"origin", b"null")],
    "none": [],
    "empty": [(b"origin", b"")],
    "two origins": [(b"origin", b"http://testserver"), (b"origin", b"http://evil.example")],
    "not http": [(b"origin", b"file://testserver")],
    "with a path": [(b"origin", b"http://testserver/x")],
    "look-alike": [(b"origin", b"http://testserver.evil.example")],
    "user info": [(b"origin", b"http://testserver@evil.example")],
    "other port than host": [(b"origin", b"http://localhost:9000"), (b"host", b"localhost:8000")],
    "host not allowed": [(b"origin", b"http://evil.example"), (b"host", b"evil.example")],
}


@pytest.mark.parametrize("case", list(ORIGINS))
async def test_handshakes_from_elsewhere_are_refused(case: str):
    t, *_ = await build()
    comm = socket(f"/ws/p/{t.seat1.token}/", headers=ORIGINS[case])
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert not connected and code == 4403, case


@pytest.mark.parametrize(
    "headers",
    [
        [(b"origin", b"http://testserver")],
        [(b"origin", b"http://localhost:8000"), (b"host", b"localhost:8000")],
        [(b"origin", b"https://localhost"), (b"host", b"localhost")],  # TLS ends at a proxy
        [(b"origin", b"http://[::1]:8000"), (b"host", b"[::1]:8000")],
    ],
)
async def test_handshakes_from_our_own_pages_are_accepted(headers):
    t, *_ = await build()
    comm = socket(f"/ws/p/{t.seat1.token}/", headers=headers)
    await connect(comm)
    await comm.disconnect()


async def test_a_wildcard_in_development_still_refuses_foreign_origins(settings):
    """Channels' validator lets everything in once ALLOWED_HOSTS holds `*`; ours does not."""
    settings.ALLOWED_HOSTS = ["*"]
    t, *_ = await build()
    for headers in (
        [(b"origin", b"http://evil.example"), (b"host", b"testserver")],
        [(b"origin", b"http://evil.example")],
        [],
    ):
        connected, _ = await socket(f"/ws/p/{t.seat1.token}/", headers=headers).connect()
        assert not connected, headers
    comm = socket(
        f"/ws/p/{t.seat1.token}/",
        headers=[(b"origin", b"http://vtt.example"), (b"host", b"vtt.example")],
    )
    await connect(comm)
    await comm.disconnect()


async def test_trusted_origins_behind_a_proxy_are_accepted(settings):
    settings.ALLOWED_HOSTS = ["internal"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://vtt.example.org", "https://*.example.net"]
    t, *_ = await build()
    for origin in (b"https://vtt.example.org", b"https://a.example.net"):
        comm = socket(
            f"/ws/p/{t.seat1.token}/", headers=[(b"origin", origin), (b"host", b"internal")]
        )
        await connect(comm)
        await comm.disconnect()
    for origin in (b"http://vtt.example.org", b"https://example.org", b"https://evil.example"):
        comm = socket(
            f"/ws/p/{t.seat1.token}/", headers=[(b"origin", origin), (b"host", b"internal")]
        )
        connected, _ = await comm.connect()
        assert not connected, origin


# --- what a socket accepts ---------------------------------------------------------------


async def test_a_frame_over_64_kib_is_refused_in_words_and_changes_nothing(spy: Spy):
    t, *_ = await build()
    before = await db_snapshot()
    comm = socket(f"/ws/p/{t.seat1.token}/")
    await connect(comm)
    # Connecting tells the GM who is here after sending the view; the socket answers a
    # resync only once that is done.
    await before_resync(comm)
    calls = spy.count()
    big = '{"type": "resync", "pad": "' + "x" * (65 * 1024) + '"}'
    await comm.send_to(text_data=big)
    notice = await comm.receive_from(timeout=TIMEOUT)
    assert "larger than 64 KiB" in notice and "Reload the page" in notice
    closed = await comm.receive_output(timeout=TIMEOUT)
    # Closed with "too big" (1009, or 4413 like HTTP 413): not a code htmx reconnects on.
    assert closed["type"] == "websocket.close" and closed["code"] in (1009, 4413)
    assert await db_snapshot() == before
    assert [name for name, _ in spy.calls[calls:]] in ([], ["publish_presence", "_send"])


MALFORMED = [
    " ",
    "not json",
    "[1, 2, 3]",
    '"resync"',
    "null",
    "{",
    '{"type": 5}',
    '{"type": ["resync"]}',
    '{"type": "heartbeat", "version": "lots"}',
    '{"type": "heartbeat", "version": -99999999999999999999999}',
    '{"type": "heartbeat", "version": [1]}',
    '{"type": "heartbeat", "version": NaN}',
    '{"type": "undo"}',
    '{"type": "damage", "actor": "c3", "amount": 1000000}',
    '{"type": "roll", "dice": "1000000d1000000"}',
    "\x00\x00",
    "[" * 5000 + "]" * 5000,
]


async def test_malformed_frames_change_nothing_and_the_socket_goes_on():
    t, *_ = await build()
    before = await db_snapshot()
    batches = [MALFORMED[i : i + PER_SOCKET - 1] for i in range(0, len(MALFORMED), PER_SOCKET - 1)]
    for batch in batches:
        comm = socket(f"/ws/p/{t.seat1.token}/")
        v0 = version_of(await connect(comm))
        for text in batch:
            await comm.send_to(text_data=text)
        await comm.send_to(bytes_data=b"\xff\xfe binary")
        # The socket goes on: it still answers a resync after all of them.
        await send_json(comm, {"type": "resync"})
        answers = await answered_before_refusal(comm)
        # Only heartbeats naming another version get an answer: the whole view, as it was.
        assert answers and all(version_of(a) == v0 for a in answers), answers
        await comm.disconnect()
    assert await db_snapshot() == before


# A heartbeat at version 1e999 (infinity) and a frame nested deeper than the JSON decoder
# goes once ended the consumer with an exception; now they are ignored like any bad frame.
@pytest.mark.parametrize(
    "frame", ['{"type": "heartbeat", "version": 1e999}', "[" * 60_000 + "]" * 60_000]
)
async def test_frames_that_break_the_decoder_change_nothing(frame: str):
    t, *_ = await build()
    comm = socket(f"/ws/p/{t.seat1.token}/")
    await connect(comm)
    await comm.send_to(text_data=frame[: 64 * 1024])
    await send_json(comm, {"type": "resync"})
    assert 'id="status"' in await comm.receive_from(timeout=TIMEOUT)
    await comm.disconnect()
