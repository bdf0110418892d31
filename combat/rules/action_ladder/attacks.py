"""Attacks by the Action Ladder: action-ladder.md "The Attack Action in Detail" (the FCS part
of the 2nd and 3rd Attack), Attack, Disarm, Trip and Throw ("Basic Combat Actions"), "Throw
Range", and the defence choice (Dodge, Parry, Block, "Reactions") an attack opens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dice
from ..base import Opts, Rng, add_effect, apply_damage, engage, open_window
from ..catalogue import ActionDef
from ..events import Events
from ..paths import measured
from ..refusal import refuse
from ..state import Combatant, Effect, Encounter
from ..turns import Declared
from .common import (
    bonus_of,
    defend_stat,
    find_effect,
    has_effect,
    ordinal,
    rng_of,
    roll_of,
    spent,
    take_effect,
    tell_contest,
)
from .ladder import DEFENCE_REACTIONS

if TYPE_CHECKING:
    from .ruleset import ActionLadder

# The attack's facts that are the attacker's own (its roll, its bonuses): left out of what
# a reader who cannot see the attacker gets (Events.unseen).
ATTACKER_OWN = ("roll", "notes")


def check_throw(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    """Throw Range: "STR Bonus − Item Weight in meters", + X for Thrown(X). On a map the
    distance to a target standing on it is the map's (paths.measured), not the one
    declared."""
    s = bonus_of(c, "STR", "Throw range")
    reach = s - int(opts.get("weight") or 0) + int(opts.get("thrown") or 0)
    on_map = measured(enc, c, target)
    far = on_map if on_map is not None else int(opts.get("distance") or 0)
    if far > reach:
        asked = f"{target.name} stands {far:g} m away" if on_map is not None and target else ""
        raise refuse(
            "out_of_range",
            f"Out of range: {c.name} throws up to STR bonus {s} − weight "
            f"{opts.get('weight') or 0} + Thrown {opts.get('thrown') or 0} = "
            f"{max(reach, 0)} m; {asked or f'{far:g} m was asked'}.",
            who=c.id,
            what="throw",
            target=target.id if target else None,
            distance=far,
            range=max(reach, 0),
            rule="action-ladder.md, Throw Range",
        )


def fcs_part(self: ActionLadder, c: Combatant, n: int, double: bool) -> tuple[int, str]:
    """RULINGS ladder 6: full FCS bonus on the 1st attack, half (rounded down) on the
    2nd, none on the 3rd and later."""
    fcs = bonus_of(c, "FCS", "the FCS bonus to hit")
    if double:
        fcs *= 2
    if n == 1:
        return fcs, f"1st attack, FCS {fcs:+d}"
    if n == 2:
        return fcs // 2, f"2nd attack, half FCS {fcs // 2:+d}"
    return 0, f"{ordinal(n)} attack, no FCS"


def make_attack(
    self: ActionLadder,
    c: Combatant,
    a: ActionDef,
    target: str | None,
    *,
    ranged: bool,
    after: str,
    allowed: tuple[str, ...] = DEFENCE_REACTIONS,
    double_fcs: bool = False,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Declare an attack: fixes its bonuses (FCS by count, Aim, Feint) before any roll."""
    n = c.turn.get("attack_rolls", 0) + 1
    c.turn["attack_rolls"] = n
    to_hit, note = self.fcs_part(c, n, double_fcs)
    notes = [note]
    if ranged and take_effect(c, "Aim"):
        to_hit += 2
        notes.append("Aim +2")
    if not ranged and take_effect(c, "Feint"):
        to_hit += 5
        notes.append("Feint +5")
    return {
        "action": a.key,
        "name": a.name,
        "attacker": c.id,
        "target": target,
        "ranged": ranged,
        "to_hit": to_hit,
        "notes": notes,
        "after": after,
        "allowed": list(allowed),
        "n": n,
        **(extra or {}),
    }


def defence_choices(
    self: ActionLadder, enc: Encounter, t: Combatant, spec: dict[str, Any]
) -> list[str]:
    if t.defeated or not self.setting(enc, "defence_prompts", t):
        return []
    bonus = t.res.get("bonus", 0)
    guard = has_effect(t, "Guard")
    out = []
    for kind in spec.get("allowed", DEFENCE_REACTIONS):
        if kind == "dodge" and (has_effect(t, "Prone") or bonus < 1):
            continue
        if kind == "block" and not self.setting(enc, "shield", t):
            continue
        if kind in ("parry", "block") and bonus < 1 and not guard:
            continue
        out.append(kind)
    return out


