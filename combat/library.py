"""Reuse: combatant templates, and encounters exported to a JSON file and imported again.

- A GM saves a combatant as a template ("Goblin": side, HP, stats, per-combatant settings)
  and adds it again to any of their encounters, several at once with numbered names
  ("Goblin 1", "Goblin 2", ...).
- An encounter exports as one JSON file (its settings, custom actions, combatants and
  log) and imports as a new encounter of the GM's. A file that is not such an export is
  refused with a sentence saying what is wrong with it.

Every change to an encounter goes through `services.run_command` with the existing
commands (add_combatant, adjust, defeat, ...), so the rules engine checks imported values
exactly as it checks typed ones. The only rows written here directly are the templates
and the imported log (kind "imported": history to read, never something to undo).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from combat import screens, services
from combat.access import Viewer, gm_encounter, gm_viewer
from combat.models import CombatantTemplate, Encounter, LogEntry
from combat.rules import Encounter as State
from combat.rules import Refusal, get_ruleset, rulesets
from combat.views import answer, login_required, require_GET, require_POST

FORMAT = "combat-table-encounter"
FORMAT_VERSION = 1
MAX_IMPORT_BYTES = 2 * 1024 * 1024
MAX_COPIES = 20
MAX_TEMPLATES = 500
MAX_IMPORTED_ENTRIES = 5000
MAX_EVENTS_PER_ENTRY = 50
MAX_TEXT = 2000

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


def export_encounter(enc: Encounter) -> dict[str, Any]:
    """The encounter as one JSON-ready object: settings, combatants and log, nothing secret.

    Seat and spectator links are not in it (an import makes new ones), and neither is
    the state kept for undo: the import starts a fresh encounter from the combatants.
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
    log = [
        {
            "seq": e.seq,
            "kind": e.kind,
            "by": e.by,
            "command": e.command,
            "events": e.events,
            "undone": e.undone,
            "created": e.created.isoformat(),
        }
        for e in enc.log.order_by("seq")
    ]
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
        },
        "combatants": combatants,
        "log": log,
    }


def export_filename(enc: Encounter) -> str:
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", enc.name).strip("-") or "encounter"
    return f"{slug}.encounter.json"


# --- import ------------------------------------------------------------------------------


class NotAnExport(Exception):
    """The uploaded file is not an encounter export; the message says why, for a person."""


def parse_export(raw: bytes) -> dict[str, Any]:
    """The export in `raw`, or NotAnExport with a sentence saying what is wrong."""
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
        data = json.loads(text)
    except ValueError as e:
        raise NotAnExport(
            f"That file is not JSON (line {getattr(e, 'lineno', '?')}: "
            f"{getattr(e, 'msg', e)}): choose the .json file that “Export the encounter” saved."
        ) from None
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
    for key, kind in (("combatants", list), ("log", list)):
        if not isinstance(data.get(key, []), kind):
            raise NotAnExport(f'In that export, "{key}" is not a list.')
    if not all(isinstance(c, dict) for c in data.get("combatants", [])):
        raise NotAnExport('In that export, each of the "combatants" must be an object.')
    if len(data.get("log", [])) > MAX_IMPORTED_ENTRIES:
        raise NotAnExport(
            f"That export has a log of {len(data['log'])} entries; at most "
            f"{MAX_IMPORTED_ENTRIES} can be imported."
        )
    return data


