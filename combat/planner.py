"""Imports are worked out in a process of their own, one at a time per server process.

Checking the largest import allowed runs the rules engine over every combatant and log
entry: over a second of pure Python. In the server's process it shared the interpreter
lock with every other request, and another table's commands, each waiting for the lock
again after every database query, went from 11 ms to 300 ms while it ran (issue 36,
docs/security.md, `make bench ARGS=imports`). Here it runs in a second process, started
on the first import and kept; the server's thread waits for the answer without holding
the lock. The rows come back packed in slices, each unpacked just before it is written
in its own short transaction (`library.write_slices`): the server never holds the lock,
nor SQLite's one write lock, for long.

This module imports nothing of Django's at load time: the planning process loads it
before its initializer has set Django up.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from combat.models import Encounter
    from combat.rules import Encounter as State

log = logging.getLogger(__name__)

TIMEOUT = 120  # seconds; far above what the largest import allowed takes

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def _start() -> None:
    """In the planning process: Django's settings and apps, as the server has them (the
    settings module comes with the environment)."""
    import django

    django.setup()


@dataclass
class Packed:
    """A worked-out import as it travels back: the final state, how many commands its log
    holds, its rows pickled in slices of `library.ROWS_PER_WRITE`, and whether the fight
    was resumed as it stood (rather than set up anew)."""

    state: State
    commands: int
    slices: list[bytes]
    resumed: bool = False
    chat: bytes = b""
    spectator_limit: int | None = None  # None: the default


def _work_out(raw: bytes, resume: bool) -> Packed:
    from combat.library import (
        ROWS_PER_WRITE,
        can_resume,
        commands_in,
        parse_export,
        plan_import,
        plan_resume,
    )

    data = parse_export(raw)
    resumed = resume and can_resume(data)
    plan = plan_resume(data) if resumed else plan_import(data)
    rows = plan.rows
    return Packed(
        plan.state,
        commands_in(rows),
        [pickle.dumps(rows[i : i + ROWS_PER_WRITE]) for i in range(0, len(rows), ROWS_PER_WRITE)],
        resumed,
        pickle.dumps(plan.chat),
        plan.spectator_limit,
    )


def _process() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            # Spawned, not forked: the server process has threads (daphne's, the database's).
            _pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_start
            )
        return _pool


def import_upload(user: Any, raw: bytes, *, resume: bool = False) -> tuple[Encounter, bool]:
    """A new encounter of `user`'s from the uploaded export `raw`, and whether its fight was
    resumed as it stood (asked with `resume`, and possible when the file carries its
    state): parsed and checked (`library.parse_export`, `library.plan_resume` or
    `library.plan_import`) in the planning process, then written here. Refusals
    (`NotAnExport`) come back as they are."""
    from combat.library import NotAnExport, write_slices

    global _pool
    try:
        packed = _process().submit(_work_out, raw, resume).result(timeout=TIMEOUT)
    except BrokenProcessPool:
        with _lock:
            _pool = None  # the next import starts a new process
        log.exception("The import's planning process stopped")
        raise NotAnExport(
            "the import could not be checked (the server's helper process stopped). Try "
            "again; if it happens again, tell whoever runs the server."
        ) from None
    except TimeoutError:
        raise NotAnExport(f"checking the import took longer than {TIMEOUT} s.") from None
    slices = (pickle.loads(rows) for rows in packed.slices)
    chat = pickle.loads(packed.chat) if packed.chat else []
    limit = {} if packed.spectator_limit is None else {"spectator_limit": packed.spectator_limit}
    enc = write_slices(user, packed.state, packed.commands, slices, chat, **limit)
    return enc, packed.resumed