def launch(
    self: ActionLadder, enc: Encounter, c: Combatant, spec: dict[str, Any], rng: Rng, ev: Events
) -> None:
    """An attack is declared: hold it for the defender's reaction, or resolve it now."""
    if spec.get("ranged") and not spec.get("cleared"):
        held: Declared = {"kind": "attack", "name": spec["name"], "spec": spec}
        if self.hold_for_interrupts(enc, c, held, ev):
            return
    tid = spec.get("target")
    if not tid:
        atk = roll_of(c, "attack", spec["to_hit"], rng, spec["name"])
        dmg = roll_of(c, "damage", 0, rng, spec["name"])
        data = {"name": spec["name"], "notes": spec["notes"], "roll": atk.total}
        data["rolled_damage"] = dmg.total
        ev.add("attack", say="ladder.attack_untargeted", actor=c.id, rolls=(atk, dmg), data=data)
        return
    t = enc.get(tid)
    if not spec["ranged"] and not spec.get("no_engage"):
        engage(enc, c, t)
    choices = self.defence_choices(enc, t, spec)
    if choices:
        detail = {"attack": spec, "choices": choices}
        facts = {"choices": choices, "attacker": c.id, "name": spec["name"], "notes": spec["notes"]}
        say = "ladder.defend_window"
        open_window(enc, "defend", t, c, ev, rng=rng_of(ev), say=say, detail=detail, **facts)
        return
    self.strike(enc, c, t, spec, None, rng, ev)


def reaction_roll(
    self: ActionLadder, enc: Encounter, t: Combatant, reaction: dict[str, Any], rng: Rng
) -> tuple[dice.Roll, dict[str, Any]]:
    """The defender's reaction roll, and its facts for the attack's sentence."""
    kind = reaction["kind"]
    if kind == "dodge":
        extra = 0
        if take_effect(t, "Evade"):
            extra = bonus_of(t, "AGI", "Dodge")
        r = roll_of(t, "AGI", extra, rng, "Dodge")
        return r, {"kind": kind, "total": r.total, "evade": extra}
    if kind == "parry":
        stat = reaction.get("with") or "AGI"
        rating = int(self.setting(enc, "parry_rating", t))
        r = roll_of(t, stat, rating, rng, "Parry")
        return r, {"kind": kind, "total": r.total, "with": stat.upper(), "rating": rating}
    rating = int(self.setting(enc, "block_rating", t))
    r = roll_of(t, "RES", rating, rng, "Block")
    return r, {"kind": kind, "total": r.total, "rating": rating}


def strike(
    self: ActionLadder,
    enc: Encounter,
    c: Combatant,
    t: Combatant,
    spec: dict[str, Any],
    reaction: dict[str, Any] | None,
    rng: Rng,
    ev: Events,
) -> None:
    """Roll the held attack against the defence (and any reaction); apply what follows."""
    atk = roll_of(c, "attack", spec["to_hit"], rng, spec["name"])
    dstat = defend_stat(t, spec["ranged"])
    brace = find_effect(t, "Brace")
    brace_bonus = int(brace.detail.get("bonus", 0)) if brace else 0
    dfn = roll_of(t, dstat, brace_bonus, rng, "defence")
    rolls = [atk, dfn]
    total = dfn.total
    # The defence as its sentence tells it: the defender's own rolls, which a reader who
    # cannot see the attacker reads too (not the attacker's bonuses or dice).
    against: dict[str, Any] = {"ranged": bool(spec["ranged"]), "defence": dfn.total}
    against["brace"] = brace_bonus
    if reaction:
        rr, facts = self.reaction_roll(enc, t, reaction, rng)
        rolls.append(rr)
        total += rr.total
        against["reaction"] = {**facts, "guard": bool(reaction.get("guard"))}
    against["total"] = total
    seen_rolls = tuple(rolls[1:])

    def tell(data: dict[str, Any]) -> dict[str, Any]:
        """The attack's log line, with every roll made so far."""
        data = {
            **data,
            "target": t.id,
            "action": spec["action"],
            "attacker": c.id,
            "name": spec["name"],
            "notes": spec["notes"],
            "roll": atk.total,
            "against": against,
        }
        line = ev.add("attack", say="ladder.attack", actor=c.id, rolls=tuple(rolls), data=data)
        if c.hidden:
            ev.unseen(line, c.id, rolls=seen_rolls, own=ATTACKER_OWN)
        return line

    if atk.total < total:
        tell({"hit": False})
        return
    dmg = roll_of(c, "damage", 0, rng, spec["name"])
    rolls.append(dmg)
    line = tell({"hit": True, "damage": dmg.total})
    ev.health(line, t.id, rolls=tuple(r for r in rolls if r is not dmg))
    after = spec.get("after")
    if after == "throw" and self.can_catch(enc, t):
        self.open_catch(
            enc,
            c,
            t,
            {"kind": "throw", "attack": atk.total, "damage": dmg.total, "name": spec["name"]},
            ev,
        )
        return
    if after == "interrupt":
        self.lose_action(enc, t, c, ev)
    apply_damage(enc, t, dmg.total, ev, source=c.id)
    if after == "trip" and not t.defeated:
        self.agi_save_or_prone(enc, t, atk.total, rng, ev)


