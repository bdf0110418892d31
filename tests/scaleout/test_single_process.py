"""On the in-memory channel layer, a second server process on the same database refuses to start.

Real daphne processes, each with DATABASE_URL naming an SQLite file of this
test's own (so a `make run` in this checkout is never in the way) and no
REDIS_URL: the in-memory layer.
"""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.servers import ROOT, Daphne, clean_env
from vtt import single_process
from vtt.single_process import MESSAGE, AlreadyServed, claim, database_key, lock_path

pytestmark = pytest.mark.scaleout

APP = "vtt.asgi:application"


def sqlite_env(db: Path) -> dict[str, str]:
    return clean_env(DATABASE_URL=f"sqlite:///{db}")


def test_a_second_process_on_the_in_memory_layer_exits_saying_why(tmp_path: Path) -> None:
    first = Daphne(APP, sqlite_env(tmp_path / "table.sqlite3"), tmp_path / "first.log")
    second = Daphne(APP, sqlite_env(tmp_path / "table.sqlite3"), tmp_path / "second.log")
    other = Daphne(APP, sqlite_env(tmp_path / "other.sqlite3"), tmp_path / "other.log")
    again = Daphne(APP, sqlite_env(tmp_path / "table.sqlite3"), tmp_path / "again.log")
    try:
        first.start().wait_ready()

        # Same database: refused before it listens. Another database: no conflict.
        second.start()
        other.start()
        assert second.proc is not None
        assert second.proc.wait(60) == 1
        log = second.log_text()
        assert MESSAGE in log
        assert f"Process {first.pid} already serves" in log
        assert str(tmp_path / "table.sqlite3") in log
        assert "Listening on TCP address" not in log
        other.wait_ready()
        assert first.alive()

        # The lock dies with its process (however it ends): a new one may start at once.
        assert first.proc is not None
        first.proc.kill()
        first.proc.wait(10)
        again.start().wait_ready()
    finally:
        for s in (first, second, other, again):
            s.stop()
        for db in ("table.sqlite3", "other.sqlite3"):  # the lock files, now free
            key = database_key({"ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / db})
            lock_path(key).unlink(missing_ok=True)


def test_the_lock_is_per_database_and_released_with_its_holder(tmp_path: Path) -> None:
    key = database_key({"ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / "x.sqlite3"})
    path = lock_path(key, tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from vtt.single_process import claim; "
            "claim(sys.argv[1], __import__('pathlib').Path(sys.argv[2])); "
            "print('held', flush=True); time.sleep(60)",
            key,
            str(tmp_path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 30)
        assert ready, "the lock holder said nothing within 30 s"
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(AlreadyServed) as refused:
            claim(key, tmp_path)
        assert refused.value.holder == str(holder.pid)
        assert MESSAGE in str(refused.value)
        other = database_key({"ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / "y.db"})
        assert lock_path(other, tmp_path) != path
    finally:
        holder.kill()
        holder.wait(10)
        if holder.stdout is not None:
            holder.stdout.close()
    claim(key, tmp_path)  # free again once the holder is gone
    single_process._held.pop(key).close()


def test_only_server_processes_take_the_lock() -> None:
    # A shell, a test run or a management command imports the application without serving:
    # in a fresh interpreter (this test process may have imported daphne's command line
    # for a test of its own), loading the whole application loads no server.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, django; django.setup(); import vtt.asgi; "
            "from vtt import single_process; "
            "print(single_process.serving(['manage.py', 'shell']), 'daphne.cli' in sys.modules)",
        ],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == ["False", "False"]
    assert single_process.serving(["manage.py", "runserver"])


def test_postgresql_databases_are_named_by_server_and_name() -> None:
    a = database_key({"ENGINE": "django.db.backends.postgresql", "HOST": "db", "NAME": "vtt"})
    b = database_key({"ENGINE": "django.db.backends.postgresql", "HOST": "db2", "NAME": "vtt"})
    assert a == "postgresql://db:/vtt" and a != b
