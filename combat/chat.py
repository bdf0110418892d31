"""Table talk: messages said to everyone or whispered, and dice rolled in the open or aside.

Who sees a message (docs/decisions.md, "Table talk"):

- said to everyone: the GM, every seat, and the spectators if the GM lets them read chat
  (off by default, `Encounter.chat_spectators`);
- a whisper: the GM, the seats it names, and the seat that wrote it. Nobody else: it is
  in no other seat's or spectator's page, pushed fragment or export but the GM's.

Each reader's list is built for that reader by one query (`visible`), never filtered
after rendering. A new message is pushed alone, as one small fragment per audience
that may see it (`push_new`), after the transaction that stored it commits.

What a person types is checked here (`parse`): 1 to 500 characters after trimming, no
control characters; `/r 2d6+3 label` rolls in the open, `/gr 1d20` rolls for the GM
only, `/w <seat name> text` whispers to one seat. A refusal is a sentence, and nothing
is stored.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.template.loader import render_to_string

from combat.access import GM, PLAYER, SPECTATOR, Viewer
from combat.models import ChatMessage, Encounter, Seat
from combat.rules import Encounter as State
from combat.rules import dice

MAX_TEXT = 500
PAGE = 50
# At most this many messages in so many seconds, per seat and per GM account.
DEFAULT_RATE = (5, 10)


def rate() -> tuple[int, int]:
    """(messages, seconds): VTT_RATE_CHAT if set, else DEFAULT_RATE."""
    most, window = getattr(settings, "VTT_RATE_CHAT", DEFAULT_RATE)
    return int(most), int(window)


class ChatRefused(ValueError):
    """Why a message was not sent, in words for the person who typed it."""


@dataclass
class Parsed:
    """What a typed line asks for: its text, a roll, and who it is for."""

    text: str
    roll: dict[str, Any] | None = None
    whisper: bool = False
    recipients: list[int] = field(default_factory=list)


def _control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in text)


def _roll(expr_and_label: str, rng: random.Random, command: str) -> tuple[str, dict[str, Any]]:
    """Roll `2d6+3 label` (the expression is the first word); (label, roll as JSON)."""
    expr, _, label = expr_and_label.strip().partition(" ")
    if not expr:
        raise ChatRefused(f"Say which dice to roll after {command}, e.g. {command} 2d6+3.")
    try:
        outcome = dice.roll(expr, rng)
    except dice.DiceError as e:
        raise ChatRefused(f"Those dice cannot be rolled: {e.rule}") from None
    return label.strip(), outcome.to_dict()


def parse(
    raw: Any,
    viewer: Viewer,
    seats: list[Seat],
    chosen: list[str],
    rng: random.Random,
) -> Parsed:
    """Check and read one typed line; ChatRefused with a sentence if it cannot be sent.

    `chosen` is the whisper select: "all" (or nothing) for everyone, "gm" for the GM only,
    seat ids (the GM only) for those seats.
    """
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        raise ChatRefused("Type a message first: it is empty.")
    if len(text) > MAX_TEXT:
        raise ChatRefused(
            f"That message is {len(text)} characters long; at most {MAX_TEXT} can be sent."
        )
    if _control(text):
        raise ChatRefused(
            "That message holds control characters (invisible ones such as a tab or a "
            "line break); type it as plain text."
        )
    live = {s.pk: s for s in seats if not s.revoked}
    word, _, rest = text.partition(" ")
    command = word.lower()
    if viewer.role == SPECTATOR and (
        command in ("/gr", "/w") or any(c and c != "all" for c in chosen)
    ):
        raise ChatRefused("A spectator speaks to everyone: no whispers and no rolls for the GM.")
    whisper, recipients = _recipients(viewer, live, chosen)
    roll = None
    if command == "/r":
        text, roll = _roll(rest, rng, "/r")
    elif command == "/gr":
        text, roll = _roll(rest, rng, "/gr")
        whisper, recipients = True, []
    elif command == "/w":
        whisper, recipients, text = True, *_whisper_to(viewer, live, rest)
    elif command.startswith("/"):
        raise ChatRefused(
            "That is not a chat command: use /r 2d6+3 to roll, /gr 1d20 to roll for the GM "
            "only, /w <seat name> to whisper, or write without a leading slash."
        )
    return Parsed(text=text, roll=roll, whisper=whisper, recipients=recipients)


def _recipients(viewer: Viewer, live: dict[int, Seat], chosen: list[str]) -> tuple[bool, list[int]]:
    picked = [c for c in chosen if c and c != "all"]
    if not picked:
        return False, []
    if "gm" in picked:
        if len(picked) > 1:
            raise ChatRefused("Whisper to the GM only, or to seats: not both at once.")
        return True, []
    if viewer.role != GM:
        raise ChatRefused("A player can whisper to the GM only: choose “GM only”.")
    ids: list[int] = []
    for c in picked:
        if not c.isdigit() or int(c) not in live:
            raise ChatRefused("One of the seats chosen to whisper to is not at this table.")
        ids.append(int(c))
    return True, sorted(set(ids))


def _whisper_to(viewer: Viewer, live: dict[int, Seat], rest: str) -> tuple[list[int], str]:
    """`/w <seat name> text`: the longest seat name (or "GM") that starts `rest`."""
    rest = rest.strip()
    names = [("gm", None)] + [(s.name.lower(), s.pk) for s in live.values()]
    for name, pk in sorted(names, key=lambda n: -len(n[0])):
        if rest.lower().startswith(name) and rest[len(name) : len(name) + 1] in ("", " "):
            text = rest[len(name) :].strip()
            if not text:
                raise ChatRefused("Write something to whisper after the name.")
            if pk is None:
                return [], text
            if viewer.role != GM:
                raise ChatRefused("A player can whisper to the GM only: /w GM your words.")
            return [pk], text
    raise ChatRefused("Whisper to whom? Write /w and a seat's name (or GM), then the message.")


def author_name(viewer: Viewer, seat: Seat | None, state: State | None) -> str:
    """How the author signs: "GM", or the seat's name with its visible characters' names."""
    if viewer.role == GM or seat is None:
        return "GM"
    names = []
    if state is not None:
        for cid in seat.combatant_ids:
            c = state.combatants.get(cid)
            if c is not None and not c.hidden:
                names.append(c.name)
    return f"{seat.name} ({', '.join(names)})" if names else seat.name


# --- spectators who write --------------------------------------------------------------

MAX_NAME = 40
# At most this many spectator messages in so many seconds from one address (every
# spectator session behind it together), besides each session's own DEFAULT_RATE.
DEFAULT_ADDRESS_RATE = (10, 10)


def address_rate() -> tuple[int, int]:
    """(messages, seconds): VTT_RATE_CHAT_ADDRESS if set, else DEFAULT_ADDRESS_RATE."""
    most, window = getattr(settings, "VTT_RATE_CHAT_ADDRESS", DEFAULT_ADDRESS_RATE)
    return int(most), int(window)


def spectators_write(enc: Encounter) -> bool:
    """Spectators write only where they read: both of the GM's switches are on."""
    return bool(enc.chat_spectators and enc.chat_spectators_write)


