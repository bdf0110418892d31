"""After combat: what each combatant spent, dealt, took and reacted, drawn as SVG charts.

Everything is read from the log: each accepted command (not undone), its events as the
reader reads them (`screens.event_for` for players and spectators, so a hidden
combatant's doings and a veiled HP number are absent by construction), and the states
around it. The state after an entry is the state before the next one (or the
encounter's current state after the last); the log keeps the way back from each, so it
is read newest first (`steps`).

- Spent: what each action's event says was paid (`paid`, per resource, written by the
  rules engine when it charged the action), by the round of the event; the charts count
  the ruleset's currency (`currency_resource`). A GM's "grant free" paid nothing.
  Nothing is priced again here.
- Damage dealt: the damage of each hit an attacker rolled (events with `data.damage`).
- Damage taken: the HP each combatant lost (the states' difference), whoever caused it,
  the GM's own "damage" included; healing is not subtracted.
- Reactions used: accepted reaction prompts, and actions whose event says they are
  reactions.

The charts are drawn here as plain shapes (rectangles, lines, text) and rendered by
the template into inline SVG: readable with no JavaScript, each with a title, a sentence
describing it and the same numbers in a table.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from combat import screens, statediff
from combat.access import encounter_by_spectator_token, gm_encounter, seat_by_token
from combat.models import Encounter, LogEntry
from combat.rules import Encounter as State
from combat.rules import get_ruleset
from combat.rules.view import veiled_ids
from combat.views import login_required, require_GET

GM = "gm"
PUBLIC = "public"

# Commands whose HP changes are bookkeeping, not harm.
NOT_HARM = {"adjust", "update_combatant", "add_combatant", "remove_combatant", "heal"}

WIDTH = 640
LABEL_W = 150
NAME_CHARS = 15


@dataclass
class Tally:
    """Per combatant: spent per round, damage dealt and taken, reactions used."""

    names: dict[str, str] = field(default_factory=dict)
    sides: dict[str, str] = field(default_factory=dict)
    hidden: set[str] = field(default_factory=set)
    order: list[str] = field(default_factory=list)
    spent: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    dealt: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    taken: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    reactions: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # What each paid in all, per resource ("ap", "effort", "bonus").
    paid: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    actions: int = 0
    rounds: int = 0

    def add_spent(self, cid: str, round_no: int, amount: int) -> None:
        per = self.spent[cid]
        per[round_no] = per.get(round_no, 0) + amount


def _accepted(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes", "on")
    return value is None or bool(value)


def _round_of(events: list[Any], state_before: dict[str, Any]) -> int:
    for ev in events:
        if isinstance(ev, dict) and isinstance(ev.get("round"), int):
            return ev["round"]
    r = state_before.get("round")
    return r if isinstance(r, int) else 0


Seen = dict[str, tuple[str, str, bool]]


@dataclass
class Step:
    """What the count needs of one log entry, without the states themselves."""

    kind: str
    undone: bool
    command: dict[str, Any]
    events: list[Any]
    seen: Seen
    round_no: int
    lost: list[tuple[str, int]] = field(default_factory=list)


def _seen(state: dict[str, Any], last: Seen | None) -> Seen:
    """Names, sides and hiding of everyone in a state; the previous one when unchanged."""
    seen = {
        str(cid): (str(c.get("name", cid)), str(c.get("side", "npc")), bool(c.get("hidden")))
        for cid, c in (state.get("combatants") or {}).items()
    }
    return last if last == seen else seen


def _meet(t: Tally, seen: Seen) -> None:
    """Remember names, sides and hiding of everyone in a state (removed ones included)."""
    for cid, (name, side, hidden) in seen.items():
        if cid not in t.names:
            t.order.append(cid)
        t.names[cid] = name
        t.sides[cid] = side
        if hidden:
            t.hidden.add(cid)
        else:
            t.hidden.discard(cid)


def _lost(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, int]]:
    before_c = before.get("combatants") or {}
    after_c = after.get("combatants") or {}
    out = []
    for cid, c in before_c.items():
        hp_before, hp_after = c.get("hp"), (after_c.get(cid) or {}).get("hp")
        if isinstance(hp_before, int) and isinstance(hp_after, int) and hp_after < hp_before:
            out.append((cid, hp_before - hp_after))
    return out


def steps(enc: Encounter) -> list[Step]:
    """Each log entry, oldest first, with what the count needs of its states.

    The log keeps the way back from each state (combat/statediff.py), so it is read
    newest first, a few rows at a time, holding two states at once: never every state
    the encounter went through.
    """
    out: list[Step] = []
    last: Seen | None = None
    rows = enc.log.order_by("-seq").defer("seat", "idempotency_key", "request_hash")
    for entry, before, after in statediff.history(rows.iterator(chunk_size=200), enc.state):
        cmd = entry.command if isinstance(entry.command, dict) else {}
        last = _seen(before or {}, last)
        step = Step(
            kind=entry.kind,
            undone=entry.undone,
            command=cmd,
            events=entry.events if isinstance(entry.events, list) else [],
            seen=last,
            round_no=_round_of(entry.events or [], before or {}),
        )
        counted = not entry.undone and entry.kind != LogEntry.UNDO
        if counted and entry.kind == LogEntry.COMMAND and cmd.get("type") not in NOT_HARM:
            step.lost = _lost(before or {}, after or {})
        out.append(step)
    out.reverse()
    return out


def _reader_events(
    step: Step, hidden: tuple[str, ...] | None, veiled: tuple[str, ...]
) -> list[dict[str, Any]]:
    """The step's events as the reader reads them: every one for the GM (`hidden` None),
    else each as `screens.event_for` gives it to a player or spectator, or not at all."""
    evs = [ev for ev in step.events if isinstance(ev, dict)]
    if hidden is None:
        return evs
    return [v for v in (screens.event_for(ev, hidden, veiled) for ev in evs) if v is not None]


def _count_paid(t: Tally, ev: dict[str, Any], currency: str) -> None:
    """An action taken: what its event says was paid (in its round), and a reaction."""
    who, paid = ev.get("actor"), ev.get("paid")
    if not isinstance(who, str) or not isinstance(paid, dict):
        return
    t.actions += 1
    round_no = ev.get("round") if isinstance(ev.get("round"), int) else 0
    amounts = {k: v for k, v in paid.items() if isinstance(v, int)}
    if round_no:
        t.add_spent(who, round_no, amounts.get(currency, 0))
    totals = t.paid[who]
    for k, v in amounts.items():
        totals[k] = totals.get(k, 0) + v
    if ev.get("reaction"):
        t.reactions[who] += 1


def _count_hits(t: Tally, step: Step, ev: dict[str, Any]) -> None:
    """Damage dealt by a hit (a reader who may not know the target's HP gets no data)."""
    raw = ev.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    dmg, who = data.get("damage"), ev.get("actor")
    if data.get("hit") and isinstance(dmg, int) and isinstance(who, str):
        t.dealt[who] += dmg
        if step.kind == LogEntry.IMPORTED and isinstance(data.get("target"), str):
            t.taken[data["target"]] += dmg


def _reacted(step: Step, evs: list[dict[str, Any]]) -> str | None:
    """Who answered a reaction prompt in this step, when the reader sees them in it."""
    cmd = step.command
    who = cmd.get("actor")
    if cmd.get("type") != "react" or not _accepted(cmd.get("accept", True)):
        return None
    if not isinstance(who, str):
        return None
    seen = any(who == ev.get("actor") or who in (ev.get("involved") or ()) for ev in evs)
    return who if seen else None


def tally(enc: Encounter, audience: str = GM) -> Tally:
    """Walk the log once and count, for `audience` (the GM sees everyone)."""
    t = Tally()
    state = State.from_dict(enc.state)
    currency = get_ruleset(state.ruleset).currency_resource
    # Who the reader cannot see, and whose HP they may not know exactly (no damage number).
    hidden = None if audience == GM else screens.hidden_ids(state)
    veiled = () if audience == GM else tuple(sorted(veiled_ids(state)))
    for step in steps(enc):
        _meet(t, step.seen)
        if step.undone or step.kind == LogEntry.UNDO:
            continue
        t.rounds = max(t.rounds, step.round_no)
        evs = _reader_events(step, hidden, veiled)
        for ev in evs:
            _count_paid(t, ev, currency)
            _count_hits(t, step, ev)
        reactor = _reacted(step, evs)
        if reactor:
            t.reactions[reactor] += 1
        if step.kind == LogEntry.IMPORTED:
            # Imported history carries no states of its own: only the GM's damage by hand.
            cmd = step.command
            who = cmd.get("actor")
            if (
                cmd.get("type") == "damage"
                and isinstance(who, str)
                and evs
                and who not in veiled
                and isinstance(cmd.get("amount"), int | str)
            ):
                with contextlib.suppress(ValueError):
                    t.taken[who] += max(0, int(cmd["amount"]))
            continue
        for cid, amount in step.lost:
            if cid not in veiled:
                t.taken[cid] += amount
    _meet(t, _seen(enc.state or {}, None))
    return t


# --- drawing -----------------------------------------------------------------------------


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _chart(cid: str, title: str, desc: str, height: int) -> dict[str, Any]:
    return {
        "id": cid,
        "title": title,
        "desc": desc,
        "width": WIDTH,
        "height": height,
        "rects": [],
        "texts": [],
        "lines": [],
        "diamonds": [],
    }


def _text(
    chart: dict[str, Any], x: float, y: float, text: str, cls: str = "", anchor: str = "start"
) -> None:
    chart["texts"].append(
        {"x": round(x, 1), "y": round(y, 1), "text": text, "cls": cls, "anchor": anchor}
    )


def _rect(chart: dict[str, Any], x: float, y: float, w: float, h: float, cls: str) -> None:
    chart["rects"].append(
        {"x": round(x, 1), "y": round(y, 1), "w": round(max(w, 0), 1), "h": round(h, 1), "cls": cls}
    )


def _line(chart: dict[str, Any], x1: float, y1: float, x2: float, y2: float) -> None:
    chart["lines"].append(
        {"x1": round(x1, 1), "y1": round(y1, 1), "x2": round(x2, 1), "y2": round(y2, 1)}
    )


def spent_chart(t: Tally, ids: list[str], currency: str) -> dict[str, Any]:
    """Small multiples: a row per combatant, a bar per round, the number on each bar."""
    rounds = max(t.rounds, 1)
    row_h, top, bottom = 64, 12, 32
    chart = _chart(
        "chart-spent",
        f"{currency} spent per round",
        f"For each combatant, one bar per round, as tall as the {currency} spent in it.",
        top + row_h * max(len(ids), 1) + bottom,
    )
    biggest = max([v for cid in ids for v in t.spent.get(cid, {}).values()] + [1])
    col = (WIDTH - LABEL_W - 10) / rounds
    bar = min(col * 0.6, 44)
    for n, cid in enumerate(ids):
        base = top + row_h * (n + 1) - 14
        _text(chart, 0, base - 8, _short(t.names[cid]), "chart-label")
        _line(chart, LABEL_W, base, WIDTH - 10, base)
        for r in range(1, rounds + 1):
            value = t.spent.get(cid, {}).get(r)
            x = LABEL_W + col * (r - 1) + (col - bar) / 2
            if value is None:
                continue
            h = (row_h - 30) * value / biggest
            _rect(chart, x, base - h, bar, h, "bar bar-spent")
            _text(chart, x + bar / 2, base - h - 5, str(value), "chart-value", "middle")
    axis = top + row_h * max(len(ids), 1) + 6
    step = max(1, round(rounds / 12))
    for r in range(1, rounds + 1, step):
        x = LABEL_W + col * (r - 1) + col / 2
        _text(chart, x, axis + 16, f"R{r}", "chart-axis", "middle")
    _text(chart, LABEL_W - 8, axis + 16, "round", "chart-axis", "end")
    return chart


def damage_chart(t: Tally, ids: list[str]) -> dict[str, Any]:
    """A pair of bars per combatant: dealt (solid) and taken (hatched), each labelled."""
    row_h, top = 58, 34
    chart = _chart(
        "chart-damage",
        "Damage dealt and taken",
        "For each combatant, a solid bar for the damage its hits dealt and a hatched bar "
        "for the HP it lost; each bar is labelled with its number.",
        top + row_h * max(len(ids), 1) + 6,
    )
    _rect(chart, LABEL_W, 6, 22, 16, "bar bar-dealt")
    _text(chart, LABEL_W + 28, 20, "dealt", "chart-axis")
    _rect(chart, LABEL_W + 100, 6, 22, 16, "bar bar-taken")
    _text(chart, LABEL_W + 128, 20, "taken", "chart-axis")
    biggest = max([t.dealt.get(c, 0) for c in ids] + [t.taken.get(c, 0) for c in ids] + [1])
    span = WIDTH - LABEL_W - 100
    for n, cid in enumerate(ids):
        y = top + row_h * n
        _text(chart, 0, y + 26, _short(t.names[cid]), "chart-label")
        for k, (value, cls, word) in enumerate(
            (
                (t.dealt.get(cid, 0), "bar bar-dealt", "dealt"),
                (t.taken.get(cid, 0), "bar bar-taken", "taken"),
            )
        ):
            w = span * value / biggest
            yy = y + 4 + k * 23
            _rect(chart, LABEL_W, yy, w, 19, cls)
            _text(chart, LABEL_W + w + 6, yy + 15, f"{value} {word}", "chart-value")
    return chart


def reactions_chart(t: Tally, ids: list[str]) -> dict[str, Any]:
    """A diamond per reaction used, and the count in words."""
    row_h, top = 40, 8
    chart = _chart(
        "chart-reactions",
        "Reactions used",
        "For each combatant, one diamond per reaction it used, and the count.",
        top + row_h * max(len(ids), 1) + 4,
    )
    for n, cid in enumerate(ids):
        y = top + row_h * n
        _text(chart, 0, y + 22, _short(t.names[cid]), "chart-label")
        used = t.reactions.get(cid, 0)
        shown = min(used, 20)
        for k in range(shown):
            cx, cy = LABEL_W + 14 + k * 24, y + 16
            chart["diamonds"].append(f"{cx},{cy - 9} {cx + 9},{cy} {cx},{cy + 9} {cx - 9},{cy}")
        words = "none" if used == 0 else f"{used} reaction{'s' if used != 1 else ''}"
        _text(chart, LABEL_W + 4 + shown * 24 + (6 if shown else 0), y + 22, words, "chart-value")
    return chart


def _paid_words(paid: dict[str, int], names: dict[str, str]) -> str:
    """What a combatant paid in all, per resource: "5 ½-Action steps, 1 Bonus Actions"."""
    return ", ".join(f"{n} {names.get(k, k)}" for k, n in sorted(paid.items()) if n) or "nothing"


def summary_context(enc: Encounter, audience: str = GM) -> dict[str, Any]:
    """Everything the summary page shows, for `audience`."""
    t = tally(enc, audience)
    rs = get_ruleset(enc.ruleset)
    ids = [cid for cid in t.order if audience == GM or cid not in t.hidden]
    rows = [
        {
            "id": cid,
            "name": t.names[cid],
            "side": "PC" if t.sides.get(cid) == "pc" else "NPC",
            "spent": [t.spent.get(cid, {}).get(r) for r in range(1, t.rounds + 1)],
            "spent_total": sum(t.spent.get(cid, {}).values()),
            "dealt": t.dealt.get(cid, 0),
            "taken": t.taken.get(cid, 0),
            "reactions": t.reactions.get(cid, 0),
            "paid": _paid_words(t.paid.get(cid, {}), rs.resource_names),
            "hidden": cid in t.hidden,
        }
        for cid in ids
    ]
    state = enc.state or {}
    return {
        "enc": enc,
        "audience": audience,
        "ruleset_name": rs.name,
        "currency": rs.currency,
        "phase": state.get("phase", ""),
        "rounds": t.rounds,
        "round_numbers": list(range(1, t.rounds + 1)),
        "actions": t.actions,
        "total_dealt": sum(r["dealt"] for r in rows),
        "rows": rows,
        "charts": [
            spent_chart(t, ids, rs.currency),
            damage_chart(t, ids),
            reactions_chart(t, ids),
        ]
        if ids
        else [],
    }


# --- views -------------------------------------------------------------------------------


def _page(request: HttpRequest, enc: Encounter, audience: str, back: str) -> HttpResponse:
    ctx = summary_context(enc, audience)
    return render(request, "combat/summary.html", {**ctx, "back": back, "hide_login": True})


@login_required
@require_GET
def gm_summary(request: HttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    return _page(request, enc, GM, reverse("gm_console", args=[enc.pk]))


@require_GET
def player_summary(request: HttpRequest, token: str) -> HttpResponse:
    seat = seat_by_token(token)
    return _page(request, seat.encounter, PUBLIC, reverse("player", args=[token]))


@require_GET
def spectator_summary(request: HttpRequest, token: str) -> HttpResponse:
    enc = encounter_by_spectator_token(token)
    return _page(request, enc, PUBLIC, reverse("spectator", args=[token]))
