"""Reuse: combatant templates, and encounters exported to a JSON file and imported again.

- A GM saves a combatant as a template ("Goblin": side, HP, stats, per-combatant settings)
  and adds it again to any of their encounters, several at once with numbered names
  ("Goblin 1", "Goblin 2", ...).
- An encounter exports as one JSON file (its settings, custom actions, combatants, log
  and the fight's whole state) and imports as a new encounter of the GM's: either the
  fight resumed exactly where it stood (round, turn, resources, effects, engagements,
  open reaction windows), or a new encounter in set-up with the same combatants. A file
  that is not such an export, or whose fight the rules engine would not have made, is
  refused with a sentence saying what is wrong with it.

A set-up import goes through the rules engine's own commands (add_combatant, adjust,
defeat, ...), so it checks imported values exactly as it checks typed ones. A resumed
fight's state is checked by combat/rules/integrity.py (its shape and every invariant the
engine keeps) and read once as every page will read it; its combatants, settings and
custom actions also go through those commands, which must accept them. The only rows
written here directly are the templates and the imported log (kind "imported": history
to read, never something to undo).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from combat import api, chat, forms, planner, ratelimit, screens, services, statediff, words
from combat.access import Viewer, gm_encounter, gm_viewer
from combat.models import (
    SPECTATOR_LIMIT_DEFAULT,
    ChatMessage,
    CombatantTemplate,
    Encounter,
    LogEntry,
)
from combat.rules import Encounter as State
from combat.rules import Refusal, apply, dice, get_ruleset, new_encounter, rulesets
from combat.rules.integrity import Inconsistent, restore_and_exercise
from combat.views import (
    answer,
    command_limit,
    login_required,
    require_GET,
    require_http_methods,
    require_POST,
)

FORMAT = "combat-table-encounter"
# 2: the fight's whole state under "state" (a file of version 1 imports in set-up only).
FORMAT_VERSION = 2
MAX_COPIES = 20
MAX_TEMPLATES = 500
MAX_EVENTS_PER_ENTRY = 50
MAX_TEXT = 2000
# What one import may bring and create (vtt/settings.py, docs/integrity.md).
MAX_IMPORT_BYTES: int = settings.VTT_IMPORT_MAX_BYTES
MAX_IMPORTED_ENTRIES: int = settings.VTT_IMPORT_MAX_ENTRIES
MAX_IMPORTED_COMBATANTS: int = settings.VTT_IMPORT_MAX_COMBATANTS
MAX_IMPORT_STORED_BYTES: int = settings.VTT_IMPORT_MAX_STORED_BYTES
MAX_IMPORT_DEPTH: int = settings.VTT_IMPORT_MAX_DEPTH

# The add_combatant fields a template keeps (besides the ruleset's per-combatant settings).
TEMPLATE_FIELDS = ("side", "hp", "initiative_bonus", "stats", "grit", "notes", "group")


# --- combatants as data ------------------------------------------------------------------


def combatant_fields(state: State, cid: str) -> dict[str, Any]:
    """What it takes to add this combatant again: the fields of an add_combatant command."""
    c = state.combatants[cid]
    rs = get_ruleset(state.ruleset)
    fields: dict[str, Any] = {
        "name": c.name,
        "side": c.side,
        "initiative_bonus": c.initiative_bonus,
        "notes": c.notes,
        "stats": c.stats,
        "group": state.groups[c.group].name if c.group and c.group in state.groups else "",
    }
    if c.max_hp is not None:
        fields["hp"] = c.max_hp
    if "grit" in c.res:
        fields["grit"] = c.res["grit"]
    for s in rs.all_settings():
        if s.per_combatant and s.key in c.mods:
            fields[s.key] = c.mods[s.key]
    return fields


def fields_for(ruleset_key: str, data: dict[str, Any]) -> dict[str, Any]:
    """A template's fields as an add_combatant command of `ruleset_key` takes them.

    A per-combatant setting the ruleset does not have (a template made for another
    ruleset) is left out rather than refused: the combatant keeps the encounter's default.
    """
    rs = get_ruleset(ruleset_key)
    per = {s.key for s in rs.all_settings() if s.per_combatant}
    out = {k: v for k, v in data.items() if k in TEMPLATE_FIELDS}
    out.update({k: v for k, v in (data.get("mods") or {}).items() if k in per})
    return out


def base_name(name: str) -> str:
    """ "Goblin 3" → "Goblin": the name a template keeps, since adding numbers it again."""
    return re.sub(r"\s+\d+$", "", name.strip()) or name.strip()


def numbered_names(state: State, base: str, count: int) -> list[str]:
    """Names for `count` new combatants called `base`, never one already in the encounter.

    One copy of a name nobody has, numbered or not, keeps the plain name ("Ogre").
    Otherwise the copies are numbered after the highest number already taken ("Goblin 1",
    "Goblin 2"; then "Goblin 3" ...); a plain "Goblin" already there counts as number 1.
    """
    taken = {c.name for c in state.combatants.values()}
    pattern = re.compile(rf"^{re.escape(base)}(?:\s+(\d+))?$")
    highest = 0
    for name in taken:
        m = pattern.match(name)
        if m:
            highest = max(highest, int(m.group(1)) if m.group(1) else 1)
    if count == 1 and highest == 0:
        return [base]
    names: list[str] = []
    n = highest
    while len(names) < count:
        n += 1
        if f"{base} {n}" not in taken:
            names.append(f"{base} {n}")
    return names


def add_copies(
    enc: Encounter,
    viewer: Viewer,
    fields: dict[str, Any],
    count: int,
    form: services.FormKey | None = None,
) -> tuple[list[str], Refusal | None]:
    """Add `count` combatants made from `fields`, numbered; stops at the first refusal.

    Each is one add_combatant command through the one write path (so each can be undone
    on its own, and each is checked by the rules engine). With the page's `form` key,
    copy n is keyed `<key>:n`: the same form sent twice adds the copies once, and the
    answer names the copies the first one added.
    """
    state = screens.load_state(enc)
    base = base_name(str(fields.get("name") or "Combatant"))
    added: list[str] = []
    for n, name in enumerate(numbered_names(state, base, count), 1):
        copy = services.FormKey(f"{form.key}:{n}", form.asked) if form else None
        result = services.run_command(
            enc.pk, viewer, {"type": "add_combatant", **fields, "name": name}, form=copy
        )
        if not result.ok:
            return added, result.refusal
        if result.replayed:
            actor = next((e["actor"] for e in result.events if e.get("actor")), None)
            name = screens.load_state(Encounter.objects.get(pk=enc.pk)).name_of(actor)
        added.append(name)
    return added, None


def save_template(user: Any, state: State, cid: str) -> tuple[CombatantTemplate, bool]:
    """Keep a combatant as a template of `user`'s (replacing one of the same name)."""
    fields = combatant_fields(state, cid)
    name = base_name(fields.pop("name"))
    rs = get_ruleset(state.ruleset)
    per = {s.key for s in rs.all_settings() if s.per_combatant}
    data = {k: v for k, v in fields.items() if k in TEMPLATE_FIELDS}
    data["mods"] = {k: v for k, v in fields.items() if k in per}
    template, created = CombatantTemplate.objects.update_or_create(
        owner=user, name=name, defaults={"ruleset": state.ruleset, "data": data}
    )
    return template, created


