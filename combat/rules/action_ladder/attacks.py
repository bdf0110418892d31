"""Attacks by the Action Ladder: action-ladder.md "The Attack Action in Detail" (the FCS part
of the 2nd and 3rd Attack), Attack, Disarm, Trip and Throw ("Basic Combat Actions"), "Throw
Range", and the defence choice (Dodge, Parry, Block, "Reactions") an attack opens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dice
from ..base import add_effect, apply_damage, engage
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import refuse
from ..state import Combatant, Effect, Encounter, Window
from ..turns import Declared
from .common import (
    Opts,
    Rng,
    bonus_of,
    defend_stat,
    find_effect,
    has_effect,
    or_list,
    ordinal,
    rng_of,
    roll_of,
    take_effect,
    tell_contest,
)
from .ladder import DEFENCE_REACTIONS

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def check_throw(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    s = bonus_of(c, "STR", "Throw range")
    reach = s - int(opts.get("weight") or 0) + int(opts.get("thrown") or 0)
    if int(opts.get("distance") or 0) > reach:
        raise refuse(
            "out_of_range",
            f"Out of range: {c.name} throws up to STR bonus {s} − weight "
            f"{opts.get('weight') or 0} + Thrown {opts.get('thrown') or 0} = "
            f"{max(reach, 0)} m; {opts.get('distance') or 0} m was asked.",
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
        said = (
            f"{c.name}: {spec['name']} ({', '.join(spec['notes'])}), roll "
            f"{atk.total}, damage {dmg.total} (no target named; the GM judges)."
        )
        ev.add("attack", said, actor=c.id, rolls=(atk, dmg))
        return
    t = enc.get(tid)
    if not spec["ranged"] and not spec.get("no_engage"):
        engage(enc, c, t)
    choices = self.defence_choices(enc, t, spec)
    if choices:
        detail = {"attack": spec, "choices": choices}
        w = Window(enc.new_id("w", rng_of(ev)), "defend", t.id, c.id, detail)
        enc.pending.append(w)
        names = [k.capitalize() for k in choices]
        said = (
            f"{c.name} attacks {t.name} with {spec['name']} "
            f"({', '.join(spec['notes'])}): {t.name} may {or_list(names)}, or take it "
            "on its plain defence."
        )
        ev.add(
            "window",
            said,
            actor=t.id,
            involved=(c.id,),
            data={"window": w.id, "reactor": t.id, "choices": choices},
        )
        return
    self.strike(enc, c, t, spec, None, rng, ev)


def reaction_roll(
    self: ActionLadder, enc: Encounter, t: Combatant, reaction: dict[str, Any], rng: Rng
) -> tuple[dice.Roll, str]:
    kind = reaction["kind"]
    if kind == "dodge":
        extra, note = 0, ""
        if take_effect(t, "Evade"):
            extra = bonus_of(t, "AGI", "Dodge")
            note = f", Evade +{extra}"
        r = roll_of(t, "AGI", extra, rng, "Dodge")
        return r, f"Dodge {r.total}{note}"
    if kind == "parry":
        stat = reaction.get("with") or "AGI"
        rating = int(self.setting(enc, "parry_rating", t))
        r = roll_of(t, stat, rating, rng, "Parry")
        return r, f"Parry ({stat.upper()}, rating {rating}) {r.total}"
    rating = int(self.setting(enc, "block_rating", t))
    r = roll_of(t, "RES", rating, rng, "Block")
    return r, f"Block (rating {rating}) {r.total}"


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
    parts = [
        f"{'ranged' if spec['ranged'] else 'melee'} defence {dfn.total}"
        + (f" (Brace +{brace_bonus})" if brace_bonus else "")
    ]
    if reaction:
        rr, text = self.reaction_roll(enc, t, reaction, rng)
        rolls.append(rr)
        total += rr.total
        parts.append(text + (" (Guard)" if reaction.get("guard") else ""))
    against = " + ".join(parts) + (f" = {total}" if len(parts) > 1 else "")
    head = (
        f"{c.name}: {spec['name']} on {t.name} ({', '.join(spec['notes'])}), "
        f"{atk.total} against {against}"
    )
    # To those who cannot see the attacker: what reached the defender, and the
    # defender's own rolls, not the attacker's name, bonuses or dice.
    unseen_head = f"Someone unseen: {spec['name']} on {t.name}, against {against}"
    seen_rolls = tuple(rolls[1:])

    def tell(result: str, data: dict[str, Any]) -> dict[str, Any]:
        """The attack's log line, with every roll made so far."""
        said = f"{head}: {result}"
        return ev.add("attack", said, actor=c.id, involved=(t.id,), rolls=tuple(rolls), data=data)

    if atk.total < total:
        data = {"hit": False, "target": t.id, "action": spec["action"]}
        line = tell("miss.", data)
        if c.hidden:
            ev.unseen(line, c.id, f"{unseen_head}: miss.", seen_rolls, data)
        return
    dmg = roll_of(c, "damage", 0, rng, spec["name"])
    rolls.append(dmg)
    data = {"hit": True, "damage": dmg.total, "target": t.id, "action": spec["action"]}
    line = tell(f"hit for {dmg.total} damage.", data)
    ev.health(
        line,
        t.id,
        f"{head}: hit.",
        tuple(r for r in rolls if r is not dmg),
        {k: v for k, v in data.items() if k != "damage"},
    )
    if c.hidden:
        text = f"{unseen_head}: hit for {dmg.total} damage."
        ev.unseen(line, c.id, text, seen_rolls, data)
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
    extra, note = 0, ""
    if take_effect(t, "Evade"):
        extra = bonus_of(t, "AGI", "AGI save")
        note = f" (Evade +{extra})"
    save = roll_of(t, "AGI", extra, rng, "AGI save against Trip")
    if save.total >= dc:
        said = f"{t.name} keeps its feet: AGI save {save.total}{note} against {dc}."
        ev.add("save", said, actor=t.id, rolls=(save,))
    else:
        self.knock_prone(t)
        said = f"{t.name} falls prone: AGI save {save.total}{note} against {dc}."
        ev.add("save", said, actor=t.id, rolls=(save,))


