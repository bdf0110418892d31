"""The GM's rulings and the turn order's own facts (combat/rules/engine.py)."""

from __future__ import annotations

from combat.rules import dice
from combat.words import Said, inner, says


@says("combatant_added")
def _added(s: Said) -> str:
    return f"{s.Name(s.actor)} joins the encounter."


@says("combatant_changed")
def _changed(s: Said) -> str:
    if s.get("was"):
        return f"The GM renames {s['was']} to {s.name(s.actor)}."
    if s.get("renamed"):
        return f"The GM renames {s.name(s.actor)}."
    return f"The GM changes {s.name(s.actor)}."


@says("combatant_removed")
def _removed(s: Said) -> str:
    return f"{s.Name(s.actor)} leaves the encounter."


@says("visibility")
def _visibility(s: Said) -> str:
    return f"{s.Name(s.actor)} is {'hidden' if s['hidden'] else 'revealed'}."


@says("damage")
def _damage(s: Said) -> str:
    if not s.exact(s.actor):
        return f"{s.Name(s.actor)} takes damage."
    return f"{s.Name(s.actor)} takes {s['amount']} damage."


@says("heal")
def _heal(s: Said) -> str:
    if not s.exact(s.actor):
        return f"{s.Name(s.actor)} regains HP."
    return f"{s.Name(s.actor)} regains {s['amount']} HP ({s['hp']})."


@says("initiative")
def _initiative(s: Said) -> str:
    return f"The GM sets {s.name(s.actor)}'s initiative to {s['value']}."


@says("reorder")
def _reorder(s: Said) -> str:
    return f"{s.Name(s.actor)} moves {s['direction']} among the tied."


@says("reorder_seize")
def _reorder_seize(s: Said) -> str:
    return f"{s.Name(s.actor)} moves {s['direction']} among those who Seize the Moment."


@says("combat_start")
def _start(s: Said) -> str:
    return "Combat begins."


@says("seize_window")
def _seize_window(s: Said) -> str:
    return "Before round 1: anyone with Grit may Seize the Moment."


@says("seize")
def _seize(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} spends 1 Grit to Seize the Moment and will act first in "
        f"round {s['round']}."
    )


@says("end_turn")
def _end_turn(s: Said) -> str:
    return f"{s.Name(s.actor)} ends the turn."


@says("take_turn")
def _take_turn(s: Said) -> str:
    return f"{s.Name(s.actor)} goes before {s.name(s['before'])}, whose turn starts when it comes."


@says("combat_end")
def _end(s: Said) -> str:
    return "Combat ends."


@says("grant_free")
def _grant_free(s: Said) -> str:
    return f"The GM grants {s.name(s.actor)} {s['action']} at no cost."


@says("decline")
def _decline(s: Said) -> str:
    return f"{s.Name(s.actor)} lets the moment pass."


@says("chance_passes")
def _chance_passes(s: Said) -> str:
    return f"{s.Name(s.actor)}'s chance to react passes."


@says("chance_passes_out")
def _chance_passes_out(s: Said) -> str:
    return f"{s.Name(s.actor)}'s chance to react passes: {s.name(s['out'])} is out of the fight."


@says("engage")
def _engage(s: Said) -> str:
    return f"{s.Name(s.actor)} and {s.name(s['with'])} are in melee."


@says("separate")
def _separate(s: Said) -> str:
    return f"The GM separates {s.name(s.actor)} and {s.name(s['from'])}."


@says("moved_by_gm")
def _moved_by_gm(s: Said) -> str:
    how = "teleported" if s["how"] == "teleport" else "forced"
    return f"{s.Name(s.actor)} is moved ({how})."


@says("adjust")
def _adjust(s: Said) -> str:
    if s["resource"] == "hp" and not s.exact(s.actor):
        return f"The GM sets {s.name(s.actor)}'s HP."
    return f"The GM sets {s.name(s.actor)}'s {s['resource']} to {s['value']}."


@says("set_cost")
def _set_cost(s: Said) -> str:
    who = f" for {s.name(s.actor)}" if s.actor else ""
    return f"The GM sets the cost of {s['action']}{who} to {s['cost']} {s['currency']}."


@says("set_modifier")
def _set_modifier(s: Said) -> str:
    return f"The GM sets {s.name(s.actor)}'s {s['modifier']} to {s['value']}."


@says("set_setting")
def _set_setting(s: Said) -> str:
    return f"The GM sets {str(s['setting']).replace('_', ' ')} to {s['value']}."


@says("custom_action_added")
def _custom_added(s: Said) -> str:
    return f"The GM adds a custom action: {s['name']} ({s['cost']})."


@says("custom_action_removed")
def _custom_removed(s: Said) -> str:
    return f"The GM removes the custom action {s['name']}."


@says("roll")
def _roll(s: Said) -> str:
    who = s.Name(s.actor) if s.actor else "The GM"
    label = s.get("label") or ""
    rolled = dice.Roll.from_dict(s.ev["rolls"][0]).describe()
    return f"{who} rolls {label + ': ' if label else ''}{rolled}"


def lasting(s: Said, expires: str | None, of: str | None, last_round: int | None) -> str:
    """How long something lasts, as this reader may know it: "until the end of Ogre's next
    turn", or "until the end of a turn" when that turn is one the reader cannot see."""
    if expires in ("turn_start", "turn_end"):
        edge = "start" if expires == "turn_start" else "end"
        if of is None or (not s.reader.gm and of in s.reader.hidden):
            return f"until the {edge} of a turn"
        return f"until the {edge} of {s.name(of)}'s next turn"
    if expires == "rounds":
        return f"until the end of round {last_round}"
    if expires == "round_end":
        return "until the end of the round"
    return ""


@says("condition")
def _condition(s: Said) -> str:
    lasts = lasting(s, s.get("expires"), s.get("of"), s.get("last_round"))
    return f"The GM sets {s.name(s.actor)}: {s['name']}{', ' + lasts if lasts else ''}."


@says("condition_cleared")
def _condition_cleared(s: Said) -> str:
    return f"The GM clears {s['name']} from {s.name(s.actor)}."


@says("undo")
def _undo(s: Said) -> str:
    return f"The GM undoes: {inner(s['event'], s.reader)}"


@says("undo_unseen")
def _undo_unseen(s: Said) -> str:
    return "The GM undoes the last command."


@says("undone")
def _undone(s: Said) -> str:
    what = inner(s["event"], s.reader) if s.get("event") else s.get("command") or "a command"
    return f"(Undone: {what})"
