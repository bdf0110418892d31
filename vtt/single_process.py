"""One serving process per database while the channel layer is the in-memory one.

The in-memory channel layer lives inside one process. A second server process
on the same database would accept a player's command, commit it, and push the
change only to its own sockets: everyone connected to the first process would
silently stop seeing the table. So a server process on the in-memory layer
takes an exclusive lock named after its database before it serves, and a
second one refuses to start, saying why.

The lock is `flock` on a file in the temporary directory, held by the open
file for the life of the process: the kernel releases it however the process
ends (crash, kill -9), so a stale lock cannot block a restart. The file also
records the pid that holds it, for the message.

Only processes that serve take the lock (daphne's command line, `runserver`,
uvicorn, hypercorn, gunicorn): a test run, a management command or a shell that
imports the application does not, so `make test` can run beside `make run`.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # Windows: no flock; the guard is a no-op there.
    fcntl = None  # type: ignore[assignment]

MESSAGE = "The in-memory channel layer works in one process only; set REDIS_URL to run several"

IN_MEMORY_LAYERS = ("channels.layers.InMemoryChannelLayer", "vtt.layers.InMemoryChannelLayer")

# Modules whose presence means this process is a server about to serve the application.
_SERVER_MODULES = ("daphne.cli", "uvicorn", "hypercorn", "gunicorn.arbiter")

# Open lock files, kept for the life of the process (closing one releases its lock).
_held: dict[str, IO[str]] = {}


class AlreadyServed(RuntimeError):
    """Another live process holds the lock for this database."""

    def __init__(self, key: str, path: Path, holder: str) -> None:
        self.key, self.path, self.holder = key, path, holder
        who = f"process {holder}" if holder else "another process"
        super().__init__(
            f"{MESSAGE}. {who.capitalize()} already serves {key} on the in-memory layer "
            f"(lock file {path})."
        )


def uses_in_memory_layer(channel_layers: dict[str, dict[str, Any]]) -> bool:
    backend = channel_layers.get("default", {}).get("BACKEND", "")
    return backend in IN_MEMORY_LAYERS


def database_key(database: dict[str, Any]) -> str:
    """What names a database: the resolved file of SQLite, otherwise engine, host, port, name."""
    engine = str(database.get("ENGINE", ""))
    name = str(database.get("NAME", ""))
    if engine.endswith("sqlite3"):
        return str(Path(name).expanduser().resolve())
    host = database.get("HOST") or "localhost"
    port = database.get("PORT") or ""
    return f"{engine.rsplit('.', 1)[-1]}://{host}:{port}/{name}"


def lock_path(key: str, directory: Path | None = None) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return (directory or Path(tempfile.gettempdir())) / f"vtt-in-memory-layer-{digest}.lock"


def claim(key: str, directory: Path | None = None) -> Path:
    """Hold the lock for `key` until this process ends; raise AlreadyServed if it is taken."""
    path = lock_path(key, directory)
    if fcntl is None or key in _held:
        return path
    for _ in range(10):
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held open on purpose)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().split(" ", 1)[0].strip()
            handle.close()
            raise AlreadyServed(key, path, holder) from None
        # The holder before us removes the file as it exits: if it did between our open
        # and our lock, we hold a file nobody else will find. Open the new one instead.
        try:
            same = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        handle.close()
    else:
        raise RuntimeError(f"Could not take the lock file {path}.")
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()} {key}\n")
    handle.flush()
    _held[key] = handle
    if len(_held) == 1:
        atexit.register(_release_all, os.getpid())
    return path


def _release_all(pid: int) -> None:
    """On a normal exit, remove the lock files (a killed process leaves one; it is reused)."""
    if os.getpid() != pid:  # a forked child exiting: the files are its parent's
        return
    for key, handle in list(_held.items()):
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        handle.close()
        del _held[key]


def serving(argv: list[str] | None = None) -> bool:
    """Is this process a server that is about to serve the application?"""
    argv = sys.argv if argv is None else argv
    if len(argv) > 1 and argv[1] == "runserver":
        return True
    return any(name in sys.modules for name in _SERVER_MODULES)


def refuse_second_process() -> None:
    """Exit with MESSAGE if another server process already serves this database in memory."""
    from django.conf import settings

    if not uses_in_memory_layer(settings.CHANNEL_LAYERS) or not serving():
        return
    try:
        claim(database_key(settings.DATABASES["default"]))
    except AlreadyServed as e:
        raise SystemExit(str(e)) from None
