"""What each audience may see of an encounter, and what each combatant can do now.

The server renders pages and pushed fragments from these functions only, so a
hidden combatant never reaches a player's or a spectator's HTML or frames.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

from . import plans
from .base import HEALTH_MODES, NPC_HEALTH, Ruleset
from .board import seen_board
from .refusal import Refusal, Refused
from .registry import get_ruleset
from .state import Combatant, Effect, Encounter, Window

GM = "gm"
PLAYER = "player"
PUBLIC = "public"

# Whoever a reader cannot see, when something they can see comes from them: an attack on
# Ana by a hidden NPC reaches Ana's player "from someone unseen".
UNSEEN = "someone unseen"

# What a reader who cannot see the attacker may know of an attack held for their answer:
# what kind of attack it is and which defences it allows, never who makes it, its bonuses
# (an NPC's dice are the GM's) or how many attacks it has made.
_UNSEEN_ATTACK = ("action", "name", "target", "ranged", "allowed")
# Of something thrown or tossed by someone unseen: what it is, not the roll it came with.
_UNSEEN_CATCH = ("kind", "weight")


def health_mode(enc: Encounter, c: Combatant) -> str:
    """How players and spectators see this combatant's health: "exact", "band" or
    "hidden". A PC's is always exact (its player keeps its sheet); an NPC's is its own
    override, else the encounter's setting, else banded (docs/rules.md, "NPC health")."""
    if c.is_pc:
        return "exact"
    own = c.mods.get("npc_health")
    if own in HEALTH_MODES:
        return str(own)
    mode = enc.settings.get("npc_health")
    return str(mode) if mode in HEALTH_MODES else str(NPC_HEALTH.default)


def health_band(c: Combatant) -> str | None:
    """Down at 0 HP or defeated; Unhurt at full HP; Hurt above half; Bloodied at half or
    less. None when its HP is not tracked and it is still up."""
    if c.defeated or c.hp == 0:
        return "Down"
    if c.hp is None or not c.max_hp:
        return None
    if c.hp >= c.max_hp:
        return "Unhurt"
    return "Hurt" if 2 * c.hp > c.max_hp else "Bloodied"


def veiled_ids(enc: Encounter) -> tuple[str, ...]:
    """The combatants whose HP players and spectators may not know exactly (banded or
    hidden health), in a stable order: no number about their health reaches those
    readers, damage and healing amounts included."""
    return tuple(sorted(cid for cid, c in enc.combatants.items() if health_mode(enc, c) != "exact"))


def health_for(enc: Encounter, c: Combatant, audience: str) -> dict[str, Any]:
    """A combatant's health as a reader sees it, built from the reader's role: the GM and
    an exact-health combatant's readers get the HP; a banded one's get only the band's
    word; a hidden one's get nothing (`health_shown` says which)."""
    mode = health_mode(enc, c)
    if audience == GM or mode == "exact":
        return {
            "hp": c.hp,
            "max_hp": c.max_hp,
            "health": health_band(c),
            "health_shown": mode,
        }
    return {
        "hp": None,
        "max_hp": None,
        "health": health_band(c) if mode == "band" else None,
        "health_shown": mode,
    }


def visible_ids(enc: Encounter, audience: str) -> list[str]:
    return [cid for cid, c in enc.combatants.items() if audience == GM or not c.hidden]


def availability(
    enc: Encounter, cid: str, rs: Ruleset | None = None, hidden: Collection[str] = ()
) -> list[dict[str, Any]]:
    """Every action in the catalogue with its cost and whether it can be taken now.

    An action that cannot is given the refusal the engine would give, written for the
    reader: the GM's names everyone; for a player or spectator who cannot see `hidden`,
    it is the refusal as they would get it (`Refusal.to_reader`), so a hidden combatant
    is in neither its sentence nor its arguments. `why` holds its code and arguments.
    """
    rs = rs or get_ruleset(enc.ruleset)
    c = enc.combatants[cid]
    out = []
    for key in rs.catalogue(enc):
        a = rs.action(enc, key, c)
        opts = {o.name: o.default for o in a.options if o.default not in (None, "")}
        if a.extra.get("empowered"):
            opts["to_hit"] = 1  # the cheapest legal empowerment
        reason = code = ""
        why: Refusal | None = None
        try:
            rs.check(enc, c, a, opts, free=False)
        except Refused as r:
            why = r.refusal.to_reader(hidden) if hidden else r.refusal
            reason, code = why.message, why.code
        out.append(
            {
                "key": a.key,
                "name": a.name,
                "category": a.category,
                "cost": rs.cost_label(a),
                "summary": a.summary,
                "reaction": a.reaction,
                "needs": list(a.extra.get("needs", ())),
                "allowed": not reason,
                "reason": reason,
                "why": why,
                # Planning off-turn (plans.py): what the page offers besides the button.
                "plannable": bool(reason) and plans.plannable(a, code),
                "interrupt": not reason and plans.interrupt_now(enc, rs, c, a),
                "options": [o for o in a.options],
            }
        )
    return out


