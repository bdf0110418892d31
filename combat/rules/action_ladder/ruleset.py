"""The Action Ladder ruleset (action-ladder.md, with RULINGS.md "Action Ladder").

Effort is counted in half-steps (RULINGS ladder 1): a ½ Action is 1, a 1 Action 2,
a 1½ Action 3 and a Full Action 4; a turn holds 2. Bonus Actions are a separate pool
(2 by default) refilled at the start of the combatant's own turn; what is unspent stays
for Reactions until then. An action longer than the effort left is started and its
remainder is paid first from the next turn(s); it resolves (rolls) when fully paid.
Free actions are free the first time each kind is used in a turn and cost a Bonus
Action after that. Any action can be Slowed, and Quickened with a GM-granted source,
following the printed table (which the GM can edit).

Stats (RULINGS ladder 8) live in ``c.stats`` as a dice expression and a bonus:
``AGI``, ``STR``, ``FCS``, ``RES`` (any letter case), skills such as ``athletics``,
``acrobatics``, ``deception``, ``stealth``, ``perception``, ``first_aid`` (a skill's
level is its bonus), and the attack triple ``attack`` (the weapon roll, without FCS),
``damage`` and ``defend`` (or ``defend_melee`` / ``defend_ranged``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .. import dice, flow
from ..base import (
    Ruleset,
    add_effect,
    apply_damage,
    engage,
    int_option,
    need_stat,
    separate,
)
from ..catalogue import REACTION, ActionDef, Setting
from ..events import Events
from ..refusal import Refused, refuse
from ..state import Combatant, Effect, Encounter, Window
from ..turns import Declared, free_key
from .catalogue import ACTIONS, ATTACK_NEEDS, PACE
from .ladder import (
    DEFENCE_REACTIONS,
    EFFORT_STEP,
    PACE_TABLE,
    STEP_COST,
    STEP_LABEL,
    STEPS,
    bonus_label,
    cost_text,
    effort_label,
    left_label,
)

# --- small helpers --------------------------------------------------------------------


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


def roll_of(c: Combatant, name: str, extra: int, rng: random.Random, why: str) -> dice.Roll:
    s = need(c, name, why)
    return dice.roll(dice.add_modifier(str(s["dice"]), int(s.get("bonus") or 0) + extra), rng)


def die_size(c: Combatant, name: str, why: str) -> int:
    parsed = dice.parse(str(need(c, name, why)["dice"]))
    return max((d.sides for d in parsed.dice), default=0)


def defend_stat(c: Combatant, ranged: bool) -> str:
    special = "defend_ranged" if ranged else "defend_melee"
    return special if stat_key(c, special) else "defend"


def climb_stows(c: Combatant, a: ActionDef, opts: dict[str, Any]) -> bool:
    """Beginning a Climb stows what the hands hold: that is the turn's Draw/Stow."""
    return a.key == "climb" and not has_effect(c, "Climbing") and not opts.get("hands_empty")


def order_places(enc: Encounter) -> dict[str, str]:
    """The places sprung Skip/Prepare combatants took: combatant → the one it follows."""
    return enc.order_after


def rng_of(ev: Events) -> random.Random:
    """The command's die, for hooks that have no rng parameter (turn start, decline)."""
    rng: random.Random | None = getattr(ev, "rng", None)
    if rng is None:
        raise RuntimeError("action_ladder: the engine did not hand the command's rng to Events")
    return rng


# --- the ruleset ----------------------------------------------------------------------


# --- what the rules forbid, action by action (ActionLadder.check_rules) ---------------------
#
# Each check takes the encounter, the acting combatant, the target (None without one) and
# the declared options, and raises the refusal that names the rule.

Check = Callable[[Encounter, Combatant, Combatant | None, dict[str, Any]], None]


def is_spell(a: ActionDef) -> bool:
    """Casting a spell: the Ability or Spell action, or a GM-made action marked a spell."""
    return a.key == "ability" or a.spell