def import_encounter(user: Any, data: dict[str, Any]) -> Encounter:
    """A new encounter of `user`'s from a parsed export; NotAnExport if a value is refused.

    Built in one transaction through the rules engine's own commands: a value the engine
    refuses (a bad dice expression, a name too long) refuses the whole import, naming it.
    """
    info = data["encounter"]
    settings = info.get("settings") or {}
    if not isinstance(settings, dict):
        raise NotAnExport('In that export, "settings" is not an object.')
    known = {s.key for s in get_ruleset(info["ruleset"]).all_settings()}
    settings = {k: v for k, v in settings.items() if k in known}
    with transaction.atomic():
        made = services.create_encounter(
            user, str(info.get("name") or "Imported encounter")[:80], info["ruleset"], settings
        )
        if isinstance(made, Refusal):
            raise NotAnExport(f"The encounter was refused: {made.message}")
        enc = made
        viewer = gm_viewer(enc)

        def run(command: dict[str, Any], what: str) -> services.Result:
            result = services.run_command(enc.pk, viewer, command)
            if not result.ok:
                assert result.refusal is not None
                raise NotAnExport(f"{what} was refused: {result.refusal.message}")
            return result

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
            fields = fields_for(enc.ruleset, {**c, "mods": _mods_of(enc.ruleset, c)})
            name = c.get("name")
            command = {"type": "add_combatant", **fields, "name": name}
            if c.get("initiative") not in (None, ""):
                command["initiative"] = c["initiative"]
            if c.get("hidden"):
                command["hidden"] = True
            result = run(command, f"The combatant {name!r}")
            new_id = next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")
            if isinstance(c.get("id"), str):
                ids[c["id"]] = new_id
            hp, top = c.get("current_hp"), c.get("hp")
            if isinstance(hp, int) and isinstance(top, int) and 0 <= hp < top:
                run(
                    {"type": "adjust", "actor": new_id, "resource": "hp", "value": hp},
                    f"The HP of {name!r}",
                )
            if c.get("defeated"):
                state = screens.load_state(Encounter.objects.get(pk=enc.pk))
                if not state.combatants[new_id].defeated:
                    run({"type": "defeat", "actor": new_id}, f"Defeating {name!r}")
        _import_log(enc, data.get("log", []), ids)
    enc.refresh_from_db()
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


def _clean_event(ev: Any, ids: dict[str, str]) -> dict[str, Any] | None:
    """An imported event kept only in the shape the pages read, ids mapped to the new ones."""
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


def _import_log(enc: Encounter, entries: list[Any], ids: dict[str, str]) -> None:
    """The exported log, kept as history after the entries the import itself made.

    Imported entries are never undone (undo takes back commands, kind "command"), and
    their `state_before` is the imported encounter's own state, never anything from the
    file: nothing in an uploaded file can become the live state.
    """
    locked = Encounter.objects.select_for_update().get(pk=enc.pk)
    seq = locked.log.aggregate(m=Max("seq"))["m"] or 0
    rows = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        events = [
            e
            for e in (
                _clean_event(ev, ids) for ev in (entry.get("events") or [])[:MAX_EVENTS_PER_ENTRY]
            )
            if e is not None
        ]
        if not events:
            continue
        seq += 1
        rows.append(
            LogEntry(
                encounter=locked,
                seq=seq,
                version=locked.version,
                kind=LogEntry.IMPORTED,
                command=_clean_command(entry.get("command"), ids),
                by="gm" if entry.get("by") == "gm" else "player",
                events=events,
                state_before=locked.state,
                undone=bool(entry.get("undone")),
            )
        )
    LogEntry.objects.bulk_create(rows)


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


@login_required
@require_GET
def export_view(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    response = JsonResponse(export_encounter(enc), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{export_filename(enc)}"'
    return response


@login_required
@require_POST
def import_view(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    if upload is None:
        return _library(request, "Choose a file to import (an encounter export, .json).", 400)
    if upload.size and upload.size > MAX_IMPORT_BYTES:
        return _library(
            request,
            f"The file is too large ({upload.size // 1024} KiB): an encounter export is at "
            f"most {MAX_IMPORT_BYTES // 1024} KiB.",
            400,
        )
    try:
        data = parse_export(upload.read(MAX_IMPORT_BYTES + 1))
        enc = import_encounter(request.user, data)
    except NotAnExport as e:
        return _library(request, f"{upload.name}: {e}", 400)
    messages.success(
        request,
        f"Imported {enc.name}: {len(screens.load_state(enc).combatants)} combatants. "
        "Make new player links for it.",
    )
    return redirect("gm_console", enc.pk)
