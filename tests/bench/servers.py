"""Real server processes for the benchmark and the scale-out tests.

Each server is `python -m daphne -p 0 <app>` in its own process, with its own
environment (so settings are read exactly as in production), logging to a
file. Port 0 lets the kernel pick a free port; daphne logs the one it got.
The process's CPU time and resident memory are read from /proc.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
HOST = "127.0.0.1"

# The local services (see STACK.md); DATABASE_URL / REDIS_URL in the environment win.
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"

_OWN_VARIABLES = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "SERVE_STATIC", "CHANNEL_LAYER_")
_LISTENING = re.compile(r"Listening on TCP address [^\s:]+:(\d+)")
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")

# Production-like: DEBUG off (no SQL kept per query), no HTTPS redirect on loopback.
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "bench-Qm4xT8rVz2LpN6wKc9YhB3sJd7FgA5eU1oXiR0tMnyHkWq",
    "DJANGO_ALLOWED_HOSTS": HOST,
    "DJANGO_SECURE_SSL_REDIRECT": "0",
    # The benchmark's sockets send no heartbeat: a silent one must not be closed mid-run.
    "VTT_PRESENCE_TIMEOUT": "0",
    # Every benchmark socket comes from 127.0.0.1: the spectators of a streamed table
    # (500 at most) would be turned away by the cap per address, which a real audience
    # (each from its own address) never meets.
    "VTT_SPECTATORS_PER_ADDRESS": "1000",
}

# What `make bench` adds to PRODUCTION (not `make bench-flood`, which measures these
# limits: docs/security.md). A benchmark table plays 10 commands a second for half a
# minute, five times a fast fight, from one GM account: the limits against floods
# (commands per account, bytes per audience and second) would turn it into refusals and a
# whole view every 2 s, and the run would measure them instead of the push.
LIMITS_OUT_OF_REACH = {
    "VTT_RATE_COMMANDS": "1000000",
    "VTT_PUSH_BYTES_PER_SECOND": str(1 << 30),
    "VTT_PUSH_BYTES_BURST": str(1 << 30),
}


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without any of the project's variables, plus `values`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_VARIABLES)}
    env["DJANGO_SETTINGS_MODULE"] = "vtt.settings"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(values)
    return env


def postgres_url() -> str:
    return os.environ.get("DATABASE_URL") or DEFAULT_POSTGRES


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or DEFAULT_REDIS


def unique_name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:6]}"


# --- PostgreSQL databases of our own ------------------------------------------------------


def _admin_connect(url: str):
    import psycopg

    from_url = psycopg.conninfo.conninfo_to_dict(url)
    from_url["dbname"] = "postgres"
    return psycopg.connect(**from_url, autocommit=True, connect_timeout=10)


def create_postgres_database(name: str, url: str | None = None) -> str:
    """A new, empty PostgreSQL database on the server of `url`; returns its URL."""
    url = url or postgres_url()
    with _admin_connect(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    base = url.rsplit("/", 1)[0]
    return name, f"{base}/{name}"


def drop_postgres_database(name: str, url: str | None = None) -> None:
    with _admin_connect(url or postgres_url()) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def drop_postgres_database_later(name: str, url: str | None = None) -> None:
    """Drop in a process of its own: a drop waits for a checkpoint, nobody needs to wait."""
    code = (
        "import sys; from tests.bench.servers import drop_postgres_database as d; "
        "d(sys.argv[1], sys.argv[2])"
    )
    # Through a shell that exits at once: the drop outlives this process, unwaited.
    subprocess.run(
        [
            "sh",
            "-c",
            '"$0" "$@" >/dev/null 2>&1 &',
            PYTHON,
            "-c",
            code,
            name,
            url or postgres_url(),
        ],
        cwd=ROOT,
        check=True,
    )


def _migrations_digest() -> str:
    import django

    h = hashlib.sha256(django.__version__.encode())
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def migrated_postgres_database(
    prefix: str, env: Mapping[str, str], url: str | None = None
) -> tuple[str, str]:
    """A new database of the current schema, copied from a migrated template: (name, URL).

    The template (`vtt_tpl_<digest of the migrations>`) is made and migrated once per
    schema, under an advisory lock so that concurrent runs do not both make it; each run
    then copies it, which takes a fraction of a second where migrating takes seconds.
    """
    url = url or postgres_url()
    base = url.rsplit("/", 1)[0]
    template = f"vtt_tpl_{_migrations_digest()}"
    name = unique_name(prefix)
    with _admin_connect(url) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (template,))
        try:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (template,)
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{template}"')
                try:
                    migrate({**env, "DATABASE_URL": f"{base}/{template}"})
                except BaseException:
                    conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
                    raise
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (template,))
    return name, f"{base}/{name}"


def migrated_sqlite_file(dest: Path, env: Mapping[str, str]) -> Path:
    """`dest`, a copy of an SQLite database migrated once per schema (kept in the temp dir)."""
    template = Path(tempfile.gettempdir()) / f"vtt-bench-template-{_migrations_digest()}.sqlite3"
    if not template.exists():
        scratch = template.with_suffix(f".{os.getpid()}.tmp")
        migrate({**env, "DATABASE_URL": f"sqlite:///{scratch}"})
        # One file (no -wal beside it), renamed into place whole: a concurrent run sees
        # either no template or a complete one.
        with sqlite3.connect(scratch) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode=DELETE")
        os.replace(scratch, template)
    shutil.copyfile(template, dest)
    return dest


def manage(env: Mapping[str, str], *args: str, timeout: float = 120) -> None:
    """Run `manage.py args` in the project with `env`; raise with its output if it fails."""
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{args[0]} failed:\n{result.stdout}\n{result.stderr}")


def collect_static(env: Mapping[str, str]) -> None:
    """Production pages link hashed static names: write them (and the manifest) first."""
    manage(env, "collectstatic", "--noinput", "-v", "0")


def embedded_folder(prefix: str) -> tuple[Path, dict[str, str]]:
    """A new folder with a migrated SQLite database and the collected static files, and the
    production environment that serves them (what a one-off benchmark server runs on)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    env = clean_env(
        **PRODUCTION,
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        DJANGO_STATIC_ROOT=str(folder / "static"),
    )
    migrated_sqlite_file(folder / "db.sqlite3", env)
    collect_static(env)
    return folder, env


