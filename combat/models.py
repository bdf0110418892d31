"""What the table keeps in the database.

The whole rules state of an encounter lives in one JSON column
(`combat.rules.Encounter.to_dict()`), next to a version that grows by one on
every change anyone can see. Seats and the spectator link are secret tokens;
the log keeps every command with what it takes to get the state from before it back
(a patch, combat/statediff.py), for the GM's undo.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.db import models


def new_token() -> str:
    """A secret for a link: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


# The spectators' link holds at most this many sockets unless the GM sets another number
# (a room's TV and a stream's audience: a Discord of 50 fits; the most is 1,000).
SPECTATOR_LIMIT_DEFAULT = 100
SPECTATOR_LIMIT_RANGE = (1, 1000)


class Encounter(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="encounters"
    )
    name = models.CharField(max_length=80)
    ruleset = models.CharField(max_length=40)
    state = models.JSONField()
    version = models.PositiveIntegerField(default=1)
    # None turns the spectator link off.
    spectator_token = models.CharField(
        max_length=64, unique=True, null=True, blank=True, default=new_token
    )
    # Whether the spectators' link shows the table talk said to everyone (combat/chat.py).
    chat_spectators = models.BooleanField(default=False)
    # Whether those spectators may also write (each under a name kept in their browser).
    chat_spectators_write = models.BooleanField(default=False)
    # Sockets the spectators' link may hold at once, set by the GM (combat/presence.py).
    spectator_limit = models.PositiveSmallIntegerField(default=SPECTATOR_LIMIT_DEFAULT)
    # The spectators the GM muted: their id (kept in their browser session) -> their name.
    chat_muted = models.JSONField(default=dict, blank=True)
    # The stored file of the map's background image (its name in default_storage), or
    # "": the state names it by content hash (combat/board_image.py).
    board_image = models.CharField(max_length=200, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset})"


class Seat(models.Model):
    """A player's place at the table: a secret link and the combatants it controls."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="seats")
    name = models.CharField(max_length=80)
    token = models.CharField(max_length=64, unique=True, default=new_token)
    combatant_ids = models.JSONField(default=list, blank=True)
    revoked = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    def controls(self, cid: str | None) -> bool:
        return cid is not None and cid in self.combatant_ids


class LogEntry(models.Model):
    """One accepted command: what was asked, by whom, what happened, and the state before."""

    COMMAND = "command"
    UNDO = "undo"
    # History brought in with an imported encounter (combat/library.py): read, never undone.
    IMPORTED = "imported"
    KINDS = [(COMMAND, "Command"), (UNDO, "Undo"), (IMPORTED, "Imported")]

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=KINDS, default=COMMAND)
    command = models.JSONField()
    by = models.CharField(max_length=10)  # "gm" or "player"
    seat = models.ForeignKey(Seat, on_delete=models.SET_NULL, null=True, blank=True)
    events = models.JSONField(default=list)
    # The state before the command, kept compactly (combat/statediff.py): `state_patch`
    # turns the state after this entry back into the state before it ([] when the entry
    # changed nothing, as a roll or an imported entry). Rows written before patches keep
    # a whole copy in `state_before` instead (and no patch); both are read by
    # statediff.before_of.
    state_before = models.JSONField(null=True, blank=True)
    state_patch = models.JSONField(null=True, blank=True)
    # False for a command that changed no state (a roll): undo passes over it.
    changed = models.BooleanField(default=True)
    undone = models.BooleanField(default=False)
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    request_hash = models.CharField(max_length=64, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["encounter", "seq"], name="log_seq_unique"),
            models.UniqueConstraint(
                fields=["encounter", "idempotency_key"], name="log_idempotency_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.command.get('type', '?')}"


class ApiToken(models.Model):
    """A GM's key for the JSON API. Only its hash is stored; the key is shown once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=80, default="API token")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user: Any, name: str = "API token") -> tuple[ApiToken, str]:
        raw = "vtt_" + secrets.token_urlsafe(32)
        return cls.objects.create(
            user=user, name=name, key_hash=hash_token(raw), prefix=raw[4:10]
        ), raw


class Presence(models.Model):
    """One open socket. Rows not seen for a while count as gone (a crashed server leaves some)."""

    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="presence")
    channel_name = models.CharField(max_length=200, unique=True)
    role = models.CharField(max_length=10)
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, null=True, blank=True)
    last_seen = models.DateTimeField()
    # A spectator's address as the server was told it, for the cap per address; "" for
    # the GM and players, and when the server did not say.
    address = models.CharField(max_length=64, blank=True, default="")


class CombatantTemplate(models.Model):
    """A combatant a GM saved to add again, to any of their encounters (see combat/library.py).

    `data` holds the fields of an `add_combatant` command (side, hp, stats, ...) as they
    were when saved; `ruleset` is where it came from, so settings another ruleset does
    not know can be left out when it is added there.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="combatant_templates"
    )
    name = models.CharField(max_length=80)
    ruleset = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="template_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class ChatMessage(models.Model):
    """One line of table talk (combat/chat.py): said to everyone, or whispered.

    A whisper always reaches the GM; `recipients` are the seats it is also for (none: the
    GM only). Its author's seat sees it too. `roll` is a server-side roll (/r, /gr):
    the dice module's `Roll.to_dict()`. A deleted message stays, marked, so everyone's
    page can say "deleted by the GM" in its place.
    """

    GM = "gm"
    SEAT = "seat"
    SPECTATOR = "spectator"
    AUTHOR_KINDS = [(GM, "GM"), (SEAT, "Seat"), (SPECTATOR, "Spectator")]

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="chat")
    created = models.DateTimeField(auto_now_add=True)
    author_kind = models.CharField(max_length=10, choices=AUTHOR_KINDS)
    author_seat = models.ForeignKey(
        Seat, on_delete=models.SET_NULL, null=True, blank=True, related_name="chat_said"
    )
    author_name = models.CharField(max_length=200)
    # A spectator's id (random, kept in their browser session), so the GM can mute them.
    author_spectator = models.CharField(max_length=40, blank=True, default="")
    text = models.CharField(max_length=500, blank=True)
    roll = models.JSONField(null=True, blank=True)
    whisper = models.BooleanField(default=False)
    recipients = models.ManyToManyField(Seat, blank=True, related_name="chat_whispers")
    deleted = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.author_name}: {self.text[:40]}"


class ConfirmedEmail(models.Model):
    """The e-mail address an account's owner confirmed by following the link mailed to it.
    A password reset goes only to the account's address when it is this one."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="confirmed_email"
    )
    email = models.EmailField()
    confirmed = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.email


def confirmed_email(user: Any) -> str:
    """The account's address if its owner confirmed it, else ""."""
    row = ConfirmedEmail.objects.filter(user_id=user.pk).first()
    if row is None or not user.email or row.email.lower() != user.email.lower():
        return ""
    return str(user.email)
