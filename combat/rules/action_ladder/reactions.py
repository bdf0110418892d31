"""Reactions by the Action Ladder: action-ladder.md "Reactions" (Dodge, Parry, Block, Attack of
Opportunity, Interrupt, Catch) and "Catch in Detail": the windows they answer, who may answer
first, and a declined window; RULINGS ladder (reactions, interrupts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import Opts, Rng, apply_damage, open_window
from ..catalogue import ActionDef
from ..events import Events
from ..paths import check_reach, reaches
from ..refusal import Refused, refuse, said
from ..state import Combatant, Encounter, Window
from ..turns import Declared
from .catalogue import ATTACK_NEEDS
from .common import (
    bonus_of,
    defend_stat,
    has_effect,
    need,
    or_list,
    rng_of,
    roll_of,
    stat_key,
    take_effect,
)
from .ladder import DEFENCE_REACTIONS, bonus_label

# On a map, how near an Interrupt's target must stand (paths.check_reach).
INTERRUPT_ADJACENT = "action-ladder.md, Interrupt: 'Interrupt an adjacent enemy'"

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def trigger_of(enc: Encounter, w: Window) -> Combatant:
    """The one whose deed opened window w; refused once it is defeated."""
    t = enc.get(w.trigger)
    if t.defeated:
        raise said(
            "bad_target",
            enc.get(w.reactor),
            sentence="target_defeated",
            others=[t],
            target=t.id,
            window=w.id,
        )
    return t


def check_interrupt(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if target is not None and target.id not in c.engaged:
        raise said(
            "not_adjacent",
            c,
            others=[target],
            what="interrupt",
            target=target.id,
            rule="Interrupt",
        )


def opportunity_missing(self: ActionLadder, enc: Encounter, other: Combatant) -> list[str]:
    if other.res.get("bonus", 0) < 1:
        return []
    return [s for s in ATTACK_NEEDS if not stat_key(other, s)]


def do_interrupt(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    # Taken as an action, it answers this combatant's own Interrupt window too.
    enc.pending = [
        w
        for w in enc.pending
        if not (w.kind == "interrupt" and w.reactor == c.id and w.trigger == opts["target"])
    ]
    spec = self.make_attack(
        c, a, opts["target"], ranged=False, after="interrupt", allowed=("dodge",)
    )
    self.launch(enc, c, spec, rng, ev)
    self.settle_declared(enc, rng, ev)


def can_interrupt(self: ActionLadder, enc: Encounter, o: Combatant, c: Combatant) -> bool:
    """An adjacent (engaged) enemy that can pay 2 Bonus Actions and roll a melee attack
    on `c`, which can be defended against."""
    return (
        not o.defeated
        and reaches(enc, o, c, adjacent=True)
        and o.res.get("bonus", 0) >= 2
        and all(stat_key(o, s) for s in ATTACK_NEEDS)
        and stat_key(c, defend_stat(c, False)) is not None
    )


def hold_for_interrupts(
    self: ActionLadder, enc: Encounter, c: Combatant, held: Declared, ev: Events
) -> bool:
    """A spell or a ranged attack is declared: each adjacent enemy that can pay for an
    Interrupt is offered one, and the action waits until every window is answered or
    passed ('Interrupt an adjacent enemy (e.g. casting a spell or readying a ranged
    attack)'). False when nobody can interrupt: it goes on at once."""
    others = [enc.combatants.get(i) for i in c.engaged]
    able = [o for o in others if o is not None and self.can_interrupt(enc, o, c)]
    if not able:
        return False
    c.turn["declared"] = held
    for o in able:
        detail = {"declared": held["name"], "cost": 2}
        facts = {"declarer": c.id, "name": held["name"]}
        say = "ladder.interrupt_window"
        open_window(enc, "interrupt", o, c, ev, rng=rng_of(ev), say=say, detail=detail, **facts)
    return True