def lose_action(
    self: ActionLadder, enc: Encounter, t: Combatant, by: Combatant, ev: Events
) -> None:
    """Interrupt, on a hit: 'their Action is lost' (RULINGS ladder 2: being Interrupted
    loses an action under way). Lost are: a spell or ranged attack declared and held
    for Interrupts, an attack held in its target's defence window (that window closes
    and the attack deals nothing), an action being paid off, and a prepared action."""
    lost: list[str] = []
    declared = t.turn.pop("declared", None)
    if declared:
        lost.append(declared["name"])
    for w in [w for w in enc.pending if w.trigger == t.id]:
        if w.kind == "interrupt":
            enc.pending.remove(w)  # nothing left to interrupt
        elif w.kind == "defend" and (w.detail.get("attack") or {}).get("after") != "interrupt":
            enc.pending.remove(w)
            # Named as its target's player may see it (a hidden target is "someone").
            lost.append(f"{w.detail['attack']['name']} on {enc.public_name(w.reactor)}")
    if t.carry:
        lost.append(t.carry["name"])
        t.carry = None
    if t.prepared:
        lost.append(f"the prepared action ({t.prepared['text']})")
        t.prepared = None
        enc.interject = [i for i in enc.interject if i != t.id]
    lost = list(dict.fromkeys(lost))  # a spell started now is declared and carried
    if lost:
        said = (
            f"{by.name} Interrupts {t.name}: {' and '.join(lost)} "
            f"{'is' if len(lost) == 1 else 'are'} lost."
        )
        ev.add("interrupted", said, actor=by.id, involved=(t.id,))
    else:
        said = f"{t.name} had nothing under way to lose."
        ev.add("interrupted", said, actor=by.id, involved=(t.id,))


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
    said = (
        f"{c.name} tries to Disarm {t.name}{self.spent_text(enc, c, a, opts)} "
        f"({', '.join(spec['notes'])}): {mine.total} against {theirs.total}: "
        f"{'the weapon falls to the ground' if won else 'no effect'}."
    )
    tell_contest(ev, "disarm", said, c, t, mine, theirs)