# --- export ------------------------------------------------------------------------------


def export_head(enc: Encounter) -> dict[str, Any]:
    """The export without its log: settings, custom actions, combatants and the fight's
    state, nothing secret.

    Seat and spectator links are not in it (an import makes new ones), and neither are
    the states kept for undo: an import's history can be read, not undone.
    """
    state = screens.load_state(enc)
    combatants = []
    for cid in sorted(state.combatants, key=lambda i: state.combatants[i].seq):
        c = state.combatants[cid]
        combatants.append(
            {
                "id": cid,
                **combatant_fields(state, cid),
                "initiative": c.initiative,
                "current_hp": c.hp,
                "hidden": c.hidden,
                "defeated": c.defeated,
            }
        )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported": datetime.now(UTC).isoformat(timespec="seconds"),
        "encounter": {
            "name": enc.name,
            "ruleset": enc.ruleset,
            "settings": {k: v for k, v in state.settings.items() if not k.startswith("_")},
            "custom_actions": state.custom_actions,
            "cost_overrides": state.cost_overrides,
            "phase": state.phase,
            "round": state.round,
            # How many screens the spectators' link may hold (the link itself is not here).
            "spectator_limit": enc.spectator_limit,
        },
        "combatants": combatants,
        # The fight as it stands, for "resume" (plan_resume); the same JSON the database
        # keeps, so an import reproduces it exactly.
        "state": state.to_dict(),
        "chat": export_chat(enc),
    }


def export_chat(enc: Encounter) -> list[dict[str, Any]]:
    """The table talk, whispers included (the export is the GM's file), oldest first."""
    names = dict(enc.seats.values_list("pk", "name"))
    out = []
    for m in enc.chat.order_by("id").prefetch_related("recipients"):
        out.append(
            {
                "created": m.created.isoformat(),
                "author_kind": m.author_kind,
                "author": m.author_name,
                "text": m.text,
                "roll": m.roll,
                "whisper": m.whisper,
                "to": [names.get(s.pk, "a seat") for s in m.recipients.all()],
                "deleted": m.deleted,
            }
        )
    return out


def export_log(enc: Encounter) -> Iterator[dict[str, Any]]:
    """The log's entries as exported, oldest first, read a few hundred rows at a time.

    Only the columns the export shows are read: never the states kept for undo.
    """
    rows = enc.log.order_by("seq").only(
        "seq", "kind", "by", "command", "events", "undone", "created"
    )
    for e in rows.iterator(chunk_size=500):
        yield {
            "seq": e.seq,
            "kind": e.kind,
            "by": e.by,
            "command": e.command,
            # The facts, with the words the GM reads (for a person reading the file).
            "events": [screens.for_gm(ev) for ev in e.events],
            "undone": e.undone,
            "created": e.created.isoformat(),
        }


def export_encounter(enc: Encounter) -> dict[str, Any]:
    """The whole export as one object (the download streams the same, see export_chunks)."""
    return {**export_head(enc), "log": list(export_log(enc))}


def export_chunks(enc: Encounter) -> Iterator[str]:
    """The export as JSON text, one log entry at a time: memory stays flat however long."""
    head = json.dumps(export_head(enc), indent=2)
    yield head[: -len("\n}")] + ',\n  "log": ['
    for n, row in enumerate(export_log(enc)):
        yield ("," if n else "") + "\n    " + json.dumps(row)
    yield "\n  ]\n}\n"


def export_filename(enc: Encounter) -> str:
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", enc.name).strip("-") or "encounter"
    return f"{slug}.encounter.json"


# --- import ------------------------------------------------------------------------------


class NotAnExport(Exception):
    """The uploaded file is not an encounter export; the message says why, for a person."""