def settle_declared(self: ActionLadder, enc: Encounter, rng: Rng, ev: Events) -> None:
    """A declared action whose Interrupt windows are all answered or passed (and no
    Interrupt on it awaits its Dodge) goes on now."""
    for c in list(enc.combatants.values()):
        held = c.turn.get("declared")
        if not held:
            continue
        if c.defeated:
            c.turn.pop("declared", None)
            continue
        if any(
            (w.kind == "interrupt" and w.trigger == c.id)
            or (
                w.kind == "defend"
                and w.reactor == c.id
                and (w.detail.get("attack") or {}).get("after") == "interrupt"
            )
            for w in enc.pending
        ):
            continue
        c.turn.pop("declared")
        target = held["spec"].get("target") if held["kind"] == "attack" else None
        if target and target not in enc.combatants:
            # RULINGS ladder 2, as for a carried action: its target is gone.
            ev.add("fizzle", say="ladder.target_gone", actor=c.id, data={"name": held["name"]})
            continue
        try:
            if held["kind"] == "attack":
                self.launch(enc, c, {**held["spec"], "cleared": True}, rng, ev)
            else:
                a = self.action(enc, held["action"], c)
                self.resolve(enc, c, a, {**held["opts"], "_cleared": True}, rng, ev)
        except Refused as r:
            data = {"name": held["name"], "reason": r.refusal.message}
            ev.add("fizzle", say="ladder.comes_to_nothing", actor=c.id, data=data)


def settle(self: ActionLadder, enc: Encounter, ev: Events) -> None:
    self.settle_declared(enc, rng_of(ev), ev)


def waits_on_interrupt(self: ActionLadder, c: Combatant, w: Window) -> bool:
    """`w` is the Dodge window of `c` against an Interrupt on the action it declared."""
    return (
        "declared" in c.turn
        and w.kind == "defend"
        and w.reactor == c.id
        and (w.detail.get("attack") or {}).get("after") == "interrupt"
    )


def turn_windows(self: ActionLadder, enc: Encounter, c: Combatant) -> list[Window]:
    """Besides the windows its deeds opened, a turn waits on the Dodge its holder owes
    an Interrupt on its declared action: until it is rolled, the action is neither
    lost nor made."""
    return [w for w in enc.pending if w.trigger == c.id or self.waits_on_interrupt(c, w)]


def answer_first(
    self: ActionLadder, enc: Encounter, c: Combatant, own: list[Window]
) -> tuple[str, str | None]:
    """The Interrupt on the declared action waits for its Dodge (action-ladder.md,
    Interrupt): what the refusal says, written for each reader by `refusal.answer_own`."""
    held = c.turn.get("declared") or {}
    return "interrupt", str(held.get("name", "action"))


def react_interrupt(
    self: ActionLadder, enc: Encounter, c: Combatant, w: Window, rng: Rng, ev: Events
) -> None:
    t = trigger_of(enc, w)
    a = self.action(enc, "interrupt", c)
    check_interrupt(enc, c, t, {})
    check_reach(enc, c, a, t, rule=INTERRUPT_ADJACENT, adjacent=True)
    for stat in ATTACK_NEEDS:
        need(c, stat, "Interrupt")
    need(t, defend_stat(t, False), "defending against an Interrupt")
    self.spend_bonus(c, 2, "Interrupt")
    c.round["interrupt"] = c.round.get("interrupt", 0) + 1
    spec = self.make_attack(c, a, t.id, ranged=False, after="interrupt", allowed=("dodge",))
    self.launch(enc, c, spec, rng, ev)


def can_catch(self: ActionLadder, enc: Encounter, t: Combatant) -> bool:
    return (
        not t.defeated
        and not has_effect(t, "Climbing")  # both hands are busy while climbing
        and t.res.get("bonus", 0) >= 1
        and bool(self.setting(enc, "defence_prompts", t))
    )


def open_catch(
    self: ActionLadder,
    enc: Encounter,
    c: Combatant,
    t: Combatant,
    detail: dict[str, Any],
    ev: Events,
) -> None:
    facts = {"thrower": c.id, "name": detail["name"]}
    say = "ladder.catch_window"
    open_window(enc, "catch", t, c, ev, rng=rng_of(ev), say=say, detail=detail, **facts)