def _without(value: Any, hidden: set[str]) -> Any:
    """`value` with every hidden combatant's id taken out (ids only, never text)."""
    if isinstance(value, dict):
        return {k: None if _is(v, hidden) else _without(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [_without(v, hidden) for v in value if not _is(v, hidden)]
    return value


def _is(value: Any, hidden: set[str]) -> bool:
    return isinstance(value, str) and value in hidden


def lasts(enc: Encounter, e: Effect, hidden: Collection[str] = ()) -> str:
    """How long a lasting effect lasts, in words for a reader who cannot see `hidden`:
    "until the end of Ogre's next turn", or "until the end of a turn" when the turn is a
    combatant's the reader cannot see; "until the end of round 3"; "" until cleared."""
    if e.expires in ("turn_start", "turn_end"):
        edge = "start" if e.expires == "turn_start" else "end"
        whose = enc.combatants.get(e.until_of or "")
        if whose is None or whose.id in hidden:
            return f"until the {edge} of a turn"
        return f"until the {edge} of {whose.name}'s next turn"
    if e.expires == "rounds":
        return f"until the end of round {e.detail.get('last_round')}"
    if e.expires == "round_end":
        return "until the end of the round"
    return ""


def window_for(enc: Encounter, w: Window, audience: str) -> dict[str, Any] | None:
    """An open reaction window as a reader sees it, or None when they see nothing of it.

    A window a hidden combatant holds (its own Opportunity Attack) is the GM's alone. A
    window a hidden combatant opened on a visible one by doing something to it (its attack
    on Ana: the ruleset's `unseen_windows`) is shown with the trigger left out (`trigger`
    null, `trigger_unseen` true) and only the parts of its detail that say nothing of the
    attacker, so Ana's player can still answer it. Any other window a hidden combatant
    opened (Ana's Opportunity Attack as it slips away unseen) is the GM's too.
    """
    reactor = enc.combatants.get(w.reactor)
    if audience != GM and (reactor is None or reactor.hidden):
        return None
    trigger = enc.combatants.get(w.trigger)
    unseen = audience != GM and (trigger is None or trigger.hidden)
    if unseen and w.kind not in get_ruleset(enc.ruleset).unseen_windows:
        return None
    data: dict[str, Any] = {
        "id": w.id,
        "kind": w.kind,
        "reactor": w.reactor,
        "trigger": w.trigger,
        "detail": copy.deepcopy(w.detail),
    }
    if audience != GM and reactor is not None and health_mode(enc, reactor) != "exact":
        # What a throw at a banded or hidden NPC would take from it, should it miss.
        data["detail"].pop("damage", None)
    if not unseen:
        return data
    data["trigger"] = None
    data["trigger_unseen"] = True
    detail: dict[str, Any] = {}
    if w.kind == "defend":
        attack = w.detail.get("attack") or {}
        detail["attack"] = {k: copy.deepcopy(attack[k]) for k in _UNSEEN_ATTACK if k in attack}
        detail["choices"] = list(w.detail.get("choices") or [])
    elif w.kind == "catch":
        detail = {k: w.detail[k] for k in _UNSEEN_CATCH if k in w.detail}
    data["detail"] = detail
    return data


def windows_for(enc: Encounter, audience: str) -> list[dict[str, Any]]:
    """The open reaction windows a reader sees, oldest first (see `window_for`)."""
    return [v for w in enc.pending if (v := window_for(enc, w, audience)) is not None]


def redacted(enc: Encounter, audience: str) -> dict[str, Any]:
    """The state as an audience may see it (for the JSON API and the views)."""
    data = enc.to_dict()
    if audience == GM:
        for cid, c in data["combatants"].items():
            c.update(health_for(enc, enc.combatants[cid], audience))
            for e, effect in zip(c["effects"], enc.combatants[cid].effects, strict=True):
                e["lasts"] = lasts(enc, effect)
        return data
    hidden = {cid for cid, c in enc.combatants.items() if c.hidden}
    data["combatants"] = {cid: c for cid, c in data["combatants"].items() if cid not in hidden}
    for cid, c in data["combatants"].items():
        # Built from the reader's role: a banded or hidden NPC's HP is never put in.
        c.update(health_for(enc, enc.combatants[cid], audience))
        c["engaged"] = [i for i in c["engaged"] if i not in hidden]
        for e, effect in zip(c["effects"], enc.combatants[cid].effects, strict=True):
            e["lasts"] = lasts(enc, effect, hidden)
            if e.get("until_of") in hidden:
                # On a hidden combatant's turn: when, not whose ("until the end of a turn").
                e.update(until_of=None, until_unseen=True)
            refs = [*(e.get("detail") or {}).values()]
            if not effect.detail.get("condition"):
                # Only a condition's text is the GM's name and stacks; another effect's
                # text may name whose turn ends it.
                refs.append(effect.until_of)
            if any(isinstance(r, str) and r in hidden for r in refs):
                # "grappled by" a hidden combatant: the effect, not who.
                e.update(text=e["name"], detail={})
        for key in ("carry", "prepared", "turn", "round"):
            c[key] = _without(c[key], hidden)
        # The order of adding and the hand-set tie order count hidden combatants too.
        c.pop("seq", None)
        c.pop("tie", None)
        c.pop("notes", None)
        # A plan is its seat's and the GM's: no other seat, nor a spectator, reads it here.
        c.pop("plan", None)
        if c["side"] != "pc":
            # An NPC's dice are the GM's: players and spectators see its name, place in
            # the order, health as the GM chose, resources and effects, as the pages do.
            for key in ("stats", "mods"):
                c.pop(key, None)
    for g in data["groups"].values():
        g.pop("seq", None)  # the order of making counts hidden combatants too
    data["order"] = [i for i in data["order"] if i not in hidden]
    data["acted"] = [i for i in data["acted"] if i not in hidden]
    data["interject"] = [i for i in data["interject"] if i not in hidden]
    data["order_after"] = {
        k: v for k, v in data["order_after"].items() if k not in hidden and v not in hidden
    }
    data["pending"] = windows_for(enc, audience)
    if data["turn"] in hidden:
        data["turn"] = None
        data["turn_hidden"] = True
    data["settings"] = {k: v for k, v in data["settings"].items() if not k.startswith("_")}
    data.pop("counter", None)
    data.pop("turn_start_undo", None)
    data["board"] = seen_board(enc, hidden)
    return data