def check_movement_mode(c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
    """Crawling and swimming leave only their own Movement Action (and a Step out)."""
    if has_effect(c, "Crawling") and a.key != "crawl":
        raise refuse(
            "crawling",
            f"While crawling {c.name} takes no other Movement "
            f"Action than Crawl until it stands up (not {a.name}).",
        )
    if (
        has_effect(c, "Swimming")
        and a.key != "swim"
        and not (a.key == "step" and opts.get("get_out"))
    ):
        raise refuse(
            "swimming",
            f"While swimming {c.name} takes no other Movement "
            f"Action than Swim, until a Step gets it up or out (not {a.name}).",
        )


def check_crawl(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if not has_effect(c, "Prone"):
        raise refuse("not_prone", f"{c.name} must be prone to crawl.")


def check_stand_up(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if not has_effect(c, "Prone"):
        raise refuse("not_prone", f"{c.name} is not prone.")
    if opts.get("occupied"):
        raise refuse(
            "space_occupied",
            f"{c.name} cannot stand up while someone "
            "occupies its space, until they move or fall prone.",
        )


def check_fall_prone(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if has_effect(c, "Prone"):
        raise refuse("already_prone", f"{c.name} is already prone.")
    if has_effect(c, "Swimming"):
        raise refuse(
            "deep_water",
            f"{c.name} is swimming: nobody falls prone in water waist-deep or deeper "
            "(Standing Up and Going Prone).",
        )


def check_jump(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    """A running start is run before the jump: it cannot exceed the metres moved so far
    this turn (Jumping: 'grows by 1 meter for each meter of running start')."""
    check_run_up(c, opts, float(c.turn.get("moved", 0)))


def check_run_up(c: Combatant, opts: dict[str, Any], ran: float) -> None:
    run_up = int(opts.get("run_up") or 0)
    running = (opts.get("kind") or opts.get("jump")) == "running"
    if running and run_up > ran:
        raise refuse(
            "run_up_too_long",
            f"A running jump's running start is the ground covered before it (Jumping): "
            f"{c.name} has moved {metres(ran)} this turn, not {run_up} m.",
        )


def check_grapple(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    due = c.turn.get("sustain_due")
    if due:
        if target is not None and target.id != due:
            raise refuse(
                "grappling",
                f"{c.name} is grappling {enc.public_name(due)}: "
                "sustain that grapple or let it go first.",
            )
    elif has_effect(c, "Grappling"):
        raise refuse("grappling", f"{c.name} already holds a grapple this turn.")
    elif target is None:
        raise refuse("missing_option", "Grapple needs a target.")


def check_break_free(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if not has_effect(c, "Grappled"):
        raise refuse("not_grappled", f"{c.name} is not grappled.")


def check_interrupt(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if target is not None and target.id not in c.engaged:
        raise refuse(
            "not_adjacent",
            f"Interrupt needs an adjacent enemy: {target.name} is not in melee with {c.name}.",
        )


def check_aid(enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]) -> None:
    if target is None:
        return
    cond = str(opts.get("condition"))
    if not has_effect(target, cond):
        raise refuse(
            "no_condition",
            f"{target.name} is not {cond.capitalize()}: Aid "
            "lifts Incapacitated, Burning or Bleeding.",
        )


def check_skip(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    if c.carry:
        raise refuse(
            "already_carrying",
            f"{c.name} is still paying for {c.carry['name']}: abandon it before skipping the turn.",
        )


def check_throw(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    s = bonus_of(c, "STR", "Throw range")
    reach = s - int(opts.get("weight") or 0) + int(opts.get("thrown") or 0)
    if int(opts.get("distance") or 0) > reach:
        raise refuse(
            "out_of_range",
            f"Out of range: {c.name} throws up to STR bonus {s} − weight "
            f"{opts.get('weight') or 0} + Thrown {opts.get('thrown') or 0} = "
            f"{max(reach, 0)} m; {opts.get('distance') or 0} m was asked.",
        )


def check_toss(
    enc: Encounter, c: Combatant, target: Combatant | None, opts: dict[str, Any]
) -> None:
    s = bonus_of(c, "STR", "Toss")
    weight, far = int(opts.get("weight") or 0), int(opts.get("distance") or 0)
    if 2 * weight > s:
        raise refuse(
            "too_heavy",
            f"Too heavy to toss: at most half the STR bonus "
            f"({s} / 2 = {s / 2:g}); the item weighs {weight}.",
        )
    if far > s:
        raise refuse(
            "too_far", f"Too far to toss: at most the STR bonus, {s} m; {far} m was asked."
        )


ACTION_CHECKS: dict[str, Check] = {
    "crawl": check_crawl,
    "stand_up": check_stand_up,
    "fall_prone": check_fall_prone,
    "jump": check_jump,
    "grapple": check_grapple,
    "break_free": check_break_free,
    "interrupt": check_interrupt,
    "aid": check_aid,
    "skip": check_skip,
    "throw": check_throw,
    "toss": check_toss,
}


class ActionLadder(Ruleset):
    key = "action_ladder"
    other_stats = (
        ("defend", "defence against attacks"),
        ("defend_melee", "melee defence (instead of defend)"),
        ("defend_ranged", "ranged defence (instead of defend)"),
        ("first_aid", "First Aid level (Administer, Aid)"),
        ("athletics", "Athletics level (jumps, Grapple)"),
        ("acrobatics", "Acrobatics level (jumps, escaping a Grapple)"),
    )
    name = "Action Ladder"
    currency = "½-Action steps"
    actions = ACTIONS
    # Attacked or thrown at by someone unseen, the defender still Dodges, Parries, Blocks
    # or Catches; a hidden mover's Opportunity Attack is the GM's (one cannot see it go).
    unseen_windows = frozenset({"defend", "catch"})
    settings = (
        Setting(
            "turn_effort",
            "Effort per turn (in ½ Actions)",
            2,
            min=1,
            max=12,
            help="A turn holds two ½ Actions' worth of effort.",
        ),
        Setting(
            "extended_turns",
            "Extended Action: whole turns",
            2,
            min=1,
            max=20,
            help="What an Extended Action takes unless the GM declares another number with it.",
        ),
        Setting(
            "bonus_actions",
            "Bonus Actions",
            2,
            min=0,
            max=10,
            per_combatant=True,
            help="Refilled at the start of the combatant's own turn; unspent ones stay "
            "for Reactions until then.",
        ),
        Setting(
            "speed",
            "Speed (m)",
            6,
            min=0,
            max=100,
            per_combatant=True,
            help="Base Speed by race, less armour; Walk is a third, Run the whole.",
        ),
        Setting(
            "height_cm",
            "Height (cm)",
            170,
            min=10,
            max=1000,
            per_combatant=True,
            help="Added to the jump height when a jump grabs an overhead ledge.",
        ),
        Setting(
            "shield",
            "Carries a shield",
            False,
            kind="bool",
            per_combatant=True,
            help="Block needs a shield.",
        ),
        Setting("block_rating", "Block Rating", 0, min=0, max=50, per_combatant=True),
        Setting("parry_rating", "Parry Rating", 0, min=0, max=50, per_combatant=True),
        Setting(
            "defence_prompts",
            "Ask the defender to Dodge, Parry or Block",
            True,
            kind="bool",
            per_combatant=True,
            help="Off: attacks on this combatant resolve at once against its plain "
            "defence, and thrown or tossed items are not caught.",
        ),
    )

    # --- resources ----------------------------------------------------------------------
    def init_combatant(self, enc: Encounter, c: Combatant) -> None:
        c.res["effort_max"] = int(self.setting(enc, "turn_effort", c))
        c.res["effort"] = min(c.res.get("effort", 0), c.res["effort_max"])
        c.res["bonus_max"] = int(self.setting(enc, "bonus_actions", c))
        c.res.setdefault("bonus", c.res["bonus_max"])
        c.res["bonus"] = min(c.res["bonus"], c.res["bonus_max"])

    def refresh_limits(self, enc: Encounter, c: Combatant) -> None:
        self.init_combatant(enc, c)

    def resources(self, enc: Encounter, c: Combatant) -> list[dict[str, Any]]:
        e, em = c.res.get("effort", 0), c.res.get("effort_max", 0)
        b, bm = c.res.get("bonus", 0), c.res.get("bonus_max", 0)
        out: list[dict[str, Any]] = [
            {
                "key": "effort",
                "label": "Actions",
                "value": e,
                "max": em,
                "kind": "pips",
                "text": f"{e} of {em} ½ Actions left",
            },
            {
                "key": "bonus",
                "label": "Bonus Actions",
                "value": b,
                "max": bm,
                "kind": "pips",
                "text": f"Bonus Actions {b} of {bm}",
            },
        ]
        if c.carry:
            done = c.carry["total"] - c.carry["remaining"]
            out.append(
                {
                    "key": "carry",
                    "label": "Under way",
                    "value": done,
                    "max": c.carry["total"],
                    "kind": "progress",
                    "text": f"{c.carry['name']} under way: {done} of {c.carry['total']} ½ Actions "
                    f"paid, {effort_label(c.carry['remaining'])} to pay next turn",
                }
            )
        if c.prepared:
            out.append(
                {
                    "key": "prepared",
                    "label": "Prepared",
                    "value": 1,
                    "max": 1,
                    "kind": "toggle",
                    "text": f"Prepared since round {c.prepared['round']}: {c.prepared['text']}",
                }
            )
        return out

    def adjust(self, enc: Encounter, c: Combatant, key: str, value: Any) -> bool:
        """The GM changes the whole turns of an Extended Action under way (RULINGS ladder 2)."""
        if key != "turns" or not c.carry or c.carry["action"] != "extended":
            return False
        per_turn = int(self.setting(enc, "turn_effort", c))
        paid = c.carry["total"] - c.carry["remaining"]
        turns = int_option({"v": value}, "v", "Whole turns", 1, 20)
        if turns * per_turn < paid:
            raise refuse(
                "bad_option",
                f"{c.name} has already paid {-(-paid // per_turn)} whole turn(s) of "
                f"{c.carry['name']}: it cannot take fewer.",
            )
        c.carry["total"] = turns * per_turn
        c.carry["remaining"] = turns * per_turn - paid
        return True

    reaction_not_in_currency = (
        "In the Action Ladder a reaction is paid with Bonus Actions (action-ladder.md, "
        "Reactions): give it a cost in Bonus Actions, not in Actions."
    )

    def modifiers(self) -> dict[str, Setting]:
        mods = {s.key: s for s in self.settings if s.per_combatant}
        mods["quicken"] = Setting(
            "quicken",
            "Can Quicken actions",
            False,
            kind="bool",
            per_combatant=True,
            help="A quicken source granted by the GM.",
        )
        return mods

    # --- catalogue and prices ------------------------------------------------------------
    def catalogue(self, enc: Encounter | None = None) -> dict[str, ActionDef]:
        cat = super().catalogue(enc)
        for key, a in cat.items():
            if a.custom and a.timing != REACTION and PACE not in a.options:
                cat[key] = replace(a, options=(*a.options, PACE))
        return cat

    def pace_table(self, enc: Encounter | None) -> dict[str, dict[str, str]]:
        table = {k: dict(v) for k, v in PACE_TABLE.items()}
        if enc is not None:
            for step, row in (enc.settings.get("pace_table") or {}).items():
                table.setdefault(step, {}).update(row)
        return table

    def base_cost(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> tuple[int, int]:
        """(effort, Bonus Actions) at standard pace for this use of the action."""
        if a.free_kind and a.cost == 0 and a.bonus == 0:
            return (0, 1) if c.turn.get(free_key(a.free_kind), 0) else (0, 0)
        if a.key == "grapple" and (opts.get("with_bonus") or c.turn.get("sustain_due")):
            return tuple(a.extra["alt"])
        if climb_stows(c, a, opts) and c.turn.get("free_draw_stow", 0):
            return a.cost, a.bonus + 1  # the free Draw/Stow is used: this stow costs one
        if a.key == "ability":
            return STEP_COST[str(opts.get("length") or "one")]
        if a.key == "extended":
            turns = opts.get("turns") or self.setting(enc, "extended_turns", c)
            return int(turns) * int(self.setting(enc, "turn_effort", c)), 0
        return a.cost, a.bonus

    def cost(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> tuple[int, int]:
        """(effort, Bonus Actions) after Slowing or Quickening (RULINGS ladder 5)."""
        effort, bonus = self.base_cost(enc, c, a, opts)
        pace = opts.get("pace") or "standard"
        if pace == "standard":
            return effort, bonus
        if effort:
            step, rest = EFFORT_STEP.get(effort), bonus
        elif bonus:
            step, rest = "bonus", bonus - 1  # one Bonus Action is the step that moves
        else:
            step, rest = None, 0
        row = self.pace_table(enc).get(step or "", {})
        if a.extra.get("label") or step is None or pace not in row:
            what = a.extra.get("label") or cost_text(effort, bonus)
            raise refuse(
                "no_pace_row",
                f"{a.name} cannot be {pace}: a {what} is not on the Slow and Quicken table "
                "(Bonus Action to Full Action).",
            )
        new_effort, new_bonus = STEP_COST[row[pace]]
        return new_effort, new_bonus + rest

    def price(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> int:
        try:
            return self.cost(enc, c, a, opts)[0]
        except Refused:
            return a.cost

    def cost_label(self, a: ActionDef) -> str:
        if a.extra.get("label"):
            return str(a.extra["label"])
        if a.free_kind and a.cost == 0 and a.bonus == 0:
            return "Free Action (then Bonus Action)"
        if a.key == "grapple":
            return f"{effort_label(a.cost)} or {bonus_label(a.extra['alt'][1])}"
        if a.key == "ability":
            return "Bonus Action to Full Action"
        return cost_text(a.cost, a.bonus)

    def spent_text(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> str:
        if opts.get("_carried"):
            return " (carried over, now fully paid)"
        paid = opts.get("_paid")
        if not paid:
            return ""
        return f" ({cost_text(*paid)})"

    # --- flow ------------------------------------------------------------------------------
    def arrange(self, enc: Encounter, order: list[str]) -> list[str]:
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

    def on_turn_start(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        if c.prepared and c.prepared.get("sprung"):
            # The rest of the turn that was skipped: same effort, no refill, no carry.
            c.turn = {"actions": 1}
            c.res["effort"] = min(int(c.prepared.get("effort", 0)), c.res.get("effort_max", 0))
            ev.add(
                "prepared",
                f"{c.name} acts on the prepared action: {c.prepared['text']}.",
                actor=c.id,
            )
            c.prepared = None
            return
        super().on_turn_start(enc, c, ev)
        c.res["effort_max"] = int(self.setting(enc, "turn_effort", c))
        c.res["bonus_max"] = int(self.setting(enc, "bonus_actions", c))
        c.res["effort"] = c.res["effort_max"]
        c.res["bonus"] = c.res["bonus_max"]
        if c.prepared:
            c.prepared["may_abandon"] = True
            ev.add(
                "prepared",
                f"{c.name} is still waiting ({c.prepared['text']}): a full "
                "round has passed, so it may abandon the plan and act, or end the turn "
                "and keep waiting.",
                actor=c.id,
            )
        grappling = find_effect(c, "Grappling")
        if grappling is not None:
            held = enc.combatants.get(str(grappling.detail.get("target")))
            if held is None or held.defeated:
                self.release(enc, c, ev, "there is nobody left to hold")
            else:
                c.turn["sustain_due"] = held.id
                ev.add(
                    "grapple",
                    f"{c.name} must sustain the grapple on {held.name} now "
                    "(Grapple, 2 Bonus Actions) or let go.",
                    actor=c.id,
                    involved=(held.id,),
                )
        if c.carry:
            self.pay_carry(enc, c, ev)

    def on_turn_end(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        left = c.res.get("effort", 0)
        c.res["effort"] = 0
        if left:
            ev.add(
                "effort_lost",
                f"{c.name}'s unspent {left_label(left)} "
                f"{'is' if left < 3 else 'are'} lost; Bonus Actions stay for Reactions.",
                actor=c.id,
            )
        # RULINGS ladder 6: the lost FCS bonuses reset at the end of the turn too.
        c.turn["attack_rolls"] = 0
        if c.turn.pop("disengage", None):
            ev.add("disengage", f"{c.name}'s Disengage goes unused.", actor=c.id)
        if c.turn.pop("sustain_due", None):
            self.release(enc, c, ev, "the grapple was not sustained")

    # --- carry-over (RULINGS ladder 2) ----------------------------------------------------
    def pay_carry(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        carry = c.carry
        assert carry is not None
        paid = min(carry["remaining"], c.res.get("effort", 0))
        carry["remaining"] -= paid
        c.res["effort"] -= paid
        if carry["remaining"] > 0:
            ev.add(
                "carry",
                f"{c.name} keeps at {carry['name']}: pays {left_label(paid)}, "
                f"{effort_label(carry['remaining'])} still to pay.",
                actor=c.id,
            )
            return
        c.carry = None
        ev.add(
            "carry",
            f"{c.name} finishes paying for {carry['name']} ({left_label(paid)} "
            "this turn) and it resolves.",
            actor=c.id,
        )
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

    def abandon(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        if c.carry:
            ev.add(
                "abandon",
                f"{c.name} abandons {c.carry['name']}; the "
                f"{effort_label(c.carry['total'] - c.carry['remaining'])} already spent "
                "is lost.",
                actor=c.id,
            )
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
            ev.add(
                "abandon",
                f"{c.name} abandons the prepared plan ({c.prepared['text']}) and acts normally.",
                actor=c.id,
            )
            c.prepared = None
            return
        super().abandon(enc, c, ev)

    # --- Skip / Prepare (RULINGS ladder 7) -------------------------------------------------
    def spring(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        if not c.prepared or c.prepared.get("sprung"):
            super().spring(enc, c, ev)
        assert c.prepared is not None
        if enc.phase != "combat" or enc.turn is None:
            raise refuse(
                "no_turn",
                "A prepared action springs during someone's turn; "
                "nobody is taking a turn right now.",
            )
        if c.defeated:
            raise refuse("defeated", f"{c.name} is defeated and cannot act.")
        if enc.turn == c.id:
            ev.add(
                "prepared",
                f"{c.name}'s trigger happens ({c.prepared['text']}): it acts now.",
                actor=c.id,
            )
            c.prepared = None
            return
        trigger = enc.combatants[enc.turn]
        c.prepared["sprung"] = True
        enc.interject.append(c.id)
        places = order_places(enc)
        places.pop(c.id, None)
        places[c.id] = trigger.id
        enc.order = self.arrange(enc, enc.order)
        ev.add(
            "prepared",
            f"{c.name}'s trigger happens ({c.prepared['text']}): {c.name} "
            f"acts right after {trigger.name}'s turn and takes that place in the order "
            "from next round.",
            actor=c.id,
            involved=(trigger.id,),
        )

    # --- checks ----------------------------------------------------------------------------
    def interrupts_allowed(self, enc: Encounter, c: Combatant, a: ActionDef) -> bool:
        return a.reaction

    def check(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any], *, free: bool
    ) -> None:
        super().check(enc, c, a, opts, free=free)
        self.check_rules(enc, c, a, opts)

    def check_timing(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        super().check_timing(enc, c, a, opts)
        mine = [w for w in enc.pending if w.reactor == c.id and w.kind in ("defend", "catch")]
        if mine:
            by = enc.combatants.get(mine[0].trigger)
            # The defender's player is shown the prompt "from someone unseen" (view.py).
            attack = (
                f"{by.name}'s attack"
                if by is not None and not by.hidden
                else "the attack of someone unseen"
            )
            raise refuse(
                "answer_first",
                f"{c.name} must first answer {attack} "
                f"({'Catch' if mine[0].kind == 'catch' else 'Dodge, Parry or Block'}, or let "
                "it pass).",
            )
        if not self.off_turn(enc, c) and c.prepared and not c.prepared.get("sprung"):
            raise refuse(
                "prepared_waiting",
                f"{c.name} is waiting on Skip/Prepare ({c.prepared['text']}): abandon the plan "
                "to act normally (after a full round), or end the turn.",
            )

    def check_limits(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        super().check_limits(enc, c, a, opts)
        if a.limit == "first_action" and c.turn.get("actions", 0):
            raise refuse(
                "not_first_action",
                f"{a.name} must be the first action of the turn; {c.name} has already taken "
                f"{c.turn['actions']}.",
            )
        if (opts.get("pace") or "standard") == "quickened" and not c.mods.get("quicken"):
            raise refuse(
                "no_quicken",
                f"{c.name} has no way to Quicken {a.name}: only a combatant with a quicken "
                "source (a GM-granted modifier) can.",
            )
        self.cost(enc, c, a, opts)  # refuses no_pace_row

    def check_cost(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        effort, bonus = self.cost(enc, c, a, opts)
        label = cost_text(effort, bonus)
        have_b = c.res.get("bonus", 0)
        if bonus > have_b:
            raise refuse(
                "not_enough_bonus",
                f"Not enough Bonus Actions: {a.name} costs {label}, {c.name} has "
                f"{have_b} Bonus Action{'s' if have_b != 1 else ''} left.",
            )
        if not effort:
            return
        have = c.res.get("effort", 0)
        if have <= 0:
            raise refuse(
                "not_enough_effort",
                f"Not enough effort: {a.name} costs {label}, {c.name} has no Actions left "
                "this turn.",
            )
        if a.key == "extended" and (have < c.res.get("effort_max", 0) or c.carry):
            raise refuse(
                "whole_turn",
                f"An Extended Action takes whole turns: {c.name} has {left_label(have)} left "
                f"of {left_label(c.res.get('effort_max', 0))}; start it at the top of a turn.",
            )
        if effort > have and c.carry:
            raise refuse(
                "already_carrying",
                f"Not enough effort: {a.name} costs {label}, {c.name} has {left_label(have)} "
                f"left and is still paying for {c.carry['name']} (one action carries over at "
                "a time).",
            )

    def check_stats(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        for stat in a.extra.get("needs", ()):
            need(c, stat, a.name)
        target = enc.combatants.get(str(opts.get("target") or ""))
        if target is not None and target.id != c.id:
            for stat in a.extra.get("target_needs", ()):
                need(target, stat, f"resisting {c.name}'s {a.name}")
            if a.attack and a.key != "disarm":
                ranged = bool(opts.get("ranged")) or a.key == "throw"
                need(target, defend_stat(target, ranged), f"defending against {a.name}")
        if a.key == "aid" and opts.get("condition") == "bleeding":
            need(c, "first_aid", "Aid against Bleeding")
        if a.key == "administer" and (opts.get("mode") or "first_aid") == "first_aid":
            need(c, "first_aid", "First Aid")

    def check_rules(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        """What the rules text forbids, whoever pays (also for GM grants)."""
        tid = opts.get("target")
        target = enc.get(str(tid)) if tid else None
        if target is not None:
            if target.id == c.id and a.key not in ("administer", "ability") and not a.custom:
                raise refuse("bad_target", f"{c.name} cannot use {a.name} on itself.")
            if target.defeated and a.key not in ("aid", "administer"):
                raise refuse("bad_target", f"{target.name} is already defeated.")
        if a.extra.get("movement"):
            check_movement_mode(c, a, opts)
        check = ACTION_CHECKS.get(a.key)
        if check is not None:
            check(enc, c, target, opts)

    # --- paying ----------------------------------------------------------------------------
    def pay(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        effort, bonus = self.cost(enc, c, a, opts)
        c.res["bonus"] = c.res.get("bonus", 0) - bonus
        if climb_stows(c, a, opts):
            c.turn["free_draw_stow"] = c.turn.get("free_draw_stow", 0) + 1
        have = c.res.get("effort", 0)
        opts["_paid"] = [effort, bonus]
        if effort <= have:
            c.res["effort"] = have - effort
            return
        # Started now, finished later (RULINGS ladder 2).
        c.res["effort"] = 0
        c.carry = {
            "action": a.key,
            "name": a.name,
            "opts": {k: v for k, v in opts.items() if not k.startswith("_")},
            "total": effort,
            "remaining": effort - have,
            "round": enc.round,
            "disengaged": bool(a.extra.get("movement") and c.turn.get("disengage")),
        }
        opts["_started"] = [have, effort - have]

    def record(self, enc: Encounter, c: Combatant, a: ActionDef, *, free: bool) -> None:
        super().record(enc, c, a, free=free)
        if a.free_kind:
            key = free_key(a.free_kind)
            c.turn[key] = c.turn.get(key, 0) + 1

    # --- resolving -------------------------------------------------------------------------
    def resolve(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        # A Disengage works only for the Movement Action directly after it.
        if a.key != "disengage" and bool(c.turn.pop("disengage", None)):
            if a.extra.get("movement"):
                c.turn["disengage_active"] = True
            else:
                ev.add(
                    "disengage",
                    f"{c.name}'s Disengage is wasted: no Movement Action directly after it.",
                    actor=c.id,
                )
        # A grapple not sustained first thing in the grappler's turn ends.
        if a.key != "grapple" and bool(c.turn.pop("sustain_due", None)):
            self.release(enc, c, ev, "the grapple was not sustained")
        if is_spell(a) and not opts.get("_cleared"):
            held: Declared = {"kind": "action", "action": a.key, "name": a.name, "opts": opts}
            if self.hold_for_interrupts(enc, c, held, ev):
                return
        started = opts.get("_started")
        if started:
            c.turn.pop("disengage_active", None)
            paid, rest = started
            ev.add(
                "action_started",
                f"{c.name} starts {a.name} ({cost_text(*opts['_paid'])}): pays "
                f"{left_label(paid)} now, {effort_label(rest)} carries over to the next "
                "turn, and it resolves when fully paid.",
                actor=c.id,
                involved=(opts.get("target"),),
                data={"action": a.key},
            )
            return
        self.dispatch(enc, c, a, opts, rng, ev)
        c.turn.pop("disengage_active", None)

    def dispatch(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        super().resolve(enc, c, a, opts, rng, ev)

    def after_action(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any], ev: Events
    ) -> bool:
        return a.key == "skip"

    # --- movement --------------------------------------------------------------------------
    def leave(self, enc: Encounter, c: Combatant, opts: dict[str, Any], ev: Events) -> None:
        if opts.get("leave", True) and c.engaged:
            protected = bool(c.turn.pop("disengage_active", False))
            if not protected:
                self.tell_gm_no_opportunity(enc, c, ev)
            self.leave_reach(enc, c, provokes=not protected, ev=ev, reason="Disengage")

    def opportunity_missing(self, enc: Encounter, other: Combatant) -> list[str]:
        if other.res.get("bonus", 0) < 1:
            return []
        return [s for s in ATTACK_NEEDS if not stat_key(other, s)]

    def jump_reach(
        self, c: Combatant, enc: Encounter, kind: str, run_up: int, ledge: bool
    ) -> tuple[float, float]:
        agi = bonus_of(c, "AGI", "Jump")
        dist, height = agi / 4, agi / 10
        if kind == "running":
            dist = min(dist + run_up, agi / 2)
            height = min(height + run_up / 3, height + 1)
        dist += max(level_of(c, "athletics"), level_of(c, "acrobatics")) // 5
        if ledge:
            height += int(self.setting(enc, "height_cm", c)) / 100
        return max(dist, 0.0), max(height, 0.0)

    def do_move(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        speed = int(self.setting(enc, "speed", c))
        athletics = level_of(c, "athletics")
        rolls: tuple[dice.Roll, ...] = ()
        notes: list[str] = []
        key = a.key
        if key == "step":
            dist = 2.0
        elif key == "walk":
            dist = speed / 3
        elif key == "run":
            dist = float(speed + athletics)
        elif key == "sprint":
            r = roll_of(c, "AGI", 0, rng, "Sprint")
            rolls = (r,)
            dist = float(speed + athletics + r.total)
            notes.append(f"AGI roll {r.total}")
        elif key == "climb":
            dist = float(die_size(c, "AGI", "Climb"))
            notes.append(str(opts.get("direction") or "up"))
            if opts.get("hands_empty") or has_effect(c, "Climbing"):
                pass
            elif c.turn.get("free_draw_stow", 0) > 1:
                notes.append("held items stowed (Bonus Action: the free Draw/Stow was used)")
            else:
                notes.append("held items stowed (the turn's free Draw/Stow)")
            add_effect(c, Effect("Climbing", "turn_end", c.id, {}, "climbing: no free hands"))
        elif key == "crawl":
            dist = die_size(c, "AGI", "Crawl") / 2
            if not has_effect(c, "Crawling"):
                add_effect(c, Effect("Crawling", "never", None, {}, "crawling"))
        else:  # swim
            dist = speed / 3
            if not has_effect(c, "Swimming"):
                add_effect(c, Effect("Swimming", "never", None, {}, "swimming"))
        if opts.get("difficult") and key in ("step", "walk", "run", "sprint"):
            dist /= 2
            notes.append("difficult terrain halves it")
        if key == "step" and opts.get("get_out") and has_effect(c, "Swimming"):
            drop_effects(c, "Swimming")
            notes.append("1 m to get up or out of the water, 1 m to move on")
            dist = max(dist - 1, 0)
        jump = opts.get("jump") or "none"
        if jump != "none":
            # The run-up of a folded jump is run this turn, this move's metres included.
            check_run_up(c, opts, float(c.turn.get("moved", 0)) + dist)
            jd, jh = self.jump_reach(
                c, enc, jump, int(opts.get("run_up") or 0), bool(opts.get("ledge"))
            )
            jd = min(jd, dist)
            dist -= jd
            notes.append(f"a {jump} jump of up to {metres(jd)} (height {metres(jh)}) from it")
        extra = f"; {'; '.join(notes)}" if notes else ""
        c.turn["moved"] = float(c.turn.get("moved", 0)) + dist
        ev.add(
            "move",
            f"{c.name}: {a.name}{self.spent_text(enc, c, a, opts)}, up to {metres(dist)}{extra}.",
            actor=c.id,
            rolls=rolls,
            data={"action": key, "metres": round(dist, 2)},
        )
        self.leave(enc, c, opts, ev)

    def do_jump(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        kind = opts.get("kind") or "standing"
        dist, height = self.jump_reach(
            c, enc, kind, int(opts.get("run_up") or 0), bool(opts.get("ledge"))
        )
        c.turn["moved"] = float(c.turn.get("moved", 0)) + dist
        ev.add(
            "move",
            f"{c.name}: {kind} Jump{self.spent_text(enc, c, a, opts)}, up to "
            f"{metres(dist)} across and {metres(height)} high.",
            actor=c.id,
            data={"action": "jump", "metres": round(dist, 2), "height": round(height, 2)},
        )
        self.leave(enc, c, opts, ev)

    def do_stand_up(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        drop_effects(c, "Prone")
        drop_effects(c, "Crawling")
        ev.add("stand", f"{c.name} stands up{self.spent_text(enc, c, a, opts)}.", actor=c.id)

    def do_fall_prone(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        if opts.get("deep_water"):
            # 'You cannot fall prone in water that is waist-deep or deeper - you begin to swim.'
            add_effect(c, Effect("Swimming", "never", None, {}, "swimming"))
            ev.add(
                "swim",
                f"{c.name} cannot fall prone in water waist-deep or deeper: it begins to "
                f"swim instead{self.spent_text(enc, c, a, opts)}, and keeps to Swim until a "
                "Step gets it up or out.",
                actor=c.id,
            )
            return
        self.knock_prone(c)
        ev.add("prone", f"{c.name} falls prone{self.spent_text(enc, c, a, opts)}.", actor=c.id)

    @staticmethod
    def knock_prone(c: Combatant) -> None:
        if not has_effect(c, "Prone"):
            add_effect(c, Effect("Prone", "never", None, {}, "prone: cannot Dodge"))

    def do_disengage(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        c.turn["disengage"] = True
        ev.add(
            "disengage",
            f"{c.name} Disengages (Bonus Action): the Movement Action "
            "directly after it does not provoke.",
            actor=c.id,
        )

    # --- simple combat actions -----------------------------------------------------------
    def do_aim(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        add_effect(c, Effect("Aim", "never", None, {"to_hit": 2}, "Aim: +2 next ranged attack"))
        ev.add(
            "aim",
            f"{c.name} takes Aim{self.spent_text(enc, c, a, opts)}: +2 FCS on its "
            "next Ranged Attack.",
            actor=c.id,
        )

    def do_brace(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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
        ev.add(
            "brace",
            f"{c.name} Braces{self.spent_text(enc, c, a, opts)}: +{res} (double RES) "
            "on every defence roll until its next turn.",
            actor=c.id,
        )

    def do_assist(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        """Assist is a Bonus Action (Action Types: 'a quick task that takes no more than a
        second'); the rules text gives it no number, so the ally is marked Assisted until
        the helper's next turn and the GM judges what the help is worth."""
        t = enc.get(opts["target"])
        what = f" with {opts['text']}" if opts.get("text") else ""
        drop_effects(t, "Assisted")
        add_effect(t, Effect("Assisted", "turn_start", c.id, {"by": c.id}, f"Assisted by {c.name}"))
        ev.add(
            "assist",
            f"{c.name} Assists {t.name}{what}{self.spent_text(enc, c, a, opts)}: the GM "
            "judges what the help is worth, until its next turn.",
            actor=c.id,
            involved=(t.id,),
        )

    def do_evade(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        drop_effects(c, "Evade")
        add_effect(c, Effect("Evade", "turn_start", c.id, {}, "Evade: AGI bonus doubled once"))
        ev.add(
            "evade",
            f"{c.name} Evades{self.spent_text(enc, c, a, opts)}: its AGI bonus "
            "counts double on its first AGI Save or Dodge before its next turn.",
            actor=c.id,
        )

    def do_guard(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        add_effect(c, Effect("Guard", "turn_start", c.id, {}, "Guard: one free Parry or Block"))
        ev.add(
            "guard",
            f"{c.name} Guards{self.spent_text(enc, c, a, opts)}: one free Parry "
            "or Block before its next turn.",
            actor=c.id,
        )

    def do_free(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        what = opts.get("text")
        which = opts.get("which")
        verb = {"draw": "draws", "stow": "stows"}.get(str(which), "")
        paid = opts.get("_paid")
        price = "free" if not paid or paid == [0, 0] else cost_text(*paid)
        detail = f": {what}" if what else ""
        name = f"{verb} a weapon" if verb else a.name
        if which == "draw":
            drop_effects(c, "Disarmed")
        ev.add(
            "action",
            f"{c.name} {name if verb else 'takes ' + name} ({price}){detail}.",
            actor=c.id,
            data={"action": a.key},
        )

    def do_pick_up(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        drop_effects(c, "Disarmed")
        what = opts.get("text") or "an item"
        ev.add(
            "action",
            f"{c.name} picks up {what}{self.spent_text(enc, c, a, opts)}.",
            actor=c.id,
            data={"action": a.key},
        )

    def do_administer(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        t = enc.get(opts["target"])
        if (opts.get("mode") or "first_aid") == "first_aid":
            level = level_of(c, "first_aid")
            before = flow.heal(enc, t, level)
            healed = "" if before is None else f" ({before} → {t.hp} HP)"
            spent = self.spent_text(enc, c, a, opts)
            line = ev.add(
                "heal",
                f"{c.name} administers First Aid to {t.name}{spent}: heals {level}{healed}.",
                actor=c.id,
                involved=(t.id,),
            )
            ev.health(line, t.id, f"{c.name} administers First Aid to {t.name}{spent}.")
            flow.stand_if_healed(enc, t, ev)
        else:
            what = opts.get("text") or "a potion"
            ev.add(
                "action",
                f"{c.name} helps {t.name} drink {what}"
                f"{self.spent_text(enc, c, a, opts)}: its benefits apply at once.",
                actor=c.id,
                involved=(t.id,),
            )

    def do_aid(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        t = enc.get(opts["target"])
        cond = str(opts["condition"])
        e = find_effect(t, cond)
        if e is None:
            ev.add(
                "aid",
                f"{c.name} aids {t.name}, who is no longer {cond}.",
                actor=c.id,
                involved=(t.id,),
            )
            return
        stacks = int(e.detail.get("stacks", 1) or 1)
        rolls: tuple[dice.Roll, ...] = ()
        if cond == "incapacitated":
            t.effects.remove(e)
            text = "is no longer Incapacitated"
        else:
            if cond == "burning":
                less = 2
            else:
                r = roll_of(c, "first_aid", 0, rng, "Aid against Bleeding")
                rolls = (r,)
                less = max(0, r.total - 10)
            left = max(0, stacks - less)
            if left:
                e.detail["stacks"] = left
                e.text = f"{e.name} {left}"
            else:
                t.effects.remove(e)
            text = f"loses {stacks - left} {cond.capitalize()} stacks ({left} left)"
            if cond == "bleeding":
                text += f" (First Aid roll {rolls[0].total} − 10)"
        ev.add(
            "aid",
            f"{c.name} aids {t.name}{self.spent_text(enc, c, a, opts)}: {t.name} {text}.",
            actor=c.id,
            involved=(t.id,),
            rolls=rolls,
        )

    # --- contests ----------------------------------------------------------------------------
    def contest(
        self,
        actor: Combatant,
        a_stat: str,
        a_extra: int,
        other: Combatant,
        o_stat: str,
        o_extra: int,
        rng: random.Random,
        why: str,
    ) -> tuple[bool, dice.Roll, dice.Roll]:
        """The actor must beat the other's roll; a tie goes to the other."""
        mine = roll_of(actor, a_stat, a_extra, rng, why)
        theirs = roll_of(other, o_stat, o_extra, rng, why)
        return mine.total > theirs.total, mine, theirs

    def do_feint(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        t = enc.get(opts["target"])
        won, mine, theirs = self.contest(c, "deception", 0, t, "FCS", 0, rng, "Feint")
        if won:
            drop_effects(c, "Feint")
            add_effect(
                c, Effect("Feint", "never", None, {"to_hit": 5}, "Feint: +5 next melee attack roll")
            )
        ev.add(
            "feint",
            f"{c.name} Feints {t.name}{self.spent_text(enc, c, a, opts)}: "
            f"Deception {mine.total} against Focus save {theirs.total}: "
            f"{'+5 to hit with its next melee attack' if won else 'no effect'}.",
            actor=c.id,
            involved=(t.id,),
            rolls=(mine, theirs),
        )

    def do_hide(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        t = enc.get(opts["target"])
        won, mine, theirs = self.contest(c, "stealth", 0, t, "perception", 0, rng, "Hide")
        if won:
            add_effect(c, Effect("Unseen", "never", None, {"by": t.id}, f"Unseen by {t.name}"))
        ev.add(
            "hide",
            f"{c.name} Hides from {t.name}{self.spent_text(enc, c, a, opts)}: "
            f"Stealth {mine.total} against Perception {theirs.total}: "
            f"{'Unseen' if won else 'spotted'}.",
            actor=c.id,
            involved=(t.id,),
            rolls=(mine, theirs),
        )

    def do_shove(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        t = enc.get(opts["target"])
        won, mine, theirs = self.contest(c, "STR", 0, t, "STR", 0, rng, "Shove")
        text = f"STR {mine.total} against {theirs.total}"
        rolls = [mine, theirs]
        if won:
            dice_only = sum(d.value for d in mine.dice)
            back = max(1, dice_only // 2)
            save = roll_of(t, "STR", 0, rng, "STR save against Shove")
            rolls.append(save)
            text += f": {t.name} is pushed back {back} m, out of {c.name}'s reach"
            separate(c, t)  # forced movement: it provokes nothing
            if save.total >= mine.total:
                text += f" and keeps its feet (STR save {save.total})"
            else:
                self.knock_prone(t)
                text += f" and falls prone (STR save {save.total} against {mine.total})"
        else:
            text += ": it holds its ground"
        ev.add(
            "shove",
            f"{c.name} Shoves {t.name}{self.spent_text(enc, c, a, opts)}: {text}.",
            actor=c.id,
            involved=(t.id,),
            rolls=tuple(rolls),
        )

    def grapple_extra(self, c: Combatant, defending: bool) -> int:
        ath = level_of(c, "athletics")
        return max(ath, level_of(c, "acrobatics")) if defending else ath

    def do_grapple(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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
        what = "sustains" if due else "grapples"
        text = (
            f"{c.name} {what} {t.name}{self.spent_text(enc, c, a, opts)}: grappling test "
            f"{mine.total} against {theirs.total}"
        )
        if won:
            if not due:
                engage(enc, c, t)
                add_effect(
                    c, Effect("Grappling", "never", None, {"target": t.id}, f"grappling {t.name}")
                )
                add_effect(
                    t, Effect("Grappled", "never", None, {"by": c.id}, f"grappled by {c.name}")
                )
            text += ": held"
            ev.add("grapple", text + ".", actor=c.id, involved=(t.id,), rolls=(mine, theirs))
        else:
            ev.add(
                "grapple",
                text + ": it slips free." if due else text + ": no hold.",
                actor=c.id,
                involved=(t.id,),
                rolls=(mine, theirs),
            )
            if due:
                self.release(enc, c, ev, "", quiet=True)

    def do_break_free(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        e = find_effect(c, "Grappled")
        holder = enc.combatants.get(str(e.detail.get("by"))) if e else None
        if holder is None:
            drop_effects(c, "Grappled")
            ev.add("grapple", f"{c.name} is free (nobody holds it any more).", actor=c.id)
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
        ev.add(
            "grapple",
            f"{c.name} tries to break free of {holder.name}"
            f"{self.spent_text(enc, c, a, opts)}: {mine.total} against {theirs.total}: "
            f"{'free' if won else 'still held'}.",
            actor=c.id,
            involved=(holder.id,),
            rolls=(mine, theirs),
        )
        if won:
            self.release(enc, holder, ev, "", quiet=True)

    def release(
        self, enc: Encounter, grappler: Combatant, ev: Events, why: str, quiet: bool = False
    ) -> None:
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
            ev.add(
                "grapple",
                f"{grappler.name} lets go of {enc.name_of(held.id if held else None)}: {why}.",
                actor=grappler.id,
                involved=(held.id if held else None,),
            )

    # --- attacks -----------------------------------------------------------------------------
    def fcs_part(self, c: Combatant, n: int, double: bool) -> tuple[int, str]:
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
        self,
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

    def defence_choices(self, enc: Encounter, t: Combatant, spec: dict[str, Any]) -> list[str]:
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
        self, enc: Encounter, c: Combatant, spec: dict[str, Any], rng: random.Random, ev: Events
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
            ev.add(
                "attack",
                f"{c.name}: {spec['name']} ({', '.join(spec['notes'])}), roll "
                f"{atk.total}, damage {dmg.total} (no target named; the GM judges).",
                actor=c.id,
                rolls=(atk, dmg),
            )
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
            ev.add(
                "window",
                f"{c.name} attacks {t.name} with {spec['name']} "
                f"({', '.join(spec['notes'])}): {t.name} may {or_list(names)}, or take it "
                "on its plain defence.",
                actor=t.id,
                involved=(c.id,),
                data={"window": w.id, "reactor": t.id, "choices": choices},
            )
            return
        self.strike(enc, c, t, spec, None, rng, ev)

    def reaction_roll(
        self, enc: Encounter, t: Combatant, reaction: dict[str, Any], rng: random.Random
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
        self,
        enc: Encounter,
        c: Combatant,
        t: Combatant,
        spec: dict[str, Any],
        reaction: dict[str, Any] | None,
        rng: random.Random,
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
        if atk.total < total:
            data = {"hit": False, "target": t.id, "action": spec["action"]}
            line = ev.add(
                "attack",
                f"{head}: miss.",
                actor=c.id,
                involved=(t.id,),
                rolls=tuple(rolls),
                data=data,
            )
            if c.hidden:
                ev.unseen(line, c.id, f"{unseen_head}: miss.", seen_rolls, data)
            return
        dmg = roll_of(c, "damage", 0, rng, spec["name"])
        rolls.append(dmg)
        data = {"hit": True, "damage": dmg.total, "target": t.id, "action": spec["action"]}
        line = ev.add(
            "attack",
            f"{head}: hit for {dmg.total} damage.",
            actor=c.id,
            involved=(t.id,),
            rolls=tuple(rolls),
            data=data,
        )
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
        self, enc: Encounter, t: Combatant, dc: int, rng: random.Random, ev: Events
    ) -> None:
        extra, note = 0, ""
        if take_effect(t, "Evade"):
            extra = bonus_of(t, "AGI", "AGI save")
            note = f" (Evade +{extra})"
        save = roll_of(t, "AGI", extra, rng, "AGI save against Trip")
        if save.total >= dc:
            ev.add(
                "save",
                f"{t.name} keeps its feet: AGI save {save.total}{note} against {dc}.",
                actor=t.id,
                rolls=(save,),
            )
        else:
            self.knock_prone(t)
            ev.add(
                "save",
                f"{t.name} falls prone: AGI save {save.total}{note} against {dc}.",
                actor=t.id,
                rolls=(save,),
            )

    def lose_action(self, enc: Encounter, t: Combatant, by: Combatant, ev: Events) -> None:
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
            ev.add(
                "interrupted",
                f"{by.name} Interrupts {t.name}: {' and '.join(lost)} "
                f"{'is' if len(lost) == 1 else 'are'} lost.",
                actor=by.id,
                involved=(t.id,),
            )
        else:
            ev.add(
                "interrupted",
                f"{t.name} had nothing under way to lose.",
                actor=by.id,
                involved=(t.id,),
            )

    def do_attack(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        ranged = bool(opts.get("ranged"))
        spec = self.make_attack(c, a, opts.get("target"), ranged=ranged, after="damage")
        self.launch(enc, c, spec, rng, ev)

    def do_throw(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        spec = self.make_attack(
            c,
            a,
            opts.get("target"),
            ranged=True,
            after="throw",
            allowed=("dodge",),  # 'the target may Dodge or Catch it'
            extra={"weight": int(opts.get("weight") or 0)},
        )
        self.launch(enc, c, spec, rng, ev)

    def do_trip(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        spec = self.make_attack(
            c,
            a,
            opts.get("target"),
            ranged=False,
            after="trip",
            double_fcs=bool(opts.get("trip_weapon")),
        )
        self.launch(enc, c, spec, rng, ev)

    def do_interrupt(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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

    # --- Interrupt windows (action-ladder.md, Reactions: Interrupt) -------------------------
    def can_interrupt(self, enc: Encounter, o: Combatant, c: Combatant) -> bool:
        """An adjacent (engaged) enemy that can pay 2 Bonus Actions and roll a melee attack
        on `c`, which can be defended against."""
        return (
            not o.defeated
            and o.res.get("bonus", 0) >= 2
            and all(stat_key(o, s) for s in ATTACK_NEEDS)
            and stat_key(c, defend_stat(c, False)) is not None
        )

    def hold_for_interrupts(self, enc: Encounter, c: Combatant, held: Declared, ev: Events) -> bool:
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
            w = Window(
                enc.new_id("w", rng_of(ev)),
                "interrupt",
                o.id,
                c.id,
                {"declared": held["name"], "cost": 2},
            )
            enc.pending.append(w)
            ev.add(
                "window",
                f"{c.name} declares {held['name']}: {o.name} may Interrupt it "
                "(2 Bonus Actions, a melee attack; on a hit it is lost).",
                actor=o.id,
                involved=(c.id,),
                data={"window": w.id, "reactor": o.id},
            )
        return True

    def settle_declared(self, enc: Encounter, rng: random.Random, ev: Events) -> None:
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
                ev.add(
                    "fizzle",
                    f"{c.name}'s {held['name']} comes to nothing: its target is gone.",
                    actor=c.id,
                )
                continue
            try:
                if held["kind"] == "attack":
                    self.launch(enc, c, {**held["spec"], "cleared": True}, rng, ev)
                else:
                    a = self.action(enc, held["action"], c)
                    self.resolve(enc, c, a, {**held["opts"], "_cleared": True}, rng, ev)
            except Refused as r:
                ev.add(
                    "fizzle",
                    f"{c.name}'s {held['name']} comes to nothing: {r.refusal.message}",
                    actor=c.id,
                )

    def settle(self, enc: Encounter, ev: Events) -> None:
        self.settle_declared(enc, rng_of(ev), ev)

    def waits_on_interrupt(self, c: Combatant, w: Window) -> bool:
        """`w` is the Dodge window of `c` against an Interrupt on the action it declared."""
        return (
            "declared" in c.turn
            and w.kind == "defend"
            and w.reactor == c.id
            and (w.detail.get("attack") or {}).get("after") == "interrupt"
        )

    def turn_windows(self, enc: Encounter, c: Combatant) -> list[Window]:
        """Besides the windows its deeds opened, a turn waits on the Dodge its holder owes
        an Interrupt on its declared action: until it is rolled, the action is neither
        lost nor made."""
        return [w for w in enc.pending if w.trigger == c.id or self.waits_on_interrupt(c, w)]

    def answer_first(self, enc: Encounter, c: Combatant, own: list[Window]) -> str:
        w = own[0]
        by = enc.combatants.get(w.trigger)
        who = f"{by.name}'s Interrupt" if by is not None and not by.hidden else None
        held = c.turn.get("declared") or {}
        return (
            f"{c.name} must first answer {who or 'the Interrupt of someone unseen'} "
            "(Dodge, or let it pass): "
            f"{c.name}'s {held.get('name', 'action')} waits on it, and is lost if it hits "
            "(action-ladder.md, Interrupt)."
        )

    def react_interrupt(
        self, enc: Encounter, c: Combatant, w: Window, rng: random.Random, ev: Events
    ) -> None:
        t = enc.get(w.trigger)
        if t.defeated:
            raise refuse("bad_target", f"{t.name} is already defeated.")
        a = self.action(enc, "interrupt", c)
        check_interrupt(enc, c, t, {})
        for stat in ATTACK_NEEDS:
            need(c, stat, "Interrupt")
        need(t, defend_stat(t, False), "defending against an Interrupt")
        self.spend_bonus(c, 2, "Interrupt")
        c.round["interrupt"] = c.round.get("interrupt", 0) + 1
        spec = self.make_attack(c, a, t.id, ranged=False, after="interrupt", allowed=("dodge",))
        self.launch(enc, c, spec, rng, ev)

    def do_disarm(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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
        ev.add(
            "disarm",
            f"{c.name} tries to Disarm {t.name}{self.spent_text(enc, c, a, opts)} "
            f"({', '.join(spec['notes'])}): {mine.total} against {theirs.total}: "
            f"{'the weapon falls to the ground' if won else 'no effect'}.",
            actor=c.id,
            involved=(t.id,),
            rolls=(mine, theirs),
        )

    # --- Skip, Toss, Catch -------------------------------------------------------------------
    def do_skip(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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

    def can_catch(self, enc: Encounter, t: Combatant) -> bool:
        return (
            not t.defeated
            and not has_effect(t, "Climbing")  # both hands are busy while climbing
            and t.res.get("bonus", 0) >= 1
            and bool(self.setting(enc, "defence_prompts", t))
        )

    def open_catch(
        self, enc: Encounter, c: Combatant, t: Combatant, detail: dict[str, Any], ev: Events
    ) -> None:
        w = Window(enc.new_id("w", rng_of(ev)), "catch", t.id, c.id, detail)
        enc.pending.append(w)
        ev.add(
            "window",
            f"{t.name} may try to Catch {detail['name']} (Bonus Action).",
            actor=t.id,
            involved=(c.id,),
            data={"window": w.id, "reactor": t.id},
        )

    def do_toss(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        what = opts.get("text") or "an item"
        tid = opts.get("target")
        t = enc.get(tid) if tid else None
        ev.add(
            "toss",
            f"{c.name} tosses {what}{self.spent_text(enc, c, a, opts)}"
            f"{' to ' + t.name if t else ''}.",
            actor=c.id,
            involved=(tid,),
        )
        if t is None:
            return
        weight, wd = int(opts.get("weight") or 0), int(opts.get("wd") or 0)
        if self.can_catch(enc, t):
            self.open_catch(
                enc, c, t, {"kind": "toss", "weight": weight, "wd": wd, "name": what}, ev
            )
        else:
            ev.add("toss", f"{what.capitalize()} lands at {t.name}'s feet.", actor=t.id)

    # --- reactions ---------------------------------------------------------------------------
    def can_react(self, enc: Encounter, c: Combatant, kind: str) -> bool:
        if c.defeated or c.res.get("bonus", 0) < 1:
            return False
        if kind == "opportunity_attack":
            return all(stat_key(c, s) for s in ATTACK_NEEDS)
        return True

    def spend_bonus(self, c: Combatant, n: int, what: str) -> None:
        have = c.res.get("bonus", 0)
        if have < n:
            raise refuse(
                "not_enough_bonus",
                f"Not enough Bonus Actions: {what} costs {bonus_label(n)}, {c.name} has "
                f"{have} Bonus Action{'s' if have != 1 else ''} left.",
            )
        c.res["bonus"] = have - n

    def react(
        self,
        enc: Encounter,
        c: Combatant,
        w: Window,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        known = {
            "defend": {"reaction", "with", "use_guard"},
            "catch": {"drop"},
            "opportunity_attack": set(),
            "interrupt": set(),
        }
        if w.kind not in known:
            raise refuse("no_reaction", f"{self.name} has no reaction to a {w.kind} window.")
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
        self,
        enc: Encounter,
        c: Combatant,
        w: Window,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
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
            )
        if kind == "dodge" and has_effect(c, "Prone"):
            raise refuse(
                "prone_no_dodge",
                f"{c.name} is prone and cannot Dodge: while prone "
                "you act normally but cannot Dodge.",
            )
        if kind == "block" and not self.setting(enc, "shield", c):
            raise refuse("no_shield", f"Block requires a shield; {c.name} has none.")
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
                opts.get("use_guard", True) not in (False, "false", "0", 0)
                or c.res.get("bonus", 0) < 1
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
        self, enc: Encounter, c: Combatant, w: Window, rng: random.Random, ev: Events
    ) -> None:
        mover = enc.get(w.trigger)
        if mover.defeated:
            raise refuse("bad_target", f"{mover.name} is already defeated.")
        for stat in ATTACK_NEEDS:
            need(c, stat, "Attack of Opportunity")
        need(mover, defend_stat(mover, False), "defending against an Attack of Opportunity")
        self.spend_bonus(c, 1, "Attack of Opportunity")
        c.round["opportunity_attack"] = c.round.get("opportunity_attack", 0) + 1
        a = self.action(enc, "opportunity_attack", c)
        spec = self.make_attack(
            c, a, mover.id, ranged=False, after="damage", extra={"no_engage": True}
        )
        self.launch(enc, c, spec, rng, ev)

    def react_catch(
        self,
        enc: Encounter,
        c: Combatant,
        w: Window,
        opts: dict[str, Any],
        rng: random.Random,
        ev: Events,
    ) -> None:
        d = w.detail
        if has_effect(c, "Climbing"):
            raise refuse(
                "hands_busy",
                f"{c.name} is climbing: both hands are unavailable, and Catch needs a free "
                "hand (Climbing, Crawling, and Swimming; Catch in Detail).",
            )
        if d["kind"] == "throw":
            need(c, "AGI", "Catch")
            need(c, "FCS", "Catch")
        else:
            need(c, "FCS", "Catch")
        self.spend_bonus(c, 1, "Catch")
        if opts.get("drop"):
            c.turn["free_drop"] = c.turn.get("free_drop", 0) + 1
            ev.add(
                "action", f"{c.name} drops what it held to free a hand (Free Action).", actor=c.id
            )
        if d["kind"] == "throw":
            agi = roll_of(c, "AGI", 0, rng, "Catch")
            fcs = roll_of(c, "FCS", 0, rng, "Catch")
            total = agi.total + fcs.total
            if total >= d["attack"]:
                ev.add(
                    "catch",
                    f"{c.name} catches {d['name']}: AGI + FCS save {total} against {d['attack']}.",
                    actor=c.id,
                    rolls=(agi, fcs),
                )
                return
            ev.add(
                "catch",
                f"{c.name} fails to catch {d['name']} (AGI + FCS save {total} "
                f"against {d['attack']}): it hits and falls to {c.name}'s feet.",
                actor=c.id,
                rolls=(agi, fcs),
            )
            apply_damage(enc, c, int(d["damage"]), ev, source=w.trigger)
            return
        dc = 15 + int(d["weight"])
        r = roll_of(c, "FCS", 0, rng, "Catch")
        if r.total >= dc:
            ev.add(
                "catch",
                f"{c.name} catches {d['name']}: FCS check {r.total} against {dc}.",
                actor=c.id,
                rolls=(r,),
            )
            return
        hurt = 2 * int(d["weight"]) + int(d.get("wd") or 0)
        fumble = f"{c.name} fumbles {d['name']} (FCS check {r.total} against {dc})"
        line = ev.add(
            "catch",
            f"{fumble}: {hurt} damage and it falls to {c.name}'s feet.",
            actor=c.id,
            rolls=(r,),
        )
        ev.health(line, c.id, f"{fumble}: it falls to {c.name}'s feet.", (r,))
        apply_damage(enc, c, hurt, ev, source=w.trigger)

    def declined(self, enc: Encounter, c: Combatant, w: Window, ev: Events) -> None:
        attacker = enc.combatants.get(w.trigger)
        if w.kind == "defend" and attacker is not None and not c.defeated:
            try:
                self.strike(enc, attacker, c, w.detail["attack"], None, rng_of(ev), ev)
            except Refused as r:
                ev.add(
                    "fizzle", f"The attack comes to nothing: {r.refusal.message}", actor=w.trigger
                )
        elif w.kind == "catch":
            d = w.detail
            if d["kind"] == "throw":
                ev.add("catch", f"{d['name']} hits {c.name} and falls to its feet.", actor=c.id)
                apply_damage(enc, c, int(d["damage"]), ev, source=w.trigger)
            else:
                ev.add("catch", f"{d['name'].capitalize()} lands at {c.name}'s feet.", actor=c.id)
        self.settle_declared(enc, rng_of(ev), ev)

    # --- GM: the pace table --------------------------------------------------------------------
    def set_pace(self, enc: Encounter, cmd: dict[str, Any], ev: Events) -> None:
        """The GM edits the Slow/Quicken table: {"step", "pace", "to"} or {"reset": true}."""
        if cmd.get("reset") in (True, "true", "1", 1):
            enc.settings.pop("pace_table", None)
            ev.add("ruling", "The GM restores the printed Slow and Quicken table.", ruling=True)
            return
        by_label = {v.lower(): k for k, v in STEP_LABEL.items()}
        step = by_label.get(str(cmd.get("step")).lower(), cmd.get("step"))
        to = by_label.get(str(cmd.get("to")).lower(), cmd.get("to"))
        pace = cmd.get("pace")
        if step not in STEPS or to not in STEPS:
            raise refuse("bad_option", f"Step and result must be one of {', '.join(STEPS)}.")
        if pace not in ("slowed", "quickened"):
            raise refuse("bad_option", "Pace must be 'slowed' or 'quickened'.")
        table = enc.settings.setdefault("pace_table", {})
        table.setdefault(step, {})[pace] = to
        ev.add(
            "ruling",
            f"The GM rules that a {pace} {STEP_LABEL[step]} takes {STEP_LABEL[to]}.",
            ruling=True,
        )