def can_react(self: ActionLadder, enc: Encounter, c: Combatant, kind: str) -> bool:
    if c.defeated or c.res.get("bonus", 0) < 1:
        return False
    if kind == "opportunity_attack":
        return all(stat_key(c, s) for s in ATTACK_NEEDS)
    return True


def spend_bonus(self: ActionLadder, c: Combatant, n: int, what: str) -> None:
    have = c.res.get("bonus", 0)
    if have < n:
        raise refuse(
            "not_enough_bonus",
            f"Not enough Bonus Actions: {what} costs {bonus_label(n)}, {c.name} has "
            f"{have} Bonus Action{'s' if have != 1 else ''} left.",
            who=c.id,
            cost=n,
            spending_on=what,
            left=have,
            rule="Action Economy",
        )
    c.res["bonus"] = have - n


def react(
    self: ActionLadder, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
) -> None:
    known = {
        "defend": {"reaction", "with", "use_guard"},
        "catch": {"drop"},
        "opportunity_attack": set(),
        "interrupt": set(),
    }
    if w.kind not in known:
        raise refuse(
            "no_reaction",
            f"{self.name} has no reaction to a {w.kind} window.",
            who=c.id,
            window=w.id,
            kind=w.kind,
        )
    for key in opts:
        if key not in known[w.kind]:
            raise refuse("bad_option", "That reaction takes no such option.")
    if w.kind == "defend":
        self.react_defend(enc, c, w, opts, rng, ev)
    elif w.kind == "catch":
        self.react_catch(enc, c, w, opts, rng, ev)
    elif w.kind == "interrupt":
        self.react_interrupt(enc, c, w, rng, ev)
    else:
        self.react_opportunity(enc, c, w, rng, ev)
    self.settle_declared(enc, rng, ev)


def react_defend(
    self: ActionLadder, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
) -> None:
    spec = w.detail["attack"]
    allowed = list(spec.get("allowed", DEFENCE_REACTIONS))
    kind = opts.get("reaction")
    if kind in (None, ""):
        kind = next((k for k in allowed if k in w.detail.get("choices", [])), allowed[0])
    if kind not in DEFENCE_REACTIONS:
        raise refuse(
            "bad_option",
            "Reaction must be dodge, parry or block (or decline with accept=false).",
        )
    if kind not in allowed:
        raise refuse(
            "reaction_not_allowed",
            f"Against {spec['name']} {c.name} may only "
            f"{or_list([k.capitalize() for k in allowed])}.",
            who=c.id,
            window=w.id,
            reaction=kind,
            allowed=list(allowed),
            rule="Reactions",
        )
    if kind == "dodge" and has_effect(c, "Prone"):
        raise refuse(
            "prone_no_dodge",
            f"{c.name} is prone and cannot Dodge: while prone you act normally but cannot Dodge.",
            who=c.id,
            window=w.id,
            reaction="dodge",
            rule="Prone",
        )
    if kind == "block" and not self.setting(enc, "shield", c):
        raise refuse(
            "no_shield",
            f"Block requires a shield; {c.name} has none.",
            who=c.id,
            window=w.id,
            reaction="block",
            rule="Block",
        )
    stat = "AGI"
    if kind == "parry":
        stat = str(opts.get("with") or "").upper()
        if stat not in ("STR", "AGI"):
            have = [s for s in ("AGI", "STR") if stat_key(c, s)]
            stat = max(have, key=lambda s: bonus_of(c, s, "Parry")) if have else "AGI"
    need(c, {"dodge": "AGI", "parry": stat, "block": "RES"}[kind], kind.capitalize())
    guard = False
    if (
        kind in ("parry", "block")
        and has_effect(c, "Guard")
        and (
            opts.get("use_guard", True) not in (False, "false", "0", 0) or c.res.get("bonus", 0) < 1
        )
    ):
        take_effect(c, "Guard")
        guard = True
    else:
        self.spend_bonus(c, 1, kind.capitalize())
    c.round[kind] = c.round.get(kind, 0) + 1
    attacker = enc.get(w.trigger)
    self.strike(enc, attacker, c, spec, {"kind": kind, "with": stat, "guard": guard}, rng, ev)


