"""Who has a socket open: one row per socket, refreshed by the page's heartbeat.

A row unseen for longer than a socket may stay silent no longer counts (a server that
crashed never said goodbye), so the count a GM sees heals by itself. A live socket that
goes silent is dropped by its own consumer (combat/consumers.py) and the GM told at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

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


def join(viewer: Viewer, channel_name: str, address: str = "") -> None:
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
            "address": address[:64],
        },
    )


@dataclass(frozen=True)
class Crowded:
    """Why a socket was turned away: its link is full (`LINK`), or its address already
    holds as many of the link's sockets as one address may (`ADDRESS`); `cap` is that
    number."""

    LINK: ClassVar[str] = "link"
    ADDRESS: ClassVar[str] = "address"

    why: str
    cap: int


def admit(
    viewer: Viewer,
    channel_name: str,
    cap: int | None,
    *,
    address: str = "",
    per_address: int | None = None,
) -> Crowded | None:
    """Join the list of who is connected, unless the viewer's link already holds its cap
    of live sockets, or (spectators) the client's address holds `per_address` of them.
    None means admitted; a Crowded says why not, and then nothing was written.

    A seat's cap is `cap` (None: no cap, the GM's). The spectators' cap is the one the GM
    set on the encounter (`Encounter.spectator_limit`), read under the lock below, so a
    change counts from the next connect. A socket whose server did not say the client's
    address ("") is counted on the link only.

    The counts and the new row are one transaction under a lock on the link's row (the
    seat, or the encounter for the spectators' link; on SQLite the IMMEDIATE transaction
    is the lock), so sockets opened at once, in one process or several, are admitted one
    after the other: of 21 opened together on a link that takes 20, exactly one is refused.
    """
    with transaction.atomic():
        if viewer.role == SPECTATOR:
            locked = Encounter.objects.select_for_update().filter(pk=viewer.encounter_id)
            cap = next(iter(locked.values_list("spectator_limit", flat=True)), cap)
        elif cap is not None:
            list(
                Seat.objects.select_for_update()
                .filter(pk=viewer.seat_pk)
                .values_list("pk", flat=True)
            )
        if cap is not None and on_link(viewer) >= cap:
            return Crowded(Crowded.LINK, cap)
        by_address = viewer.role == SPECTATOR and address and per_address is not None
        if by_address and on_link(viewer, address=address) >= (per_address or 0):
            return Crowded(Crowded.ADDRESS, per_address or 0)
        # Only a spectator's address is kept (what the cap counts); rows are forgotten
        # with the socket, or FORGET after a crash.
        join(viewer, channel_name, address if viewer.role == SPECTATOR else "")
    return None


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


def on_link(viewer: Viewer, address: str | None = None) -> int:
    """How many live sockets share this viewer's link (a seat's, or the spectators'); with
    an address, only those from it (spectators)."""
    if viewer.role == PLAYER:
        seat = viewer.seat_pk
        return live(viewer.encounter_id).filter(role=Presence.PLAYER, seat_id=seat).count()
    if viewer.role == SPECTATOR:
        spectators = live(viewer.encounter_id).filter(role=Presence.SPECTATOR)
        if address is not None:
            spectators = spectators.filter(address=address)
        return spectators.count()
    return 0
