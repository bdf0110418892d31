"""At most so many HTTP requests inside Django at once, per server process; the rest queue.

Django runs each request's synchronous code in a thread of its own, and each
thread opens its own database connection. A burst of 200 requests therefore
opened 200 PostgreSQL connections, and past `max_connections` (100 by
default) requests failed with "sorry, too many clients already" (500s). Here a
request waits its turn in the event loop, holding no thread and no connection,
until one of the `limit` places is free; the answer comes a little later
instead of never. Websockets are not counted (they share one database thread).

`DJANGO_MAX_CONCURRENT_REQUESTS` sets the limit (default 16). With several
server processes on one PostgreSQL, keep processes x limit well under its
`max_connections`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from vtt.envconf import env_int

DEFAULT_LIMIT = 16


def limit_from_env() -> int:
    limit = env_int("DJANGO_MAX_CONCURRENT_REQUESTS", DEFAULT_LIMIT)
    if limit < 1:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("DJANGO_MAX_CONCURRENT_REQUESTS must be at least 1.")
    return limit


class ConcurrencyLimit:
    """ASGI middleware: HTTP requests beyond `limit` wait for a place; others pass through."""

    def __init__(self, application: Any, limit: int) -> None:
        self.application = application
        self.limit = limit
        self._places: asyncio.Semaphore | None = None
        self.waiting = 0  # requests queued right now (for tests and diagnostics)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.application(scope, receive, send)
            return
        if self._places is None:  # made in the server's event loop, on first use
            self._places = asyncio.Semaphore(self.limit)
        self.waiting += 1
        try:
            await self._places.acquire()
        finally:
            self.waiting -= 1
        try:
            await self.application(scope, receive, send)
        finally:
            self._places.release()