def parse_export(raw: bytes) -> dict[str, Any]:
    """The export in `raw`, or NotAnExport with a sentence saying what is wrong."""
    data = _read_json(raw)
    problem = _text_problem(data)
    if problem:
        raise NotAnExport(problem)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NotAnExport(
            "That JSON file is not an encounter export (it has no "
            f'"format": "{FORMAT}"): choose the file that “Export the encounter” saved.'
        )
    version = data.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise NotAnExport(
            f"That export is of format version {version!r}, which this site does not read "
            f"(it reads up to {FORMAT_VERSION})."
        )
    enc = data.get("encounter")
    if not isinstance(enc, dict):
        raise NotAnExport('That export has no "encounter" object with its name and rules.')
    if enc.get("ruleset") not in rulesets():
        known = ", ".join(rulesets())
        raise NotAnExport(
            f"That export uses the rules {enc.get('ruleset')!r}, which this site does not "
            f"have (it has {known})."
        )
    for key, kind in (("combatants", list), ("log", list), ("chat", list)):
        if not isinstance(data.get(key, []), kind):
            raise NotAnExport(f'In that export, "{key}" is not a list.')
    if not all(isinstance(c, dict) for c in data.get("combatants", [])):
        raise NotAnExport('In that export, each of the "combatants" must be an object.')
    if len(data.get("log", [])) > MAX_IMPORTED_ENTRIES:
        raise NotAnExport(
            f"That export has a log of {len(data['log'])} entries; at most "
            f"{MAX_IMPORTED_ENTRIES} can be imported."
        )
    if len(data.get("chat", [])) > MAX_IMPORTED_ENTRIES:
        raise NotAnExport(
            f"That export has {len(data['chat'])} chat messages; at most "
            f"{MAX_IMPORTED_ENTRIES} can be imported."
        )
    if len(data.get("combatants", [])) > MAX_IMPORTED_COMBATANTS:
        raise NotAnExport(
            f"That export has {len(data['combatants'])} combatants; at most "
            f"{MAX_IMPORTED_COMBATANTS} can be imported."
        )
    return data


