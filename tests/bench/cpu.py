"""Server CPU of one command, in process:
`python -m tests.bench.cpu [N] [--tables T] [--profile FILE]`.

Builds the benchmark's `table` (an Action Points encounter: six heroes and an Ogre, a seat
per hero) in a database of its own, T of them with --tables (the fleet's fifty, say), marks
the GM, every seat and the spectators as connected, then plays the benchmark's cycle (each
hero a Basic Attack on the Ogre then End Turn, the GM the Ogre's End Turn), the tables
taking turns, N commands in all through `services.run_command`, each
followed by its push (`broadcast.publish`: every audience's frame, rendered, kept in the
history and sent). Prints the CPU per command; with --profile, writes cProfile's stats
(read them with `python -m pstats FILE`) and prints the top functions by cumulative time.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

_ready = False


def setup() -> None:
    """A database of its own, migrated, production settings (DEBUG off); once."""
    global _ready
    if _ready:
        return
    _ready = True
    folder = Path(tempfile.mkdtemp(prefix="vtt-cpu-"))
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "vtt.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench-Qm4xT8rVz2LpN6wKc9YhB3sJd7FgA5eU1oXiR0tMnyHkWq",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        }
    )
    for k in ("REDIS_URL",):
        os.environ.pop(k, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def main() -> None:
    args = sys.argv[1:]
    profile = None
    if "--profile" in args:
        i = args.index("--profile")
        profile = args[i + 1]
        del args[i : i + 2]
    tables = 1
    if "--tables" in args:
        i = args.index("--tables")
        tables = int(args[i + 1])
        del args[i : i + 2]
    n = int(args[0]) if args else 90
    setup()
    from django.utils import timezone

    from combat import services
    from combat.access import gm_viewer, seat_viewer
    from combat.models import Encounter, Presence, Seat
    from tests.bench.fixtures import build

    # Seen a day ahead: no one drops out of the push while a slow (profiled) run lasts.
    now = timezone.now() + timedelta(days=1)
    cycles = []
    for made in build({"tables": {"table": tables}, "players": 6})["tables"]["table"]:
        enc = Encounter.objects.get(pk=made["id"])
        rows = [
            Presence(encounter=enc, role=Presence.GM, channel_name=f"gm{enc.pk}", last_seen=now)
        ]
        for s in Seat.objects.filter(encounter=enc):
            rows.append(
                Presence(
                    encounter=enc,
                    role=Presence.PLAYER,
                    seat=s,
                    channel_name=f"s{s.pk}",
                    last_seen=now,
                )
            )
        rows += [
            Presence(
                encounter=enc, role=Presence.SPECTATOR, channel_name=f"x{enc.pk}.{i}", last_seen=now
            )
            for i in range(3)
        ]
        Presence.objects.bulk_create(rows)
        seats = {s["actor"]: Seat.objects.get(token=s["token"]) for s in made["seats"]}
        cycle = []
        for s in made["seats"]:
            v = seat_viewer(seats[s["actor"]])
            attack = {
                "type": "act",
                "actor": s["actor"],
                "action": "basic_attack",
                "target": made["npc"],
            }
            cycle.append((enc.pk, v, attack))
            cycle.append((enc.pk, v, {"type": "end_turn", "actor": s["actor"]}))
        cycle.append((enc.pk, gm_viewer(enc), {"type": "end_turn", "actor": made["npc"]}))
        cycles.append(cycle)

    def play(count: int, start: int) -> None:
        # Round robin: each table its next command in turn, as a fleet's tables interleave.
        for i in range(start, start + count):
            cycle = cycles[i % len(cycles)]
            pk, viewer, command = cycle[(i // len(cycles)) % len(cycle)]
            done = services.run_command(pk, viewer, command)
            assert done.ok, done.refusal

    cycle_len = len(cycles[0]) * len(cycles)
    play(cycle_len, 0)  # warm: templates compiled, every audience's digests kept
    t0 = time.process_time()
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile(time.process_time)
        prof.enable()
        play(n, cycle_len)
        prof.disable()
        prof.dump_stats(profile)
    else:
        play(n, cycle_len)
    spent = time.process_time() - t0
    print(
        f"{n} commands over {tables} table(s), {spent / n * 1000:.1f} ms of CPU per command"
        " (push included)"
    )
    if profile:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
