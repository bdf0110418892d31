"""Refusals written from their arguments (combat/rules/refusal.py, `said`), for the person
who asked: a combatant they cannot see is "someone unseen". The rules the refusals cite
are in combat/rules/base.py (what every ruleset shares)."""

from __future__ import annotations

from combat.words import Said, says


@says("refusal.defeated")
def _defeated(s: Said) -> str:
    return f"{s.Name(s.actor)} is defeated and cannot act."


@says("refusal.reaction_only")
def _reaction_only(s: Said) -> str:
    return (
        f"{s.name(s['what'])} is a reaction: it is taken when something triggers it, "
        "not as an action."
    )


@says("refusal.not_your_turn")
def _not_your_turn(s: Said) -> str:
    who = s.name(s.actor)
    return f"Not {who}'s turn: {who} can take {s.name(s['what'])} only on its own turn."


@says("refusal.once_per_round", "refusal.once_per_turn")
def _once_per(s: Said) -> str:
    return f"{s.name(s['what'])} can be used only {s['rule']}."


@says("refusal.nothing_to_abandon")
def _nothing_to_abandon(s: Said) -> str:
    return f"{s.Name(s.actor)} has nothing under way to abandon."


@says("refusal.nothing_prepared")
def _nothing_prepared(s: Said) -> str:
    return f"{s.Name(s.actor)} has no prepared action to trigger."


@says("refusal.attack_itself")
def _attack_itself(s: Said) -> str:
    return f"{s.Name(s.actor)} cannot attack itself."


@says("refusal.target_defeated")
def _target_defeated(s: Said) -> str:
    return f"{s.Name(s['target'])} is already defeated."


@says("refusal.missing_stat")
def _missing_stat(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} has no {s['stat']} stat, needed for {s['needed_for']}: the GM "
        "sets it on the combatant (a dice expression such as 1d20, and a bonus)."
    )


@says("refusal.out_of_reach")
def _out_of_reach(s: Said) -> str:
    from combat.rules.paths import m

    where = f"{s.Name(s['target'])} is {m(s['distance'])} from {s.name(s.actor)}"
    what = s.name(s["what"])
    need = "an adjacent target" if s["adjacent"] else "its target within reach"
    if s.get("walled"):
        why = "but a wall stands between them"
    elif s["adjacent"]:
        why = "not next to it"
    else:
        why = f"beyond its reach of {m(s['reach'])}"
    return f"{where}, {why}: {what} needs {need} ({s['rule']})."
