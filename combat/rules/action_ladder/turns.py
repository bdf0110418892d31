"""The turn by the Action Ladder: action-ladder.md "Action Economy" (the turn's effort and
Bonus Actions refilled at its start), "Skip / Prepare in Detail", and the carry-over of an
action longer than the effort left (RULINGS ladder 2 and 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Ruleset
from ..catalogue import ActionDef
from ..events import Events
from ..refusal import Refused, refuse
from ..state import Combatant, Encounter
from .common import Opts, Rng, find_effect, order_places, rng_of
from .ladder import effort_label, left_label

if TYPE_CHECKING:
    from .ruleset import ActionLadder


def end_plan(c: Combatant, ev: Events, kind: str, said: str) -> None:
    """A Skip / Prepare plan ends (sprung or abandoned): the log says so and it is gone."""
    ev.add(kind, said, actor=c.id)
    c.prepared = None


def check_skip(enc: Encounter, c: Combatant, target: Combatant | None, opts: Opts) -> None:
    if c.carry:
        raise refuse(
            "already_carrying",
            f"{c.name} is still paying for {c.carry['name']}: abandon it before skipping the turn.",
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
        end_plan(c, ev, "prepared", f"{c.name} acts on the prepared action: {c.prepared['text']}.")
        return
    Ruleset.on_turn_start(self, enc, c, ev)
    c.res["effort_max"] = int(self.setting(enc, "turn_effort", c))
    c.res["bonus_max"] = int(self.setting(enc, "bonus_actions", c))
    c.res["effort"] = c.res["effort_max"]
    c.res["bonus"] = c.res["bonus_max"]
    if c.prepared:
        c.prepared["may_abandon"] = True
        said = (
            f"{c.name} is still waiting ({c.prepared['text']}): a full "
            "round has passed, so it may abandon the plan and act, or end the turn "
            "and keep waiting."
        )
        ev.add("prepared", said, actor=c.id)
    grappling = find_effect(c, "Grappling")
    if grappling is not None:
        held = enc.combatants.get(str(grappling.detail.get("target")))
        if held is None or held.defeated:
            self.release(enc, c, ev, "there is nobody left to hold")
        else:
            c.turn["sustain_due"] = held.id
            said = (
                f"{c.name} must sustain the grapple on {held.name} now "
                "(Grapple, 2 Bonus Actions) or let go."
            )
            ev.add("grapple", said, actor=c.id, involved=(held.id,))
    if c.carry:
        self.pay_carry(enc, c, ev)


def on_turn_end(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    left = c.res.get("effort", 0)
    c.res["effort"] = 0
    if left:
        said = (
            f"{c.name}'s unspent {left_label(left)} "
            f"{'is' if left < 3 else 'are'} lost; Bonus Actions stay for Reactions."
        )
        ev.add("effort_lost", said, actor=c.id)
    # RULINGS ladder 6: the lost FCS bonuses reset at the end of the turn too.
    c.turn["attack_rolls"] = 0
    if c.turn.pop("disengage", None):
        ev.add("disengage", f"{c.name}'s Disengage goes unused.", actor=c.id)
    if c.turn.pop("sustain_due", None):
        self.release(enc, c, ev, "the grapple was not sustained")


def pay_carry(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    carry = c.carry
    assert carry is not None
    paid = min(carry["remaining"], c.res.get("effort", 0))
    carry["remaining"] -= paid
    c.res["effort"] -= paid
    if carry["remaining"] > 0:
        said = (
            f"{c.name} keeps at {carry['name']}: pays {left_label(paid)}, "
            f"{effort_label(carry['remaining'])} still to pay."
        )
        ev.add("carry", said, actor=c.id)
        return
    c.carry = None
    said = (
        f"{c.name} finishes paying for {carry['name']} ({left_label(paid)} "
        "this turn) and it resolves."
    )
    ev.add("carry", said, actor=c.id)
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
        ev.add("fizzle", f"{carry['name']} comes to nothing: {r.refusal.message}", actor=c.id)
    c.turn.pop("disengage_active", None)


def abandon(self: ActionLadder, enc: Encounter, c: Combatant, ev: Events) -> None:
    if c.carry:
        said = (
            f"{c.name} abandons {c.carry['name']}; the "
            f"{effort_label(c.carry['total'] - c.carry['remaining'])} already spent "
            "is lost."
        )
        ev.add("abandon", said, actor=c.id)
        c.carry = None
        return
    if c.prepared and not c.prepared.get("sprung"):
        if enc.turn != c.id or not c.prepared.get("may_abandon"):
            raise refuse(
                "prepare_too_soon",
                f"Skip/Prepare can be abandoned only after a full round without its "
                f"trigger: {c.name} prepared in round {c.prepared['round']} and may "
                f"abandon it on its own turn in round {c.prepared['round'] + 1} or later.",
            )
        said = f"{c.name} abandons the prepared plan ({c.prepared['text']}) and acts normally."
        end_plan(c, ev, "abandon", said)
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
        )
    if c.defeated:
        raise refuse("defeated", f"{c.name} is defeated and cannot act.")
    if enc.turn == c.id:
        said = f"{c.name}'s trigger happens ({c.prepared['text']}): it acts now."
        ev.add("prepared", said, actor=c.id)
        c.prepared = None
        return
    trigger = enc.combatants[enc.turn]
    c.prepared["sprung"] = True
    enc.interject.append(c.id)
    places = order_places(enc)
    places.pop(c.id, None)
    places[c.id] = trigger.id
    enc.order = self.arrange(enc, enc.order)
    said = (
        f"{c.name}'s trigger happens ({c.prepared['text']}): {c.name} "
        f"acts right after {trigger.name}'s turn and takes that place in the order "
        "from next round."
    )
    ev.add("prepared", said, actor=c.id, involved=(trigger.id,))


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
    ev.add("skip", f"{c.name} Skips the turn and prepares: {opts['text']}.", actor=c.id)
