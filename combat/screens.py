"""What each audience sees, as plain data for the templates.

Pages and pushed fragments are rendered from these contexts only. For players
and spectators the lists come from `combat.rules.view.redacted`, so a hidden
combatant never reaches their HTML. Everything else is chosen by id, never by matching
names in text: a log line is shown only when no combatant it involves is hidden now, and
a lasting effect that names a hidden combatant shows only its own name ("Grappled").
Text is never rewritten, so nothing a caller types can test a guess at a hidden name.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from django.urls import reverse

from combat import words
from combat.board import board_view
from combat.models import Encounter, LogEntry, Presence, Seat
from combat.rules import Encounter as State
from combat.rules import get_ruleset, plans
from combat.rules.refusal import Refusal
from combat.rules.view import (
    UNSEEN,
    availability,
    health_for,
    lasts,
    redacted,
    veiled_ids,
)

GM = "gm"
PLAYER = "player"
PUBLIC = "public"

LOG_LINES = 60
MAX_PIPS = 12

PHASES = {
    "setup": "Setting up",
    "seize": "Between rounds",
    "combat": "In combat",
    "ended": "Combat is over",
}

# Conditions the GM's console suggests (any other name can be typed).
CONDITION_NAMES = (
    "Prone",
    "Grappled",
    "Incapacitated",
    "Burning",
    "Bleeding",
    "Unseen",
    "Climbing",
    "Swimming",
)


class Shared(dict[Any, Any]):
    """What one push computes once for all its audiences: the log entries, each
    audience's redacted state and log lines, and the combatant cards that are the same
    for several of them (a spectator's card of the Ogre is every player's). A push
    renders up to eight views of one state; a page rendered for one request has its own."""

    def get_or(self, key: Any, make: Any) -> Any:
        if key not in self:
            self[key] = make()
        return self[key]


def load_state(enc: Encounter) -> State:
    return State.from_dict(enc.state)


# --- words ------------------------------------------------------------------------------


def hidden_ids(state: State) -> tuple[str, ...]:
    """The ids players and spectators must not meet, in a stable order (a cache key)."""
    return tuple(sorted(cid for cid, c in state.combatants.items() if c.hidden))


def event_shown(ev: dict[str, Any], hidden: Iterable[str]) -> bool:
    """Whether someone other than the GM sees this event: not GM-only when it happened,
    and involving no combatant that is hidden now (one hidden later drops out again)."""
    if ev.get("gm_only"):
        return False
    gone = set(hidden)
    return not any(i in gone for i in ev.get("involved") or ())


def event_for(
    ev: dict[str, Any], hidden: Iterable[str], veiled: Iterable[str] = ()
) -> dict[str, Any] | None:
    """The event as a player or spectator who cannot see `hidden` reads it (its `text`
    written for them), or None when they read none of it (`_version_for`)."""
    version = _version_for(ev, hidden, veiled)
    if version is None:
        return None
    return words.written(version, words.Reader.of(False, hidden, veiled))


def for_gm(ev: dict[str, Any]) -> dict[str, Any]:
    """The event as the GM reads it: every name and number."""
    return words.written(ev)


def _version_for(
    ev: dict[str, Any], hidden: Iterable[str], veiled: Iterable[str] = ()
) -> dict[str, Any] | None:
    """The event as a reader who cannot see `hidden` sees it, or None when they see none
    of it: the event itself when `event_shown`; else its own words for readers who cannot
    see the attacker (`Events.unseen`), when the attacker is the only one it involves that
    is hidden now ("Someone unseen: Attack on Ana … hit for 5 damage.").

    When the event tells a number about the health of a combatant in `veiled` (one whose
    HP this reader may not know exactly: rules.view.veiled_ids), the reader gets its words
    without that number instead (`Events.health`: "Ana: Strike on Ogre …: hit.")."""
    health = ev.get("health")
    if health and set(health.get("of") or ()) & set(veiled):
        if not event_shown(ev, hidden):
            # Someone unseen hurting a banded or hidden NPC: no words of its own for both.
            return None
        return {
            **_one_version(ev),
            **_words_of(ev, health),
            "rolls": list(health.get("rolls") or []),
        }
    if event_shown(ev, hidden):
        return _one_version(ev)
    unseen = ev.get("unseen")
    if not unseen:
        return None
    hides = set(unseen.get("hides") or ())
    gone = set(hidden)
    involved = [i for i in ev.get("involved") or () if i not in hides]
    if any(i in gone for i in involved):
        return None
    # What the unseen attacker paid, and whether it reacted, are its own.
    own = {k: v for k, v in _one_version(ev).items() if k not in ("paid", "reaction")}
    return {
        **own,
        **_words_of(ev, unseen),
        "actor": None if ev.get("actor") in hides else ev.get("actor"),
        "involved": involved,
        "rolls": list(unseen.get("rolls") or []),
        "gm_only": False,
    }


def _words_of(ev: dict[str, Any], version: dict[str, Any]) -> dict[str, Any]:
    """What another version of an event's words replaces: for an event that carries words,
    its text and data; for a fact, only the facts that reader may have: those the version
    gives (`data`), or the event's without the keys the version names as the hidden
    attacker's own (`own`: its roll, its bonuses). Its sentence is written for the reader
    from them (combat/words.py)."""
    if "say" in ev:
        if "data" in version:
            return {"data": dict(version["data"])}
        own = set(version.get("own") or ())
        return {"data": {k: v for k, v in (ev.get("data") or {}).items() if k not in own}}
    return {"text": version.get("text", ""), "data": dict(version.get("data") or {})}


# An event's other versions of its words (Events.unseen, Events.health): a reader gets
# the one written for them, and never the others (the attacker's name and dice are in
# the words for those who can see it, the HP in the words for the GM).
_VERSIONS = ("unseen", "health")


def _one_version(ev: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k not in _VERSIONS}


def effect_text(effect: Any, hidden: Iterable[str], state: State | None = None) -> str:
    """A lasting effect as a reader sees it: "grappled by the Troll" names the Troll, so
    while the Troll is hidden the effect shows only its own name ("Grappled"). A condition
    the GM set says how long it lasts, as the reader may know it: "until the end of a
    turn" when that turn is a hidden combatant's."""
    gone = set(hidden)
    refs = [v for v in (effect.detail or {}).values() if isinstance(v, str)]
    if not (effect.detail or {}).get("condition"):
        # Only a condition's words are the GM's name and stacks; another effect's text may
        # name whose turn ends it.
        refs.append(effect.until_of)
    if gone and any(r in gone for r in refs):
        return str(effect.name)
    text = str(effect.text or effect.name)
    if state is None or not (effect.detail or {}).get("condition"):
        return text
    words = lasts(state, effect, gone)
    return f"{text} ({words})" if words else text


def format_roll(roll: dict[str, Any]) -> str:
    """E.g. "1d20+2: [14] + 2 = 16", with dropped dice marked."""
    parts: list[str] = []
    for i, t in enumerate(roll.get("terms") or []):
        if t.get("type") == "dice":
            kept = set(t.get("kept") or [])
            dice = ", ".join(
                str(r) if j in kept else f"{r} dropped"
                for j, r in enumerate(t.get("results") or [])
            )
            negative, body = t.get("sign", 1) < 0, f"[{dice}]"
        else:
            value = int(t.get("value") or 0)
            negative, body = value < 0, str(abs(value))
        if i == 0:
            parts.append(("-" if negative else "") + body)
        else:
            parts.append(("- " if negative else "+ ") + body)
    return f"{roll.get('expression', '?')}: {' '.join(parts)} = {roll.get('total', '?')}"


