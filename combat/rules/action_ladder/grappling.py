"""Grappling and contests by the Action Ladder: action-ladder.md "Grapple in Detail", Grapple
and Shove ("Basic Combat Actions"), and the contested rolls Feint and Hide share with them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dice
from ..base import add_effect, engage, separate
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import refuse
from ..state import Combatant, Effect, Encounter
from .common import (
    Opts,
    Rng,
    drop_effects,
    find_effect,
    has_effect,
    level_of,
    roll_of,
    tell_contest,
)

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def check_grapple(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    due = c.turn.get("sustain_due")
    if due:
        if target is not None and target.id != due:
            raise refuse(
                "grappling",
                f"{c.name} is grappling {enc.public_name(due)}: "
                "sustain that grapple or let it go first.",
            )
    elif has_effect(c, "Grappling"):
        raise refuse("grappling", f"{c.name} already holds a grapple this turn.")
    elif target is None:
        raise refuse("missing_option", "Grapple needs a target.")


def check_break_free(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if not has_effect(c, "Grappled"):
        raise refuse("not_grappled", f"{c.name} is not grappled.")


def contest(
    self: ActionLadder,
    actor: Combatant,
    a_stat: str,
    a_extra: int,
    other: Combatant,
    o_stat: str,
    o_extra: int,
    rng: Rng,
    why: str,
) -> tuple[bool, dice.Roll, dice.Roll]:
    """The actor must beat the other's roll; a tie goes to the other."""
    mine = roll_of(actor, a_stat, a_extra, rng, why)
    theirs = roll_of(other, o_stat, o_extra, rng, why)
    return mine.total > theirs.total, mine, theirs


def challenge(
    self: ActionLadder,
    enc: Encounter,
    c: Combatant,
    opts: Opts,
    mine: str,
    theirs: str,
    rng: Rng,
    why: str,
) -> tuple[Combatant, bool, dice.Roll, dice.Roll]:
    """A contest, without bonuses, against the declared target: (target, won, rolls)."""
    t = enc.get(opts["target"])
    won, my_roll, their_roll = self.contest(c, mine, 0, t, theirs, 0, rng, why)
    return t, won, my_roll, their_roll


def do_shove(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t, won, mine, theirs = self.challenge(enc, c, opts, "STR", "STR", rng, "Shove")
    text = f"STR {mine.total} against {theirs.total}"
    rolls = [mine, theirs]
    if won:
        dice_only = sum(d.value for d in mine.dice)
        back = max(1, dice_only // 2)
        save = roll_of(t, "STR", 0, rng, "STR save against Shove")
        rolls.append(save)
        text += f": {t.name} is pushed back {back} m, out of {c.name}'s reach"
        separate(c, t)  # forced movement: it provokes nothing
        if save.total >= mine.total:
            text += f" and keeps its feet (STR save {save.total})"
        else:
            self.knock_prone(t)
            text += f" and falls prone (STR save {save.total} against {mine.total})"
    else:
        text += ": it holds its ground"
    said = f"{c.name} Shoves {t.name}{self.spent_text(enc, c, a, opts)}: {text}."
    ev.add("shove", said, actor=c.id, involved=(t.id,), rolls=tuple(rolls))


def grapple_extra(self: ActionLadder, c: Combatant, defending: bool) -> int:
    ath = level_of(c, "athletics")
    return max(ath, level_of(c, "acrobatics")) if defending else ath


def do_grapple(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    due = c.turn.pop("sustain_due", None)
    t = enc.get(due or opts["target"])
    won, mine, theirs = self.contest(
        c,
        "STR",
        self.grapple_extra(c, False),
        t,
        "STR",
        self.grapple_extra(t, True),
        rng,
        "Grapple",
    )
    what = "sustains" if due else "grapples"
    text = (
        f"{c.name} {what} {t.name}{self.spent_text(enc, c, a, opts)}: grappling test "
        f"{mine.total} against {theirs.total}"
    )
    if won:
        if not due:
            engage(enc, c, t)
            add_effect(
                c, Effect("Grappling", "never", None, {"target": t.id}, f"grappling {t.name}")
            )
            add_effect(t, Effect("Grappled", "never", None, {"by": c.id}, f"grappled by {c.name}"))
        text += ": held"
        tell_contest(ev, "grapple", text + ".", c, t, mine, theirs)
    else:
        said = text + ": it slips free." if due else text + ": no hold."
        tell_contest(ev, "grapple", said, c, t, mine, theirs)
        if due:
            self.release(enc, c, ev, "", quiet=True)


def do_break_free(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    e = find_effect(c, "Grappled")
    holder = enc.combatants.get(str(e.detail.get("by"))) if e else None
    if holder is None:
        drop_effects(c, "Grappled")
        ev.add("grapple", f"{c.name} is free (nobody holds it any more).", actor=c.id)
        return
    won, mine, theirs = self.contest(
        c,
        "STR",
        self.grapple_extra(c, True),
        holder,
        "STR",
        self.grapple_extra(holder, False),
        rng,
        "Break Free",
    )
    said = (
        f"{c.name} tries to break free of {holder.name}"
        f"{self.spent_text(enc, c, a, opts)}: {mine.total} against {theirs.total}: "
        f"{'free' if won else 'still held'}."
    )
    tell_contest(ev, "grapple", said, c, holder, mine, theirs)
    if won:
        self.release(enc, holder, ev, "", quiet=True)


def release(
    self: ActionLadder,
    enc: Encounter,
    grappler: Combatant,
    ev: Events,
    why: str,
    quiet: bool = False,
) -> None:
    e = find_effect(grappler, "Grappling")
    drop_effects(grappler, "Grappling")
    grappler.turn.pop("sustain_due", None)
    held = enc.combatants.get(str(e.detail.get("target"))) if e else None
    if held is not None:
        held.effects = [
            x
            for x in held.effects
            if not (x.name == "Grappled" and x.detail.get("by") == grappler.id)
        ]
    if e is not None and not quiet:
        said = f"{grappler.name} lets go of {enc.name_of(held.id if held else None)}: {why}."
        ev.add("grapple", said, actor=grappler.id, involved=(held.id if held else None,))
