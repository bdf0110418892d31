"""Turns, rounds and passes (combat/rules/flow.py): who acts when."""

from __future__ import annotations

from combat.words import Said, says


@says("flow.group_initiative")
def _group_initiative(s: Said) -> str:
    return f"Group {s['group']} rolls initiative: {s['total']}."


@says("flow.initiative")
def _initiative(s: Said) -> str:
    return f"{s.Name(s.actor)} rolls initiative: {s['total']}."


@says("flow.effect_ends")
def _effect_ends(s: Said) -> str:
    return f"{s.Name(s.actor)}: {s['effect']} ends."


@says("flow.round")
def _round(s: Said) -> str:
    return f"Round {s['round']} begins."


@says("flow.round_by_itself")
def _round_by_itself(s: Said) -> str:
    return "Nobody standing has Grit to Seize the Moment: it began by itself."


@says("flow.turn")
def _turn(s: Said) -> str:
    where = f", pass {s['pass']}" if "pass" in s.data else ""
    return f"{s.Name(s.actor)}'s turn (round {s['round']}{where})."


@says("flow.revived")
def _revived(s: Said) -> str:
    return f"{s.Name(s.actor)} is back in the fight."


@says("flow.back_on_feet")
def _back_on_feet(s: Said) -> str:
    return f"{s.Name(s.actor)} is back on their feet."


@says("flow.pass")
def _pass(s: Said) -> str:
    return f"Pass {s['pass']} of round {s['round']} begins."


@says("flow.round_end")
def _round_end(s: Said) -> str:
    return f"Round {s['round']} ends."


@says("flow.nobody_standing")
def _nobody_standing(s: Said) -> str:
    return (
        "Nobody is left standing to act: the GM can revive or add a combatant and begin the "
        "next round."
    )


@says("flow.seize_window")
def _seize_window(s: Said) -> str:
    return f"Before round {s['round']}: anyone with Grit may Seize the Moment."
