"""The one write path. Views, the API, the seed command and tests change an encounter only here.

Each function opens a transaction, locks the encounter row (on SQLite the
IMMEDIATE transaction mode serialises writers instead), changes it, bumps the
version and registers the broadcast to run once the change is committed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import Max

from combat import broadcast, chat, screens, statediff
from combat.access import GM, PLAYER, SPECTATOR, Viewer
from combat.models import ChatMessage, Encounter, LogEntry, Seat, new_token
from combat.rules import Encounter as State
from combat.rules import Refusal, apply, new_encounter, rulesets, view
from combat.rules.engine import NO_WINDOW, UNKNOWN_COMMAND
from combat.rules.registry import command_spec
from combat.rules.state import UNKNOWN_COMBATANT

# Fields of a command that name a combatant; a player may only name ones they can see.
_ID_FIELDS = ("actor", "target")


def make_rng() -> random.Random:
    """A fresh die for one command, from the operating system's randomness (tests replace it)."""
    return random.SystemRandom()


@dataclass
class Result:
    """What became of a command: accepted (new version and events) or refused (code, sentence)."""

    ok: bool
    version: int
    events: list[dict[str, Any]] = field(default_factory=list)
    refusal: Refusal | None = None
    replayed: bool = False
    seq: int | None = None
    # The encounter as this command left it (not for a replayed answer).
    state: State | None = field(default=None, repr=False)

    @classmethod
    def refused(cls, code: str, message: str, version: int = 0) -> Result:
        return cls(False, version, refusal=Refusal(code, message))


