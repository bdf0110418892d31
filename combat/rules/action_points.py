"""The Action Points ruleset (action-points.md, with RULINGS.md).

Each combatant fills a pool of AP (3 by default) at the start of its own turn and
loses what is left when the turn ends. Attacks and spells share one use per turn.
Empowerment buys +1 to the roll or +2 to damage per extra AP, declared with the
action. The Reaction is free, once between the start of one's turn and the next.
"""

from __future__ import annotations

from typing import Any

from .base import (
    DEFENCE_STATS,
    DEFENCES,
    DESTINATION,
    TARGET,
    Opts,
    Rng,
    Ruleset,
    add_effect,
    engage,
    gauge,
    open_window,
    plural,
    roll_stat,
    speed_setting,
)
from .catalogue import ANY_TIME, REACTION, ActionDef, Option, Setting
from .events import Events
from .paths import open_held
from .refusal import Refused, acting, refuse, said
from .state import Combatant, Effect, Encounter, Window

# An Opportunity Attack is "resolved as normal melee attacks using your Fight skill and
# your currently equipped weapon": the attack roll and the weapon's damage.
OPPORTUNITY_NEEDS = ("attack", "damage")

EMPOWER_ROLL = Option("to_hit", "Extra AP on the roll (+1 each)", min=0, max=20, default=0)
EMPOWER_DAMAGE = Option("damage", "Extra AP on damage (+2 each)", min=0, max=20, default=0)
RANGED = Option("ranged", "Ranged", kind="bool", default=False)
SPELL_DEFENCE = Option(
    "defence", "Defence it tests", kind="choice", choices=DEFENCES, default="mental"
)
WHAT = Option("text", "What happens", kind="text")

ACTIONS = (
    ActionDef(
        "basic_attack",
        "Basic Attack",
        1,
        "attack",
        "A normal melee or ranged attack.",
        effect="attack",
        attack=True,
        options=(TARGET, RANGED),
        extra={"needs": ("attack", "damage")},
    ),
    ActionDef(
        "empowered_attack",
        "Empowered Attack",
        1,
        "attack",
        "A Basic Attack with extra AP, each giving +1 to hit or +2 damage, chosen before the roll.",
        effect="attack",
        attack=True,
        options=(TARGET, RANGED, EMPOWER_ROLL, EMPOWER_DAMAGE),
        extra={"needs": ("attack", "damage"), "empowered": True},
    ),
    ActionDef(
        "cast_spell",
        "Cast a Spell",
        2,
        "magic",
        "Cast any spell, whatever its level.",
        effect="spell",
        attack=True,
        spell=True,
        options=(TARGET, SPELL_DEFENCE, WHAT),
        extra={"needs": ("spell",)},
    ),
    ActionDef(
        "empowered_spell",
        "Spell Empowerment",
        2,
        "magic",
        "Cast a spell with extra AP, each giving +1 to the spell roll or +2 damage, "
        "chosen before the roll.",
        effect="spell",
        attack=True,
        spell=True,
        options=(TARGET, SPELL_DEFENCE, EMPOWER_ROLL, EMPOWER_DAMAGE, WHAT),
        extra={"needs": ("spell",), "empowered": True},
    ),
    ActionDef(
        "defensive_stance",
        "Defensive Stance",
        1,
        "defence",
        "+1 to one defence (melee, ranged or mental) until the start of your next "
        "turn; buy it again to stack or to cover another defence.",
        effect="stance",
        options=(
            Option(
                "defence",
                "Defence",
                kind="choice",
                choices=DEFENCES,
                default="melee",
                required=True,
            ),
            Option("count", "Purchases", min=1, max=20, default=1),
        ),
    ),
    ActionDef(
        "move",
        "Move",
        1,
        "movement",
        "Move up to your full speed (walk, swim or fly). Leaving an enemy's reach "
        "without Disengage provokes an Opportunity Attack.",
        effect="move",
        options=(
            Option("leave", "Leave melee reach", kind="bool", default=True),
            Option("mode", "How", kind="choice", choices=("walk", "swim", "fly"), default="walk"),
            DESTINATION,
        ),
    ),
    ActionDef(
        "disengage",
        "Disengage",
        2,
        "movement",
        "Withdraw from melee up to your speed; no move this turn provokes an Opportunity Attack.",
        effect="disengage",
        options=(DESTINATION,),
    ),
    ActionDef(
        "quick_utility",
        "Quick Utility",
        1,
        "utility",
        "Drink a potion, draw, throw or stow a weapon, open a door, swap an item, shout a command.",
        options=(TARGET, WHAT),
    ),
    ActionDef(
        "complex_utility",
        "Complex Utility",
        2,
        "utility",
        "Use a skill in combat (disable a trap, taunt, recall a weakness) or another "
        "lengthy interaction.",
        options=(TARGET, WHAT),
    ),
    ActionDef(
        "opportunity_attack",
        "Opportunity Attack",
        0,
        "reaction",
        "When an enemy leaves your melee reach without Disengage: one Basic Attack at "
        "0 AP, using your Reaction.",
        effect="attack",
        timing=REACTION,
        reaction=True,
        extra={"needs": ("attack", "damage")},
    ),
    ActionDef(
        "parry",
        "Parry",
        0,
        "reaction",
        "When attacked in melee: add your Parry bonus to that defence roll, using your Reaction.",
        timing=REACTION,
        reaction=True,
    ),
    ActionDef(
        "intercept",
        "Intercept",
        0,
        "reaction",
        "When a ranged attack or a spell comes at you: put something in its way and add "
        "your Intercept bonus to that defence roll, using your Reaction.",
        timing=REACTION,
        reaction=True,
    ),
    ActionDef(
        "reaction",
        "Other Reaction",
        0,
        "reaction",
        "A parry, an intercept or a feature's reaction, when its trigger happens: "
        "uses your Reaction.",
        timing=ANY_TIME,
        reaction=True,
        options=(TARGET, WHAT),
    ),
)


