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

This module holds the ladder itself (resources, the checks every action passes, paying
and resolving). Each family of actions lives in its own module, with its checks and
effects, and is registered on the class below (``do_move = movement.do_move``): movement,
attacks, grappling, reactions, abilities, items, turns and costs; docs/rules.md has the
table of which rule lives where.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..base import DEFENCE_STATS, MELEE_REACH, Opts, Rng, Ruleset, gauge, int_option, speed_setting
from ..catalogue import REACTION, ActionDef, Setting
from ..events import Events
from ..paths import check_reach
from ..refusal import acting, refuse, said
from ..state import Combatant, Encounter
from ..turns import Declared, free_key
from . import abilities, attacks, costs, grappling, items, movement, reactions, turns
from .attacks import check_throw
from .catalogue import ACTIONS, PACE
from .common import climb_stows, defend_stat, is_spell, need
from .grappling import check_break_free, check_grapple
from .items import check_aid, check_toss
from .ladder import cost_text, effort_label, left_label
from .movement import check_crawl, check_fall_prone, check_jump, check_movement_mode, check_stand_up
from .reactions import INTERRUPT_ADJACENT, check_interrupt
from .turns import check_skip

# --- what the rules forbid, action by action (ActionLadder.check_rules) ---------------------
#
# Each check takes the encounter, the acting combatant, the target (None without one) and
# the declared options, and raises the refusal that names the rule.

Check = Callable[[Encounter, Combatant, Combatant | None, dict[str, Any]], None]


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


# On a map, the actions that touch their target, and the rule that says how near it must
# stand (paths.check_reach): a melee attack within reach, Aid "an ally within reach",
# Interrupt "an adjacent enemy".
REACH_RULES: dict[str, str] = {
    "attack": MELEE_REACH,
    "trip": MELEE_REACH,
    "disarm": MELEE_REACH,
    "grapple": MELEE_REACH,
    "shove": MELEE_REACH,
    "aid": "action-ladder.md, Aid: 'Aid an ally within reach'",
    "interrupt": INTERRUPT_ADJACENT,
}


