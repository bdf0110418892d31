"""Real server processes, started by the tests themselves (see tests/bench/servers.py)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.bench.client import frame_version
from tests.bench.servers import postgres_url, redis_url


def need_services() -> None:
    """Fail (never skip) with what to do when PostgreSQL or Redis does not answer."""
    import psycopg
    import redis

    problems = []
    try:
        with psycopg.connect(postgres_url(), connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as e:
        problems.append(f"PostgreSQL at {postgres_url()}: {e}")
    try:
        redis.Redis.from_url(redis_url(), socket_connect_timeout=5).ping()
    except Exception as e:
        problems.append(f"Redis at {redis_url()}: {e}")
    if problems:
        pytest.fail(
            "tests/scaleout runs several daphne processes on PostgreSQL and Redis, and they "
            "do not answer:\n  "
            + "\n  ".join(problems)
            + "\nStart them (see README, Scale-out) or leave these tests out with "
            "--ignore=tests/scaleout.",
            pytrace=False,
        )


class Frames:
    """Every message a test socket receives, in order, to wait on."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.seen = 0
        self.event = asyncio.Event()

    def add(self, payload: bytes, t: float) -> None:
        self.items.append(payload.decode("utf-8", "replace"))
        self.event.set()

    async def next(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while self.seen >= len(self.items):
            self.event.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no message within {timeout} s (had {self.items[-3:]})")
            try:
                await asyncio.wait_for(self.event.wait(), left)
            except TimeoutError:
                continue
        item = self.items[self.seen]
        self.seen += 1
        return item.encode()

    async def next_version(self, version: int, timeout: float) -> str:
        """The first message showing `version` (or later); fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"version {version} never arrived")
            frame = await self.next(left)
            v = frame_version(frame)
            if v is not None and v >= version:
                return frame.decode()
