"""Settings for the integrity tests' daphne processes: the project's own, on the test database.

The test run passes the test database's name (pytest-django made it) in
VTT_TEST_DB_NAME, so the servers serve exactly what the tests build. Everything
else (SQLite or DATABASE_URL, the in-memory layer or REDIS_URL) is the
project's settings, unchanged. Pushes are logged, one line each, so a test can
count them (combat.broadcast at DEBUG).
"""

import os

from vtt.settings import *  # noqa: F403
from vtt.settings import DATABASES, LOGGING

DATABASES["default"]["NAME"] = os.environ["VTT_TEST_DB_NAME"]

LOGGING = {
    **LOGGING,
    "loggers": {"combat.broadcast": {"level": "DEBUG"}},
}

# `kill -USR1 <pid>` writes every thread's stack to the server's log (for a server that hangs).
import faulthandler  # noqa: E402
import signal  # noqa: E402

faulthandler.register(signal.SIGUSR1, all_threads=True)

# These tests send hundreds of commands from one seat at once on purpose, to prove the
# write path under contention; the per-seat rate limit (which would refuse most of them
# with 429) has its own tests in tests/security/test_storage_bounds.py.
VTT_RATE_COMMANDS = (1_000_000, 10)
