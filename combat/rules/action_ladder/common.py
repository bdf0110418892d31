"""Small helpers every family of Action Ladder rules uses: effects by name, stats in any letter
case, rolls, and words for numbers (action-ladder.md "Stats"; RULINGS ladder 8)."""

from __future__ import annotations

import random
from typing import Any

from .. import dice
from ..base import Opts, Rng, need_stat
from ..catalogue import ActionDef
from ..events import Events
from ..state import Combatant, Effect, Encounter


def metres(x: float) -> str:
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return f"{text} m"


def ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def find_effect(c: Combatant, name: str) -> Effect | None:
    return next((e for e in c.effects if e.name.lower() == name.lower()), None)


def has_effect(c: Combatant, name: str) -> bool:
    return find_effect(c, name) is not None


def take_effect(c: Combatant, name: str) -> Effect | None:
    """Remove and return the first effect of that name (a one-shot bonus being used)."""
    e = find_effect(c, name)
    if e is not None:
        c.effects.remove(e)
    return e


def drop_effects(c: Combatant, name: str) -> None:
    c.effects = [e for e in c.effects if e.name.lower() != name.lower()]


def stat_key(c: Combatant, name: str) -> str | None:
    for key in (name, name.lower(), name.upper()):
        s = c.stats.get(key)
        if s and s.get("dice"):
            return key
    return None


def need(c: Combatant, name: str, why: str) -> dict[str, Any]:
    """The stat, in any letter case; refused with code missing_stat when absent."""
    key = stat_key(c, name)
    if key is None:
        need_stat(c, name, why)  # raises missing_stat naming the stat
    return c.stats[key or name]


def bonus_of(c: Combatant, name: str, why: str) -> int:
    return int(need(c, name, why).get("bonus") or 0)


def level_of(c: Combatant, skill: str) -> int:
    """A skill's level (its bonus); an untrained combatant has level 0."""
    key = stat_key(c, skill)
    return int(c.stats[key].get("bonus") or 0) if key else 0


def roll_of(c: Combatant, name: str, extra: int, rng: Rng, why: str) -> dice.Roll:
    s = need(c, name, why)
    return dice.roll(dice.add_modifier(str(s["dice"]), int(s.get("bonus") or 0) + extra), rng)


def die_size(c: Combatant, name: str, why: str) -> int:
    parsed = dice.parse(str(need(c, name, why)["dice"]))
    return max((d.sides for d in parsed.dice), default=0)


def defend_stat(c: Combatant, ranged: bool) -> str:
    special = "defend_ranged" if ranged else "defend_melee"
    return special if stat_key(c, special) else "defend"


def climb_stows(c: Combatant, a: ActionDef, opts: Opts) -> bool:
    """Beginning a Climb stows what the hands hold: that is the turn's Draw/Stow."""
    return a.key == "climb" and not has_effect(c, "Climbing") and not opts.get("hands_empty")


def order_places(enc: Encounter) -> dict[str, str]:
    """The places sprung Skip/Prepare combatants took: combatant → the one it follows."""
    return enc.order_after


def rng_of(ev: Events) -> random.Random:
    """The command's die, for hooks that have no rng parameter (turn start, decline)."""
    rng: Rng | None = getattr(ev, "rng", None)
    if rng is None:
        raise RuntimeError("action_ladder: the engine did not hand the command's rng to Events")
    return rng


def is_spell(a: ActionDef) -> bool:
    """Casting a spell: the Ability or Spell action, or a GM-made action marked a spell."""
    return a.key == "ability" or a.spell


def spent(opts: Opts) -> dict[str, Any]:
    """What the action cost, as a fact for its sentence: "carried" (the last of an action
    paid over turns), the [effort, Bonus Actions] paid, or None (nothing to tell)."""
    if opts.get("_carried"):
        return {"spent": "carried"}
    paid = opts.get("_paid")
    return {"spent": list(paid) if paid else None}


def tell_contest(
    ev: Events,
    kind: str,
    say: str,
    c: Combatant,
    t: Combatant,
    mine: dice.Roll,
    theirs: dice.Roll,
    data: dict[str, Any],
) -> None:
    """A contest's log line: the one acting, the other party, and both rolls."""
    data = {"other": t.id, "mine": mine.total, "theirs": theirs.total, **data}
    ev.add(kind, say=say, actor=c.id, involved=(t.id,), rolls=(mine, theirs), data=data)
