"""Abilities by the Action Ladder: Aim, Brace, Assist, Evade, Guard, Feint and Hide
(action-ladder.md "Basic Combat Actions")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import add_effect
from ..catalogue import ActionDef
from ..events import Events
from ..state import Combatant, Effect, Encounter
from .common import Opts, Rng, bonus_of, drop_effects, tell_contest

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
    verb: str,
    says: str,
) -> None:
    """An ability that leaves effect e on its user until it is spent or the user's next
    turn; the log line names the ability, its cost and what it does."""
    add_effect(c, e)
    ev.add(e.name.lower(), f"{c.name} {verb}{self.spent_text(enc, c, a, opts)}: {says}", actor=c.id)


def do_aim(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    aim = Effect("Aim", "never", None, {"to_hit": 2}, "Aim: +2 next ranged attack")
    self.mark(enc, c, a, opts, ev, aim, "takes Aim", "+2 FCS on its next Ranged Attack.")


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
    said = (
        f"{c.name} Braces{self.spent_text(enc, c, a, opts)}: +{res} (double RES) "
        "on every defence roll until its next turn."
    )
    ev.add("brace", said, actor=c.id)


def do_assist(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    """Assist is a Bonus Action (Action Types: 'a quick task that takes no more than a
    second'); the rules text gives it no number, so the ally is marked Assisted until
    the helper's next turn and the GM judges what the help is worth."""
    t = enc.get(opts["target"])
    what = f" with {opts['text']}" if opts.get("text") else ""
    drop_effects(t, "Assisted")
    add_effect(t, Effect("Assisted", "turn_start", c.id, {"by": c.id}, f"Assisted by {c.name}"))
    said = (
        f"{c.name} Assists {t.name}{what}{self.spent_text(enc, c, a, opts)}: the GM "
        "judges what the help is worth, until its next turn."
    )
    ev.add("assist", said, actor=c.id, involved=(t.id,))


def do_evade(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    drop_effects(c, "Evade")
    evade = Effect("Evade", "turn_start", c.id, {}, "Evade: AGI bonus doubled once")
    says = "its AGI bonus counts double on its first AGI Save or Dodge before its next turn."
    self.mark(enc, c, a, opts, ev, evade, "Evades", says)


def do_guard(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    guard = Effect("Guard", "turn_start", c.id, {}, "Guard: one free Parry or Block")
    self.mark(enc, c, a, opts, ev, guard, "Guards", "one free Parry or Block before its next turn.")


def do_feint(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t, won, mine, theirs = self.challenge(enc, c, opts, "deception", "FCS", rng, "Feint")
    if won:
        drop_effects(c, "Feint")
        add_effect(
            c, Effect("Feint", "never", None, {"to_hit": 5}, "Feint: +5 next melee attack roll")
        )
    said = (
        f"{c.name} Feints {t.name}{self.spent_text(enc, c, a, opts)}: "
        f"Deception {mine.total} against Focus save {theirs.total}: "
        f"{'+5 to hit with its next melee attack' if won else 'no effect'}."
    )
    tell_contest(ev, "feint", said, c, t, mine, theirs)


def do_hide(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t, won, mine, theirs = self.challenge(enc, c, opts, "stealth", "perception", rng, "Hide")
    if won:
        add_effect(c, Effect("Unseen", "never", None, {"by": t.id}, f"Unseen by {t.name}"))
    said = (
        f"{c.name} Hides from {t.name}{self.spent_text(enc, c, a, opts)}: "
        f"Stealth {mine.total} against Perception {theirs.total}: "
        f"{'Unseen' if won else 'spotted'}."
    )
    tell_contest(ev, "hide", said, c, t, mine, theirs)