def _request_hash(command: dict[str, Any]) -> str:
    body = json.dumps(command, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(body.encode()).hexdigest()


# --- the pages' one-time keys --------------------------------------------------------------
#
# A page's form posts carry the version the page was showing (`form_key`, added by
# static/js/posts.js from the #sync element every render of a live page carries). The key
# of such a post is made here from who posts, that version and what the form says, and
# goes through the same idempotency check as the API's Idempotency-Key: the same form sent
# again before the page has shown anything newer (a double click, a queued second tap, a
# "Send again" after a lost answer) is answered with the first answer and acts once. A
# page that has since shown a newer version makes a new key, so doing the same thing again
# on purpose works. The scope is taken from the viewer, never from the form, so one
# audience's key is never another's.

FORM_KEY_FIELD = "form_key"
_NOT_ASKED = ("csrfmiddlewaretoken", FORM_KEY_FIELD)
_RENDER = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class FormKey:
    """The idempotency key of one form post and the digest of what it asked."""

    key: str
    asked: dict[str, Any]


def form_key(viewer: Viewer, path: str, posted: Any) -> FormKey | None:
    """The key of a page's form post, or None when it carries no (well-formed) render."""
    render = posted.get(FORM_KEY_FIELD) or ""
    if not _RENDER.fullmatch(render):
        return None
    fields = sorted((k, posted.getlist(k)) for k in posted if k not in _NOT_ASKED)
    asked = {"path": path, "fields": fields}
    digest = _request_hash(asked)[:40]
    scope = "gm" if viewer.role == GM else f"seat{viewer.seat_id}"
    return FormKey(f"form:{scope}:{render}:{digest}", asked)


def replayed(encounter_id: int, viewer: Viewer, key: FormKey | None) -> Result | None:
    """The first answer to this form post, if it was already acted on (else None)."""
    if key is None:
        return None
    done = LogEntry.objects.filter(encounter_id=encounter_id, idempotency_key=key.key).first()
    if done is None or done.request_hash != _digest(viewer, key.asked):
        return None
    return Result(True, done.version, done.events, replayed=True, seq=done.seq)


def _digest(viewer: Viewer, asked: Any) -> str:
    # Who sent it is part of the request: another seat reusing a key is refused, not replayed.
    return _request_hash({"command": asked, "role": viewer.role, "seat": viewer.seat_id})


def _publish_on_commit(enc: Encounter) -> None:
    """Push the change once it is committed; a rolled-back change pushes nothing.

    The push carries the version this change committed, so each frame can say which
    version it follows and a page can tell when it missed one.
    """
    # robust: a push that fails is logged; the committed command still answers normally.
    transaction.on_commit(partial(broadcast.publish, enc.pk, enc.version), robust=True)


def _bump(enc: Encounter) -> None:
    enc.version += 1
    enc.save()


# --- encounters --------------------------------------------------------------------------


def create_encounter(
    owner: Any, name: str, ruleset: str, settings: dict[str, Any]
) -> Encounter | Refusal:
    """A new encounter in setup, with its spectator link; a refusal for a bad ruleset or setting."""
    if ruleset not in rulesets():
        known = ", ".join(rulesets())
        return Refusal(
            "unknown_ruleset",
            f"There is no such ruleset; choose one of {known}.",
            {"choices": list(rulesets())},
        )
    try:
        state = new_encounter(ruleset, name or "Encounter", settings)
    except ValueError as e:  # a dice expression that cannot be rolled
        return Refusal("bad_dice", str(e))
    except Exception as e:  # the engine refuses a setting by raising; its refusal is a value
        refusal = getattr(e, "refusal", None)
        if not isinstance(refusal, Refusal):
            raise
        return refusal
    return Encounter.objects.create(
        owner=owner, name=state.name, ruleset=ruleset, state=state.to_dict()
    )


def rename_encounter(encounter_id: int, name: Any) -> Refusal | None:
    """The encounter's new name, everywhere it shows (its list, its pages, its export)."""
    clean = (name if isinstance(name, str) else "").strip()
    if not clean:
        return Refusal("bad_name", "Give the encounter a name.")
    if len(clean) > 80:
        return Refusal(
            "bad_name",
            f"A name has at most 80 characters; this one has {len(clean)}.",
            {"most": 80, "asked": len(clean)},
        )
    with transaction.atomic():
        enc = _locked(encounter_id)
        enc.name = clean
        enc.state = {**enc.state, "name": clean}
        _bump(enc)
    return None


def delete_encounter(encounter_id: int) -> None:
    """The encounter, its log, seats and table talk are gone; open sockets on it close."""
    with transaction.atomic():
        enc = _locked(encounter_id)
        for seat_id in enc.seats.values_list("pk", flat=True):
            transaction.on_commit(partial(broadcast.close_seat, encounter_id, seat_id), robust=True)
        transaction.on_commit(partial(broadcast.close_spectators, encounter_id), robust=True)
        enc.delete()


# --- commands ----------------------------------------------------------------------------


def _hidden_ids(state: State) -> set[str]:
    return {cid for cid, c in state.combatants.items() if c.hidden}


def _named_ids(command: dict[str, Any]) -> list[str]:
    ids = [command.get(f) for f in _ID_FIELDS]
    opts = command.get("options")
    if isinstance(opts, dict):
        ids.append(opts.get("target"))
        targets = opts.get("targets")
        if isinstance(targets, list):
            ids.extend(targets)
    return [str(i) for i in ids if isinstance(i, str) and i]


def _window_shown(state: State, wid: Any) -> bool:
    """A window the players see, as their pages and the API show it (`windows_for`): one
    a visible combatant holds, even when a hidden one opened it (its attack on Ana)."""
    return any(w["id"] == wid for w in view.windows_for(state, view.PLAYER))


def check_permission(
    viewer: Viewer, seat: Seat | None, state: State, command: dict[str, Any]
) -> Refusal | None:
    """May this person send this command? The rules engine decides the rest."""
    kind = command["type"]
    if viewer.role == GM:
        return None
    spec = command_spec(state.ruleset, kind)
    if spec is None:
        return Refusal("unknown_command", UNKNOWN_COMMAND)
    if viewer.role != PLAYER or seat is None:
        return Refusal("forbidden", "Spectators watch; they cannot act.")
    hidden = _hidden_ids(state)
    for cid in _named_ids(command):
        if cid in hidden or (cid == command.get("actor") and cid not in state.combatants):
            # The same sentence as for a combatant that does not exist: nothing leaks.
            return Refusal("unknown_combatant", UNKNOWN_COMBATANT)
    actor = command.get("actor")
    if spec.gm_only or not spec.needs_actor:
        return Refusal("forbidden", f"Only the GM can {kind.replace('_', ' ')}.", {"command": kind})
    if not actor:
        return Refusal(spec.missing_code, spec.missing_actor)
    if not seat.controls(actor):
        return Refusal(
            "forbidden", f"{seat.name} does not control {state.name_of(actor)}.", {"who": actor}
        )
    if spec.window and not _window_shown(state, command.get("window")):
        # Last, so that it is exactly the engine's answer for a window that does not exist,
        # whatever else the command holds (issue 12 item 10).
        return Refusal("no_window", NO_WINDOW)
    return None


def run_command(
    encounter_id: int,
    actor_seat: Viewer,
    command: Any,
    idempotency_key: str | None = None,
    expected_version: int | None = None,
    form: FormKey | None = None,
) -> Result:
    """Apply one command for `actor_seat` and log it; a refusal changes nothing.

    `by` is set here from the viewer, whatever the command says. With an
    idempotency key, the same key and the same command return the first answer
    without acting again; the same key with a different command is refused.
    A page's form post passes its `form` key instead: what counts as "the same"
    is then what the form posted (a copy's name, worked out from the state, differs
    the second time; the form that asked for it does not).
    """
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        return Result.refused("bad_command", "A command must be an object with a type.")
    command = {k: v for k, v in command.items() if k != "by"}
    if form is not None:
        idempotency_key = form.key
    digest = _digest(actor_seat, form.asked if form is not None else command)
    command["by"] = "gm" if actor_seat.role == GM else "player"

    with transaction.atomic():
        enc = Encounter.objects.select_for_update().filter(pk=encounter_id).first()
        if enc is None:
            return Result.refused("not_found", "There is no such encounter.")
        if idempotency_key:
            done = enc.log.filter(idempotency_key=idempotency_key).first()
            if done is not None:
                if done.request_hash != digest:
                    return Result.refused(
                        "idempotency_mismatch",
                        "This Idempotency-Key was already used for a different command.",
                        enc.version,
                    )
                return Result(True, done.version, done.events, replayed=True, seq=done.seq)
        seat = None
        if actor_seat.role == PLAYER:
            seat = Seat.objects.filter(
                pk=actor_seat.seat_pk, encounter_id=enc.pk, revoked=False
            ).first()
            if seat is None:
                return Result.refused("forbidden", "This seat has been revoked.", enc.version)
        if expected_version is not None and expected_version != enc.version:
            return Result.refused(
                "version_conflict",
                f"The encounter has changed (it is at version {enc.version}, you expected "
                f"{expected_version}): look again and resend.",
                enc.version,
            )
        # `apply` works on a copy, so the stored dict is read, never changed.
        before = enc.state
        state = State.from_dict(before, copy=False)
        refusal = check_permission(actor_seat, seat, state, command)
        if refusal is not None:
            return Result(False, enc.version, refusal=refusal)
        if command["type"] == "undo":
            return _undo(enc, command, idempotency_key, digest)
        outcome = apply(state, command, make_rng())
        if outcome.refusal is not None:
            refused = outcome.refusal
            if actor_seat.role != GM:
                refused = refused.to_reader(_hidden_ids(state))
            return Result(False, enc.version, refusal=refused)
        after = outcome.state.to_dict()
        # What undo needs is the way back from `after` to `before`: a patch, empty for a
        # command that changed nothing (a roll keeps no copy of the table).
        back = statediff.diff(after, before)
        seq = _next_seq(enc)
        enc.state = after
        _bump(enc)
        entry = LogEntry.objects.create(
            encounter=enc,
            seq=seq,
            version=enc.version,
            command=command,
            by=command["by"],
            seat=seat,
            events=outcome.events,
            state_patch=back,
            changed=bool(back),
            idempotency_key=idempotency_key or None,
            request_hash=digest,
        )
        screens.remember_events(entry)
        _publish_on_commit(enc)
        return Result(True, enc.version, outcome.events, seq=seq, state=outcome.state)


def _next_seq(enc: Encounter) -> int:
    return (enc.log.aggregate(m=Max("seq"))["m"] or 0) + 1


def _undo(enc: Encounter, command: dict[str, Any], key: str | None, digest: str) -> Result:
    """Put back the state from before the last command not yet undone (again and again).

    Commands that changed nothing (rolls) are passed over: a player rolling a hundred
    times does not stand between the GM and their own last change. The current state is
    the state after that command (every later change has been undone), so its patch
    leads back to the state before it.
    """
    last = (
        enc.log.filter(kind=LogEntry.COMMAND, undone=False, changed=True).order_by("-seq").first()
    )
    if last is None:
        return Result(
            False, enc.version, refusal=Refusal("nothing_to_undo", "There is nothing left to undo.")
        )
    public = [e for e in last.events if not e.get("gm_only")]
    events: list[dict[str, Any]] = []
    if public:
        # It repeats the undone line, so it involves whom that line does (screens.event_shown).
        undo = _ruling("undo", {"event": public[0]})
        undo["involved"] = list(public[0].get("involved") or [])
        events.append(undo)
    else:
        events.append(_ruling("undo_unseen"))
    what = {"event": last.events[0]} if last.events else {"command": last.command.get("type")}
    events.append(_ruling("undone", what, gm_only=True))
    last.undone = True
    last.save(update_fields=["undone"])
    seq = _next_seq(enc)
    current = enc.state
    enc.state = statediff.before_of(last, current)
    _bump(enc)
    entry = LogEntry.objects.create(
        encounter=enc,
        seq=seq,
        version=enc.version,
        kind=LogEntry.UNDO,
        command={**command, "undoes": last.seq},
        by="gm",
        events=events,
        state_patch=statediff.diff(enc.state, current),
        idempotency_key=key or None,
        request_hash=digest,
    )
    screens.remember_events(entry)
    _publish_on_commit(enc)
    return Result(True, enc.version, events, seq=seq)


def _ruling(say: str, data: dict[str, Any] | None = None, gm_only: bool = False) -> dict[str, Any]:
    """A fact of the GM's own (an undo), in the shape the engine's events have."""
    return {
        "kind": "undo",
        "say": say,
        "names": {},
        "actor": None,
        "involved": [],
        "rolls": [],
        "ruling": True,
        "gm_only": gm_only,
        "round": None,
        "data": data or {},
    }


# --- seats and links (not rules, but every view shows them) ------------------------------


def _locked(encounter_id: int) -> Encounter:
    return Encounter.objects.select_for_update().get(pk=encounter_id)


def create_seat(encounter_id: int, name: str, combatant_ids: list[str] | None = None) -> Seat:
    with transaction.atomic():
        enc = _locked(encounter_id)
        state = State.from_dict(enc.state)
        ids = [c for c in (combatant_ids or []) if c in state.combatants]
        seat = Seat.objects.create(
            encounter=enc, name=(name or "Player").strip()[:80], combatant_ids=ids
        )
        _release_elsewhere(enc, seat, ids)
        _bump(enc)
        _publish_on_commit(enc)
    return seat


def _release_elsewhere(enc: Encounter, seat: Seat, ids: list[str]) -> None:
    """A combatant is controlled by one seat at most."""
    for other in enc.seats.exclude(pk=seat.pk):
        kept = [c for c in other.combatant_ids if c not in ids]
        if kept != other.combatant_ids:
            other.combatant_ids = kept
            other.save(update_fields=["combatant_ids"])


def assign_combatant(encounter_id: int, cid: str, seat_id: int | None) -> None:
    """Give control of one combatant to a seat (or to nobody but the GM)."""
    with transaction.atomic():
        enc = _locked(encounter_id)
        target = enc.seats.filter(pk=seat_id).first() if seat_id else None
        changed = False
        for seat in enc.seats.all():
            want = seat.pk == (target.pk if target else None)
            has = cid in seat.combatant_ids
            if want and not has:
                seat.combatant_ids = [*seat.combatant_ids, cid]
            elif has and not want:
                seat.combatant_ids = [c for c in seat.combatant_ids if c != cid]
            else:
                continue
            seat.save(update_fields=["combatant_ids"])
            changed = True
        if changed:
            _bump(enc)
            _publish_on_commit(enc)


def rename_seat(encounter_id: int, seat_id: int, name: str) -> None:
    with transaction.atomic():
        enc = _locked(encounter_id)
        enc.seats.filter(pk=seat_id).update(name=(name or "Player").strip()[:80])
        _bump(enc)
        _publish_on_commit(enc)


def revoke_seat(encounter_id: int, seat_id: int) -> None:
    """The link stops working at once; open sockets on it are closed."""
    with transaction.atomic():
        enc = _locked(encounter_id)
        updated = enc.seats.filter(pk=seat_id, revoked=False).update(revoked=True)
        if updated:
            _bump(enc)
            transaction.on_commit(partial(broadcast.close_seat, enc.pk, seat_id), robust=True)
            _publish_on_commit(enc)


def regenerate_seat(encounter_id: int, seat_id: int) -> Seat | None:
    """A new secret link for the seat (re-enabled if revoked); the old one dies at once."""
    with transaction.atomic():
        enc = _locked(encounter_id)
        seat = enc.seats.filter(pk=seat_id).first()
        if seat is None:
            return None
        seat.token = new_token()
        seat.revoked = False
        seat.save(update_fields=["token", "revoked"])
        _bump(enc)
        transaction.on_commit(partial(broadcast.close_seat, enc.pk, seat_id), robust=True)
        _publish_on_commit(enc)
    return seat


def set_spectator_link(encounter_id: int, enabled: bool) -> str | None:
    """A new spectator link (or none); whoever watched with the old one is disconnected."""
    with transaction.atomic():
        enc = _locked(encounter_id)
        enc.spectator_token = new_token() if enabled else None
        _bump(enc)
        transaction.on_commit(partial(broadcast.close_spectators, enc.pk), robust=True)
        _publish_on_commit(enc)
    return enc.spectator_token


def set_spectator_limit(encounter_id: int, limit: int) -> None:
    """How many sockets the spectators' link may hold: counted at the next connect, so the
    screens already watching stay (combat/presence.py). Not rules state: no new version."""
    Encounter.objects.filter(pk=encounter_id).update(spectator_limit=limit)


# --- table talk (combat/chat.py): not rules state, no version; pushed on its own ----------


def post_chat(
    viewer: Viewer, text: Any, chosen: list[str], spectator: tuple[str, str] | None = None
) -> ChatMessage:
    """Store one message (a roll rolled here) and push it once committed; raises
    chat.ChatRefused with a sentence, storing nothing, if it cannot be sent.

    A spectator writes with `spectator` = (their id, their name), only while the GM lets
    spectators write, and not once the GM muted them."""
    with transaction.atomic():
        enc = Encounter.objects.get(pk=viewer.encounter_id)
        author_spectator = ""
        if viewer.role == SPECTATOR:
            if spectator is None or not chat.spectators_write(enc):
                raise chat.ChatRefused("The GM has not let spectators write in the table talk.")
            author_spectator, name = spectator
            if author_spectator in (enc.chat_muted or {}):
                raise chat.ChatRefused(
                    "The GM has muted you: your messages are not sent to the table."
                )
        seats = list(enc.seats.all())
        parsed = chat.parse(text, viewer, seats, chosen, make_rng())
        seat = next((s for s in seats if s.pk == viewer.seat_id), None)
        if viewer.role == SPECTATOR:
            kind, signed = ChatMessage.SPECTATOR, f"{name} (spectator)"
        else:
            kind = ChatMessage.GM if viewer.role == GM else ChatMessage.SEAT
            signed = chat.author_name(viewer, seat, State.from_dict(enc.state))
        msg = ChatMessage.objects.create(
            encounter=enc,
            author_kind=kind,
            author_seat=seat,
            author_name=signed,
            author_spectator=author_spectator,
            text=parsed.text,
            roll=parsed.roll,
            whisper=parsed.whisper,
        )
        if parsed.recipients:
            msg.recipients.set(parsed.recipients)
        transaction.on_commit(partial(broadcast.publish_chat, msg.pk), robust=True)
    return msg


def delete_chat(encounter_id: int, message_id: int) -> bool:
    """The GM deletes a message for everyone; False if there is no such message."""
    with transaction.atomic():
        done = ChatMessage.objects.filter(
            encounter_id=encounter_id, pk=message_id, deleted=False
        ).update(deleted=True)
        if done:
            transaction.on_commit(partial(broadcast.publish_chat, message_id), robust=True)
    return bool(done)


def set_chat_spectators(encounter_id: int, on: bool) -> None:
    """Whether spectators read what is said to everyone; their chat region is pushed anew."""
    with transaction.atomic():
        Encounter.objects.filter(pk=encounter_id).update(chat_spectators=on)
        transaction.on_commit(partial(broadcast.publish_chat_region, encounter_id), robust=True)


def set_chat_spectators_write(encounter_id: int, on: bool) -> None:
    """Whether spectators (who read) may write too; their chat region is pushed anew."""
    with transaction.atomic():
        Encounter.objects.filter(pk=encounter_id).update(chat_spectators_write=on)
        transaction.on_commit(partial(broadcast.publish_chat_region, encounter_id), robust=True)


def mute_spectator(encounter_id: int, message_id: int) -> str | None:
    """The GM mutes the spectator who wrote this message; their name, or None if the
    message is no spectator's here."""
    with transaction.atomic():
        enc = Encounter.objects.select_for_update().get(pk=encounter_id)
        msg = ChatMessage.objects.filter(encounter_id=encounter_id, pk=message_id).first()
        if msg is None or not msg.author_spectator:
            return None
        name = msg.author_name.removesuffix(" (spectator)")
        enc.chat_muted = {**(enc.chat_muted or {}), msg.author_spectator: name}
        enc.save(update_fields=["chat_muted"])
    return name


def unmute_spectator(encounter_id: int, spectator_id: str) -> str | None:
    """The GM lets a muted spectator write again; their name, or None if not muted."""
    with transaction.atomic():
        enc = Encounter.objects.select_for_update().get(pk=encounter_id)
        muted = dict(enc.chat_muted or {})
        name = muted.pop(spectator_id, None)
        if name is None:
            return None
        enc.chat_muted = muted
        enc.save(update_fields=["chat_muted"])
    return str(name)