class ActionLadder(Ruleset):
    key = "action_ladder"
    other_stats = (
        *DEFENCE_STATS,
        ("first_aid", "First Aid level (Administer, Aid)"),
        ("athletics", "Athletics level (jumps, Grapple)"),
        ("acrobatics", "Acrobatics level (jumps, escaping a Grapple)"),
    )
    name = "Action Ladder"
    currency = "½-Action steps"
    currency_resource = "effort"
    resource_names = {"effort": "½-Action steps", "bonus": "Bonus Actions"}  # noqa: RUF012
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
        speed_setting(
            "Speed (m)", "Base Speed by race, less armour; Walk is a third, Run the whole."
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

    # --- movement (registered from movement.py) ---
    leave = movement.leave
    jump_reach = movement.jump_reach
    do_move = movement.do_move
    path_allowance = movement.path_allowance
    do_jump = movement.do_jump
    do_stand_up = movement.do_stand_up
    do_fall_prone = movement.do_fall_prone
    knock_prone = staticmethod(movement.knock_prone)
    do_disengage = movement.do_disengage

    # --- grappling (registered from grappling.py) ---
    contest = grappling.contest
    challenge = grappling.challenge
    do_shove = grappling.do_shove
    grapple_extra = grappling.grapple_extra
    do_grapple = grappling.do_grapple
    do_break_free = grappling.do_break_free
    release = grappling.release

    # --- attacks (registered from attacks.py) ---
    fcs_part = attacks.fcs_part
    make_attack = attacks.make_attack
    defence_choices = attacks.defence_choices
    launch = attacks.launch
    reaction_roll = attacks.reaction_roll
    strike = attacks.strike
    agi_save_or_prone = attacks.agi_save_or_prone
    lose_action = attacks.lose_action
    do_attack = attacks.do_attack
    do_throw = attacks.do_throw
    do_trip = attacks.do_trip
    do_disarm = attacks.do_disarm

    # --- reactions (registered from reactions.py) ---
    opportunity_missing = reactions.opportunity_missing
    do_interrupt = reactions.do_interrupt
    can_interrupt = reactions.can_interrupt
    hold_for_interrupts = reactions.hold_for_interrupts
    settle_declared = reactions.settle_declared
    settle = reactions.settle
    waits_on_interrupt = reactions.waits_on_interrupt
    turn_windows = reactions.turn_windows
    answer_first = reactions.answer_first
    react_interrupt = reactions.react_interrupt
    can_catch = reactions.can_catch
    open_catch = reactions.open_catch
    can_react = reactions.can_react
    spend_bonus = reactions.spend_bonus
    react = reactions.react
    react_defend = reactions.react_defend
    react_opportunity = reactions.react_opportunity
    react_catch = reactions.react_catch
    declined = reactions.declined

    # --- abilities (registered from abilities.py) ---
    mark = abilities.mark
    do_aim = abilities.do_aim
    do_brace = abilities.do_brace
    do_assist = abilities.do_assist
    do_evade = abilities.do_evade
    do_guard = abilities.do_guard
    do_feint = abilities.do_feint
    do_hide = abilities.do_hide

    # --- items (registered from items.py) ---
    do_free = items.do_free
    do_pick_up = items.do_pick_up
    do_administer = items.do_administer
    do_aid = items.do_aid
    do_toss = items.do_toss

    # --- turns (registered from turns.py) ---
    arrange = turns.arrange
    on_turn_start = turns.on_turn_start
    on_turn_end = turns.on_turn_end
    pay_carry = turns.pay_carry
    abandon = turns.abandon
    spring = turns.spring
    do_skip = turns.do_skip

    # --- costs (registered from costs.py) ---
    pace_table = costs.pace_table
    base_cost = costs.base_cost
    cost = costs.cost
    price = costs.price
    cost_label = costs.cost_label
    price_text = costs.price_text
    option_effects = costs.option_effects
    spent_text = costs.spent_text
    set_pace = costs.set_pace

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
            gauge("effort", "Actions", e, em, "pips", f"{e} of {em} ½ Actions left"),
            gauge("bonus", "Bonus Actions", b, bm, "pips", f"Bonus Actions {b} of {bm}"),
        ]
        if c.carry:
            done = c.carry["total"] - c.carry["remaining"]
            out.append(
                gauge(
                    "carry",
                    "Under way",
                    done,
                    c.carry["total"],
                    "progress",
                    f"{c.carry['name']} under way: {done} of {c.carry['total']} ½ Actions "
                    f"paid, {effort_label(c.carry['remaining'])} to pay next turn",
                )
            )
        if c.prepared:
            out.append(
                gauge(
                    "prepared",
                    "Prepared",
                    1,
                    1,
                    "toggle",
                    f"Prepared since round {c.prepared['round']}: {c.prepared['text']}",
                )
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
                who=c.id,
                what="extended",
                paid=-(-paid // per_turn),
                asked=turns,
                rule="RULINGS ladder 2",
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

    # --- checks ----------------------------------------------------------------------------
    def interrupts_allowed(self, enc: Encounter, c: Combatant, a: ActionDef) -> bool:
        return a.reaction

    def check(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, *, free: bool) -> None:
        super().check(enc, c, a, opts, free=free)
        self.check_rules(enc, c, a, opts)

    def check_timing(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
        super().check_timing(enc, c, a, opts)
        mine = [w for w in enc.pending if w.reactor == c.id and w.kind in ("defend", "catch")]
        if mine:
            # The defender's player is shown the prompt "from someone unseen" (view.py),
            # and reads this refusal written for them (Refusal.to_reader).
            by = enc.combatants.get(mine[0].trigger)
            raise said(
                "answer_first",
                c,
                a,
                others=[by] if by is not None else [],
                window=mine[0].id,
                by=mine[0].trigger,
                answer=mine[0].kind,
                rule="Reactions",
            )
        if not self.off_turn(enc, c) and c.prepared and not c.prepared.get("sprung"):
            raise refuse(
                "prepared_waiting",
                f"{c.name} is waiting on Skip/Prepare ({c.prepared['text']}): abandon the plan "
                "to act normally (after a full round), or end the turn.",
                **acting(c, a, plan=c.prepared["text"], rule="Skip/Prepare"),
            )

    def check_limits(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
        super().check_limits(enc, c, a, opts)
        if a.limit == "first_action" and c.turn.get("actions", 0):
            raise refuse(
                "not_first_action",
                f"{a.name} must be the first action of the turn; {c.name} has already taken "
                f"{c.turn['actions']}.",
                **acting(c, a, taken=c.turn["actions"], rule="first action of the turn"),
            )
        if (opts.get("pace") or "standard") == "quickened" and not c.mods.get("quicken"):
            raise refuse(
                "no_quicken",
                f"{c.name} has no way to Quicken {a.name}: only a combatant with a quicken "
                "source (a GM-granted modifier) can.",
                **acting(c, a, rule="Slow and Quicken"),
            )
        self.cost(enc, c, a, opts)  # refuses no_pace_row

    def check_cost(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
        effort, bonus = self.cost(enc, c, a, opts)
        label = cost_text(effort, bonus)
        have_b = c.res.get("bonus", 0)
        if bonus > have_b:
            raise refuse(
                "not_enough_bonus",
                f"Not enough Bonus Actions: {a.name} costs {label}, {c.name} has "
                f"{have_b} Bonus Action{'s' if have_b != 1 else ''} left.",
                **acting(c, a, cost=label, bonus=bonus, left=have_b, rule="Action Economy"),
            )
        if not effort:
            return
        have = c.res.get("effort", 0)
        if have <= 0:
            raise refuse(
                "not_enough_effort",
                f"Not enough effort: {a.name} costs {label}, {c.name} has no Actions left "
                "this turn.",
                **acting(c, a, cost=label, effort=effort, left=0, rule="Action Economy"),
            )
        if a.key == "extended" and (have < c.res.get("effort_max", 0) or c.carry):
            raise refuse(
                "whole_turn",
                f"An Extended Action takes whole turns: {c.name} has {left_label(have)} left "
                f"of {left_label(c.res.get('effort_max', 0))}; start it at the top of a turn.",
                **acting(c, a, rule="Action Types"),
            )
        if effort > have and c.carry:
            raise refuse(
                "already_carrying",
                f"Not enough effort: {a.name} costs {label}, {c.name} has {left_label(have)} "
                f"left and is still paying for {c.carry['name']} (one action carries over at "
                "a time).",
                **acting(c, a, cost=label, effort=effort, left=have, rule="Action Types"),
            )

    def check_stats(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
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

    def check_rules(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
        """What the rules text forbids, whoever pays (also for GM grants)."""
        tid = opts.get("target")
        target = enc.get(str(tid)) if tid else None
        if target is not None:
            if target.id == c.id and a.key not in ("administer", "ability") and not a.custom:
                raise refuse(
                    "bad_target",
                    f"{c.name} cannot use {a.name} on itself.",
                    **acting(c, a, target=c.id),
                )
            if target.defeated and a.key not in ("aid", "administer"):
                raise said(
                    "bad_target",
                    c,
                    a,
                    sentence="target_defeated",
                    others=[target],
                    target=target.id,
                )
        if a.extra.get("movement"):
            check_movement_mode(c, a, opts)
        check = ACTION_CHECKS.get(a.key)
        if check is not None:
            check(enc, c, target, opts)
        rule = REACH_RULES.get(a.key)
        if rule is not None and not opts.get("ranged"):
            check_reach(enc, c, a, target, rule=rule, adjacent=a.key == "interrupt")

    # --- paying ----------------------------------------------------------------------------
    def pay(self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts) -> None:
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

    def paid(self, c: Combatant, before: dict[str, Any], opts: Opts) -> dict[str, int]:
        """The whole price, the effort carried to a later turn included (RULINGS ladder 2):
        the action is priced once, when it is started."""
        effort, bonus = opts.get("_paid") or (0, 0)
        return {k: v for k, v in (("effort", effort), ("bonus", bonus)) if v}

    def record(self, enc: Encounter, c: Combatant, a: ActionDef, *, free: bool) -> None:
        super().record(enc, c, a, free=free)
        if a.free_kind:
            key = free_key(a.free_kind)
            c.turn[key] = c.turn.get(key, 0) + 1

    # --- resolving -------------------------------------------------------------------------
    def resolve(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        # A Disengage works only for the Movement Action directly after it.
        if a.key != "disengage" and bool(c.turn.pop("disengage", None)):
            if a.extra.get("movement"):
                c.turn["disengage_active"] = True
            else:
                ev.add("disengage", say="ladder.disengage_wasted", actor=c.id)
        # A grapple not sustained first thing in the grappler's turn ends.
        if a.key != "grapple" and bool(c.turn.pop("sustain_due", None)):
            self.release(enc, c, ev, "not_sustained")
        if is_spell(a) and not opts.get("_cleared"):
            held: Declared = {"kind": "action", "action": a.key, "name": a.name, "opts": opts}
            if self.hold_for_interrupts(enc, c, held, ev):
                return
        started = opts.get("_started")
        if started:
            c.turn.pop("disengage_active", None)
            paid, rest = started
            data = {"action": a.key, "name": a.name, "paid": list(opts["_paid"])}
            data.update(now=paid, rest=rest)
            ev.add(
                "action_started",
                say="ladder.action_started",
                actor=c.id,
                involved=(opts.get("target"),),
                data=data,
            )
            return
        self.dispatch(enc, c, a, opts, rng, ev)
        c.turn.pop("disengage_active", None)

    def dispatch(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        super().resolve(enc, c, a, opts, rng, ev)

    def after_action(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, ev: Events
    ) -> bool:
        return a.key == "skip"
