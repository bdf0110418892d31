"""Project-wide test policy.

A skipped test is a failure here: a test that cannot run (a missing browser,
service or package) must make the run red, not quietly shrink it. Select
tests with -k/-m instead of skipping them.
"""

import os
from collections.abc import Iterator

import pytest

_skipped: list[str] = []


def _record(report: pytest.CollectReport | pytest.TestReport) -> None:
    # An expected failure (xfail) is reported as "skipped" too; it is not a skip.
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _record(report)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _record(report)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives a real browser (it uses the `browser` fixture) is marked
    `browser`, wherever its file is, so `make quick` can leave it out by marker."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped:
        terminalreporter.section("skipped tests fail this run", sep="=", red=True, bold=True)
        terminalreporter.line(
            f"{len(_skipped)} skipped: project policy treats a skipped test as a failure."
        )
        for nodeid in _skipped:
            terminalreporter.line(f"  {nodeid}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Once every fixture of a test is torn down, no database connection of this thread may
    still be inside a transaction: what the next tests write there (a browser test's log-in,
    its table) would never be committed, and the live server would not see it (each of a
    worker's browser tests after such a test found its GM sent to the log-in page)."""
    result = yield
    from django.db import connections

    open_ones = [
        conn.alias
        for conn in connections.all(initialized_only=True)
        if conn.in_atomic_block or (conn.connection is not None and not conn.autocommit)
    ]
    if open_ones:
        raise AssertionError(f"{item.nodeid} left a transaction open on {open_ones}")
    return result


# --- The second CI run: PostgreSQL and Redis must answer, or nothing runs. ---------------


def _service_problems() -> list[str]:
    """Why DATABASE_URL / REDIS_URL, when set, cannot be used by this run (empty if they can)."""
    from django.conf import settings

    problems: list[str] = []
    database_url = os.environ.get("DATABASE_URL")
    if database_url:
        engine = settings.DATABASES["default"]["ENGINE"]
        if engine == "django.db.backends.postgresql":
            import psycopg

            try:
                with psycopg.connect(database_url, connect_timeout=5) as conn:
                    conn.execute("SELECT 1")
            except Exception as e:
                problems.append(f"DATABASE_URL is set but PostgreSQL does not answer: {e}")
        elif engine != "django.db.backends.sqlite3":
            problems.append(f"DATABASE_URL selects {engine}, which this suite does not test.")
    redis_url = os.environ.get("REDIS_URL")
    if redis_url:
        backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
        if "channels_redis" not in backend:
            problems.append(f"REDIS_URL is set but the channel layer is {backend}.")
        import redis

        try:
            redis.Redis.from_url(redis_url, socket_connect_timeout=5, socket_timeout=5).ping()
        except Exception as e:
            problems.append(f"REDIS_URL is set but Redis does not answer: {e}")
    return problems


def pytest_sessionstart(session: pytest.Session) -> None:
    """A run against PostgreSQL and Redis fails at once, and loudly, if either is unreachable.

    Without this, tests that need a service would error one by one (or wait for
    pushes that never come) and the cause would be buried in the output.
    """
    problems = _service_problems()
    if problems:
        pytest.exit(
            "Services for this run are unreachable:\n  " + "\n  ".join(problems),
            returncode=pytest.ExitCode.INTERNAL_ERROR,
        )


def pytest_report_header() -> list[str]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    return [f"database: {db['ENGINE'].rsplit('.', 1)[-1]} {db['NAME']}; channel layer: {layer}"]


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Each test starts with no rate-limit counts (combat/ratelimit.py keeps them in the cache).

    Ids repeat between tests (a rolled-back test frees them), so one test's commands
    would otherwise count against the next one's seat of the same id.
    """
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(scope="session", autouse=True)
def _own_media_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Uploaded files (the map's images) go to a folder of this test process's own.

    Encounter ids repeat between the processes of a parallel run (each has its own test
    database), and stored pictures are named by encounter: in one shared media folder,
    one process's new map would sweep away another's picture of the same encounter id.
    Set before the live server is forked, so daphne writes and serves the same folder.
    """
    from django.test import override_settings

    with override_settings(MEDIA_ROOT=str(tmp_path_factory.mktemp("media"))):
        yield
