"""Who has a socket open: one row per socket, refreshed by the page's heartbeat.

A row unseen for longer than a socket may stay silent no longer counts (a server that
crashed never said goodbye), so the count a GM sees heals by itself. A live socket that
goes silent is dropped by its own consumer (combat/consumers.py) and the GM told at once.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from combat.access import PLAYER, SPECTATOR, Viewer
from combat.models import Encounter, Presence, Seat

FORGET = timedelta(minutes=30)


def stale() -> timedelta:
    """How long a row counts without a heartbeat: the sockets' own limit (40 s by default),
    or 75 s where sockets are never closed for silence."""
    return timedelta(seconds=settings.PRESENCE_TIMEOUT_SECONDS or 75)


def live(encounter_id: int) -> QuerySet[Presence]:
    return Presence.objects.filter(
        encounter_id=encounter_id, last_seen__gte=timezone.now() - stale()
    )


def join(viewer: Viewer, channel_name: str) -> None:
    now = timezone.now()
    Presence.objects.filter(last_seen__lt=now - FORGET).delete()
    role = {PLAYER: Presence.PLAYER, SPECTATOR: Presence.SPECTATOR}.get(viewer.role, Presence.GM)
    Presence.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "encounter_id": viewer.encounter_id,
            "role": role,
            "seat_id": viewer.seat_id,
            "last_seen": now,
        },
    )


def admit(viewer: Viewer, channel_name: str, cap: int | None) -> bool:
    """Join the list of who is connected, unless the viewer's link already holds `cap` live
    sockets (no cap: always). False means "crowded": nothing was written.

    The count and the new row are one transaction under a lock on the link's row (the
    seat, or the encounter for the spectators' link; on SQLite the IMMEDIATE transaction
    is the lock), so sockets opened at once, in one process or several, are admitted one
    after the other: of 21 opened together on a link that takes 20, exactly one is refused.
    """
    with transaction.atomic():
        if cap is not None:
            link = (
                Seat.objects.filter(pk=viewer.seat_pk)
                if viewer.role == PLAYER
                else Encounter.objects.filter(pk=viewer.encounter_id)
            )
            list(link.select_for_update().values_list("pk", flat=True))
            if on_link(viewer) >= cap:
                return False
        join(viewer, channel_name)
    return True


def touch(channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).update(last_seen=timezone.now())


def leave(channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).delete()


def rows(encounter_id: int) -> list[tuple[str, int | None]]:
    """(role, seat id) of each live socket of the encounter."""
    return list(live(encounter_id).values_list("role", "seat_id"))


def audiences(
    encounter_id: int, live_rows: list[tuple[str, int | None]] | None = None
) -> tuple[bool, set[int], bool]:
    """Which audiences have anyone connected: (GM, seat ids, spectators)."""
    gm, seats, public = False, set(), False
    for role, seat_id in rows(encounter_id) if live_rows is None else live_rows:
        if role == Presence.GM:
            gm = True
        elif role == Presence.PLAYER and seat_id:
            seats.add(seat_id)
        elif role == Presence.SPECTATOR:
            public = True
    return gm, seats, public


def on_link(viewer: Viewer) -> int:
    """How many live sockets share this viewer's link (a seat's, or the spectators')."""
    if viewer.role == PLAYER:
        seat = viewer.seat_pk
        return live(viewer.encounter_id).filter(role=Presence.PLAYER, seat_id=seat).count()
    if viewer.role == SPECTATOR:
        return live(viewer.encounter_id).filter(role=Presence.SPECTATOR).count()
    return 0
