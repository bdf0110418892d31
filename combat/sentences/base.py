"""What every ruleset shares (combat/rules/base.py): a plain action, the attack with its
versions for a reader who cannot see the attacker or may not know the target's HP, the
Opportunity Attack chance and being defeated."""

from __future__ import annotations

from combat.rules.paths import m as metres
from combat.words import Said, says


@says("base.plain")
def _plain(s: Said) -> str:
    target = s.get("target")
    on = f" on {s.name(target)}" if target else ""
    what = s.get("text") or ""
    detail = f": {what}" if what else ""
    return f"{s.Name(s.actor)} takes {s['name']}{on}{s['spent']}{detail}."


@says("base.no_opportunity")
def _no_opportunity(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} gets no Opportunity Attack on {s.name(s['mover'])}: it has no "
        f"{' or '.join(s['missing'])} stat (the GM sets it on the combatant)."
    )


@says("base.opportunity")
def _opportunity(s: Said) -> str:
    reactor = s.name(s["reactor"])
    return (
        f"{s.Name(s['mover'])} leaves {reactor}'s reach: {reactor} may make an Opportunity Attack."
    )


@says("base.leave_reach")
def _leave_reach(s: Said) -> str:
    names = ", ".join(s.name(i) for i in s["left"])
    return f"{s.Name(s.actor)} leaves {names}'s reach without provoking ({s['reason']})."


@says("base.walk_held")
def _walk_held(s: Said) -> str:
    """No one is named: the enemy it leaves may be hidden (its window is the GM's)."""
    return (
        f"{s.Name(s.actor)} stops at {s['at']} as it leaves an enemy's reach, "
        f"{metres(s['left'])} of its move toward {s['goal']} still to go once the "
        "Opportunity Attack is answered or passed."
    )


@says("base.walk_on")
def _walk_on(s: Said) -> str:
    short = f"; it stops short of {s['short_of']}" if s.get("short_of") else ""
    return f"{s.Name(s.actor)} walks on ({s['name']}), {metres(s['metres'])} to {s['to']}{short}."


@says("base.jump_lands")
def _jump_lands(s: Said) -> str:
    """No cell is named: fog may cover it later."""
    if s["landed"]:
        return f"{s.Name(s.actor)} lands its jump."
    return f"{s.Name(s.actor)} does not land its jump: the landing is no longer free."


@says("base.attack_untargeted")
def _attack_untargeted(s: Said) -> str:
    return (
        f"{s.Name(s.actor)}: {s['label']}, roll {s['roll']}, damage {s['damage']} "
        "(no target named; the GM judges)."
    )


@says("base.attack")
def _attack(s: Said) -> str:
    """ "Ana: Strike for 2 AP on Ogre, 14 against melee defence 12: hit for 5 damage." A
    reader who cannot see the attacker reads "Someone unseen: Strike on Ana, against melee
    defence 12 ..." (no roll, no cost); one who may not know the target's HP, no damage."""
    by, target = s["by"], s.name(s["target"])
    against = f"{s['defence']} defence {s['against']}"
    if s["stance"]:
        against += f" (+{s['stance']} stance)"
    if s["reaction_bonus"] or s["reaction"]:
        against += f" ({s['reaction']} {s['reaction_bonus']:+d})"
    # The facts kept for those who could not see the attacker have no roll: a line read
    # in them after the attacker is revealed names it, still without its roll and cost.
    if s.sees(by) and "roll" in s.data:
        head = f"{s.Name(by)}: {s['label']} on {target}, {s['roll']} against {against}"
    else:
        head = f"{s.Name(by)}: {s['name']} on {target}, against {against}"
    if not s["hit"]:
        return f"{head}: miss."
    if not s.exact(s["target"]):
        return f"{head}: hit."
    return f"{head}: hit for {s['damage']} damage."


@says("base.defeated")
def _defeated(s: Said) -> str:
    return f"{s.Name(s.actor)} is defeated."