def agi_save_or_prone(
    self: ActionLadder, enc: Encounter, t: Combatant, dc: int, rng: Rng, ev: Events
) -> None:
    extra = 0
    if take_effect(t, "Evade"):
        extra = bonus_of(t, "AGI", "AGI save")
    save = roll_of(t, "AGI", extra, rng, "AGI save against Trip")
    kept = save.total >= dc
    if not kept:
        self.knock_prone(t)
    data = {"save": save.total, "evade": extra, "dc": dc, "kept": kept}
    ev.add("save", say="ladder.trip_save", actor=t.id, rolls=(save,), data=data)


def lose_action(
    self: ActionLadder, enc: Encounter, t: Combatant, by: Combatant, ev: Events
) -> None:
    """Interrupt, on a hit: 'their Action is lost' (RULINGS ladder 2: being Interrupted
    loses an action under way). Lost are: a spell or ranged attack declared and held
    for Interrupts, an attack held in its target's defence window (that window closes
    and the attack deals nothing), an action being paid off, and a prepared action."""
    # Each thing lost: {"name"} (a declared or carried action), {"name", "on"} (an attack
    # held in its target's window; the target named as everyone may see it, "on" None for
    # a hidden one) or {"prepared"} (the text of a prepared action).
    lost: list[dict[str, Any]] = []
    on: list[str] = []
    declared = t.turn.pop("declared", None)
    if declared:
        lost.append({"name": declared["name"]})
    for w in [w for w in enc.pending if w.trigger == t.id]:
        if w.kind == "interrupt":
            enc.pending.remove(w)  # nothing left to interrupt
        elif w.kind == "defend" and (w.detail.get("attack") or {}).get("after") != "interrupt":
            enc.pending.remove(w)
            seen = w.reactor in enc.combatants and not enc.combatants[w.reactor].hidden
            on += [w.reactor] if seen else []
            lost.append({"name": w.detail["attack"]["name"], "on": w.reactor if seen else None})
    if t.carry:
        lost.append({"name": t.carry["name"]})
        t.carry = None
    if t.prepared:
        lost.append({"prepared": t.prepared["text"]})
        t.prepared = None
        enc.interject = [i for i in enc.interject if i != t.id]
    once: list[dict[str, Any]] = []  # a spell started now is declared and carried
    once += [x for i, x in enumerate(lost) if x not in lost[:i]]
    data = {"interrupted": t.id, "lost": once}
    ev.add("interrupted", say="ladder.interrupted", actor=by.id, mentions=tuple(on), data=data)


def do_attack(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    ranged = bool(opts.get("ranged"))
    spec = self.make_attack(c, a, opts.get("target"), ranged=ranged, after="damage")
    self.launch(enc, c, spec, rng, ev)


def do_throw(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    to, extra = opts.get("target"), {"weight": int(opts.get("weight") or 0)}
    # 'the target may Dodge or Catch it'
    spec = self.make_attack(c, a, to, ranged=True, after="throw", allowed=("dodge",), extra=extra)
    self.launch(enc, c, spec, rng, ev)


def do_trip(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    trip = bool(opts.get("trip_weapon"))  # a Trip weapon doubles the FCS bonus to hit
    spec = self.make_attack(c, a, opts.get("target"), ranged=False, after="trip", double_fcs=trip)
    self.launch(enc, c, spec, rng, ev)


def do_disarm(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    t = enc.get(opts["target"])
    spec = self.make_attack(c, a, t.id, ranged=False, after="disarm")
    engage(enc, c, t)
    theirs_fcs = bonus_of(t, "FCS", "resisting Disarm")
    won, mine, theirs = self.contest(
        c, "attack", spec["to_hit"], t, "attack", theirs_fcs, rng, "Disarm"
    )
    if won:
        add_effect(
            t, Effect("Disarmed", "never", None, {"by": c.id}, "disarmed: weapon on the ground")
        )
    data = {"won": won, "notes": spec["notes"], **spent(opts)}
    tell_contest(ev, "disarm", "ladder.disarm", c, t, mine, theirs, data)