def spectator_name(raw: Any) -> str:
    """A spectator's chosen name, checked; ChatRefused with a sentence if it will not do."""
    name = " ".join(raw.split()) if isinstance(raw, str) else ""
    if not name:
        raise ChatRefused("Pick a name first: it signs your messages, as “name (spectator)”.")
    if len(name) > MAX_NAME:
        raise ChatRefused(f"A name is at most {MAX_NAME} characters; this one has {len(name)}.")
    if _control(name):
        raise ChatRefused("That name holds invisible control characters; type it as plain text.")
    return name


# --- who sees what ---------------------------------------------------------------------


def visible(viewer: Viewer, enc: Encounter | None = None) -> QuerySet[ChatMessage]:
    """The messages this reader may see, built for them (never filtered afterwards)."""
    mine = ChatMessage.objects.filter(encounter_id=viewer.encounter_id)
    if viewer.role == GM:
        return mine
    if viewer.role == PLAYER:
        seat = viewer.seat_pk
        return mine.filter(
            Q(whisper=False) | Q(recipients__id=seat) | Q(author_seat_id=seat)
        ).distinct()
    if enc is None:
        enc = Encounter.objects.get(pk=viewer.encounter_id)
    if not enc.chat_spectators:
        return mine.none()
    return mine.filter(whisper=False)


