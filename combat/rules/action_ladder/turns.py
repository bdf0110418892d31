"""The turn by the Action Ladder: action-ladder.md "Action Economy" (the turn's effort and
Bonus Actions refilled at its start), "Skip / Prepare in Detail", and the carry-over of an
action longer than the effort left (RULINGS ladder 2 and 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Opts, Rng, Ruleset
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import Refused, refuse, said
from ..state import Combatant, Encounter
from .common import find_effect, order_places, rng_of

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def end_plan(c: Combatant, ev: Events, kind: str, say: str) -> None:
    """A Skip / Prepare plan ends (sprung or abandoned): the log says so and it is gone."""
    assert c.prepared is not None
    ev.add(kind, say=say, actor=c.id, data={"plan": c.prepared["text"]})
    c.prepared = None


def check_skip(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if c.carry:
        raise refuse(
            "already_carrying",
            f"{c.name} is still paying for {c.carry['name']}: abandon it before skipping the turn.",
            who=c.id,
            what="skip",
            carrying=c.carry["action"],
            rule="Action Types",
        )


def arrange(self: ActionLadder, enc: Encounter, order: list[str]) -> list[str]:
    """A sprung Skip/Prepare keeps the place it took, right after its trigger's turn,
    whenever the order is built: a new round, a latecomer, a reorder (RULINGS ladder 7).
    Several sprung by one trigger follow it in the order they acted."""
    order = list(order)
    last: dict[str, str] = {}
    for cid, after in order_places(enc).items():
        if cid in order and after in order and cid != after:
            order.remove(cid)
            anchor = last.get(after, after)
            order.insert(order.index(anchor if anchor in order else after) + 1, cid)
            last[after] = cid
    return order


def on_turn_start(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    if c.prepared and c.prepared.get("sprung"):
        # The rest of the turn that was skipped: same effort, no refill, no carry.
        c.turn = {"actions": 1}
        c.res["effort"] = min(int(c.prepared.get("effort", 0)), c.res.get("effort_max", 0))
        end_plan(c, ev, "prepared", "ladder.acts_on_plan")
        return
    Ruleset.on_turn_start(self, enc, c, ev)
    c.res["effort_max"] = int(self.setting(enc, "turn_effort", c))
    c.res["bonus_max"] = int(self.setting(enc, "bonus_actions", c))
    c.res["effort"] = c.res["effort_max"]
    c.res["bonus"] = c.res["bonus_max"]
    if c.prepared:
        c.prepared["may_abandon"] = True
        ev.add(
            "prepared", say="ladder.still_waiting", actor=c.id, data={"plan": c.prepared["text"]}
        )
    grappling = find_effect(c, "Grappling")
    if grappling is not None:
        held = enc.combatants.get(str(grappling.detail.get("target")))
        if held is None or held.defeated:
            self.release(enc, c, ev, "nobody_left")
        else:
            c.turn["sustain_due"] = held.id
            ev.add("grapple", say="ladder.sustain_due", actor=c.id, data={"held": held.id})
    if c.carry:
        self.pay_carry(enc, c, ev)


def on_turn_end(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    left = c.res.get("effort", 0)
    c.res["effort"] = 0
    if left:
        ev.add("effort_lost", say="ladder.effort_lost", actor=c.id, data={"left": left})
    # RULINGS ladder 6: the lost FCS bonuses reset at the end of the turn too.
    c.turn["attack_rolls"] = 0
    if c.turn.pop("disengage", None):
        ev.add("disengage", say="ladder.disengage_unused", actor=c.id)
    if c.turn.pop("sustain_due", None):
        self.release(enc, c, ev, "not_sustained")


def pay_carry(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    carry = c.carry
    assert carry is not None
    paid = min(carry["remaining"], c.res.get("effort", 0))
    carry["remaining"] -= paid
    c.res["effort"] -= paid
    data = {"name": carry["name"], "paid": paid, "remaining": carry["remaining"]}
    ev.add("carry", say="ladder.carry", actor=c.id, data=data)
    if carry["remaining"] > 0:
        return
    c.carry = None
    opts = dict(carry["opts"])
    try:
        a = self.action(enc, carry["action"], c)
        self.check_rules(enc, c, a, opts)
        self.check_stats(enc, c, a, opts)
        opts["_carried"] = True
        if carry.get("disengaged"):
            c.turn["disengage_active"] = True
        self.dispatch(enc, c, a, opts, rng_of(ev), ev)
    except Refused as r:
        data = {"name": carry["name"], "reason": r.refusal.message}
        ev.add("fizzle", say="ladder.carried_comes_to_nothing", actor=c.id, data=data)
    c.turn.pop("disengage_active", None)


def abandon(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    if c.carry:
        spent = c.carry["total"] - c.carry["remaining"]
        data = {"name": c.carry["name"], "spent": spent}
        ev.add("abandon", say="ladder.abandon_carry", actor=c.id, data=data)
        c.carry = None
        return
    if c.prepared and not c.prepared.get("sprung"):
        if enc.turn != c.id or not c.prepared.get("may_abandon"):
            raise refuse(
                "prepare_too_soon",
                f"Skip/Prepare can be abandoned only after a full round without its "
                f"trigger: {c.name} prepared in round {c.prepared['round']} and may "
                f"abandon it on its own turn in round {c.prepared['round'] + 1} or later.",
                who=c.id,
                prepared_in=c.prepared["round"],
                from_round=c.prepared["round"] + 1,
                rule="Skip/Prepare",
            )
        end_plan(c, ev, "abandon", "ladder.abandon_plan")
        return
    Ruleset.abandon(self, enc, c, ev)


def spring(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    if not c.prepared or c.prepared.get("sprung"):
        Ruleset.spring(self, enc, c, ev)
    assert c.prepared is not None
    if enc.phase != "combat" or enc.turn is None:
        raise refuse(
            "no_turn",
            "A prepared action springs during someone's turn; nobody is taking a turn right now.",
            who=c.id,
        )
    if c.defeated:
        raise said("defeated", c)
    if enc.turn == c.id:
        data = {"plan": c.prepared["text"]}
        ev.add("prepared", say="ladder.trigger_now", actor=c.id, data=data)
        c.prepared = None
        return
    trigger = enc.combatants[enc.turn]
    c.prepared["sprung"] = True
    enc.interject.append(c.id)
    places = order_places(enc)
    places.pop(c.id, None)
    places[c.id] = trigger.id
    enc.order = self.arrange(enc, enc.order)
    data = {"plan": c.prepared["text"], "after": trigger.id}
    ev.add("prepared", say="ladder.trigger_after", actor=c.id, data=data)


def do_skip(
    self: ActionLadder, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
) -> None:
    c.prepared = {
        "action": "skip",
        "name": str(opts["text"]),
        "text": str(opts["text"]),
        "round": enc.round,
        "effort": c.res.get("effort", 0),
        "sprung": False,
    }
    ev.add("skip", say="ladder.skip", actor=c.id, data={"plan": str(opts["text"])})
