"""Turns, rounds and passes: who acts when. Kept apart from what actions do."""

from __future__ import annotations

import random

from . import dice, plans, turn_start
from .base import Ruleset
from .events import Events
from .refusal import refuse
from .registry import get_ruleset
from .state import COMBAT, SEIZE, SETUP, Combatant, Effect, Encounter


def initiative_of(enc: Encounter, c: Combatant) -> int | None:
    if c.group and c.group in enc.groups:
        return enc.groups[c.group].initiative
    return c.initiative


UNORDERED = 1 << 30  # a combatant nobody has ordered by hand comes after those who were


def sort_key(enc: Encounter, c: Combatant) -> tuple[int, int, int, int, int, int]:
    """Highest initiative first; ties: PCs before NPCs, then the hand-set order (a later
    arrival after it), then the higher bonus, then the order of adding: a group counts
    from when it was made, and its members sit together."""
    init = initiative_of(enc, c)
    group = enc.groups.get(c.group) if c.group else None
    bonus = group.initiative_bonus if group else c.initiative_bonus
    return (
        -(init if init is not None else -999),
        0 if c.is_pc else 1,
        c.tie or UNORDERED,
        -bonus,
        group.seq if group else c.seq,
        c.seq,
    )


def initiative_order(enc: Encounter) -> list[str]:
    return [c.id for c in sorted(enc.combatants.values(), key=lambda c: sort_key(enc, c))]


def roll_initiative(enc: Encounter, c: Combatant, rng: random.Random, ev: Events) -> None:
    formula = str(enc.settings.get("initiative_formula", "1d10"))
    if c.group and c.group in enc.groups:
        g = enc.groups[c.group]
        if g.initiative is None:
            r = dice.roll(dice.add_modifier(formula, g.initiative_bonus), rng)
            g.initiative = r.total
            ev.add(
                "initiative",
                say="flow.group_initiative",
                actor=c.id,
                rolls=(r,),
                data={"group": g.name, "total": r.total},
            )
        return
    r = dice.roll(dice.add_modifier(formula, c.initiative_bonus), rng)
    c.initiative = r.total
    c.initiative_roll = r.to_dict()
    ev.add("initiative", say="flow.initiative", actor=c.id, rolls=(r,), data={"total": r.total})


def round_order(enc: Encounter) -> list[str]:
    """This round's order: seizers first (PCs before NPCs), then everyone by initiative."""
    base = initiative_order(enc)
    seizers = [cid for cid in base if enc.combatants[cid].seized]
    seizers.sort(key=lambda cid: (0 if enc.combatants[cid].is_pc else 1, enc.combatants[cid].tie))
    seized_order = enc.settings.get("_seize_order") or []
    seizers.sort(key=lambda cid: seized_order.index(cid) if cid in seized_order else 999)
    seizers.sort(key=lambda cid: 0 if enc.combatants[cid].is_pc else 1)
    order = seizers + [cid for cid in base if cid not in seizers]
    return get_ruleset(enc.ruleset).arrange(enc, order)


def reorder(enc: Encounter) -> None:
    """The order after the GM changes who goes before whom: in set-up the initiative order;
    later rounds use the new order, and a running round keeps who has already gone."""
    enc.order = initiative_order(enc) if enc.phase == SETUP else round_order(enc)


def expires_now(enc: Encounter, e: Effect, when: str, of: str | None) -> bool:
    """Does this effect end at this moment? A condition set for a number of rounds ends
    with the last of them."""
    if e.expires == "rounds":
        return when == "round_end" and enc.round >= int(e.detail.get("last_round", 0))
    return e.expires == when and (when == "round_end" or e.until_of == of)


def expire_effects(enc: Encounter, when: str, of: str | None, ev: Events) -> None:
    for c in enc.combatants.values():
        keep = []
        for e in c.effects:
            if expires_now(enc, e, when, of):
                ev.add("effect_ends", say="flow.effect_ends", actor=c.id, data={"effect": e.name})
            else:
                keep.append(e)
        c.effects = keep


def start_round(enc: Encounter, rs: Ruleset, ev: Events, *, by_itself: bool = False) -> None:
    enc.phase = COMBAT
    enc.round += 1
    enc.pass_no = 1
    enc.acted = []
    enc.order = round_order(enc)
    ev.add("round", say="flow.round", data={"round": enc.round})
    if by_itself:
        ev.add("round", say="flow.round_by_itself")
    rs.on_round_start(enc, ev)
    advance(enc, rs, ev)