def can_see(viewer: Viewer, msg: ChatMessage, recipients: set[int], enc: Encounter) -> bool:
    if viewer.role == GM:
        return True
    if viewer.role == PLAYER:
        return (
            not msg.whisper or viewer.seat_id in recipients or viewer.seat_id == msg.author_seat_id
        )
    return not msg.whisper and enc.chat_spectators


def line(msg: ChatMessage, viewer: Viewer, seat_names: dict[int, str]) -> dict[str, Any]:
    """One message as this reader sees it."""
    if msg.deleted:
        return {"id": msg.pk, "deleted": True}
    to: list[str] = []
    if msg.whisper:
        ids = [s.pk for s in msg.recipients.all()]
        if viewer.role == GM:
            to = [seat_names.get(i, "a seat") for i in ids]
        elif viewer.seat_id in ids:
            to = ["you"]
    roll = None
    if msg.roll:
        try:
            rolled = dice.Roll.from_dict(msg.roll)
        except dice.DiceError:
            rolled = None
        if rolled is not None:
            roll = {
                "expression": rolled.expression,
                "total": rolled.total,
                "described": rolled.describe(),
            }
    out = {
        "id": msg.pk,
        "deleted": False,
        "author": msg.author_name,
        "by_gm": msg.author_kind == ChatMessage.GM,
        "text": msg.text,
        "roll": roll,
        "whisper": msg.whisper,
        "to": to,
        "when": msg.created,
    }
    if viewer.role == GM and msg.author_spectator:
        # Only the GM learns which spectator wrote it (to mute them).
        out["spectator"] = msg.author_spectator
    return out


def page(viewer: Viewer, enc: Encounter, before: int | None = None) -> dict[str, Any]:
    """Up to PAGE messages this reader may see (older than `before`), oldest first."""
    qs = visible(viewer, enc).prefetch_related("recipients")
    if before is not None:
        qs = qs.filter(id__lt=before)
    newest_first = list(qs.order_by("-id")[: PAGE + 1])
    more = len(newest_first) > PAGE
    msgs = list(reversed(newest_first[:PAGE]))
    names = dict(Seat.objects.filter(encounter_id=enc.pk).values_list("pk", "name"))
    return {
        "chat_lines": [line(m, viewer, names) for m in msgs],
        "chat_older": msgs[0].pk if more and msgs else None,
    }


def context(viewer: Viewer, enc: Encounter, urls: dict[str, str]) -> dict[str, Any]:
    """What the chat region of one reader's page needs."""
    ctx = page(viewer, enc)
    ctx.update(
        chat_role=viewer.role,
        chat_post_url=urls.get("post", ""),
        chat_older_url=urls.get("older", ""),
        chat_delete_url=urls.get("delete", ""),
        chat_spectators_url=urls.get("spectators", ""),
        chat_spectators=enc.chat_spectators,
        chat_spectators_write=enc.chat_spectators_write,
        chat_open=viewer.role != SPECTATOR or enc.chat_spectators,
        chat_can_write=viewer.role != SPECTATOR or spectators_write(enc),
        chat_max=MAX_TEXT,
        chat_name_max=MAX_NAME,
    )
    if viewer.role == GM:
        ctx["chat_seats"] = [{"id": s.pk, "name": s.name} for s in enc.seats.all() if not s.revoked]
        ctx["chat_mute_url"] = urls.get("mute", "")
        ctx["chat_unmute_url"] = urls.get("unmute", "")
        ctx["chat_spectators_write_url"] = urls.get("spectators_write", "")
        ctx["chat_muted"] = [
            {"id": k, "name": v} for k, v in sorted((enc.chat_muted or {}).items(), key=str)
        ]
    return ctx


def render_line(
    msg: ChatMessage, viewer: Viewer, delete_url: str, *, oob: str = "", mute_url: str = ""
) -> str:
    names = dict(Seat.objects.filter(encounter_id=msg.encounter_id).values_list("pk", "name"))
    return render_to_string(
        "combat/components/chat.html#message",
        {
            "m": line(msg, viewer, names),
            "chat_role": viewer.role,
            "chat_delete_url": delete_url,
            "chat_mute_url": mute_url,
            "chat_oob": oob,
        },
    )