def _read_json(raw: bytes) -> Any:
    """The JSON in `raw`, or NotAnExport saying why it is not readable as such."""
    if not raw:
        raise NotAnExport("The file is empty: choose an encounter file exported from this site.")
    if len(raw) > MAX_IMPORT_BYTES:
        raise NotAnExport(
            f"The file is too large ({len(raw) // 1024} KiB): an encounter export is at most "
            f"{MAX_IMPORT_BYTES // 1024} KiB."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotAnExport(
            "That file is not text (it may be an image or a document): choose the .json "
            "file that “Export the encounter” saved."
        ) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise NotAnExport(_too_deep()) from None
    except ValueError as e:
        raise NotAnExport(
            f"That file is not JSON (line {getattr(e, 'lineno', '?')}: "
            f"{getattr(e, 'msg', e)}): choose the .json file that “Export the encounter” saved."
        ) from None


def _too_deep() -> str:
    return (
        f"That file is nested too deeply (more than {MAX_IMPORT_DEPTH} levels of lists and "
        "objects), which no encounter export is: choose the file that “Export the "
        "encounter” saved."
    )


def _text_problem(data: Any) -> str | None:
    """Nesting past MAX_IMPORT_DEPTH, or text that is not valid Unicode: refused in words.

    JSON may spell half of a surrogate pair ("\\ud800"), which Python reads but no page
    and no PostgreSQL column can hold: it would break every page showing it. (A NUL is
    taken out of imported text instead, as before.)
    """
    problem = api.text_problem(data, MAX_IMPORT_DEPTH, nul=False)
    if problem == api.DEEP:
        return _too_deep()
    if problem == api.SURROGATE:
        return (
            "That file holds text that is not valid Unicode (half of a surrogate pair): it "
            "was not written by “Export the encounter”, and nothing was imported."
        )
    return None


@dataclass
class _Plan:
    """An import worked out in memory: the final state and every row to write."""

    state: State
    last: dict[str, Any] = dataclass_field(default_factory=dict)  # state.to_dict()
    rows: list[LogEntry] = dataclass_field(default_factory=list)
    chat: list[ChatMessage] = dataclass_field(default_factory=list)
    stored: int = 0
    spectator_limit: int = SPECTATOR_LIMIT_DEFAULT

    def count(self, *values: Any) -> None:
        """Add what these values take stored; refuse once an import would store too much."""
        self.stored += sum(len(json.dumps(v, separators=(",", ":"))) for v in values)
        if self.stored > MAX_IMPORT_STORED_BYTES:
            raise NotAnExport(
                f"That export would store more than {MAX_IMPORT_STORED_BYTES // 1024} KiB "
                "(its log and combatants together), the most one import may: export a "
                "shorter fight or leave out its history."
            )


def _spectator_limit(info: dict[str, Any]) -> int:
    """The export's spectator limit (an older export has none: the default)."""
    raw = info.get("spectator_limit")
    if raw is None:
        return SPECTATOR_LIMIT_DEFAULT
    limit, problem = forms.spectator_limit(raw if isinstance(raw, int | str) else "")
    if limit is None:
        raise NotAnExport(f'In that export, "spectator_limit" is refused: {problem}')
    return limit


def _new_state(info: dict[str, Any]) -> State:
    settings_in = info.get("settings") or {}
    if not isinstance(settings_in, dict):
        raise NotAnExport('In that export, "settings" is not an object.')
    known = {s.key for s in get_ruleset(info["ruleset"]).all_settings()}
    chosen = {k: v for k, v in settings_in.items() if k in known}
    name = str(info.get("name") or "Imported encounter")[:80]
    try:
        return new_encounter(info["ruleset"], name, chosen)
    except ValueError as e:  # a dice expression that cannot be rolled
        raise NotAnExport(f"The encounter was refused: {e}") from None
    except Exception as e:  # the engine refuses a setting by raising its refusal
        refusal = getattr(e, "refusal", None)
        if not isinstance(refusal, Refusal):
            raise
        raise NotAnExport(f"The encounter was refused: {refusal.message}") from None


def plan_import(data: dict[str, Any]) -> _Plan:
    """Everything an import will write, worked out in memory; NotAnExport if a value is refused.

    Each value goes through the rules engine's own commands (add_combatant, adjust,
    defeat, ...), so a value the engine refuses (a bad dice expression, a name too long)
    refuses the whole import, naming it. Nothing is written yet.
    """
    info = data["encounter"]
    state = _new_state(info)
    plan = _Plan(state, state.to_dict(), spectator_limit=_spectator_limit(info))
    rng = services.make_rng()

    def run(command: dict[str, Any], what: str) -> list[dict[str, Any]]:
        command = {**command, "by": "gm"}
        outcome = apply(plan.state, command, rng)
        if outcome.refusal is not None:
            raise NotAnExport(f"{what} was refused: {outcome.refusal.message}")
        after = outcome.state.to_dict()
        back = statediff.diff(after, plan.last)
        plan.count(command, outcome.events, back)
        plan.state, plan.last = outcome.state, after
        plan.rows.append(
            LogEntry(
                seq=len(plan.rows) + 1,
                version=len(plan.rows) + 2,
                command=command,
                by="gm",
                events=outcome.events,
                state_patch=back,
                changed=bool(back),
            )
        )
        return outcome.events

    for spec in (info.get("custom_actions") or {}).values():
        if isinstance(spec, dict):
            run(
                {"type": "add_custom_action", **_plain(spec)},
                f"The custom action {spec.get('name')!r}",
            )
    for key, cost in (info.get("cost_overrides") or {}).items():
        run({"type": "set_cost", "action": key, "cost": cost}, f"The cost of {key!r}")
    ids: dict[str, str] = {}
    for c in data.get("combatants", []):
        fields = fields_for(info["ruleset"], {**c, "mods": _mods_of(info["ruleset"], c)})
        name = c.get("name")
        command = {"type": "add_combatant", **fields, "name": name}
        if c.get("initiative") not in (None, ""):
            command["initiative"] = c["initiative"]
        if c.get("hidden"):
            command["hidden"] = True
        events = run(command, f"The combatant {name!r}")
        new_id = next(e["data"]["id"] for e in events if e["kind"] == "combatant_added")
        if isinstance(c.get("id"), str):
            ids[c["id"]] = new_id
        hp, top = c.get("current_hp"), c.get("hp")
        if isinstance(hp, int) and isinstance(top, int) and 0 <= hp < top:
            run(
                {"type": "adjust", "actor": new_id, "resource": "hp", "value": hp},
                f"The HP of {name!r}",
            )
        if c.get("defeated") and not plan.state.combatants[new_id].defeated:
            run({"type": "defeat", "actor": new_id}, f"Defeating {name!r}")
    _plan_log(plan, data.get("log", []), ids)
    _plan_chat(plan, data.get("chat", []))
    return plan


def can_resume(data: dict[str, Any]) -> bool:
    """Whether the export carries its fight's state (format version 2 and later)."""
    return isinstance(data.get("state"), dict)


def plan_resume(data: dict[str, Any]) -> _Plan:
    """The fight in the export exactly as it stood; NotAnExport if it cannot be resumed.

    The state is checked for its shape and the engine's invariants and read once as the
    pages will read it (combat/rules/integrity.py). What a GM could type into it (names,
    stats, settings, custom actions, costs) must also pass the engine's own commands: a
    set-up import of the same combatants is worked out and thrown away. The ids stay those
    of the file, so the log keeps naming the same combatants.
    """
    info = data["encounter"]
    try:
        state = restore_and_exercise(data["state"], info["ruleset"])
    except Inconsistent as e:
        raise NotAnExport(f"The fight in that export cannot be resumed: {e}") from None
    plan_import(
        {
            "encounter": {
                "name": state.name,
                "ruleset": state.ruleset,
                "settings": {k: v for k, v in state.settings.items() if not k.startswith("_")},
                "custom_actions": state.custom_actions,
                "cost_overrides": state.cost_overrides,
            },
            "combatants": [combatant_fields(state, cid) for cid in state.combatants],
        }
    )
    known = {s.key for s in get_ruleset(state.ruleset).all_settings()}
    unknown = [k for k in state.settings if not k.startswith("_") and k not in known]
    if unknown:
        raise NotAnExport(
            f"The fight in that export has settings this site does not know: {unknown}."
        )
    plan = _Plan(state, state.to_dict(), spectator_limit=_spectator_limit(info))
    plan.count(plan.last)
    _plan_log(plan, data.get("log", []), {cid: cid for cid in state.combatants})
    _plan_chat(plan, data.get("chat", []))
    return plan


def _plan_chat(plan: _Plan, entries: list[Any]) -> None:
    """The exported table talk, kept. Seats are not imported (an import makes new links),
    so a whisper comes back for the GM alone; a roll that does not add up is dropped."""
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        text = entry.get("text")
        author = entry.get("author")
        text = text.replace("\x00", "")[: chat.MAX_TEXT] if isinstance(text, str) else ""
        author = author.replace("\x00", "")[:200] if isinstance(author, str) else ""
        roll = entry.get("roll")
        try:
            roll = dice.Roll.from_dict(roll).to_dict() if roll else None
        except (dice.DiceError, ValueError, TypeError, AttributeError):
            roll = None
        if not text and roll is None:
            continue
        kind = entry.get("author_kind")
        plan.count(text, author, roll)
        plan.chat.append(
            ChatMessage(
                author_kind=kind
                if kind in (ChatMessage.GM, ChatMessage.SEAT, ChatMessage.SPECTATOR)
                else ChatMessage.GM,
                author_name=author or "GM",
                text=text,
                roll=roll,
                whisper=bool(entry.get("whisper")),
                deleted=bool(entry.get("deleted")),
            )
        )


def import_encounter(user: Any, data: dict[str, Any], *, resume: bool = False) -> Encounter:
    """A new encounter of `user`'s from a parsed export; NotAnExport if a value is refused.

    `resume`: the fight as it stood (plan_resume); otherwise a new encounter in set-up.

    Worked out in memory first (plan_import); then one short transaction writes the
    encounter and its log in two statements' worth of rows, so the database's write
    lock is held for milliseconds, not for one command per value in the file.
    """
    return write_import(user, plan_resume(data) if resume else plan_import(data))


# Rows written per transaction by an import. SQLite has one writer at a time: the
# largest import written whole held it for 0.7 s, and every other table's command waited.
ROWS_PER_WRITE = 100


def write_import(user: Any, plan: _Plan) -> Encounter:
    """Write a worked-out import (see `write_slices`)."""
    rows = plan.rows
    slices = (rows[i : i + ROWS_PER_WRITE] for i in range(0, len(rows), ROWS_PER_WRITE))
    return write_slices(
        user,
        plan.state,
        commands_in(rows),
        slices,
        plan.chat,
        spectator_limit=plan.spectator_limit,
    )


def commands_in(rows: list[LogEntry]) -> int:
    return sum(1 for r in rows if r.kind == LogEntry.COMMAND)


def write_slices(
    user: Any,
    state: State,
    commands: int,
    slices: Iterable[list[LogEntry]],
    chat_rows: Iterable[ChatMessage] = (),
    *,
    spectator_limit: int = SPECTATOR_LIMIT_DEFAULT,
) -> Encounter:
    """Write the encounter row, then its log one slice of rows at a time, each slice its
    own short transaction, so other tables' commands get in between. Should a slice fail,
    the encounter (and what was written of its log) is deleted again."""
    with transaction.atomic():
        enc = Encounter.objects.create(
            owner=user,
            name=state.name,
            ruleset=state.ruleset,
            state=state.to_dict(),
            version=1 + commands,
            spectator_limit=spectator_limit,
        )
    try:
        for rows in slices:
            for row in rows:
                row.encounter = enc
                if row.kind == LogEntry.IMPORTED:
                    row.version = enc.version
            with transaction.atomic():
                LogEntry.objects.bulk_create(rows)
        said = list(chat_rows)
        for message in said:
            message.encounter = enc
        for i in range(0, len(said), ROWS_PER_WRITE):
            with transaction.atomic():
                ChatMessage.objects.bulk_create(said[i : i + ROWS_PER_WRITE])
    except BaseException:
        enc.delete()
        raise
    return enc


def _mods_of(ruleset_key: str, c: dict[str, Any]) -> dict[str, Any]:
    per = {s.key for s in get_ruleset(ruleset_key).all_settings() if s.per_combatant}
    return {k: v for k, v in c.items() if k in per}


def _plain(spec: dict[str, Any]) -> dict[str, Any]:
    keys = ("name", "cost", "bonus", "attack", "spell", "reaction", "interrupt", "summary")
    return {k: spec[k] for k in keys if k in spec}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _id(value: Any, ids: dict[str, str]) -> str | None:
    return ids.get(value) if isinstance(value, str) else None


def _worded(ev: dict[str, Any]) -> dict[str, Any] | None:
    """An imported fact as the words it says (the GM's, and the number-free ones for readers
    who may not know an HP exactly), involving every combatant it names: what the pages of
    the imported encounter read. None when this version has no sentence for it, or its
    facts do not fit that sentence."""
    names = ev.get("names")
    named = [i for i in names if isinstance(i, str)] if isinstance(names, dict) else []
    try:
        gm = words.text(ev)
        veiled = words.text(ev, words.Reader.of(False, veiled=named))
    except words.Unsayable:
        return None
    involved = ev.get("involved")
    out = {k: v for k, v in ev.items() if k not in ("say", "names", "unseen", "health")}
    out["text"] = gm
    out["involved"] = [*(involved if isinstance(involved, list) else []), *named]
    if veiled != gm:
        out["health"] = {"of": named, "text": veiled}
    if ev.get("say") == words.WRITTEN and isinstance(out.get("data"), dict):
        out["data"] = {k: v for k, v in out["data"].items() if k != "words"}  # now `text`
    health = ev.get("health")
    if ev.get("say") == words.WRITTEN and isinstance(health, dict):
        # Words kept from before facts: the number-free ones are their own version.
        kept = health.get("data")
        out["health"] = {
            "of": health.get("of"),
            "text": str((kept if isinstance(kept, dict) else {}).get("words", "")),
        }
    return out


def _clean_event(ev: Any, ids: dict[str, str]) -> dict[str, Any] | None:
    """An imported event kept only in the shape the pages read, ids mapped to the new ones."""
    if isinstance(ev, dict) and "say" in ev:
        ev = _worded(ev)
    if not isinstance(ev, dict) or not isinstance(ev.get("text"), str):
        return None
    raw = ev.get("data")
    data: dict[Any, Any] = raw if isinstance(raw, dict) else {}
    clean_data = {}
    for key, value in data.items():
        if not isinstance(key, str) or not _scalar(value):
            continue
        if key in ("target", "reactor", "id"):
            value = _id(value, ids)
        clean_data[key] = value
    rolls = []
    raw_rolls = ev.get("rolls")
    for r in raw_rolls if isinstance(raw_rolls, list) else []:
        try:
            screens.format_roll(r)
            rolls.append(json.loads(json.dumps(r)))
        except (AttributeError, TypeError, ValueError):
            continue
    raw_involved = ev.get("involved")
    involved: list[Any] = raw_involved if isinstance(raw_involved, list) else []
    round_no = ev.get("round")
    out = _cleaned(ev, ids, clean_data, rolls, involved, round_no)
    paid = ev.get("paid")
    if isinstance(paid, dict):
        # What an action paid, per resource: the summary of the imported fight counts it.
        out["paid"] = {
            str(k)[:40]: v
            for k, v in list(paid.items())[:8]
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1000
        }
        out["reaction"] = bool(ev.get("reaction"))
    health = ev.get("health")
    if isinstance(health, dict) and isinstance(health.get("text"), str):
        # The words without a health number, for readers who may not know that NPC's HP.
        of = health.get("of")
        out["health"] = {
            "of": [i for i in (_id(x, ids) for x in (of if isinstance(of, list) else [])) if i],
            "text": health["text"][:MAX_TEXT].replace("\x00", ""),
            "rolls": [],
            "data": {},
        }
    return out


def _cleaned(
    ev: dict[str, Any],
    ids: dict[str, str],
    clean_data: dict[str, Any],
    rolls: list[Any],
    involved: list[Any],
    round_no: Any,
) -> dict[str, Any]:
    return {
        "kind": str(ev.get("kind") or "imported")[:40],
        "text": ev["text"][:MAX_TEXT].replace("\x00", ""),
        "actor": _id(ev.get("actor"), ids),
        "involved": [i for i in (_id(x, ids) for x in involved) if i],
        "rolls": rolls,
        "ruling": bool(ev.get("ruling")),
        "gm_only": bool(ev.get("gm_only")),
        "round": round_no if isinstance(round_no, int) and 0 <= round_no < 100_000 else 0,
        "data": clean_data,
    }


def _clean_command(cmd: Any, ids: dict[str, str]) -> dict[str, Any]:
    if not isinstance(cmd, dict):
        return {"type": "imported"}
    out: dict[str, Any] = {}
    for key, value in cmd.items():
        if not isinstance(key, str):
            continue
        if key in ("actor", "target"):
            out[key] = _id(value, ids)
        elif key == "options" and isinstance(value, dict):
            out[key] = {
                k: (_id(v, ids) if k == "target" else v)
                for k, v in value.items()
                if isinstance(k, str) and _scalar(v)
            }
        elif _scalar(value):
            out[key] = value.replace("\x00", "")[:MAX_TEXT] if isinstance(value, str) else value
    out.setdefault("type", "imported")
    return out


def _plan_log(plan: _Plan, entries: list[Any], ids: dict[str, str]) -> None:
    """The exported log, kept as history after the entries the import itself made.

    Imported entries are never undone (undo takes back commands, kind "command") and
    carry no state: they changed nothing here, and nothing in an uploaded file can
    become the live state.
    """
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        raw_events = entry.get("events")
        events = [
            e
            for e in (
                _clean_event(ev, ids)
                for ev in (raw_events if isinstance(raw_events, list) else [])[
                    :MAX_EVENTS_PER_ENTRY
                ]
            )
            if e is not None
        ]
        if not events:
            continue
        command = _clean_command(entry.get("command"), ids)
        plan.count(command, events)
        plan.rows.append(
            LogEntry(
                seq=len(plan.rows) + 1,
                version=0,
                kind=LogEntry.IMPORTED,
                command=command,
                by="gm" if entry.get("by") == "gm" else "player",
                events=events,
                state_patch=[],
                changed=False,
                undone=bool(entry.get("undone")),
            )
        )


# --- views -------------------------------------------------------------------------------


def _templates_oob(request: HttpRequest, enc: Encounter) -> str:
    return render_to_string(
        "combat/gm.html#templates", {"enc": enc, "oob": True, "user": request.user}, request
    )


@login_required
@require_POST
def save_as_template(request: HttpRequest, encounter_id: int, cid: str) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    state = screens.load_state(enc)
    if cid not in state.combatants:
        raise Http404("No such combatant.")
    viewer = gm_viewer(enc)
    back = reverse("gm_console", args=[enc.pk])
    if (
        CombatantTemplate.objects.filter(owner_id=request.user.pk).count() >= MAX_TEMPLATES
        and not CombatantTemplate.objects.filter(
            owner_id=request.user.pk, name=base_name(state.combatants[cid].name)
        ).exists()
    ):
        refusal = Refusal("too_many", f"You can keep at most {MAX_TEMPLATES} templates.")
        return answer(request, viewer, refusal=refusal, back=back)  # type: ignore[arg-type]
    template, created = save_template(request.user, state, cid)
    notice = (
        f"Saved {template.name} as a template: add it to any encounter from “Add from templates”."
        if created
        else f"Updated the template {template.name}."
    )
    return answer(
        request,  # type: ignore[arg-type]
        viewer,
        notice=notice,
        back=back,
        extra=_templates_oob(request, enc),
    )


def _count(raw: str | None) -> int | None:
    try:
        n = int(raw or "1")
    except ValueError:
        return None
    return n if 1 <= n <= MAX_COPIES else None


@login_required
@require_POST
def add_from_template(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    viewer = gm_viewer(enc)
    back = reverse("gm_console", args=[enc.pk])
    template = CombatantTemplate.objects.filter(
        owner_id=request.user.pk, pk=_int(request.POST.get("template"))
    ).first()
    if template is None:
        gone = Refusal("not_found", "There is no such template: it may have been deleted.")
        return answer(request, viewer, refusal=gone, back=back)  # type: ignore[arg-type]
    count = _count(request.POST.get("count"))
    if count is None:
        bad = Refusal("bad_option", f"How many: a whole number from 1 to {MAX_COPIES}.")
        return answer(request, viewer, refusal=bad, back=back)  # type: ignore[arg-type]
    fields = {**fields_for(enc.ruleset, template.data), "name": template.name}
    form = services.form_key(viewer, request.path, request.POST)
    added, refusal = add_copies(enc, viewer, fields, count, form)
    if refusal is not None and not added:
        return answer(request, viewer, refusal=refusal, back=back)  # type: ignore[arg-type]
    notice = f"Added {', '.join(added)}."
    if refusal is not None:
        notice += f" Then refused: {refusal.message}"
    return answer(request, viewer, notice=notice, back=back)  # type: ignore[arg-type]


def _int(raw: str | None) -> int:
    try:
        return int(raw or "")
    except ValueError:
        return 0


@login_required
@require_GET
def library_page(request: HttpRequest) -> HttpResponse:
    return _library(request)


def _library(request: HttpRequest, error: str = "", status: int = 200) -> HttpResponse:
    templates = [
        {
            "pk": t.pk,
            "name": t.name,
            "ruleset": rulesets()[t.ruleset].name if t.ruleset in rulesets() else t.ruleset,
            "side": "PC" if t.data.get("side") == "pc" else "NPC",
            "hp": t.data.get("hp"),
        }
        for t in CombatantTemplate.objects.filter(owner_id=request.user.pk)
    ]
    ctx = {"templates": templates, "import_error": error, "max_kib": MAX_IMPORT_BYTES // 1024}
    return render(request, "combat/library.html", ctx, status=status)


@login_required
@require_POST
def delete_template(request: HttpRequest, template_id: int) -> HttpResponse:
    deleted, _ = CombatantTemplate.objects.filter(owner_id=request.user.pk, pk=template_id).delete()
    if not deleted:
        raise Http404("There is no such template.")
    messages.success(request, "Template deleted.")
    return redirect("library")


def template_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The stat rows of the template form: its stats, then two blank rows."""
    rows = [
        {"name": k, "dice": v.get("dice", ""), "bonus": v.get("bonus", 0)}
        for k, v in (data.get("stats") or {}).items()
    ]
    return rows + [{"name": "", "dice": "", "bonus": 0} for _ in range(2)]


def edited_template(template: CombatantTemplate, post: Any) -> tuple[str, dict[str, Any]] | str:
    """The name and data of `template` as the form says, checked by the rules engine as an
    add_combatant of its ruleset (so a template holds nothing an encounter would refuse);
    otherwise what is wrong, in words."""
    fields = forms.combatant_fields(post, template.ruleset)
    fields.pop("hidden", None)
    if template.data.get("group") and "group" not in fields:
        fields["group"] = template.data["group"]
    scratch = new_encounter(template.ruleset, "Template", {})
    outcome = apply(scratch, {"type": "add_combatant", "by": "gm", **fields}, services.make_rng())
    if outcome.refusal is not None:
        return outcome.refusal.message
    state = outcome.state
    cid = next(iter(state.combatants))
    name = base_name(state.combatants[cid].name)
    taken = CombatantTemplate.objects.filter(owner_id=template.owner_id, name=name)
    if taken.exclude(pk=template.pk).exists():
        return f"You already have a template named {name}."
    saved = combatant_fields(state, cid)
    rs = get_ruleset(template.ruleset)
    per = {x.key for x in rs.all_settings() if x.per_combatant}
    data = {k: v for k, v in saved.items() if k in TEMPLATE_FIELDS}
    data["mods"] = {k: v for k, v in saved.items() if k in per}
    return name, data


@login_required
@require_http_methods(["GET", "POST"])
def template_edit(request: HttpRequest, template_id: int) -> HttpResponse:
    template = CombatantTemplate.objects.filter(owner_id=request.user.pk, pk=template_id).first()
    if template is None:
        raise Http404("There is no such template.")
    error, data, name = "", template.data, template.name
    if request.method == "POST":
        edited = edited_template(template, request.POST)
        if not isinstance(edited, str):
            template.name, template.data = edited
            template.save()
            messages.success(request, f"Template {template.name} saved.")
            return redirect("library")
        error = edited
        data = {**forms.combatant_fields(request.POST, template.ruleset)}
        name = str(data.get("name", ""))
    ctx = {
        "template": template,
        "name": name,
        "data": data,
        "rows": template_rows(data),
        "error": error,
        "has_grit": get_ruleset(template.ruleset).has_seize,
        "ruleset": rulesets()[template.ruleset].name
        if template.ruleset in rulesets()
        else template.ruleset,
    }
    return render(request, "combat/template_edit.html", ctx, status=400 if error else 200)


@login_required
@require_POST
def duplicate_encounter(request: HttpRequest, encounter_id: int) -> HttpResponse:
    """A copy of the encounter, in set-up: the same settings, custom actions and combatants
    at their HP (as an export imported "anew"), named "... (copy)"."""
    enc = gm_encounter(request.user, encounter_id)
    copy = import_encounter(request.user, export_encounter(enc))
    services.rename_encounter(copy.pk, f"{enc.name[:73]} (copy)")
    copy.refresh_from_db()
    messages.success(request, f"Made \u201c{copy.name}\u201d, in set-up.")
    return redirect("home")


@login_required
@require_GET
def export_view(request: HttpRequest, encounter_id: int) -> HttpResponse:
    return export_response(gm_encounter(request.user, encounter_id))


@login_required
@require_POST
def import_view(request: HttpRequest) -> HttpResponse:
    outcome = import_request(request, request.user)
    if isinstance(outcome, Declined):
        response = _library(request, outcome.message, outcome.status)
        if outcome.limited is not None:
            response["Retry-After"] = str(outcome.limited.wait)
        return response
    enc, resumed, asked = outcome
    messages.success(request, imported_message(enc, resumed, asked=asked))
    return redirect("gm_console", enc.pk)


@dataclass
class Declined:
    """An import refused before or while it was checked: the sentence, the status, and how
    long to wait (seconds, for 429)."""

    message: str
    status: int
    limited: ratelimit.Limited | None = None


def import_request(request: HttpRequest, user: Any) -> tuple[Encounter, bool, bool] | Declined:
    """The import posted by the library page's form: the file under "file", "mode" resume
    or setup. See `import_file`."""
    try:
        upload = request.FILES.get("file")
        mode = request.POST.get("mode") or "resume"
    except MultiPartParserError:
        return Declined(
            'The upload could not be read: send the file as multipart/form-data, under "file".',
            400,
        )
    if upload is None:
        return Declined("Choose a file to import (an encounter export, .json).", 400)
    return import_file(user, upload.read, upload.size or 0, mode, upload.name or "The file")


def import_file(
    user: Any, read: Callable[[int], bytes], size: int, mode: str, name: str
) -> tuple[Encounter, bool, bool] | Declined:
    """An import of `user`'s (`size` bytes announced, at most MAX_IMPORT_BYTES read with
    `read`): the new encounter, whether it was resumed, and whether that was asked; or why
    not. Counted against the account's import limit."""
    limited = ratelimit.hit("imports", str(user.pk), settings.VTT_RATE_IMPORTS, "imports")
    if limited is not None:
        return Declined(limited.message, 429, limited)
    if mode not in IMPORT_MODES:
        return Declined(
            "Choose how to start the imported encounter: resume (where the fight stood) or "
            "setup (anew).",
            400,
        )
    raw = b"" if size > MAX_IMPORT_BYTES else read(MAX_IMPORT_BYTES + 1)
    if size > MAX_IMPORT_BYTES or len(raw) > MAX_IMPORT_BYTES:
        return Declined(
            f"The file is too large ({max(size, len(raw)) // 1024} KiB): an encounter export "
            f"is at most {MAX_IMPORT_BYTES // 1024} KiB.",
            400,
        )
    try:
        enc, resumed = planner.import_upload(user, raw, resume=mode == "resume")
    except NotAnExport as e:
        return Declined(f"{name}: {e}", 400)
    return enc, resumed, mode == "resume"


IMPORT_MODES = ("resume", "setup")


def imported_message(enc: Encounter, resumed: bool, *, asked: bool) -> str:
    """What the GM reads after an import: how it was started, and what to do next."""
    state = screens.load_state(enc)
    count = f"{len(state.combatants)} combatant{'s' if len(state.combatants) != 1 else ''}"
    if resumed:
        where = f"round {state.round}" if state.round else "set-up"
        if state.turn:
            where += f", {state.name_of(state.turn)}'s turn"
        return f"Imported {enc.name} as it stood ({where}; {count}). Make new player links for it."
    older = (
        " That file was saved before fights could be resumed, so it starts in set-up."
        if asked
        else ""
    )
    return f"Imported {enc.name}: {count}.{older} Make new player links for it."


# --- the same in the JSON API ----------------------------------------------------------------


def export_response(enc: Encounter) -> HttpResponse:
    """The export as a download, streamed one log entry at a time."""
    response = StreamingHttpResponse(export_chunks(enc), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{export_filename(enc)}"'
    # The decorators and callers are typed for plain responses.
    return response  # type: ignore[return-value]


@csrf_exempt
def api_export(request: HttpRequest, encounter_id: str) -> HttpResponse:
    """GET /api/encounters/<id>/export: the GM's export file (as "Export the encounter")."""
    if request.method not in ("GET", "HEAD"):
        return api.method_not_allowed("GET")
    found = api.caller_and_viewer(request, encounter_id)
    if isinstance(found, JsonResponse):
        return found
    viewer = found[1]
    if not viewer.is_gm:
        return api.error("forbidden", "Only the GM exports an encounter.", 403)
    return export_response(Encounter.objects.get(pk=viewer.encounter_id))


@csrf_exempt
def api_import(request: HttpRequest) -> HttpResponse:
    """POST /api/encounters/import?mode=resume|setup, the export file as the JSON body: a
    new encounter, resumed where its fight stood or anew in set-up; 201 with it."""
    if request.method != "POST":
        return api.method_not_allowed("POST")
    caller = api.authenticate(request)
    if isinstance(caller, JsonResponse):
        return caller
    if caller.user is None:
        return api.error("forbidden", "Only a GM (an account) imports encounters.", 403)
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        size = 0
    # Read from the request's stream: the file may be larger than a form's body limit.
    mode = request.GET.get("mode") or "resume"
    outcome = import_file(caller.user, request.read, size, mode, "The body")
    if isinstance(outcome, Declined):
        if outcome.limited is not None:
            return api.too_many(outcome.limited)
        return api.error("bad_import", outcome.message, outcome.status)
    enc, resumed, asked = outcome
    body = {
        **api.encounter_body(enc, gm_viewer(enc)),
        "resumed": resumed,
        "message": imported_message(enc, resumed, asked=asked),
    }
    response = JsonResponse(body, status=201)
    response["Location"] = f"/api/encounters/{enc.pk}/"
    return response