def begin_turn(enc: Encounter, rs: Ruleset, c: Combatant, ev: Events) -> None:
    enc.turn = c.id
    snap, start = turn_start.before(enc, rs, c), len(ev.items)
    expire_effects(enc, "turn_start", c.id, ev)
    rs.on_turn_start(enc, c, ev)
    enc.turn_start_undo = turn_start.record(enc, c, snap, ev.items[start:])
    passes = {"pass": enc.pass_no} if rs.uses_passes else {}
    ev.add("turn", say="flow.turn", actor=c.id, data={"round": enc.round, **passes})
    plans.take(enc, rs, c, ev)


def finish_turn(enc: Encounter, rs: Ruleset, ev: Events) -> None:
    """End the current turn and hand it on."""
    if enc.turn is None:
        raise refuse("no_turn", "Nobody is taking a turn right now.")
    c = enc.combatants.get(enc.turn)
    if c is not None:
        rs.on_turn_end(enc, c, ev)
        expire_effects(enc, "turn_end", c.id, ev)
        if c.id not in enc.acted:
            enc.acted.append(c.id)
    enc.turn = None
    enc.turn_start_undo = None
    advance(enc, rs, ev)


def place_passed(enc: Encounter, cid: str) -> bool:
    """Has the running turn already gone past this combatant's place in the order?

    A combatant who joins (or is revived) after its place waits for the next round
    (or, in Initiative Passes, the next pass) instead of jumping the queue.
    """
    if enc.phase != COMBAT or enc.turn not in enc.order or cid not in enc.order:
        return False
    return enc.order.index(cid) < enc.order.index(enc.turn)


def revive(enc: Encounter, c: Combatant, ev: Events, say: str, *, ruling: bool = False) -> None:
    """A defeated combatant stands again. If its place in this round (or pass) is still
    to come it acts there; if the running turn has gone past it, it waits for the next.
    `say` is the sentence that tells how ("flow.revived", "flow.back_on_feet")."""
    c.defeated = False
    if c.hp == 0 and c.max_hp:
        c.hp = 1
    if place_passed(enc, c.id) and c.id not in enc.acted:
        enc.acted.append(c.id)
    ev.add("revived", say=say, actor=c.id, ruling=ruling)


def stand_if_healed(enc: Encounter, c: Combatant, ev: Events, *, ruling: bool = False) -> None:
    """Healing a defeated combatant above 0 HP brings it back in every ruleset."""
    if c.defeated and c.hp is not None and c.hp > 0:
        revive(enc, c, ev, "flow.back_on_feet", ruling=ruling)


def heal(enc: Encounter, c: Combatant, amount: int) -> int | None:
    """Give back `amount` HP, never above the maximum; the HP before (None if untracked).

    Call `stand_if_healed` after logging the healing."""
    before = c.hp
    if c.hp is not None:
        top = c.max_hp if c.max_hp is not None else c.hp + amount
        c.hp = min(top, c.hp + amount)
    return before


def next_up(enc: Encounter, rs: Ruleset) -> str | None:
    while enc.interject:
        cid = enc.interject[0]
        if cid in enc.combatants and not enc.combatants[cid].defeated:
            return cid
        enc.interject.pop(0)
    for cid in enc.order:
        c = enc.combatants.get(cid)
        if c is not None and cid not in enc.acted and rs.eligible(enc, c):
            return cid
    return None


def advance(enc: Encounter, rs: Ruleset, ev: Events) -> None:
    """Start the next due turn; when nobody is due, the next pass or the next round."""
    for _ in range(3):
        cid = next_up(enc, rs)
        if cid is not None:
            if enc.interject and enc.interject[0] == cid:
                enc.interject.pop(0)
            begin_turn(enc, rs, enc.combatants[cid], ev)
            return
        if rs.another_pass(enc, ev):
            enc.pass_no += 1
            enc.acted = []
            ev.add("pass", say="flow.pass", data={"pass": enc.pass_no, "round": enc.round})
            continue
        break
    end_round(enc, rs, ev)


def end_round(enc: Encounter, rs: Ruleset, ev: Events) -> None:
    expire_effects(enc, "round_end", None, ev)
    ev.add("round_end", say="flow.round_end", data={"round": enc.round})
    enc.turn = None
    for c in enc.combatants.values():
        c.seized = False
    enc.settings.pop("_seize_order", None)
    if not any(not c.defeated for c in enc.combatants.values()):
        enc.phase = COMBAT
        ev.add("round", say="flow.nobody_standing")
        return
    if rs.has_seize and any(
        c.res.get("grit", 0) > 0 and not c.defeated for c in enc.combatants.values()
    ):
        enc.phase = SEIZE
        enc.order = round_order(enc)  # the coming round, as it stands before any Seize
        ev.add("seize_window", say="flow.seize_window", data={"round": enc.round + 1})
        return
    # Nothing waits for the GM between rounds: the next one begins by itself (and, where
    # Seize the Moment exists, the log says why nobody was asked).
    start_round(enc, rs, ev, by_itself=rs.has_seize)
