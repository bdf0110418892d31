"""Grappling and contests by the Action Ladder: action-ladder.md "Grapple in Detail", Grapple
and Shove ("Basic Combat Actions"), and the contested rolls Feint and Hide share with them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dice
from ..base import Opts, Rng, add_effect, engage, separate
from ..board import label
from ..catalogue import ActionDef
from ..events import Events
from ..paths import push
from ..refusal import refuse, said
from ..state import Combatant, Effect, Encounter
from .common import drop_effects, find_effect, has_effect, level_of, roll_of, spent, tell_contest

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def check_grapple(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    due = c.turn.get("sustain_due")
    if due:
        if target is not None and target.id != due:
            raise said("grappling", c, sentence="grappling_other", others=[enc.get(due)], held=due)
    elif has_effect(c, "Grappling"):
        raise refuse(
            "grappling",
            f"{c.name} already holds a grapple this turn.",
            who=c.id,
            what="grapple",
            rule="Grapple",
        )
    elif target is None:
        raise refuse("missing_option", "Grapple needs a target.")


def check_break_free(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if not has_effect(c, "Grappled"):
        raise refuse("not_grappled", f"{c.name} is not grappled.", who=c.id, what="break_free")


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
    rolls = [mine, theirs]
    data: dict[str, Any] = {"other": t.id, "mine": mine.total, "theirs": theirs.total}
    data.update(won=won, **spent(opts))
    if won:
        dice_only = sum(d.value for d in mine.dice)
        back = max(1, dice_only // 2)
        save = roll_of(t, "STR", 0, rng, "STR save against Shove")
        rolls.append(save)
        separate(c, t)  # forced movement: it provokes nothing
        # On a map the token goes back along the line from the shover (paths.push); the
        # engagement then follows from where the two stand.
        pushed = push(enc, c, t, float(back))
        if pushed is not None:
            data.update(to=label(*pushed.at), moved=pushed.metres, stopped=pushed.stopped)
        kept = save.total >= mine.total
        if not kept:
            self.knock_prone(t)
        data.update(back=back, save=save.total, kept=kept)
    ev.add("shove", say="ladder.shove", actor=c.id, rolls=tuple(rolls), data=data)


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
    data = {"won": won, "sustains": bool(due), **spent(opts)}
    tell_contest(ev, "grapple", "ladder.grapple", c, t, mine, theirs, data)
    if won:
        if not due:
            engage(enc, c, t)
            add_effect(
                c, Effect("Grappling", "never", None, {"target": t.id}, f"grappling {t.name}")
            )
            add_effect(t, Effect("Grappled", "never", None, {"by": c.id}, f"grappled by {c.name}"))
    elif due:
        self.release(enc, c, ev, "", quiet=True)


def do_break_free(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    e = find_effect(c, "Grappled")
    holder = enc.combatants.get(str(e.detail.get("by"))) if e else None
    if holder is None:
        drop_effects(c, "Grappled")
        ev.add("grapple", say="ladder.free_of_nobody", actor=c.id)
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
    data = {"won": won, **spent(opts)}
    tell_contest(ev, "grapple", "ladder.break_free", c, holder, mine, theirs, data)
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
    """The grappler lets go; `why` is "nobody_left" (whom it held is gone or out of the
    fight) or "not_sustained" (the grapple was not sustained in time)."""
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
        data = {"held": held.id if held else None, "why": why}
        ev.add("grapple", say="ladder.let_go", actor=grappler.id, data=data)
