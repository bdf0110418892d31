"""The test run's settings: the project's own, with each parallel worker kept to itself.

`make test` runs the suite in several pytest-xdist workers at once. With REDIS_URL set,
they would share one Redis database (a test's `cache.clear()` empties it for all) and
one set of channel-layer and cache key prefixes (Redis pub/sub channels are shared by
every database on a server). So each worker gets a Redis database of its own (gw0 the
first after the one REDIS_URL names, gw1 the next...) and prefixes naming the worker.

The variables are set in this process's environment, not only in the settings, so the
daphne processes that tests start inherit them and serve the same worker's data.
PostgreSQL test databases are already one per worker (pytest-django adds the worker's
name); the SQLite one is named by process id (vtt/settings.py).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

_REDIS_DATABASES = 16  # Redis's default `databases`


def _worker_number() -> int | None:
    """0 for gw0, 1 for gw1...; None outside pytest-xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def _own_redis_database(url: str, number: int) -> str:
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = (base + 1 + number) % _REDIS_DATABASES
    if database == base:
        raise RuntimeError(
            f"Too many test workers for Redis's {_REDIS_DATABASES} databases: use fewer."
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def _isolate_worker() -> None:
    number = _worker_number()
    if number is None:
        return
    worker = f"gw{number}"
    # A variable set by hand wins: the worker only fills in what is left to the defaults.
    os.environ.setdefault("CHANNEL_LAYER_PREFIX", f"vtt-test-{worker}")
    os.environ.setdefault("CACHE_PREFIX", f"vtt-test-{worker}")
    redis_url = os.environ.get("REDIS_URL")
    if redis_url and not os.environ.get("VTT_TEST_REDIS_ISOLATED"):
        os.environ["REDIS_URL"] = _own_redis_database(redis_url, number)
        os.environ["VTT_TEST_REDIS_ISOLATED"] = "1"  # once, even if imported again


_isolate_worker()

from vtt.settings import *  # noqa: E402, F403
