"""Who is looking: the GM, a player's seat, or a spectator, resolved from the request.

Every view, API endpoint and socket asks one of these functions first. The seat
comes from the secret link or the bearer token, never from the payload.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.http import Http404

from combat.models import Encounter, Seat

GM: Literal["gm"] = "gm"
PLAYER: Literal["player"] = "player"
SPECTATOR: Literal["spectator"] = "spectator"

Role = Literal["gm", "player", "spectator"]


@dataclass(frozen=True)
class Viewer:
    """A person at the table, as far as the server is concerned."""

    role: Role
    encounter_id: int
    seat_id: int | None = None
    user_id: int | None = None

    @property
    def audience(self) -> str:
        """The rules engine's audience name for redaction."""
        return {GM: "gm", PLAYER: "player", SPECTATOR: "public"}[self.role]

    @property
    def is_gm(self) -> bool:
        return self.role == GM

    @property
    def seat_pk(self) -> int:
        """The seat of a player viewer (a bug to ask for anyone else's)."""
        if self.seat_id is None:
            raise ValueError(f"A {self.role} viewer has no seat.")
        return self.seat_id


def gm_viewer(enc: Encounter) -> Viewer:
    return Viewer(GM, enc.pk, user_id=enc.owner_id)


def seat_viewer(seat: Seat) -> Viewer:
    return Viewer(PLAYER, seat.encounter_id, seat_id=seat.pk)


def spectator_viewer(enc: Encounter) -> Viewer:
    return Viewer(SPECTATOR, enc.pk)


def gm_encounter(user, encounter_id: int) -> Encounter:
    """The encounter if `user` is its GM; 404 otherwise (an outsider learns nothing)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such encounter.")
    try:
        return Encounter.objects.get(pk=encounter_id, owner_id=user.pk)
    except Encounter.DoesNotExist:
        raise Http404("No such encounter.") from None


def seat_by_token(token: str) -> Seat:
    """The live seat behind a player link; 404 for an unknown or revoked link."""
    seat = Seat.objects.select_related("encounter").filter(token=token, revoked=False).first()
    if seat is None:
        raise Http404("This player link is not valid (it may have been revoked).")
    return seat


def encounter_by_spectator_token(token: str) -> Encounter:
    enc = Encounter.objects.filter(spectator_token=token).first() if token else None
    if enc is None:
        raise Http404("This spectator link is not valid (it may have been replaced).")
    return enc


def still_valid(viewer: Viewer, token: str | None) -> bool:
    """Re-check a socket's credentials: a revoked seat or a replaced link stops at once."""
    if viewer.role == PLAYER:
        return Seat.objects.filter(pk=viewer.seat_pk, token=token, revoked=False).exists()
    if viewer.role == SPECTATOR:
        return Encounter.objects.filter(pk=viewer.encounter_id, spectator_token=token).exists()
    return Encounter.objects.filter(pk=viewer.encounter_id, owner_id=viewer.user_id).exists()