def react_opportunity(
    self: ActionLadder, enc: Encounter, c: Combatant, w: Window, rng: Rng, ev: Events
) -> None:
    mover = trigger_of(enc, w)
    for stat in ATTACK_NEEDS:
        need(c, stat, "Attack of Opportunity")
    need(mover, defend_stat(mover, False), "defending against an Attack of Opportunity")
    self.spend_bonus(c, 1, "Attack of Opportunity")
    c.round["opportunity_attack"] = c.round.get("opportunity_attack", 0) + 1
    a = self.action(enc, "opportunity_attack", c)
    spec = self.make_attack(c, a, mover.id, ranged=False, after="damage", extra={"no_engage": True})
    self.launch(enc, c, spec, rng, ev)


def react_catch(
    self: ActionLadder, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
) -> None:
    d = w.detail
    if has_effect(c, "Climbing"):
        raise refuse(
            "hands_busy",
            f"{c.name} is climbing: both hands are unavailable, and Catch needs a free "
            "hand (Climbing, Crawling, and Swimming; Catch in Detail).",
            who=c.id,
            window=w.id,
            rule="Catch in Detail",
        )
    if d["kind"] == "throw":
        need(c, "AGI", "Catch")
        need(c, "FCS", "Catch")
    else:
        need(c, "FCS", "Catch")
    self.spend_bonus(c, 1, "Catch")
    if opts.get("drop"):
        c.turn["free_drop"] = c.turn.get("free_drop", 0) + 1
        ev.add("action", say="ladder.drop_to_catch", actor=c.id)
    if d["kind"] == "throw":
        agi = roll_of(c, "AGI", 0, rng, "Catch")
        fcs = roll_of(c, "FCS", 0, rng, "Catch")
        total = agi.total + fcs.total
        caught = total >= d["attack"]
        data = {"name": d["name"], "save": total, "dc": d["attack"], "caught": caught}
        ev.add("catch", say="ladder.catch_throw", actor=c.id, rolls=(agi, fcs), data=data)
        if not caught:
            apply_damage(enc, c, int(d["damage"]), ev, source=w.trigger)
        return
    dc = 15 + int(d["weight"])
    r = roll_of(c, "FCS", 0, rng, "Catch")
    data = {"name": d["name"], "check": r.total, "dc": dc}
    if r.total >= dc:
        ev.add("catch", say="ladder.catch_toss", actor=c.id, rolls=(r,), data=data)
        return
    hurt = 2 * int(d["weight"]) + int(d.get("wd") or 0)
    line = ev.add("catch", say="ladder.fumble", actor=c.id, rolls=(r,), data={**data, "hurt": hurt})
    ev.health(line, c.id, rolls=(r,))
    apply_damage(enc, c, hurt, ev, source=w.trigger)


def declined(self: ActionLadder, enc: Encounter, c: Combatant, w: Window, ev: Events) -> None:
    attacker = enc.combatants.get(w.trigger)
    if w.kind == "defend" and attacker is not None and not c.defeated:
        try:
            self.strike(enc, attacker, c, w.detail["attack"], None, rng_of(ev), ev)
        except Refused as r:
            data = {"reason": r.refusal.message}
            ev.add("fizzle", say="ladder.attack_comes_to_nothing", actor=w.trigger, data=data)
    elif w.kind == "catch":
        d = w.detail
        if d["kind"] == "throw":
            ev.add("catch", say="ladder.not_caught", actor=c.id, data={"name": d["name"]})
            apply_damage(enc, c, int(d["damage"]), ev, source=w.trigger)
        else:
            ev.add("catch", say="ladder.lands", actor=c.id, data={"what": d["name"]})
    self.settle_declared(enc, rng_of(ev), ev)
