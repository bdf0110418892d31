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
    # `target` is absent for a reader who cannot see it (Refusal.seen_by): "Someone".
    return f"{s.Name(s.get('target'))} is already defeated."


@says("refusal.missing_stat")
def _missing_stat(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} has no {s['stat']} stat, needed for {s['needed_for']}: the GM "
        "sets it on the combatant (a dice expression such as 1d20, and a bonus)."
    )


@says("refusal.waiting_for_reactions")
def _waiting_for_reactions(s: Said) -> str:
    # A reactor the reader cannot see is neither named nor counted (issue 12 item 10):
    # with only such reactors the reader learns only that the table waits for the GM.
    names = list(dict.fromkeys(s.name(r) for r in s["waiting_on"] if s.sees(r)))
    if not names:
        return "Waiting for the GM."
    return f"Waiting for reactions: {', '.join(names)} may still react to {s.name(s.actor)}."


@says("refusal.answer_first")
def _answer_first(s: Said) -> str:
    by = s.get("by")
    seen = by is not None and s.sees(by)
    attack = f"{s.name(by)}'s attack" if seen else "the attack of someone unseen"
    answer = "Catch" if s.get("answer") == "catch" else "Dodge, Parry or Block"
    return f"{s.Name(s.actor)} must first answer {attack} ({answer}, or let it pass)."


@says("refusal.answer_own")
def _answer_own(s: Said) -> str:
    """A turn that cannot end before its holder answers a window of its own: the Ladder's
    Interrupt on a declared action (its Dodge), or any other reaction window."""
    if s.get("answer") != "interrupt":
        return f"{s.Name(s.actor)} must first answer its reaction window (or let it pass)."
    by = s.get("by")
    seen = by is not None and s.sees(by)
    who = f"{s.name(by)}'s Interrupt" if seen else "the Interrupt of someone unseen"
    return (
        f"{s.Name(s.actor)} must first answer {who} (Dodge, or let it pass): "
        f"{s.name(s.actor)}'s {s.get('held')} waits on it, and is lost if it hits."
    )


@says("refusal.grappling_other")
def _grappling_other(s: Said) -> str:
    held = s.get("held")
    other = s.name(held) if held is not None and s.sees(held) else "someone else"
    return f"{s.Name(s.actor)} is grappling {other}: sustain that grapple or let it go first."


@says("refusal.not_adjacent")
def _not_adjacent(s: Said) -> str:
    return (
        f"Interrupt needs an adjacent enemy: {s.name(s.get('target'))} is not in melee with "
        f"{s.name(s.actor)}."
    )


# Said once for many actions refused alike (combat/screens.py, `action_layout`): the same
# refusal without the action's name.


@says("refusal.many.not_your_turn")
def _many_not_your_turn(s: Said) -> str:
    return f"Not {s.name(s.actor)}'s turn"


@says("refusal.many.reaction_only")
def _many_reaction_only(s: Said) -> str:
    return "Each of these is a reaction: it is taken when something triggers it, not as an action."


@says("refusal.many.once_per_round", "refusal.many.once_per_turn")
def _many_once_per(s: Said) -> str:
    return f"Each of these can be used only {s['rule']}."


# ---- refusals29a: the engine's refusals that name a second combatant ----


def _turn(s: Said) -> str:
    if "turn" in s.data and s["turn"] is None:
        return "Nobody is taking a turn right now."
    return f"It is {s.name(s.get('turn'))}'s turn."


@says("refusal.not_your_turn_now")
def _not_your_turn_now(s: Said) -> str:
    return f"{_not_your_turn(s)} {_turn(s)}"


@says("refusal.turn_of")
def _turn_of(s: Said) -> str:
    return f"It is {s.name(s.get('turn'))}'s turn, not {s.name(s.actor)}'s."


@says("refusal.not_group")
def _not_group(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} is not in {s.name(s.get('turn'))}'s group: only members of a group "
        "acting on one initiative choose their order."
    )


@says("refusal.turn_begun")
def _turn_begun(s: Said) -> str:
    return f"{s.Name(s.get('turn'))} has already begun its turn."


@says("refusal.not_tied")
def _not_tied(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} and {s.name(s.get('other'))} are not tied: only combatants of the "
        "same side with the same initiative choose their order (the GM can set an "
        "initiative by hand)."
    )


@says("refusal.not_yours")
def _not_yours(s: Said) -> str:
    return f"That reaction belongs to {s.name(s.get('reactor'))}."


@says("refusal.on_map")
def _on_map(s: Said) -> str:
    return (
        f"On a map, engagement follows from where tokens stand: move {s.name(s.actor)} next "
        f"to {s.name(s.get('target'))} (or within its reach), or away from it."
    )


@says("refusal.already_engaged")
def _already_engaged(s: Said) -> str:
    return f"{s.Name(s.actor)} and {s.name(s.get('target'))} are already in melee."


@says("refusal.not_engaged")
def _not_engaged(s: Said) -> str:
    return f"{s.Name(s.actor)} and {s.name(s.get('target'))} are not in melee."


@says("refusal.use_move")
def _use_move(s: Said) -> str:
    return (
        f"To get away from {s.name(s.get('target'))}, {s.name(s.actor)} moves (which may "
        "provoke an Opportunity Attack); only the GM separates combatants by hand."
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


@says("refusal.jump_too_far")
def _jump_too_far(s: Said) -> str:
    from combat.rules.paths import m

    return (
        f"{s['cell']} is {m(s['distance'])} from {s.name(s.actor)} in a straight line: "
        f"this jump reaches {m(s['allowance'])} ({s['rule']})."
    )


@says("refusal.jump_blocked")
def _jump_blocked(s: Said) -> str:
    return (
        f"A wall at {s['wall']} stands between {s.name(s.actor)} and {s['cell']}: a jump "
        f"passes over water and rough ground, never through a wall or its corner ({s['rule']})."
    )


@says("refusal.jump_in_place")
def _jump_in_place(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} already stands at {s['cell']}: to jump in place, leave the "
        f"cell out ({s['rule']})."
    )


@says("refusal.jump_with_destination")
def _jump_with_destination(s: Said) -> str:
    return (
        f"A jump folded into {s.name(s['what'])} is not measured on the map: move to the "
        f"take-off cell, then take Jump with the landing cell ({s['rule']})."
    )