def kind_label(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


# --- pieces -----------------------------------------------------------------------------


def initiative_of(state: State, cid: str) -> int | None:
    c = state.combatants[cid]
    if c.group and c.group in state.groups:
        return state.groups[c.group].initiative
    return c.initiative


def display_order(state: State, visible: list[str], order: list[str]) -> list[str]:
    """The round's order, then anyone visible not in it yet (in setup: by initiative)."""
    shown = [i for i in order if i in visible]
    rest = [i for i in visible if i not in shown]
    rest.sort(key=lambda i: (-(initiative_of(state, i) or -999), state.combatants[i].seq))
    return shown + rest


def order_rows(
    state: State,
    ids: list[str],
    turn: str | None,
    acted: list[str],
    controls: set[str],
    audience: str,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n, cid in enumerate(ids):
        c = state.combatants[cid]
        init = initiative_of(state, cid)
        mine = audience == GM or cid in controls
        rows.append(
            {
                "id": cid,
                "name": c.name,
                "side": c.side,
                "initiative": init,
                "group": state.groups[c.group].name if c.group and c.group in state.groups else "",
                "is_turn": cid == turn,
                "acted": cid in acted,
                "defeated": c.defeated,
                "hidden": c.hidden,
                "seized": c.seized,
                "held": c.held,
                "mine": cid in controls,
                "can_up": mine and n > 0 and _movable(state, cid, ids[n - 1], audience),
                "can_down": mine
                and n + 1 < len(ids)
                and _movable(state, cid, ids[n + 1], audience),
                # Past a different initiative the GM's move is a ruling (rules/reorder.py).
                "up_tied": n > 0 and _tied(state, cid, ids[n - 1]),
                "down_tied": n + 1 < len(ids) and _tied(state, cid, ids[n + 1]),
            }
        )
    return rows


def _movable(state: State, a: str, b: str, audience: str) -> bool:
    """Whether a may step past its neighbour b: among the tied, or anywhere for the GM
    (a ruling), when both have an initiative and neither is in a group."""
    if _tied(state, a, b):
        return True
    ca, cb = state.combatants[a], state.combatants[b]
    return (
        audience == GM
        and not ca.group
        and not cb.group
        and initiative_of(state, a) is not None
        and initiative_of(state, b) is not None
    )


def _tied(state: State, a: str, b: str) -> bool:
    """Same initiative and same side: the only neighbours whose order people choose."""
    init = initiative_of(state, a)
    same_side = state.combatants[a].side == state.combatants[b].side
    return init is not None and initiative_of(state, b) == init and same_side


def next_up(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    start = next((n for n, r in enumerate(rows) if r["is_turn"]), -1)
    for r in rows[start + 1 :]:
        if not r["acted"] and not r["defeated"] and not r["is_turn"]:
            return r
    return None


def widgets(state: State, cid: str) -> list[dict[str, Any]]:
    rs = get_ruleset(state.ruleset)
    c = state.combatants[cid]
    out = []
    for w in rs.resources(state, c):
        w = dict(w)
        top, value = int(w.get("max") or 0), int(w.get("value") or 0)
        if w.get("kind") == "pips" and 0 < top <= MAX_PIPS:
            w["pips"] = [i < value for i in range(top)]
        out.append(w)
    if "grit" in c.res and not any(w.get("key") == "grit" for w in out):
        grit = c.res["grit"]
        out.append(
            {
                "key": "grit",
                "label": "Grit",
                "value": grit,
                "max": None,
                "kind": "counter",
                "text": f"Grit {grit}",
            }
        )
    return out


def target_choices(state: State, visible: list[str]) -> list[dict[str, str]]:
    return [
        {
            "id": cid,
            "name": state.combatants[cid].name
            + (" (defeated)" if state.combatants[cid].defeated else ""),
        }
        for cid in visible
    ]


def ordered_targets(state: State, cid: str, visible: list[str]) -> list[dict[str, str]]:
    """Whom `cid` can aim at, the acting combatant left out: standing enemies first, then
    standing allies, then the others (the defeated), each in initiative order."""
    me = state.combatants[cid]

    def group(other: str) -> str:
        o = state.combatants[other]
        if o.defeated:
            return "Others"
        return "Enemies" if o.side != me.side else "Allies"

    rank = {"Enemies": 0, "Allies": 1, "Others": 2}
    out = [{**t, "group": group(t["id"])} for t in target_choices(state, visible) if t["id"] != cid]
    return sorted(out, key=lambda t: rank[t["group"]])


def stat_rows(
    uses: dict[str, list[str]], stats: dict[str, dict[str, Any]], ruleset_name: str
) -> list[dict[str, Any]]:
    """The combatant form's stat rows: the combatant's own stats, then every other stat its
    ruleset rolls (only that ruleset's), each saying what rolls it; two blank rows last."""
    rows = [
        {
            "name": k,
            "dice": v.get("dice", ""),
            "bonus": v.get("bonus", 0),
            "uses": ", ".join(uses.get(k, [])) or f"not rolled by the {ruleset_name} rules",
        }
        for k, v in stats.items()
    ]
    rows += [
        {"name": n, "dice": "", "bonus": 0, "uses": ", ".join(u)}
        for n, u in uses.items()
        if n not in stats
    ]
    rows += [{"name": "", "dice": "", "bonus": 0, "uses": ""} for _ in range(2)]
    return rows


def missing_stats(c: Any, needs: Iterable[str]) -> list[str]:
    """The stats an action needs that the combatant has not got (any letter case)."""
    return [n for n in needs if stat_bonus(c, n) is None]


def action_panel(
    state: State, cid: str, visible: list[str], hidden: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Every catalogue action for one combatant: cost, allowed now or why not (the refusal
    written for a reader who cannot see `hidden`), and its options."""
    c = state.combatants[cid]
    targets = ordered_targets(state, cid, visible)
    # The basic attack's target is ready: the first standing enemy ("attack, end turn").
    enemy = next((t["id"] for t in targets if t["group"] == "Enemies"), "")
    out = []
    for a in availability(state, cid, hidden=hidden):
        fields = []
        for o in a["options"]:
            if o.name == "to" and state.board is None:
                continue  # a destination only means something on a map
            default = o.default
            if o.kind == "target":
                default = enemy
            fields.append(
                {
                    "name": o.name,
                    "field": f"opt_{o.name}",
                    "label": o.label,
                    "kind": o.kind,
                    "choices": list(o.choices),
                    "min": o.min,
                    "max": o.max,
                    "default": "" if default is None else default,
                    "required": o.required,
                    "targets": targets,
                }
            )
        # A missing stat is said first and shortly: it stays missing until the GM sets it.
        missing = missing_stats(c, a["needs"])
        out.append(
            {
                "key": a["key"],
                "name": a["name"],
                "category": a["category"],
                "cost": a["cost"],
                "summary": a["summary"],
                "reaction": a["reaction"],
                "needs": ", ".join(a["needs"]),
                "allowed": a["allowed"] and not missing,
                "plannable": a["plannable"] and not missing,
                "interrupt": a["interrupt"] and not missing,
                # The reason is the refusal written for this panel's reader (availability).
                "reason": f"Needs {', '.join(missing)}" if missing else a["reason"],
                # What actions refused alike share, and the line said once for them.
                "share": ("needs", *missing) if missing else _share_key(a["why"]),
                "said_once": "" if missing else _said_for_many(a["why"], hidden),
                "fields": fields,
            }
        )
    return out


# The actions a player reaches for most, per ruleset (the basic attack, then movement, then
# the rest): shown first and in full when they can be taken now.
FIRST_ACTIONS: dict[str, tuple[str, ...]] = {
    "action_points": ("basic_attack", "move", "cast_spell", "defensive_stance"),
    "action_ladder": ("attack", "step", "walk", "evade"),
    "initiative_passes": ("attack", "move", "draw_weapon", "reload"),
}
# The groups the other actions fall in, in this order, with their headings.
CATEGORIES: dict[str, str] = {
    "movement": "Movement",
    "attack": "Attacks",
    "combat": "Combat",
    "magic": "Magic",
    "major": "Major actions",
    "minor": "Minor actions",
    "defence": "Defence",
    "utility": "Utility",
    "free": "Free actions",
    "other": "Other",
    "custom": "The GM's actions",
    "reaction": "Reactions",
}
# With this many or fewer actions possible now, every one of them is shown in full.
FEW_NOW = 4
# With more actions than this, a filter box helps find one by name.
FILTER_FROM = 8


def action_layout(actions: list[dict[str, Any]], ruleset: str) -> dict[str, Any]:
    """One combatant's actions as a panel shows them: those possible now and most used first,
    the other possible ones grouped by category, the rest in one group at the bottom whose
    reason, when most of them share it, is said once (`shared_reason`)."""
    first = FIRST_ACTIONS.get(ruleset, ())
    allowed = [a for a in actions if a["allowed"]]
    # A few possible actions (a reaction off-turn) are all shown; many, the most used first.
    top = allowed if len(allowed) <= FEW_NOW else [a for a in allowed if a["key"] in first]
    top = sorted(top, key=lambda a: first.index(a["key"]) if a["key"] in first else len(first))
    shown = {a["key"] for a in top}
    # A group for every category the combatant has, empty ones too (the page does not show
    # an empty group): an action that becomes possible or not moves between lists that
    # stay, and the panel around them keeps its shape.
    by_category: dict[str, list[dict[str, Any]]] = {a["category"]: [] for a in actions}
    for a in allowed:
        if a["key"] not in shown:
            by_category.setdefault(a["category"], []).append(a)
    order = list(CATEGORIES)
    groups = [
        {
            "category": cat,
            "label": CATEGORIES.get(cat, cat.replace("_", " ").capitalize()),
            "count": len(acts),
            "actions": [shown_of(a) for a in acts],
        }
        for cat, acts in sorted(
            by_category.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
        )
    ]
    # Actions refused for the same reason (the same code, and the same arguments but for
    # the action) share one line, said once; one refused alone keeps its own reason.
    refused = [a for a in actions if not a["allowed"]]
    keys = [a["share"] for a in refused]
    alike: dict[Any, list[dict[str, Any]]] = {}
    for a, k in zip(refused, keys, strict=True):
        alike.setdefault(k, []).append(a)
    said = {k: _said_once(group) for k, group in alike.items() if len(group) >= 2}
    gists = [said.get(k, "") for k in keys]
    # The line most of them share first (it is the one in the group's heading).
    lines = sorted(dict.fromkeys(g for g in gists if g), key=lambda g: -gists.count(g))
    # Each line is known by a key made from its words, not by its place: a line that comes
    # or goes leaves the forms that point at the others as they were.
    line_key = {g: "r" + fingerprint(g, 4) for g in lines}
    blocked = [
        {**shown_of(a), "shared": line_key[g] if g else ""}
        for a, g in zip(refused, gists, strict=True)
    ]
    return {
        "top": [shown_of(a) for a in top],
        "groups": groups,
        "blocked": blocked,
        "shared_reason": lines[0] if lines else "",
        "shared_key": line_key[lines[0]] if lines else "",
        "other_reasons": [{"key": line_key[g], "text": g} for g in lines[1:]],
        "filter": len(actions) > FILTER_FROM,
        # Off-turn, what is not possible now can be planned for the turn (plans.py).
        "plannable": any(a.get("plannable") for a in blocked),
    }


# What an action's entry carries only to lay the panel out (which refusals are alike, and
# the line said once for them), never drawn: kept out of what the pages are drawn from, so
# a refusal whose arguments changed but whose words did not (another combatant's turn)
# leaves the action as it was.
LAYOUT_ONLY = ("share", "said_once")


def shown_of(action: dict[str, Any]) -> dict[str, Any]:
    """An action's entry as the pages draw it: without what only lays the panel out."""
    return {k: v for k, v in action.items() if k not in LAYOUT_ONLY}


def _share_key(why: Refusal | None) -> tuple[Any, ...]:
    """What makes two refusals the same reason: the code and the arguments but for the
    action refused (`what`)."""
    if why is None:
        return ()
    args = sorted(
        (k, tuple(v) if isinstance(v, list) else v) for k, v in why.args.items() if k != "what"
    )
    return (why.code, why.say, *args)


def _said_for_many(why: Refusal | None, hidden: tuple[str, ...]) -> str:
    """The refusal as said once for many actions refused alike, for a reader who cannot see
    `hidden`: the sentence `refusal.many.<name>` in combat/sentences/refusals.py written
    from its arguments; "" when it has none."""
    if why is None or why.say is None:
        return ""
    many = why.say.replace("refusal.", "refusal.many.", 1)
    if many not in words.SAYS:
        return ""
    return words.text({**why.fact(), "say": many}, words.Reader.of(not hidden, hidden))


def _said_once(group: list[dict[str, Any]]) -> str:
    """The line said once for actions refused alike: their reason when it is the same for
    each; when it names each action, the sentence for many; "" when there is none (each
    keeps its own reason)."""
    reasons = {str(a["reason"]) for a in group}
    if len(reasons) == 1:
        return reasons.pop()
    return str(group[0]["said_once"])


def combatant_card(
    state: State,
    cid: str,
    *,
    audience: str,
    visible: list[str],
    hidden: tuple[str, ...],
    with_actions: bool,
    seat_of: dict[str, Seat] | None = None,
    shared: Shared | None = None,
) -> dict[str, Any]:
    shared = Shared() if shared is None else shared
    # Players and spectators see the same card of a combatant (only the GM's has more).
    key = ("card", cid, with_actions, tuple(visible), hidden)
    if audience != GM and key in shared:
        return shared[key]
    c = state.combatants[cid]
    is_turn = state.turn == cid
    in_combat = state.phase == "combat"
    # Built from the reader's role: a banded or hidden NPC's HP is never put in.
    health = health_for(state, c, audience)
    card: dict[str, Any] = {
        "id": cid,
        "name": c.name,
        "side": c.side,
        "side_label": "PC" if c.is_pc else "NPC",
        **health,
        "hp_pct": (100 * (health["hp"] or 0) // health["max_hp"]) if health["max_hp"] else None,
        "hidden": c.hidden,
        "defeated": c.defeated,
        "is_turn": is_turn,
        "initiative": initiative_of(state, cid),
        "initiative_bonus": c.initiative_bonus,
        "group": state.groups[c.group].name if c.group and c.group in state.groups else "",
        "resources": widgets(state, cid),
        "effects": [effect_text(e, hidden, state) for e in c.effects],
        "engaged": [{"id": i, "name": state.combatants[i].name} for i in c.engaged if i in visible],
        "carry": c.carry,
        "prepared": c.prepared,
        "held": c.held,
        "seized": c.seized,
        # Planning off-turn: the GM's, and the player's on its own panel (plans.py).
        "plan": plans.describe(state, c, visible) if audience == GM or with_actions else None,
        "can_end_turn": in_combat and is_turn,
        "can_hold": in_combat and is_turn and get_ruleset(state.ruleset).uses_passes,
        # Ending a pass turn with AP left asks whether to hold it (RULINGS Initiative
        # Passes 3): the number kept, and whether this turn spent any.
        "hold_ap": c.res.get("ap", 0)
        if in_combat and is_turn and get_ruleset(state.ruleset).uses_passes
        else 0,
        "spent_now": bool(c.turn.get("spent", 0)),
        "can_seize": state.phase == "seize"
        and c.res.get("grit", 0) > 0
        and not c.seized
        and not c.defeated,
        "can_take_turn": _can_take_turn(state, cid),
        "engage_choices": [
            t for t in target_choices(state, visible) if t["id"] != cid and t["id"] not in c.engaged
        ],
    }
    if with_actions:
        # The same for the GM and the player of this combatant, unless someone is hidden.
        panel = ("actions", cid, tuple(visible), hidden)
        actions = card["actions"] = shared.get_or(
            panel, lambda: action_panel(state, cid, visible, hidden)
        )
        card["panel"] = shared.get_or(
            ("layout", *panel), lambda: action_layout(actions, state.ruleset)
        )
        card["actions"] = shared.get_or(("shown", *panel), lambda: [shown_of(a) for a in actions])
        card["actions_now"] = shared.get_or(
            ("now", *panel), lambda: [a for a in card["actions"] if a["allowed"]]
        )
        card["targets"] = [t for t in target_choices(state, visible) if t["id"] != cid]
    if audience == GM:
        seat = (seat_of or {}).get(cid)
        card["notes"] = c.notes
        card["stats"] = [
            {"name": k, "dice": v.get("dice", ""), "bonus": v.get("bonus", 0)}
            for k, v in c.stats.items()
        ]
        card["seat_name"] = seat.name if seat else ""
        card["adjustable"] = ["hp", *[w["key"] for w in card["resources"]]]
        card["effect_names"] = [e.name for e in c.effects]
        card["condition_of"] = target_choices(state, visible)
    else:
        shared[key] = card
    return card


def _can_take_turn(state: State, cid: str) -> bool:
    cur = state.combatants.get(state.turn or "")
    c = state.combatants[cid]
    return (
        state.phase == "combat"
        and cur is not None
        and cur.id != cid
        and bool(c.group)
        and c.group == cur.group
        and cid not in state.acted
        and not c.defeated
    )


def log_lines(
    entries: Iterable[Entry],
    audience: str,
    hidden: tuple[str, ...],
    veiled: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """The newest lines first; for players and spectators only what they may see."""
    lines: list[dict[str, Any]] = []
    for entry in entries:
        for line in _entry_lines(entry, audience == GM, hidden, veiled):
            lines.append(line)
            if len(lines) >= LOG_LINES:
                return lines
    return lines


def announce_lines(
    entries: list[Entry], audience: str, hidden: tuple[str, ...], veiled: tuple[str, ...] = ()
) -> dict[str, Any]:
    """What a screen reader says of the newest command this reader can read: its events'
    sentences in order, each with its dice, written as the log writes them for the reader
    (so nothing of a hidden combatant is in them), and the command's `seq`
    (static/js/a11y.js reads a `seq` it has not read yet). A command the reader reads none
    of leaves this as it was: it is not pushed, and nothing tells them it happened."""
    for entry in entries:
        lines = _entry_lines(entry, audience == GM, hidden, veiled)
        if lines:
            said = [{"text": line["text"], "rolls": list(line["rolls"])} for line in lines]
            return {"seq": entry.seq, "lines": said[::-1]}
    return {"seq": 0, "lines": []}


def _entry_lines(
    entry: Entry, gm: bool, hidden: tuple[str, ...], veiled: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """One entry's lines, newest first, for the GM or for everyone else."""
    lines: list[dict[str, Any]] = []
    # Numbered among the events this reader sees (the line's id on the page), so an id
    # never tells how many events of the entry are kept from them.
    shown = [
        ev
        for seen in entry.events
        if (ev := for_gm(seen) if gm else event_for(seen, hidden, veiled)) is not None
    ]
    for n, ev in reversed(list(enumerate(shown))):
        text = ev.get("text", "")
        lines.append(
            {
                "seq": entry.seq,
                "n": n,  # which of the entry's lines: with seq, the line's id on the page
                "text": text,
                "rolls": [format_roll(r) for r in ev.get("rolls") or []],
                "ruling": ev.get("ruling", False),
                "gm_only": ev.get("gm_only", False),
                "undone": entry.undone,
                "kind": ev.get("kind", ""),
            }
        )
    return lines


@dataclass(frozen=True)
class Entry:
    """What the log shows of one LogEntry."""

    seq: int
    events: list[dict[str, Any]]
    undone: bool
    # (id, creation time): the same entry in every push (see _EVENTS); no time, no reuse.
    key: tuple[int, Any] = (0, None)
    kind: str = LogEntry.COMMAND
    seat_id: int | None = None  # the seat that sent the command (None: the GM)


# The events of a log entry never change once it is written (undo only marks it undone):
# decoded once per process, by id and creation time (an id can come back after a rollback).
_EVENTS: OrderedDict[tuple[int, Any], list[dict[str, Any]]] = OrderedDict()
_EVENTS_MAX = 20_000
_EVENTS_LOCK = threading.Lock()


def recent_entries(enc: Encounter) -> list[Entry]:
    """The newest entries, enough to fill the log even when each holds a few events.

    Only the columns the log shows: the state kept for undo is the largest by far, and
    decoding it was a fifth of the server's time at 10 actions/s; the events are decoded
    once per process (docs/performance.md).
    """
    # Only the entries of the version read: a command committed since (its push follows)
    # is not in this version's frames, so every frame of a version shows the same lines, and
    # the next push's comparison starts from what the page shows.
    rows = list(
        enc.log.filter(version__lte=enc.version)
        .order_by("-seq")
        .values_list("pk", "created", "seq", "undone", "kind", "seat_id")[:LOG_LINES]
    )
    with _EVENTS_LOCK:
        missing = [row[0] for row in rows if row[:2] not in _EVENTS]
    if missing:
        fetched = dict(LogEntry.objects.filter(pk__in=missing).values_list("pk", "events"))
        with _EVENTS_LOCK:
            for pk, created, *_ in rows:
                if pk in fetched:
                    _EVENTS[(pk, created)] = fetched[pk]
            _trim_events()
    with _EVENTS_LOCK:
        found = [_EVENTS.get(row[:2]) for row in rows]
    out = []
    for (pk, created, seq, undone, kind, seat_id), events in zip(rows, found, strict=True):
        if events is None:  # pushed out meanwhile by other tables: read it again
            events = LogEntry.objects.get(pk=pk).events
        out.append(Entry(seq, events, undone, (pk, created), kind, seat_id))
    return out


def remember_events(entry: LogEntry) -> None:
    """Called by the command that writes `entry`: its push then finds the events known
    instead of reading them back. They are kept as the database gives them back (a JSON
    round trip); an entry whose transaction rolls back is never shown, and its id comes
    back with another creation time."""
    events = json.loads(json.dumps(entry.events))
    with _EVENTS_LOCK:
        _EVENTS[(entry.pk, entry.created)] = events
        _trim_events()


def _trim_events() -> None:
    while len(_EVENTS) > _EVENTS_MAX:
        _EVENTS.popitem(last=False)


# Whose turn it is, rounds and initiative: the page shows them already ("Your turn").
FLOW_KINDS = frozenset(
    {"turn", "round", "end_turn", "combat_start", "combat_end", "initiative", "seize_window"}
)
# The GM setting the table up (adding, editing, removing combatants) is not news to the
# players whose combatants it names: the page itself shows the result.
SETUP_KINDS = frozenset({"combatant_added", "combatant_changed", "combatant_removed"})


def seat_notice(
    entries: Iterable[Entry], seat: Seat, hidden: tuple[str, ...], veiled: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """What just happened to this seat, for the notice at the top of its page (issue 12
    item 3): the outcome of its own last command (hit or miss, damage, what it cost), or
    what someone else's command did to one of its combatants (hit, prompted to react,
    defeated). Only the newest such command, and only while no later command has begun a
    turn: a notice never outlives the turn it belongs to. Lines are chosen by the ids they
    involve, as the log's are, so a hidden combatant's deeds never show."""
    controls = set(seat.combatant_ids)
    for entry in entries:  # newest first
        if not entry.undone:
            shown = [ev for e in entry.events if (ev := event_for(e, hidden, veiled)) is not None]
            own = entry.seat_id == seat.pk and entry.kind == LogEntry.COMMAND
            touched = [
                ev
                for ev in shown
                if ev.get("kind") not in FLOW_KINDS | SETUP_KINDS
                and controls & set(ev.get("involved") or ())
            ]
            lines = shown if own else touched
            if lines:
                return {
                    "seq": entry.seq,
                    "own": own,
                    "lines": [str(ev.get("text", "")) for ev in lines],
                }
        if any(ev.get("kind") in ("turn", "round", "combat_end") for ev in entry.events):
            return None
    return None


def can_undo(enc: Encounter, entries: list[Entry]) -> bool:
    """Whether a command is left to undo: usually seen among the entries the log shows."""
    if any(e.kind == LogEntry.COMMAND and not e.undone for e in entries):
        return True
    return enc.log.filter(kind=LogEntry.COMMAND, undone=False).exists()


def stat_bonus(c: Any, name: str) -> int | None:
    """A stat's flat bonus, in any letter case; None when the combatant lacks the stat."""
    for key in (name, name.lower(), name.upper()):
        s = c.stats.get(key)
        if s and s.get("dice"):
            return int(s.get("bonus") or 0)
    return None


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def defence_offers(state: State, w: dict[str, Any]) -> list[dict[str, Any]]:
    """The Action Ladder's answers to a held attack, one button each: Dodge, Parry (with
    STR or with AGI) and Block, only those the attack and the defender allow (the window's
    choices), each with the bonus it rolls and what it costs. One that needs a stat the
    defender lacks is shown disabled, saying which."""
    c = state.combatants.get(w["reactor"])
    if c is None:
        return []
    rs = get_ruleset(state.ruleset)
    if state.ruleset == "action_points":
        return reaction_offers(state, w, c)
    names = {e.name.lower() for e in c.effects}
    pays = "uses Guard" if "guard" in names else "1 Bonus Action"
    out: list[dict[str, Any]] = []

    def offer(key: str, reaction: str, label: str, stat: str, extra: int, note: str) -> None:
        bonus = stat_bonus(c, stat)
        total = "" if bonus is None else f" {signed(bonus + extra)}"
        parts = [f"{stat} {signed(bonus)}" if bonus is not None else f"needs {stat}"]
        if note:
            parts.append(note)
        out.append(
            {
                "key": key,
                "reaction": reaction,
                "with": stat if reaction == "parry" else "",
                "label": f"{label}{total}",
                "detail": ", ".join(parts),
                "cost": "1 Bonus Action" if reaction == "dodge" else pays,
                "allowed": bonus is not None,
                "reason": "" if bonus is not None else f"Needs {stat}",
            }
        )

    for kind in w.get("detail", {}).get("choices", []):
        if kind == "dodge":
            evade = stat_bonus(c, "AGI") if "evade" in names else None
            note = f"Evade {signed(evade)}" if evade else ""
            offer("dodge", "dodge", "Dodge", "AGI", evade or 0, note)
        elif kind == "parry":
            rating = int(rs.setting(state, "parry_rating", c) or 0)
            note = f"Parry Rating {signed(rating)}" if rating else ""
            have = [s for s in ("STR", "AGI") if stat_bonus(c, s) is not None] or ["AGI"]
            for stat in have:
                offer(f"parry-{stat.lower()}", "parry", f"Parry with {stat}", stat, rating, note)
        elif kind == "block":
            rating = int(rs.setting(state, "block_rating", c) or 0)
            note = f"Block Rating {signed(rating)}" if rating else ""
            offer("block", "block", "Block", "RES", rating, note)
    return out


def reaction_offers(state: State, w: dict[str, Any], c: Any) -> list[dict[str, Any]]:
    """Action Points' answers to an attack: Parry (a melee attack) or Intercept (a ranged
    attack or a spell), each adding its bonus to that defence roll for the Reaction."""
    rs = get_ruleset(state.ruleset)
    out: list[dict[str, Any]] = []
    for kind in w.get("detail", {}).get("choices", []):
        bonus = int(rs.setting(state, f"{kind}_bonus", c) or 0)
        out.append(
            {
                "key": kind,
                "reaction": kind,
                "with": "",
                "label": f"{kind.capitalize()} {signed(bonus)}",
                "detail": f"{signed(bonus)} to this defence roll",
                "cost": "your Reaction",
                "allowed": True,
                "reason": "",
            }
        )
    return out


def pending_windows(
    state: State, data: dict[str, Any], controls: set[str], audience: str
) -> list[dict[str, Any]]:
    out = []
    for w in data["pending"]:
        mine = audience == GM or w["reactor"] in controls
        out.append(
            {
                "id": w["id"],
                "kind": w["kind"],
                "label": kind_label(w["kind"]),
                "reactor": w["reactor"],
                "reactor_name": state.name_of(w["reactor"]),
                # A hidden attacker's window reaches its target's player without it.
                "trigger_name": UNSEEN if w.get("trigger_unseen") else state.name_of(w["trigger"]),
                "mine": mine,
                "offers": defence_offers(state, w) if mine and w["kind"] == "defend" else [],
            }
        )
    return out


def presence_counts(
    enc: Encounter,
    seats: list[Seat] | None = None,
    live_rows: list[tuple[str, int | None]] | None = None,
) -> dict[str, Any]:
    """Who is connected: the GM, each seat (online or not) and how many spectators."""
    from combat import presence

    rows = presence.rows(enc.pk) if live_rows is None else live_rows
    online: dict[int, int] = {}
    for role, seat_id in rows:
        if role == Presence.PLAYER and seat_id:
            online[seat_id] = online.get(seat_id, 0) + 1
    seats = list(enc.seats.all()) if seats is None else seats
    return {
        "gm": sum(1 for r, _ in rows if r == Presence.GM),
        "spectators": sum(1 for r, _ in rows if r == Presence.SPECTATOR),
        "seats": online,
        "seat_rows": [
            {"id": s.pk, "name": s.name, "online": online.get(s.pk, 0)}
            for s in seats
            if not s.revoked
        ],
    }


# --- whole screens ------------------------------------------------------------------------


def _common(
    enc: Encounter,
    state: State,
    audience: str,
    controls: set[str],
    shared: Shared | None = None,
) -> dict[str, Any]:
    shared = Shared() if shared is None else shared
    rs = get_ruleset(state.ruleset)
    data = shared.get_or(("redacted", audience), lambda: redacted(state, audience))
    visible = list(data["combatants"])
    # The hidden ids: what a card, a log line or a panel is kept apart by.
    hidden = () if audience == GM else shared.get_or("hidden", lambda: hidden_ids(state))
    # Whose HP they may not know exactly: no number about it reaches their log lines.
    veiled = () if audience == GM else shared.get_or("veiled", lambda: veiled_ids(state))
    ids = display_order(state, visible, data["order"])
    turn = data.get("turn")
    rows = order_rows(state, ids, turn, data["acted"], controls, audience)
    nxt = next_up(rows)
    return {
        "enc": enc,
        "version": enc.version,
        "audience": audience,
        "ruleset_name": rs.name,
        "currency": rs.currency,
        "status": {
            "phase": state.phase,
            "phase_label": PHASES.get(state.phase, state.phase),
            "round": state.round,
            "pass_no": state.pass_no,
            "uses_passes": rs.uses_passes,
            "turn": turn,
            "turn_name": state.name_of(turn) if turn else "",
            "turn_hidden": bool(data.get("turn_hidden")),
            "next_name": nxt["name"] if nxt else "",
        },
        "order": rows,
        "pending": pending_windows(state, data, controls, audience),
        "log": shared.get_or(
            ("log", audience),
            lambda: log_lines(
                shared.get_or("entries", lambda: recent_entries(enc)), audience, hidden, veiled
            ),
        ),
        "board": shared.get_or(("board", audience), lambda: board_view(state, audience, turn)),
        "announce": shared.get_or(
            ("announce", audience),
            lambda: announce_lines(
                shared.get_or("entries", lambda: recent_entries(enc)), audience, hidden, veiled
            ),
        ),
        "_visible": visible,
        "_hidden": hidden,
    }


def gm_context(
    enc: Encounter, state: State | None = None, shared: Shared | None = None
) -> dict[str, Any]:
    shared = Shared() if shared is None else shared
    state = state or load_state(enc)
    rs = get_ruleset(state.ruleset)
    # A push has read them already (broadcast.publish).
    seats = shared.get_or("seats", lambda: list(enc.seats.all()))
    seat_of = {cid: s for s in seats if not s.revoked for cid in s.combatant_ids}
    ctx = _common(enc, state, GM, set(state.combatants), shared)
    visible, hidden = ctx.pop("_visible"), ctx.pop("_hidden")
    presence = presence_counts(enc, seats, shared.get("presence"))
    ctx["combatants"] = [
        combatant_card(
            state,
            cid,
            audience=GM,
            visible=visible,
            hidden=hidden,
            with_actions=True,
            seat_of=seat_of,
            shared=shared,
        )
        for cid in [r["id"] for r in ctx["order"]]
    ]
    # The GM's dense list shows each card's order row (done, held, tie buttons) and a
    # badge while a reaction window waits for that combatant.
    waiting = {w["reactor"] for w in ctx["pending"]}
    for card, row in zip(ctx["combatants"], ctx["order"], strict=True):
        card["row"] = row
        card["reacting"] = card["id"] in waiting
    ctx["turn_card"] = next((c for c in ctx["combatants"] if c["is_turn"]), None)
    # While someone acts, every other row offers itself as that combatant's target.
    aimable = {t["id"] for t in ctx["turn_card"]["targets"]} if ctx["turn_card"] else set()
    for card in ctx["combatants"]:
        card["pick"] = card["id"] in aimable
    ctx["condition_names"] = CONDITION_NAMES
    # No secret link in here: this context is also pushed over sockets, and a frame may
    # reach a socket whose link has just been replaced. The links are in `gm_links`,
    # which only HTTP answers carry (docs/decisions.md).
    ctx["seats"] = [
        {
            "id": s.pk,
            "name": s.name,
            "revoked": s.revoked,
            "combatants": [state.name_of(c) for c in s.combatant_ids if c in state.combatants],
            "online": presence["seats"].get(s.pk, 0),
        }
        for s in seats
    ]
    ctx["spectator_on"] = bool(enc.spectator_token)
    ctx["presence"] = presence
    ctx["post_url"] = reverse("gm_command", args=[enc.pk])
    ctx["preview_url"] = reverse("gm_preview", args=[enc.pk])
    ctx["move_url"] = reverse("gm_move_preview", args=[enc.pk])
    ctx["measure_url"] = reverse("gm_measure", args=[enc.pk])
    ctx["settings"] = [
        {
            "key": s.key,
            "label": s.label,
            "kind": s.kind,
            "help": s.help,
            "choices": list(s.choices),
            "min": s.min,
            "max": s.max,
            "per_combatant": s.per_combatant,
            "value": state.settings.get(s.key, s.default),
        }
        for s in rs.all_settings()
    ]
    ctx["custom_actions"] = [{"key": k, **v} for k, v in state.custom_actions.items()]
    ctx["has_combatants"] = bool(state.combatants)
    ctx["can_undo"] = can_undo(enc, shared["entries"])
    return ctx


def player_context(
    enc: Encounter, seat: Seat, state: State | None = None, shared: Shared | None = None
) -> dict[str, Any]:
    shared = Shared() if shared is None else shared
    state = state or load_state(enc)
    controls = set(seat.combatant_ids)
    ctx = _common(enc, state, PLAYER, controls, shared)
    visible, hidden = ctx.pop("_visible"), ctx.pop("_hidden")
    ctx["seat"] = seat
    # Relative to the page (/p/<token>/): the token never appears in a pushed fragment, so
    # a frame that reaches the holder of a replaced link teaches them nothing.
    ctx["post_url"] = "command/"
    ctx["preview_url"] = "preview/"
    ctx["move_url"] = "move/"
    ctx["measure_url"] = "measure/"
    ctx["summary_url"] = "summary/"
    ctx["notice"] = seat_notice(shared["entries"], seat, hidden, shared["veiled"])
    ctx["panels"] = [
        combatant_card(
            state,
            cid,
            audience=PLAYER,
            visible=visible,
            hidden=hidden,
            with_actions=True,
            shared=shared,
        )
        for cid in seat.combatant_ids
        if cid in visible
    ]
    ctx["others"] = [
        combatant_card(
            state,
            r["id"],
            audience=PLAYER,
            visible=visible,
            hidden=hidden,
            with_actions=False,
            shared=shared,
        )
        for r in ctx["order"]
        if r["id"] not in controls
    ]
    return ctx


def public_context(
    enc: Encounter, state: State | None = None, shared: Shared | None = None
) -> dict[str, Any]:
    shared = Shared() if shared is None else shared
    state = state or load_state(enc)
    ctx = _common(enc, state, PUBLIC, set(), shared)
    visible, hidden = ctx.pop("_visible"), ctx.pop("_hidden")
    ctx["roster"] = [
        combatant_card(
            state,
            r["id"],
            audience=PUBLIC,
            visible=visible,
            hidden=hidden,
            with_actions=False,
            shared=shared,
        )
        for r in ctx["order"]
    ]
    ctx["log"] = ctx["log"][:15]
    ctx["last_outcome"] = last_outcome(ctx["log"])
    ctx["summary_url"] = "summary/"  # relative to /s/<token>/, as the player's
    ctx["measure_url"] = "measure/"
    return ctx


@dataclass(frozen=True)
class Region:
    """One region of a screen: the partial that draws it, the small view-model it is drawn
    from (plain JSON values), and what is compared between two versions to tell whether
    it changed (the view-model itself, unless the region is a container of regions)."""

    partial: str
    model: dict[str, Any]
    compared: Any
    # The id of the region that holds this one (a card in its roster): when both changed,
    # the container is sent whole and this one goes inside it.
    inside: str | None = None
    # A list that grows at the top (the log): its items, each an element of its own.
    items: Items | None = None
    # The id of the list item that draws this region too (an action's form, its list of
    # targets): not sent when the same frame draws that item (broadcast.drawn_items).
    item: str | None = None


@dataclass(frozen=True)
class Items:
    """The items of a region that grows at the top, newest first: when the items the page
    shows are still there, unchanged and in order, below the new ones, only the new ones
    are sent (put at the top of the list `target`) with the ids of those that fell off the
    end (taken away); anything else (an undo marking a line, a reveal showing older lines)
    sends the region whole."""

    target: str  # the id of the list element
    partial: str  # template#partial drawing `new` items at the top and taking `dropped` away
    keys: list[tuple[str, str]]  # (element id, fingerprint of the item), in order
    models: list[Any]
    # A list whose items move in and out (a panel's actions, `partial` drawing one): those
    # gone are taken away, those new put after the one before them, those changed redrawn,
    # as long as the items that stayed kept their order (broadcast.render_moved).
    moves: bool = False


def fingerprint(value: Any, size: int = 16) -> str:
    """A short fingerprint of a view-model: equal for view-models built alike (the same
    values, of the same types, and dicts in the same order, as the same code builds them),
    in any process. Plain values are written by `marshal` (format 2: no references, so
    the bytes depend on the values alone), several times faster than JSON; a view-model
    holding anything else is written as canonical JSON (sorted keys, no spaces). Two
    fingerprints that differ for equal view-models (a dict built in another order) only
    send a region again; equal fingerprints mean equal values."""
    try:
        data = b"m" + marshal.dumps(value, 2)
    except ValueError:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
        data = b"j" + text.encode()
    return hashlib.blake2b(data, digest_size=size).hexdigest()


def item_digest(model: Any) -> str:
    return fingerprint(model, 12)


def log_region(
    lines: list[dict[str, Any]],
    name: str = "log",
    prefix: str = "line",
    grow: str = "combat/components/log.html#grow",
) -> Region:
    """The log (or the seat's latest lines): one region, and each line an element of its
    own (`line-<seq>-<n>`) in the list `<name>-list`."""
    keys = [(f"{prefix}-{line['seq']}-{line['n']}", item_digest(line)) for line in lines]
    items = Items(f"{name}-list", grow, keys, list(lines))
    return Region(name, {"log": lines}, keys, items=items)


# What a card of the spectators' roster or a line of a seat's "Everyone else" draws itself;
# whether it acts now (`turnflag-<id>`) and its resources (`resources-<id>`) are regions of
# their own inside it.
LINE_CARD_SHOWS = ("id", "name", "side", "side_label", "defeated")


def line_regions(card: dict[str, Any], name: str, partial: str, inside: str) -> dict[str, Region]:
    """A combatant's card on the spectators' roster (`roster-<id>`) or line in a seat's
    "Everyone else" (`other-<id>`), with its "acting" tag and its resources apart: the turn
    passing sends the tag, a blow the resources, neither the card around them."""
    cid = card["id"]
    return {
        name: Region(partial, {"c": card}, {k: card.get(k) for k in LINE_CARD_SHOWS}, inside),
        f"turnflag-{cid}": Region(
            "turn_flag", {"c": {"id": cid, "is_turn": card.get("is_turn")}}, None, name
        ),
        **resources_regions(card, name),
    }


# What a row of the players' and spectators' order draws itself (components/order_row.html);
# its marker and its "acting"/"done" tags are regions of their own inside it.
ORDER_ROW_SHOWS = (
    *("id", "name", "side", "group", "initiative", "seized", "held", "defeated", "hidden"),
    *("can_up", "can_down"),
)


def resources_regions(card: dict[str, Any], inside: str) -> dict[str, Region]:
    """A combatant's resources (components/resources.html, `resources-<id>`) as a container
    compared by what it draws around its gauges (HP, effects, melee, what is under way) and
    which gauges it holds; each gauge (`gauge-<id>-<key>`) a region of its own, so spending AP
    sends the AP gauge alone."""
    cid = card["id"]
    name = f"resources-{cid}"
    drawn = {k: card.get(k) for k in RESOURCES_SHOWS}
    gauges = drawn.pop("resources") or []
    around = {**drawn, "gauges": [w["key"] for w in gauges]}
    regions = {name: Region("resources", {"c": {**drawn, "resources": gauges}}, around, inside)}
    for w in gauges:
        regions[f"gauge-{cid}-{w['key']}"] = Region(
            "res_gauge", {"c": {"id": cid}, "w": w}, None, name
        )
    return regions


def order_regions(order: list[dict[str, Any]], urls: dict[str, Any]) -> dict[str, Region]:
    """The players' and spectators' initiative order (components/order.html): a container
    compared by which rows it holds, in which order; each row a region of its own
    (`orderrow-<id>`), and in it its "acting"/"done" tags (`orderstate-<id>`): the turn
    passing sends those of the two rows it passes between (the row's marker is drawn from
    them by app.css)."""
    regions = {
        "order": Region("order", {"order": order, **urls}, {"rows": [r["id"] for r in order]})
    }
    for r in order:
        cid, row = r["id"], f"orderrow-{r['id']}"
        drawn = {k: r.get(k) for k in ORDER_ROW_SHOWS}
        regions[row] = Region("order_row", {"r": r, **urls}, {**drawn, **urls}, "order")
        state = {k: r.get(k) for k in ("id", "is_turn", "acted")}
        regions[f"orderstate-{cid}"] = Region("order_state", {"r": state}, None, row)
    return regions


# What the status's own region (components/status_now.html) draws: whose turn it is and
# who is next.
STATUS_NOW_SHOWS = ("turn", "turn_name", "turn_hidden", "phase", "next_name")


# What the spectators' "Acting" line draws (spectator.html#spotlight_turn).
SPOTLIGHT_TURN_SHOWS = (
    *("round", "uses_passes", "pass_no", "turn", "turn_name", "turn_hidden", "phase_label"),
)


def status_regions(status: dict[str, Any]) -> dict[str, Region]:
    """The players' and spectators' status (components/status.html), compared by what it
    draws itself (the phase and the round), and in it whose turn it is and who is next
    (`status-now`): the turn passing sends those words alone."""
    now = {k: status.get(k) for k in STATUS_NOW_SHOWS}
    own = {k: v for k, v in status.items() if k not in STATUS_NOW_SHOWS or k == "phase"}
    return {
        "status": Region("status", {"status": status}, own),
        "status-now": Region("status_now", {"status": now}, None, "status"),
    }


def public_regions(ctx: dict[str, Any]) -> dict[str, Region]:
    """The spectators' screen as regions, by the id of their element on the page, built
    from `public_context` (what the public may see, nothing else).

    The roster is a container: it is compared by which cards it holds, in which order,
    and whether the summary link shows; each card is a region of its own."""
    status = ctx["status"]
    roster_end = {"phase": status["phase"]}
    regions = {
        **status_regions(status),
        "spotlight": Region(
            "spotlight",
            {"status": status, "last_outcome": ctx["last_outcome"]},
            {"last_outcome": ctx["last_outcome"]},
        ),
        # The round and who acts, in large type: the turn passing sends it alone.
        "spotlight-turn": Region(
            "spotlight_turn",
            {"status": status},
            {k: status.get(k) for k in SPOTLIGHT_TURN_SHOWS},
            "spotlight",
        ),
        **order_regions(ctx["order"], {}),
        "roster": Region(
            "roster",
            {"roster": ctx["roster"], "status": roster_end, "summary_url": ctx["summary_url"]},
            {
                "cards": [c["id"] for c in ctx["roster"]],
                "ended": status["phase"] == "ended",
                "summary_url": ctx["summary_url"],
            },
        ),
    }
    for card in ctx["roster"]:
        regions.update(line_regions(card, f"roster-{card['id']}", "card", "roster"))
    regions["log"] = log_region(ctx["log"])
    regions.update(board_regions(ctx["board"], {"measure_url": ctx["measure_url"]}))
    regions["announce-events"] = Region("announce", {"announce": ctx["announce"]}, None)
    return regions


# What the GM's flow buttons (gm.html#flow) draw of the status.
FLOW_SHOWS = ("phase", "round", "turn", "turn_name")


def gm_regions(ctx: dict[str, Any]) -> dict[str, Region]:
    """The GM console as regions, by the id of their element on its page, built from
    `gm_context` (the GM sees everything: nothing here is about who may see what).

    Every region is drawn from the console's view-model and compared by the part of it
    that region shows. The initiative list is a container compared by which rows it
    holds; each row is a region of its own (`combatant-<id>`), and so are its line, its
    "Target" button, its card and its "Act as" list (`row_regions`), so a blow redraws the
    struck combatant's line and nothing else of the list."""

    def part(partial: str, *shows: str) -> Region:
        return Region(partial, ctx, {k: ctx.get(k) for k in shows})

    regions = {
        "status": part("status", "status", "version"),
        # The flow's buttons and the tools are regions of their own inside it.
        "controls": Region("controls", ctx, {}),
        "flow": Region(
            "flow",
            ctx,
            {
                "status": {k: ctx["status"].get(k) for k in FLOW_SHOWS},
                **{k: ctx.get(k) for k in ("has_combatants", "can_undo", "post_url")},
            },
            "controls",
        ),
        "tools": Region(
            "tools",
            ctx,
            {k: ctx.get(k) for k in ("settings", "custom_actions", "currency", "post_url")},
            "controls",
        ),
        "order": Region("order", ctx, {"rows": [c["id"] for c in ctx["combatants"]]}),
        "reactions": part("reactions", "pending"),
        "presence": part("presence", "presence"),
        "seats": part("seats", "seats", "spectator_on"),
    }
    regions.update(
        board_regions(
            ctx["board"],
            {k: ctx[k] for k in ("post_url", "move_url", "measure_url")},
            {"enc": ctx["enc"]},
        )
    )
    for card in ctx["combatants"]:
        regions.update(row_regions(ctx, card))
    regions.update(turn_regions(ctx))
    regions["log"] = log_region(ctx["log"])
    regions["announce-events"] = Region("announce", {"announce": ctx["announce"]}, None)
    return regions


# What the turn's buttons (components/turn_buttons.html) draw of a card.
TURN_BUTTONS_SHOWS = (
    *("can_end_turn", "can_hold", "hold_ap", "spent_now", "can_seize", "can_take_turn"),
    *("carry", "prepared"),
)


# What each part of a GM row draws of its combatant's card (components/gm_row.html and the
# partials it includes), the view-model each is compared by. The row itself: its classes
# and the initiative editor.
# Whether it acts, has acted and a reaction it waits for are marked on its line (app.css
# draws them on the whole row): a change of turn sends the two lines alone (not the rows,
# nor the cards in them), and so does a reaction window opening or closing.
ROW_SHOWS = ("id", "name", "side", "defeated", "hidden", "initiative")
ROW_SHOWS_ORDER = ("can_up", "can_down", "up_tied", "down_tied")
# The row's "Target" button (gm_pick.html), while someone acts who may target it: a region
# of its own, so a change of who can be targeted sends those buttons alone.
PICK_SHOWS = ("id", "name", "pick")
# The line that opens the card (gm_row_line.html): marker, name, tags, resources, HP.
LINE_SHOWS = (
    *("id", "name", "side", "side_label", "is_turn", "defeated", "hidden", "reacting"),
    *("plan", "group", "resources", "effects", "max_hp", "hp", "hp_pct"),
)
LINE_SHOWS_ORDER = ("acted", "seized", "held")
# The card under the line (gm_card.html), but its "Act as" list.
CARD_SHOWS = (
    *("id", "name", "hidden", "defeated", "adjustable", "health_shown"),
    *("seat_name", "engaged", "carry", "prepared", "notes", "stats", "effect_names"),
    *("condition_of", "engage_choices"),
)
# The "Act as" list (gm_actas.html): the turn's buttons and the actions possible now.
ACTAS_SHOWS = ("id", "name", "is_turn", *TURN_BUTTONS_SHOWS)
# What a GM row is given and none of its parts draws: the acting combatant's actions are in
# the turn panel, the others' cards list only those possible now; holding and seizing are
# read from the order's row.
ROW_HIDES = ("actions", "panel", "targets", "initiative_bonus", "row", "held", "seized")


def row_regions(ctx: dict[str, Any], card: dict[str, Any]) -> dict[str, Region]:
    """A GM row as regions: the row (`combatant-<id>`), the line that opens its card
    (`rowline-<id>`), its "Target" button (`pick-<id>`), the card (`gmcard-<id>`) and its
    "Act as" list (`actas-<id>`), each compared by what it draws (`row_shows`). A blow sends
    the line alone (and the card when the players see another band of health); a change of
    turn sends the lines of who acted and who acts (and the "Target" buttons that come and
    go); an action becoming possible or not sends the "Act as" list alone."""
    cid = card["id"]
    model = {**ctx, "c": card}
    shows = row_shows(card, ctx)
    row, line, body = f"combatant-{cid}", f"rowline-{cid}", f"gmcard-{cid}"
    return {
        row: Region("gm_row", model, shows["row"], inside="order"),
        line: Region("gm_row_line", model, shows["line"], inside=row),
        f"pick-{cid}": Region("gm_pick", model, shows["pick"], inside=row),
        body: Region("gm_card", model, shows["card"], inside=row),
        f"actas-{cid}": Region("gm_actas", model, shows["actas"], inside=row),
    }


def row_shows(card: dict[str, Any], ctx: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What each part of a GM row draws of its combatant's card and of the console (its
    forms' addresses): the row, its line, its "Target" button, its card and the card's "Act
    as" list. The actions
    possible now are drawn only off-turn (on its turn they are in the turn panel)."""
    order = card["row"]
    actas = {k: card.get(k) for k in ACTAS_SHOWS}
    actas["actions_now"] = None if card["is_turn"] else card.get("actions_now")
    urls = {"post_url": ctx.get("post_url")}
    # The card says what the players see of its health only when it is not the HP itself.
    health = {"health": None if card.get("health_shown") == "exact" else card.get("health")}
    return {
        "row": {
            **{k: card.get(k) for k in ROW_SHOWS},
            **{k: order.get(k) for k in ROW_SHOWS_ORDER},
            **urls,
        },
        "line": {
            **{k: card.get(k) for k in LINE_SHOWS},
            **{k: order.get(k) for k in LINE_SHOWS_ORDER},
        },
        "pick": {k: card.get(k) for k in PICK_SHOWS},
        "card": {**{k: card.get(k) for k in CARD_SHOWS}, **health, **urls},
        "actas": {**actas, **urls, "preview_url": ctx.get("preview_url")},
    }


def player_regions(ctx: dict[str, Any]) -> dict[str, Region]:
    """A seat's screen as regions, by the id of their element on its page, built from
    `player_context` (what this seat may see, nothing else).

    Each of the seat's combatants has a panel of its own, with every action and whether it
    can be taken now or why not: a change of turn, of what is left to spend or of the
    targets changes that data, and so that panel. The panels and the other combatants'
    lines are containers, compared by which regions they hold (and the others' summary
    link); each panel and each line is a region of its own."""
    status = ctx["status"]
    urls = {"post_url": ctx["post_url"], "preview_url": ctx["preview_url"]}
    panels, others, pending = ctx["panels"], ctx["others"], ctx["pending"]
    # What the "Your turn" and "Reaction available" alerts read, and nothing more.
    alert = {
        "panels": [{"id": c["id"], "name": c["name"], "is_turn": c["is_turn"]} for c in panels],
        "pending": [
            {k: w[k] for k in ("id", "mine", "label", "reactor_name", "trigger_name")}
            for w in pending
        ],
    }
    others_end = {"round": status["round"], "phase": status["phase"]}
    regions = {
        **status_regions(status),
        "turn-alert": Region("alert", alert, None),
        "notice": Region("notice", {"notice": ctx["notice"]}, None),
        **order_regions(ctx["order"], {"post_url": ctx["post_url"]}),
        "reactions": Region("reactions", {"pending": pending, "post_url": ctx["post_url"]}, None),
        "panels": Region(
            "panels", {"panels": panels, **urls}, {"panels": [c["id"] for c in panels]}
        ),
    }
    for card in panels:
        regions.update(panel_regions(card, urls))
    regions["recent"] = log_region(
        list(ctx["log"][:3]), "recent", "recent", "combat/player.html#recentgrow"
    )
    regions["others"] = Region(
        "others",
        {"others": others, "status": others_end, "summary_url": ctx["summary_url"]},
        {
            "others": [c["id"] for c in others],
            "round": bool(status["round"]),
            "ended": status["phase"] == "ended",
            "summary_url": ctx["summary_url"],
        },
    )
    for card in others:
        regions.update(line_regions(card, f"other-{card['id']}", "other", "others"))
    regions["log"] = log_region(ctx["log"])
    regions.update(
        board_regions(ctx["board"], {k: ctx[k] for k in ("post_url", "move_url", "measure_url")})
    )
    regions["announce-events"] = Region("announce", {"announce": ctx["announce"]}, None)
    return regions


# What the GM's turn panel (gm.html#turn) draws of the acting card itself: its heading.
# Its resources, its turn's buttons, its actions and the reasons said once for those not
# possible now are regions of their own (`panel_regions`).
TURN_SHOWS = ("id", "name", "hidden")


def turn_regions(ctx: dict[str, Any]) -> dict[str, Region]:
    """The GM's turn panel as regions: the panel, the acting combatant's resources, its turn's
    buttons, each list of its actions, each group's heading and the other reasons said once,
    compared as a seat's panel is (`panel_regions`): spending sends the resources, an action
    that moves from one list to another is taken from the one and put in the other, and an
    action that is allowed or refused as before is not sent again. The panel itself is
    compared by its heading and which lists it has, so it is sent whole when the turn
    passes; the status it draws only while nobody acts."""
    card = ctx["turn_card"]
    if card is None:
        return {"turn": Region("turn", ctx, {"turn_card": None, "status": ctx["status"]})}
    cid = card["id"]
    urls = {"post_url": ctx["post_url"], "preview_url": ctx["preview_url"]}
    inner = panel_regions(card, urls, gm=True)
    lists = inner.pop(f"panel-{cid}").compared["card"]["lists"]
    inner.pop(f"melee-{cid}", None)  # a seat's panel only
    shows = {k: card.get(k) for k in TURN_SHOWS}
    compared = {"card": shows, "lists": lists, **urls}
    regions = {"turn": Region("turn", ctx, compared)}
    for name, r in inner.items():
        # What the seat's panel holds, the turn panel holds (a gauge stays in its resources).
        regions[name] = replace(r, inside="turn") if r.inside == f"panel-{cid}" else r
    return regions


def board_regions(
    board: dict[str, Any] | None, urls: dict[str, Any], drawn: dict[str, Any] | None = None
) -> dict[str, Region]:
    """The map as regions, the same on every screen: the board itself (grid, labels, the
    GM's tools), compared without what has regions of its own; the tokens, a container
    compared by which tokens it holds; each token; the list of positions; each row of
    terrain and each row of fog (`board-terrain-<y>`, `board-fog-<y>`); the background
    picture; the legend. A token moved is pushed alone, a painted or fogged cell sends its
    row (a stroke, the rows it crossed); a new size or a new picture sends the board whole.

    `drawn` is what the board's partial needs besides (the GM's encounter, for its image
    forms' addresses) and is the same for every version of the page: not compared."""
    if board is None:
        model = {"board": None, **urls, **(drawn or {})}
        return {"board": Region("board", model, {"board": None, **urls})}
    own = ("tokens", "listing", "terrain_rows", "fog_rows", "legend", "has_fog", "image")
    ground = {k: v for k, v in board.items() if k not in own}
    # The GM's image tools show the picture's size: a new picture still changes the board.
    image = board["image"]
    ground["image"] = None if image is None else {k: v for k, v in image.items() if k != "href"}
    px = {"px": board["px"]}
    regions = {
        "board": Region(
            "board", {"board": board, **urls, **(drawn or {})}, {"board": ground, **urls}
        ),
        "board-image": Region(
            "board_image",
            {"image": image, **{k: board[k] for k in ("margin", "grid_w", "grid_h")}},
            None,
            inside="board",
        ),
        "board-tokens": Region(
            "board_tokens",
            {"tokens": board["tokens"]},
            [t["id"] for t in board["tokens"]],
            inside="board",
        ),
        "board-list": Region("board_list", {"listing": board["listing"]}, None, inside="board"),
        "board-legend": Region(
            "board_legend", {"legend": board["legend"], "has_fog": board["has_fog"]}, None, "board"
        ),
    }
    for row in board["terrain_rows"]:
        regions[f"board-terrain-{row['y']}"] = Region(
            "board_terrain", {"row": row, **px}, None, inside="board"
        )
    for row in board["fog_rows"]:
        regions[f"board-fog-{row['y']}"] = Region(
            "board_fog", {"row": row, **px}, None, inside="board"
        )
    for t in board["tokens"]:
        regions[f"board-token-{t['id']}"] = Region(
            "board_token", {"t": t}, None, inside="board-tokens"
        )
    return regions


# What a seat's panel (player.html#panel) draws of its card itself: its classes, its heading
# and the plan it may cancel. Its resources (RESOURCES_SHOWS), its turn's buttons
# (TURN_BUTTONS_SHOWS), its melee form (MELEE_SHOWS), its lists of actions and the reasons
# said once for those not possible now are regions of their own (`panel_regions`).
PANEL_SHOWS = ("id", "name", "side", "is_turn", "defeated", "plan")
# What components/resources.html draws of a card.
RESOURCES_SHOWS = (
    *("id", "max_hp", "hp", "adjustable", "health_shown", "health", "resources", "effects"),
    *("engaged", "carry", "prepared"),
)
# What the form that steps into melee (player.html#melee) draws.
MELEE_SHOWS = ("id", "engage_choices")
# What a seat's card carries that no part of its panel draws: the targets are in each
# action's options, the rest in the order and the others' lines.
PANEL_HIDES = (
    *("side_label", "hp_pct", "hidden", "initiative", "initiative_bonus", "group", "held"),
    *("seized", "targets", "actions", "actions_now", "panel"),
)


# What components/action_form.html draws of an option, by its kind (besides its name in
# the form, its label, its kind and whether it is required).
FIELD_SHOWS: dict[str, tuple[str, ...]] = {
    "target": ("default", "targets"),
    "targets": ("targets",),
    "choice": ("default", "choices"),
    "int": ("default", "min", "max"),
}
FIELD_ALWAYS = ("field", "label", "kind", "required")


def drawn_action(a: dict[str, Any], gm: bool) -> dict[str, Any]:
    """An action's entry as its form (components/action_form.html) draws it on one screen:
    without its category; its reason only when the form says it (refused, and not for a
    reason said once for many); what only a player's form says (whether it can be planned
    or taken as an Interrupt) left out of the GM's; each option with what its kind draws.
    So a refusal reworded where it is not shown, or a target list in an option that draws
    none, leaves the form as it was."""
    out = {k: v for k, v in a.items() if k != "category"}
    if a["allowed"] or a.get("shared"):
        out["reason"] = ""
    if gm:
        out["plannable"] = out["interrupt"] = False
    out["fields"] = [
        {k: f.get(k) for k in (*FIELD_ALWAYS, *FIELD_SHOWS.get(f["kind"], ("default",)))}
        for f in a.get("fields") or ()
    ]
    return out


def panel_regions(
    card: dict[str, Any], urls: dict[str, str], gm: bool = False
) -> dict[str, Region]:
    """One of the seat's combatants' panel, its resources, its turn's buttons, its melee
    form, each list of its actions (those possible now, each group's, those not possible
    now), each group's heading and the other reasons said once for those not possible now,
    as regions.

    The panel around them is compared by what it draws itself (PANEL_SHOWS) and by which
    lists it has; each list by the actions it holds, each compared by all it shows
    (whether it can be taken now, why not, its cost, options and targets); each heading by
    its count and the reason it says. So what is left to spend changes the resources
    alone; an action that moves from one list to another is taken from the one and put in
    the other (the headings say the new counts), and an action allowed or refused for the
    same reason as before is not sent again. Every list is there, empty or not, so the
    panel is sent whole only when its heading, its plan or the catalogue change."""
    cid = card["id"]
    name = f"panel-{cid}"
    layout = card.get("panel") or {}
    top, groups = layout.get("top", ()), layout.get("groups", ())
    blocked = layout.get("blocked", ())
    lists = {
        "groups": [[g["category"], g["label"]] for g in groups],
        "filter": layout.get("filter"),
    }
    around = {
        **{k: card.get(k) for k in PANEL_SHOWS},
        "lists": lists,
        # Without a layout, the actions are one list drawn with the panel.
        "actions": None if layout else card.get("actions"),
    }
    post = {"post_url": urls["post_url"]}
    regions = {name: Region("panel", {"c": card, **urls}, {"card": around, **urls}, "panels")}
    regions.update(resources_regions(card, name))
    buttons = {k: card.get(k) for k in ("id", *TURN_BUTTONS_SHOWS)}
    regions[f"buttons-{cid}"] = Region("turn_buttons", {"c": buttons, **post}, None, name)
    melee = {k: card.get(k) for k in MELEE_SHOWS}
    regions[f"melee-{cid}"] = Region("melee", {"c": melee, **post}, None, name)
    if not layout:
        return regions
    ident = {"card": {"id": cid}}
    reasons = {"other_reasons": layout.get("other_reasons"), **ident}
    regions[f"reasons-action-{cid}"] = Region("reasons", reasons, None, name)
    # Every list is drawn, an empty one too (the page does not show it: app.css).
    boxes = [("now", top), *((g["category"], g["actions"]) for g in groups)]
    boxes.append(("blocked", blocked))
    heads = [{"box": g["category"], "label": g["label"], "count": g["count"]} for g in groups]
    heads.append(
        {
            "box": "blocked",
            "count": len(blocked),
            "plannable": layout.get("plannable"),
            "shared_reason": layout.get("shared_reason"),
            "shared_key": layout.get("shared_key"),
        }
    )
    for head in heads:
        model = {
            **{"label": "", "plannable": False, "shared_reason": "", "shared_key": ""},
            **head,
            **ident,
        }
        regions[f"head-action-{cid}-{head['box']}"] = Region("group_head", model, None, name)
    selects: dict[str, Region] = {}
    for box, listed in boxes:
        actions = [drawn_action(a, gm) for a in listed]
        # Which one answers the GM's keyboard shortcut is not drawn (static/js/a11y.js).
        models = [{"a": a, **ident, **urls} for a in actions]
        keys = [
            (f"action-{cid}-{a['key']}", item_digest(without_targets(m)))
            for a, m in zip(actions, models, strict=True)
        ]
        for a in actions:
            for f in a["fields"]:
                if f["kind"] in TARGET_KINDS:
                    model = {"f": f, "a": {"key": a["key"]}, **ident}
                    selects[f"targets-action-{cid}-{a['key']}-{f['field']}"] = Region(
                        "target_select", model, None, name, item=f"action-{cid}-{a['key']}"
                    )
        box_name = f"acts-action-{cid}-{box}"
        items = Items(box_name, "action", keys, models, moves=True)
        model = {"box": box, "box_actions": list(actions), **ident, **urls}
        regions[box_name] = Region("action_box", model, keys, name, items)
    # After the lists: a form put in by the same frame is on the page before its targets.
    regions.update(selects)
    return regions


# The options whose list of targets is a region of its own (components/target_select.html).
TARGET_KINDS = ("target", "targets")


def without_targets(model: dict[str, Any]) -> dict[str, Any]:
    """An action item's model as its fingerprint sees it: without the lists of targets of
    its options and the target each has chosen beforehand, which are regions of their own
    (a target in view, defeated or fallen sends those lists, not the forms)."""
    a = model["a"]
    fields = [
        {k: v for k, v in f.items() if k not in ("targets", "default")}
        if f["kind"] in TARGET_KINDS
        else f
        for f in a["fields"]
    ]
    return {**model, "a": {**a, "fields": fields}}


def region_digest(region: Region) -> str:
    """A short fingerprint of what a region shows (`fingerprint`)."""
    return fingerprint(region.model if region.compared is None else region.compared)


def last_outcome(lines: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """What the spectators' screen shows in large type: the newest line with a roll (an
    attack and its dice say more to a viewer than "Ana ends her turn"), else the newest."""
    kept = [line for line in lines if not line.get("undone")]
    return next((line for line in kept if line.get("rolls")), kept[0] if kept else None)


def gm_links(enc: Encounter) -> dict[str, Any]:
    """The secret links of an encounter, for the GM's HTTP answers only (never pushed)."""
    return {
        "enc": enc,
        "links": [
            {"id": s.pk, "name": s.name, "url": reverse("player", args=[s.token])}
            for s in enc.seats.filter(revoked=False).order_by("pk")
        ],
        "spectator_url": (
            reverse("spectator", args=[enc.spectator_token]) if enc.spectator_token else ""
        ),
    }