def migrate(env: Mapping[str, str], timeout: float = 120) -> None:
    manage(env, "migrate", "--noinput", "-v", "0", timeout=timeout)


def run_module(module: str, env: Mapping[str, str], stdin: str = "", timeout: float = 300) -> str:
    """Run `python -m module` in the project with `env`; its standard output."""
    result = subprocess.run(
        [PYTHON, "-m", module],
        cwd=ROOT,
        env=dict(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{module} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


# --- daphne ------------------------------------------------------------------------------


@dataclass
class Daphne:
    """One daphne process serving `app` with `env`."""

    app: str
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    _log: object = field(default=None, repr=False)

    def start(self) -> Daphne:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop())
        self._log = log
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "daphne", "-b", HOST, "-p", "0", self.app],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        return self

    def wait_ready(self, timeout: float = 60) -> Daphne:
        """Wait until daphne listens; raise with its log if it stops or takes too long."""
        deadline = time.monotonic() + timeout
        assert self.proc is not None
        while time.monotonic() < deadline:
            m = _LISTENING.search(self.log_text())
            if m:
                self.port = int(m.group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"daphne ({self.app}) exited with {self.proc.returncode}:\n{self.log_text()}"
                )
            time.sleep(0.05)
        raise RuntimeError(f"daphne ({self.app}) did not listen in {timeout} s:\n{self.log_text()}")

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self) -> float:
        """User plus system CPU time of the process so far (/proc/<pid>/stat)."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # After the command name: state is field 3, utime 14 and stime 15 (1-based).
        return (int(fields[11]) + int(fields[12])) / _TICKS

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE

    def stop(self, timeout: float = 10) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        if self._log is not None:
            self._log.close()  # type: ignore[attr-defined]
            self._log = None
        return self.proc.returncode


def start_all(servers: list[Daphne], timeout: float = 60) -> list[Daphne]:
    """Start several servers at once (they import Django in parallel) and wait for each."""
    for s in servers:
        s.start()
    try:
        for s in servers:
            s.wait_ready(timeout)
    except BaseException:
        for s in servers:
            s.stop()
        raise
    return servers
