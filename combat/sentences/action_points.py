"""Action Points (combat/rules/action_points.py): the pool, the stance, the defence
reactions and the attacks that come to nothing."""

from __future__ import annotations

from combat.rules.paths import m
from combat.words import Said, says


@says("ap.lost")
def _lost(s: Said) -> str:
    lost = s["lost"]
    return f"{s.Name(s.actor)}'s {lost} unspent AP {'is' if lost == 1 else 'are'} lost."


@says("ap.defend_window")
def _defend_window(s: Said) -> str:
    t = s.name(s["reactor"])
    choices = " or ".join(str(k).capitalize() for k in s["choices"])
    return (
        f"{s.Name(s['attacker'])} attacks {t} with {s['name']}: {t} may {choices} (its "
        "Reaction), or take it on its plain defence."
    )


@says("ap.spell_roll")
def _spell_roll(s: Said) -> str:
    target = s.get("target")
    on = f" on {s.name(target)}" if target else ""
    return f"{s.Name(s.actor)}: {s['label']}{on}, spell roll {s['roll']}."


@says("ap.stance")
def _stance(s: Said) -> str:
    count = s["count"]
    return (
        f"{s.Name(s.actor)} takes a Defensive Stance for {count} AP: +{count} to "
        f"{s['defence']} defence (now +{s['total']}) until the start of its next turn."
    )


@says("ap.fizzle_gone")
def _fizzle_gone(s: Said) -> str:
    return "The attack comes to nothing: its target is gone."


@says("ap.fizzle")
def _fizzle(s: Said) -> str:
    return f"The attack comes to nothing: {s['why']}"


def _moved(s: Said) -> str:
    """ "4 m to C4", and where it stopped short of."""
    short = f", stopping short of {s['short_of']}" if s.get("short_of") else ""
    return f"{m(s['metres'])} to {s['to']}{short}"


@says("ap.move")
def _move(s: Said) -> str:
    where = f" {_moved(s)}" if s.get("to") else ""
    return f"{s.Name(s.actor)} moves ({s['mode']}, 1 AP){where}."


@says("ap.disengage")
def _disengage(s: Said) -> str:
    moved = f" and moves {_moved(s)}" if s.get("to") else ""
    return (
        f"{s.Name(s.actor)} Disengages (2 AP){moved}: no move this turn provokes an "
        "Opportunity Attack."
    )
