"""Abilities by the Action Ladder: Aim, Brace, Assist, Evade, Guard, Feint and Hide
(action-ladder.md "Basic Combat Actions")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Opts, Rng, add_effect
from ..catalogue import ActionDef
from ..events import Events
from ..state import Combatant, Effect, Encounter
from .common import bonus_of, drop_effects, spent, tell_contest

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def mark(
    self: ActionLadder,
    enc: Encounter,
    c: Combatant,
    a: ActionDef,
    opts: Opts,
    ev: Events,
    e: Effect,
) -> None:
    """An ability that leaves effect e on its user until it is spent or the user's next
    turn; the log line names the ability, its cost and what it does."""
    add_effect(c, e)
    ev.add(e.name.lower(), say="ladder.mark", actor=c.id, data={"ability": e.name, **spent(opts)})


def do_aim(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    aim = Effect("Aim", "never", None, {"to_hit": 2}, "Aim: +2 next ranged attack")
    self.mark(enc, c, a, opts, ev, aim)


def do_brace(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    # 'gain double RES to any Defense Rolls': the RES bonus twice over.
    res = 2 * bonus_of(c, "RES", "Brace")
    drop_effects(c, "Brace")
    add_effect(
        c,
        Effect(
            "Brace",
            "turn_start",
            c.id,
            {"bonus": res},
            f"Brace: double RES (+{res} defence)",
        ),
    )
    ev.add("brace", say="ladder.brace", actor=c.id, data={"bonus": res, **spent(opts)})


def do_assist(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    """Assist is a Bonus Action (Action Types: 'a quick task that takes no more than a
    second'); the rules text gives it no number, so the ally is marked Assisted until
    the helper's next turn and the GM judges what the help is worth."""
    t = enc.get(opts["target"])
    drop_effects(t, "Assisted")
    add_effect(t, Effect("Assisted", "turn_start", c.id, {"by": c.id}, f"Assisted by {c.name}"))
    data = {"ally": t.id, "with": opts.get("text") or None, **spent(opts)}
    ev.add("assist", say="ladder.assist", actor=c.id, data=data)


def do_evade(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    drop_effects(c, "Evade")
    evade = Effect("Evade", "turn_start", c.id, {}, "Evade: AGI bonus doubled once")
    self.mark(enc, c, a, opts, ev, evade)


def do_guard(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    guard = Effect("Guard", "turn_start", c.id, {}, "Guard: one free Parry or Block")
    self.mark(enc, c, a, opts, ev, guard)


def do_feint(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t, won, mine, theirs = self.challenge(enc, c, opts, "deception", "FCS", rng, "Feint")
    if won:
        drop_effects(c, "Feint")
        add_effect(
            c, Effect("Feint", "never", None, {"to_hit": 5}, "Feint: +5 next melee attack roll")
        )
    tell_contest(ev, "feint", "ladder.feint", c, t, mine, theirs, {"won": won, **spent(opts)})


def do_hide(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t, won, mine, theirs = self.challenge(enc, c, opts, "stealth", "perception", rng, "Hide")
    if won:
        add_effect(c, Effect("Unseen", "never", None, {"by": t.id}, f"Unseen by {t.name}"))
    tell_contest(ev, "hide", "ladder.hide", c, t, mine, theirs, {"won": won, **spent(opts)})
