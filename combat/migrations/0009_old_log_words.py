"""Log events written before facts carried their finished English (`text`), with other
versions for readers who could not see the attacker (`unseen.text`) or may not know a
target's HP (`health.text`); names of hidden combatants were taken out of those words when
they were read. That cleaning is gone, so each such event is stored again as a fact that
keeps its words (`say: "written"`, combat/sentences/written.py):

- the GM's words go into the event's data (`data.words`);
- each other version keeps only the words written for its readers, in its own data;
- a player or spectator reads only a version written for them: an event with none, or
  with only the version for readers who cannot see the attacker, or that involves a
  combatant hidden now, becomes the GM's alone (`gm_only`). Its version for readers who
  cannot see the attacker still reaches them; the words without a health number reach
  them while nobody it involves is hidden, as before. Old words may name a combatant the
  event does not involve, and no name is ever taken out of words, so no other words of
  the GM's are risked.

Who may read a line still follows from its ids (`involved`), never from its words. Going
back leaves the events as they are (they stay readable).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

VERSIONS = ("unseen", "health")


def hidden_ids(state: Any) -> set[str]:
    """The combatants of an encounter's stored state that are hidden now."""
    combatants = state.get("combatants") if isinstance(state, dict) else None
    if not isinstance(combatants, dict):
        return set()
    return {cid for cid, c in combatants.items() if isinstance(c, dict) and c.get("hidden")}


def _version(version: Any) -> dict[str, Any] | None:
    """Another version of an event's words, as the words it keeps for its readers."""
    if not isinstance(version, dict) or not isinstance(version.get("text"), str):
        return None
    old = version.get("data")
    data = {**(old if isinstance(old, dict) else {}), "words": version["text"]}
    return {**{k: v for k, v in version.items() if k not in ("text", "data")}, "data": data}


def rewritten(ev: Any, hidden: set[str]) -> Any:
    """One stored event in the shape of facts; an event that is already a fact, or is not
    an event, is left as it is."""
    if not isinstance(ev, dict) or "say" in ev or not isinstance(ev.get("text"), str):
        return ev
    old = ev.get("data")
    out = {k: v for k, v in ev.items() if k not in ("text", "data", *VERSIONS)}
    out["say"] = "written"
    out["data"] = {**(old if isinstance(old, dict) else {}), "words": ev["text"]}
    for name in VERSIONS:
        version = _version(ev.get(name))
        if version is not None:
            out[name] = version
    involved = ev.get("involved")
    if hidden & set(involved if isinstance(involved, list) else ()) or "health" not in out:
        out["gm_only"] = True
    return out


def forwards(apps: Any, schema_editor: Any) -> None:
    Encounter = apps.get_model("combat", "Encounter")  # noqa: N806 - a model class
    LogEntry = apps.get_model("combat", "LogEntry")  # noqa: N806 - a model class
    for enc in Encounter.objects.all().only("id", "state").iterator():
        hidden = hidden_ids(enc.state)
        for entry in LogEntry.objects.filter(encounter=enc).only("id", "events").iterator():
            events = entry.events if isinstance(entry.events, list) else []
            new = [rewritten(ev, hidden) for ev in events]
            if new != events:
                LogEntry.objects.filter(id=entry.id).update(events=new)


class Migration(migrations.Migration):
    dependencies = [("combat", "0008_confirmed_email")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