class ActionPoints(Ruleset):
    key = "action_points"
    other_stats = (
        *DEFENCE_STATS,
        ("defend_mental", "mental defence (instead of defend)"),
        ("spell_damage", "Cast a Spell's damage"),
    )
    name = "Action Points"
    currency = "AP"
    actions = ACTIONS
    settings = (
        Setting(
            "ap_pool",
            "AP per turn",
            3,
            min=0,
            max=20,
            per_combatant=True,
            help="Filled at the start of the combatant's turn; unspent AP is lost at its end.",
        ),
        Setting(
            "attacks_per_turn",
            "Attacks or spells per turn",
            1,
            min=0,
            max=10,
            per_combatant=True,
            help="Basic Attack, Empowered Attack and Cast a Spell share this limit.",
        ),
        Setting(
            "opportunity_attacks_per_round",
            "Opportunity Attacks per round",
            1,
            min=0,
            max=10,
            per_combatant=True,
        ),
        Setting(
            "defence_prompts",
            "Ask the defender to Parry or Intercept",
            False,
            kind="bool",
            per_combatant=True,
            help="On: when this combatant is attacked and still has its Reaction, its player "
            "(or the GM) is asked to Parry or Intercept before the roll. Off by default: "
            "the rules name parries and intercepts as features a character has.",
        ),
        Setting("parry_bonus", "Parry bonus", 2, min=0, max=50, per_combatant=True),
        speed_setting("Speed (m)", "How far a Move (1 AP) or a Disengage goes on the map."),
        Setting("intercept_bonus", "Intercept bonus", 2, min=0, max=50, per_combatant=True),
    )
    # Attacked by someone unseen, the defender still Parries or Intercepts.
    unseen_windows = frozenset({"defend"})

    # --- resources ---------------------------------------------------------------------
    def init_combatant(self, enc: Encounter, c: Combatant) -> None:
        c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
        c.res.setdefault("ap", c.res["ap_max"])
        c.res["ap"] = min(c.res["ap"], c.res["ap_max"])
        c.reaction = True

    def refresh_limits(self, enc: Encounter, c: Combatant) -> None:
        c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
        c.res["ap"] = min(c.res.get("ap", 0), c.res["ap_max"])

    def resources(self, enc: Encounter, c: Combatant) -> list[dict[str, Any]]:
        ap, top = c.res.get("ap", 0), c.res.get("ap_max", 0)
        return [
            gauge("ap", "AP", ap, top, "pips", f"AP {ap} of {top}"),
            gauge(
                "reaction",
                "Reaction",
                int(c.reaction),
                1,
                "toggle",
                "Reaction available" if c.reaction else "Reaction used",
            ),
        ]

    def cost_label(self, a: ActionDef) -> str:
        base = super().cost_label(a)
        return f"{a.cost} AP + extra" if a.extra.get("empowered") else base

    reaction_not_in_currency = (
        "In Action Points a reaction costs the combatant's Reaction, not AP "
        "(the Reaction itself is free): leave its cost at 0."
    )

    def modifiers(self) -> dict[str, Setting]:
        return {s.key: s for s in self.settings if s.per_combatant}

    # --- flow --------------------------------------------------------------------------
    def on_turn_start(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        super().on_turn_start(enc, c, ev)
        c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
        c.res["ap"] = c.res["ap_max"]
        c.reaction = True

    def on_turn_end(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        lost = c.res.get("ap", 0)
        c.res["ap"] = 0
        if lost:
            ev.add("ap_lost", say="ap.lost", actor=c.id, data={"lost": lost})

    # --- costs and limits ----------------------------------------------------------------
    def interrupts_allowed(self, enc: Encounter, c: Combatant, a: ActionDef) -> bool:
        return a.reaction

    def price(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> int:
        cost = a.cost
        if a.extra.get("empowered"):
            cost += int(opts.get("to_hit") or 0) + int(opts.get("damage") or 0)
        if a.effect == "stance":
            cost *= int(opts.get("count") or 1)
        return cost

    def option_effects(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> list[str]:
        if not a.extra.get("empowered"):
            return []
        to_hit, dmg_ap = int(opts.get("to_hit") or 0), int(opts.get("damage") or 0)
        return [
            *([f"+{to_hit} to hit"] if to_hit else []),
            *([f"+{2 * dmg_ap} damage"] if dmg_ap else []),
        ]

    def check_limits(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        super().check_limits(enc, c, a, opts)
        if a.attack:
            allowed, made = self.turn_tally(enc, c, "attacks_per_turn", "attacks")
            if made >= allowed:
                raise refuse(
                    "attack_limit",
                    f"Only {plural(allowed, 'attack or spell')} per turn: {c.name} has "
                    f"already made {made} (Basic Attack, Empowered Attack and Cast a Spell "
                    "share the limit).",
                    **acting(c, a, limit=allowed, made=made, rule="attacks per turn"),
                )
        if a.extra.get("empowered"):
            extra = int(opts.get("to_hit") or 0) + int(opts.get("damage") or 0)
            if extra < 1:
                raise refuse(
                    "empower_nothing",
                    f"{a.name} needs at least 1 extra AP, declared before the roll on the "
                    "roll or on damage.",
                    **acting(c, a),
                )
        if a.reaction and not c.reaction:
            raise refuse(
                "reaction_used",
                f"{c.name} has already used its Reaction; it returns at the start of "
                f"{c.name}'s next turn.",
                **acting(c, a, rule="Reactions"),
            )

    def check_cost(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        self.check_ap(enc, c, a, opts, rule="AP Pool")

    def pay(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        c.res["ap"] -= self.price(enc, c, a, opts)
        if a.reaction:
            c.reaction = False

    # --- resolvers -----------------------------------------------------------------------
    def attack_terms(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
    ) -> tuple[str, int, int]:
        """Empowered: each extra AP on the roll adds 1 to hit, each on damage adds 2 damage."""
        to_hit = int(opts.get("to_hit") or 0)
        dmg_ap = int(opts.get("damage") or 0)
        extra = f" (+{to_hit} to hit, +{2 * dmg_ap} damage)" if (to_hit or dmg_ap) else ""
        cost = self.price(enc, c, a, opts)
        return f"{a.name}{extra} for {cost} AP", to_hit, 2 * dmg_ap

    # --- defence reactions (action-points.md, Reactions: parries, intercepts) ---------------
    def defence_choices(self, enc: Encounter, t: Combatant, defence: str) -> list[str]:
        """The reactions open to a target of an attack: Parry against a melee attack,
        Intercept against a ranged one or a spell; none without the Reaction, or when the
        GM has the prompts off for it."""
        if t.defeated or not t.reaction or not self.setting(enc, "defence_prompts", t):
            return []
        return ["parry"] if defence == "melee" else ["intercept"]

    def hold_for_defence(
        self, enc: Encounter, c: Combatant, a: ActionDef, t: Combatant, roll: Opts, ev: Events
    ) -> bool:
        """An attack is declared: hold it for the target's reaction, or roll it now."""
        choices = self.defence_choices(enc, t, roll["defence"])
        if not choices:
            return False
        if roll["melee"]:
            engage(enc, c, t)
        spec = {
            "action": a.key,
            "name": a.name,
            "attacker": c.id,
            "target": t.id,
            "ranged": roll["defence"] != "melee",
            "allowed": choices,
            "roll": roll,
        }
        detail = {"attack": spec, "choices": choices}
        facts = {"choices": choices, "attacker": c.id, "name": a.name}
        say, rng = "ap.defend_window", getattr(ev, "rng", None)
        open_window(enc, "defend", t, c, ev, rng=rng, say=say, detail=detail, **facts)
        return True

    def do_spell(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        to_hit = int(opts.get("to_hit") or 0)
        dmg_ap = int(opts.get("damage") or 0)
        what = opts.get("text")
        extra = f" (+{to_hit} to the roll, +{2 * dmg_ap} damage)" if (to_hit or dmg_ap) else ""
        label = f"{a.name}{': ' + what if what else ''}{extra} for {self.price(enc, c, a, opts)} AP"
        if "spell_damage" not in c.stats:
            # A spell with no damage roll (a ward, a light): roll it, the GM judges the rest.
            r = roll_stat(c, "spell", to_hit, rng, a.name)
            target = opts.get("target")
            data = {"label": label, "target": target, "roll": r.total}
            ev.add(
                "spell", say="ap.spell_roll", actor=c.id, involved=(target,), rolls=(r,), data=data
            )
            return
        defence = str(opts.get("defence") or "mental")
        terms = (label, to_hit, 2 * dmg_ap)
        self.declare_roll(enc, c, a, opts, rng, ev, stat="spell", terms=terms, defence=defence)

    def do_stance(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        defence = str(opts["defence"])
        count = int(opts.get("count") or 1)
        add_effect(
            c,
            Effect(
                "Defensive Stance",
                "turn_start",
                c.id,
                {"defence": defence, "bonus": count},
                f"+{count} {defence} defence",
            ),
        )
        total = sum(
            int(e.detail.get("bonus", 0))
            for e in c.effects
            if e.name == "Defensive Stance" and e.detail.get("defence") == defence
        )
        ev.add(
            "stance",
            say="ap.stance",
            actor=c.id,
            data={"count": count, "defence": defence, "total": total},
        )

    def do_move(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        mode = opts.get("mode") or "walk"
        leave = opts.get("leave", True)
        data: dict[str, Any] = {"action": a.key, "mode": mode}
        protected = bool(c.turn.get("disengaged"))
        if opts.get("to"):
            if leave and c.engaged and not protected:
                self.tell_gm_no_opportunity(enc, c, ev)
            data |= self.move_on_map(enc, c, a, opts, provokes=bool(leave) and not protected)
            ev.add("move", say="ap.move", actor=c.id, data=data)
            open_held(enc, self, c, ev)  # on a map reach follows the path (paths.py)
            return
        ev.add("move", say="ap.move", actor=c.id, data=data)
        if leave and c.engaged:
            protected = bool(c.turn.get("disengaged"))
            if not protected:
                self.tell_gm_no_opportunity(enc, c, ev)
            self.leave_reach(enc, c, provokes=not protected, ev=ev, reason="Disengaged this turn")

    def path_allowance(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> tuple[float, str, str] | None:
        if a.key == "move":
            rule = "Movement Actions: Move, 1 AP, up to your full movement speed"
            return float(self.setting(enc, "speed", c)), rule, str(opts.get("mode") or "walk")
        if a.key == "disengage":
            rule = "Movement Actions: Disengage, 2 AP, withdraws up to your speed"
            return float(self.setting(enc, "speed", c)), rule, "walk"
        return None

    def move_on_map(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: dict[str, Any],
        *,
        provokes: bool = False,
    ) -> dict[str, Any]:
        """Move the token to opts["to"] (paths.py); the facts of the move: the metres, the
        cell reached, and the cell asked for when it stopped short. A move that provokes
        stops where it leaves an enemy's reach (`open_held` opens the window)."""
        from .paths import take

        moved = take(enc, self, c, a, opts, provokes=provokes)
        opts["to"] = moved["to"]
        c.turn["moved"] = float(c.turn.get("moved", 0)) + moved["cost"]
        short = moved["path"][-1] if moved.get("stopped") else None
        return {"metres": moved["cost"], "to": moved["to"], "short_of": short}

    def do_disengage(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        c.turn["disengaged"] = True
        moved = self.move_on_map(enc, c, a, opts) if opts.get("to") else {}
        ev.add("move", say="ap.disengage", actor=c.id, data={"action": a.key, **moved})
        if not opts.get("to"):  # on a map engagement follows from where tokens stand
            self.leave_reach(enc, c, provokes=False, ev=ev, reason="Disengage")

    # --- reactions -------------------------------------------------------------------------
    def can_react(self, enc: Encounter, c: Combatant, kind: str) -> bool:
        if not c.reaction or c.defeated:
            return False
        if kind == "opportunity_attack":
            per_round = int(self.setting(enc, "opportunity_attacks_per_round", c))
            return c.round.get("opportunity_attack", 0) < per_round and not [
                s for s in OPPORTUNITY_NEEDS if s not in c.stats
            ]
        return True

    def opportunity_missing(self, enc: Encounter, other: Combatant) -> list[str]:
        per_round = int(self.setting(enc, "opportunity_attacks_per_round", other))
        if not other.reaction or other.round.get("opportunity_attack", 0) >= per_round:
            return []
        return [s for s in OPPORTUNITY_NEEDS if s not in other.stats]

    def react(
        self, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        if w.kind == "defend":
            self.react_defend(enc, c, w, opts, rng, ev)
            return
        if w.kind != "opportunity_attack":
            raise refuse(
                "no_reaction", "That is not a reaction this ruleset knows.", who=c.id, window=w.id
            )
        if opts:
            raise refuse("bad_option", "That reaction takes no such option.")
        if not self.can_react(enc, c, w.kind):
            raise refuse(
                "reaction_used",
                f"{c.name} has no Reaction left to use.",
                who=c.id,
                window=w.id,
                rule="Reactions",
            )
        target = enc.get(w.trigger)
        if target.defeated:
            raise said(
                "bad_target",
                c,
                sentence="target_defeated",
                others=[target],
                target=target.id,
                window=w.id,
            )
        c.reaction = False
        c.round["opportunity_attack"] = c.round.get("opportunity_attack", 0) + 1
        self.attack_roll(
            enc,
            c,
            target.id,
            rng,
            ev,
            label="Opportunity Attack (Reaction, 0 AP)",
            stat="attack",
            to_hit=0,
            damage_stat="damage",
            damage_bonus=0,
            defence="melee",
            melee=False,
        )

    def react_defend(
        self, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        for key in opts:
            if key != "reaction":
                raise refuse("bad_option", "That reaction takes no such option.")
        spec = w.detail["attack"]
        allowed = list(w.detail.get("choices") or spec.get("allowed") or [])
        kind = opts.get("reaction") or (allowed[0] if allowed else "")
        if kind not in ("parry", "intercept"):
            raise refuse(
                "bad_option", "Reaction must be parry or intercept (or decline with accept=false)."
            )
        if kind not in allowed:
            raise refuse(
                "reaction_not_allowed",
                f"Against {spec['name']} {c.name} may only "
                f"{' or '.join(k.capitalize() for k in allowed)}: "
                "a Parry meets a melee attack, an Intercept a ranged attack or a spell.",
                who=c.id,
                window=w.id,
                reaction=kind,
                rule="Reactions",
            )
        if not c.reaction:
            raise refuse(
                "reaction_used",
                f"{c.name} has already used its Reaction; it returns at the start of "
                f"{c.name}'s next turn.",
                who=c.id,
                window=w.id,
                rule="Reactions",
            )
        c.reaction = False
        c.round[kind] = c.round.get(kind, 0) + 1
        bonus = int(self.setting(enc, f"{kind}_bonus", c))
        self.strike(enc, w, (bonus, kind.capitalize()), rng, ev)

    def strike(
        self, enc: Encounter, w: Window, reaction: tuple[int, str] | None, rng: Rng, ev: Events
    ) -> None:
        attacker = enc.get(w.trigger)
        t = enc.combatants.get(w.reactor)
        if t is None or t.defeated:
            ev.add("fizzle", say="ap.fizzle_gone", actor=w.trigger)
            return
        self.attack_roll(
            enc, attacker, t.id, rng, ev, reaction=reaction, **w.detail["attack"]["roll"]
        )

    def declined(self, enc: Encounter, c: Combatant, w: Window, ev: Events) -> None:
        attacker = enc.combatants.get(w.trigger)
        rng = getattr(ev, "rng", None)
        if w.kind == "defend" and attacker is not None and not attacker.defeated and rng:
            try:
                self.strike(enc, w, None, rng, ev)
            except Refused as r:
                # The refusal may name the target: the line involves it, so it is the GM's
                # alone while the target is hidden.
                ev.add(
                    "fizzle",
                    say="ap.fizzle",
                    actor=w.trigger,
                    data={"target": w.reactor, "rule": r.refusal.code, "why": r.refusal.message},
                )
