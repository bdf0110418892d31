"""What every ruleset shares: pricing hooks, the common resolvers and the reaction windows.

A ruleset is a subclass of `Ruleset` whose catalogue is data. The engine
(`engine.py`) runs the flow of turns and rounds and calls these hooks; the
hooks raise `Refused` to say no, which unwinds the whole command.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, cast

from . import dice
from .catalogue import ANY_TIME, OWN_TURN, REACTION, ActionDef, Option, Setting
from .events import Events
from .refusal import acting, refuse, said
from .state import Combatant, Effect, Encounter, Window
from .turns import action_count, count_action

if TYPE_CHECKING:
    from .commands import CommandSpec

DEFENCES = ("melee", "ranged", "mental")
# On a map, why a melee attack on a target out of reach is refused (paths.check_reach).
MELEE_REACH = "a melee attack strikes only a target within the attacker's reach"
# The defence stats a ruleset reads for the defence an attack targets (docs/rules.md "Stats").
DEFENCE_STATS = (
    ("defend", "defence against attacks"),
    ("defend_melee", "melee defence (instead of defend)"),
    ("defend_ranged", "ranged defence (instead of defend)"),
)
# The stat an attack or a spell rolls, and the stat its damage comes from.
DAMAGE_STATS = {"attack": "damage", "spell": "spell_damage"}

# What every action's handler is handed, named short so a handler's signature reads on one line.
type Opts = dict[str, Any]  # the declared options
type Rng = random.Random  # the command's die

TARGET = Option("target", "Target", kind="target")
TARGET_REQUIRED = Option("target", "Target", kind="target", required=True)
# A movement action's destination on the map (paths.py); the forms show it only when the
# encounter has a map.
DESTINATION = Option("to", "To (cell, e.g. C4)", kind="text")


COMBAT_OVER = "Combat is over: the GM ended it, so no more actions are taken."


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# How players and spectators see an NPC's health (docs/rules.md, "NPC health"): its
# exact HP, a band of words (Unhurt, Hurt, Bloodied, Down), or nothing. The GM always
# sees the exact HP; a combatant may override the encounter's choice.
HEALTH_MODES = ("exact", "band", "hidden")
NPC_HEALTH = Setting(
    "npc_health",
    "NPC health shown to players and spectators",
    "band",
    kind="choice",
    choices=HEALTH_MODES,
    help="exact: HP as a number; band: Unhurt, Hurt, Bloodied or Down; hidden: nothing. "
    "The GM always sees the exact HP; each NPC may override this on its form.",
)


class Ruleset:
    key = ""
    name = ""
    currency = "AP"
    # The resource `currency` counts (the summary's "spent" per round).
    currency_resource = "ap"
    # Each resource an action may be paid with, as the summary names it.
    resource_names: dict[str, str] = {"ap": "AP"}  # noqa: RUF012 - read only
    settings: tuple[Setting, ...] = ()
    actions: tuple[ActionDef, ...] = ()
    uses_passes = False
    has_seize = False
    # Commands of this ruleset alone, besides the shared table (commands.py).
    commands: tuple[CommandSpec, ...] = ()
    # Stats the rules roll besides those the catalogue's actions name, and what for.
    other_stats: tuple[tuple[str, str], ...] = (("defend", "defence against attacks"),)
    # Reaction windows a hidden combatant opens on a visible one that the visible one's
    # player still answers, "from someone unseen": something done to them (an attack to
    # defend against). Any other window a hidden combatant opens or holds is the GM's.
    unseen_windows: frozenset[str] = frozenset()

    # --- settings and catalogue -------------------------------------------------------
    def default_settings(self) -> dict[str, Any]:
        base = {"initiative_formula": "1d10", "npc_health": NPC_HEALTH.default}
        base.update({s.key: s.default for s in self.settings if not s.per_combatant})
        return base

    def all_settings(self) -> tuple[Setting, ...]:
        common = Setting(
            "initiative_formula",
            "Initiative roll (the bonus is added)",
            "1d10",
            kind="dice",
            help="Any dice expression; each combatant adds its Initiative Bonus.",
        )
        return (common, NPC_HEALTH, *self.settings)

    def setting(self, enc: Encounter, key: str, c: Combatant | None = None) -> Any:
        if c is not None and key in c.mods:
            return c.mods[key]
        if key in enc.settings:
            return enc.settings[key]
        for s in self.all_settings():
            if s.key == key:
                return s.default
        raise KeyError(key)

    def stat_uses(self, enc: Encounter | None = None) -> dict[str, list[str]]:
        """Every stat this ruleset rolls, in catalogue order, with what rolls it: the
        actions that need it (or need it of their target) and the other rolls."""
        uses: dict[str, list[str]] = {}
        for a in self.catalogue(enc).values():
            for stat in a.extra.get("needs", ()):
                uses.setdefault(stat, []).append(a.name)
            for stat in a.extra.get("target_needs", ()):
                uses.setdefault(stat, []).append(f"{a.name} (its target)")
        for stat, what in self.other_stats:
            uses.setdefault(stat, []).append(what)
        return uses

    def catalogue(self, enc: Encounter | None = None) -> dict[str, ActionDef]:
        cat = {a.key: a for a in self.actions}
        if enc is not None:
            for key, spec in enc.custom_actions.items():
                cat[key] = custom_action(key, spec, self)
            for key, cost in enc.cost_overrides.items():
                if key in cat:
                    cat[key] = cat[key].with_cost(cost)
        return cat

    def action(self, enc: Encounter, key: str, c: Combatant | None = None) -> ActionDef:
        cat = self.catalogue(enc)
        if key not in cat:
            # The key the caller sent is not echoed back: a refusal repeats no guess.
            raise refuse(
                "unknown_action", f"There is no such action in {self.name}.", ruleset=self.key
            )
        a = cat[key]
        costs = (c.mods.get("costs") or {}) if c else {}
        if key in costs:
            a = a.with_cost(int(costs[key]))
        return a

    def cost_label(self, a: ActionDef) -> str:
        return "free" if a.cost == 0 else f"{a.cost} {self.currency}"

    # --- combatants and flow hooks ----------------------------------------------------
    def init_combatant(self, enc: Encounter, c: Combatant) -> None:
        """Give a new combatant its resources."""

    def resources(self, enc: Encounter, c: Combatant) -> list[dict[str, Any]]:
        """Widgets for the views: key, label, value, max and a sentence."""
        return []

    def on_round_start(self, enc: Encounter, ev: Events) -> None:
        for c in enc.combatants.values():
            c.round = {}

    def on_turn_start(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        c.turn = {"actions": 0}

    def on_turn_end(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        pass

    def arrange(self, enc: Encounter, order: list[str]) -> list[str]:
        """The round's order after the ruleset's own moves (the flow's order by default)."""
        return order

    def eligible(self, enc: Encounter, c: Combatant) -> bool:
        """May this combatant take a turn in the current round (or pass)?"""
        return not c.defeated

    def another_pass(self, enc: Encounter, ev: Events) -> bool:
        """Called when everyone due has acted: True starts another pass of the same round."""
        return False

    # --- actions ------------------------------------------------------------------------
    def check(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any], *, free: bool
    ) -> None:
        """Raise Refused when the action may not be taken now. Changes nothing."""
        self.check_timing(enc, c, a, opts)
        if not free:
            self.check_limits(enc, c, a, opts)
            self.check_cost(enc, c, a, opts)
        self.check_stats(enc, c, a, opts)

    def off_turn(self, enc: Encounter, c: Combatant) -> bool:
        return enc.turn != c.id

    def check_timing(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        if enc.phase == "ended":
            raise refuse("not_in_combat", COMBAT_OVER, who=c.id, what=a.key)
        if enc.phase != "combat":
            raise refuse(
                "not_in_combat",
                "Combat has not started: actions are taken in combat.",
                **acting(c, a),
            )
        if c.defeated:
            raise said("defeated", c, a)
        if a.timing == REACTION:
            raise said("reaction_only", c, a)
        if self.off_turn(enc, c) and (
            a.timing != ANY_TIME or not self.interrupts_allowed(enc, c, a)
        ):
            # Not naming whose turn it is: the status bar does, and the sentence under
            # every disabled action stays the same from turn to turn (docs/performance.md).
            raise said("not_your_turn", c, a, turn=enc.turn)
        waiting = [w for w in enc.pending if w.trigger == c.id]
        if waiting and not self.off_turn(enc, c):
            reactors = [enc.get(i) for i in dict.fromkeys(w.reactor for w in waiting)]
            raise said(
                "waiting_for_reactions",
                c,
                a,
                others=reactors,
                waiting_on=[r.id for r in reactors],
            )

    def interrupts_allowed(self, enc: Encounter, c: Combatant, a: ActionDef) -> bool:
        return False

    def check_limits(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        if a.limit == "once_per_round" and c.round.get(a.key):
            raise said("once_per_round", c, a, rule="once per round")
        if a.limit == "once_per_turn" and action_count(c.turn, a.key):
            raise said("once_per_turn", c, a, rule="once per turn")

    def check_cost(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        """Raise when the actor cannot pay."""

    def pay(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        """Take the cost from the actor's resources."""

    def price(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> int:
        return a.cost

    def paid(self, c: Combatant, before: dict[str, Any], opts: dict[str, Any]) -> dict[str, int]:
        """What `pay` took, per resource (`before` is `c.res` before it): a fact of the
        action's event, read by the summary instead of pricing the action again."""
        return {
            k: before[k] - v
            for k, v in c.res.items()
            if isinstance(v, int) and isinstance(before.get(k), int) and before[k] > v
        }

    def price_text(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> str:
        """What this use of the action costs `c`, in words: "3 AP", "free"."""
        cost = self.price(enc, c, a, opts)
        return "free" if cost == 0 else f"{cost} {self.currency}"

    def option_effects(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> list[str]:
        """What the chosen options add, in words ("+1 to hit"); none by default."""
        return []

    def preview(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> str:
        """The cost line shown as options are chosen: "Empowered Attack: 3 AP, +1 to hit"."""
        said = [self.price_text(enc, c, a, opts), *self.option_effects(enc, c, a, opts)]
        return f"{a.name}: {', '.join(said)}"

    def check_stats(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        for stat in a.extra.get("needs", ()):
            need_stat(c, stat, a.name)

    def record(self, enc: Encounter, c: Combatant, a: ActionDef, *, free: bool) -> None:
        """Count the action toward the turn's and the round's limits."""
        c.turn["actions"] = c.turn.get("actions", 0) + 1
        count_action(c.turn, a.key)
        c.round[a.key] = c.round.get(a.key, 0) + 1
        if a.attack and not free:
            c.turn["attacks"] = c.turn.get("attacks", 0) + 1

    def resolve(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        """Carry the action out. The default logs it; effects are dispatched by name."""
        handler = getattr(self, f"do_{a.effect}", None)
        if handler is None:
            raise RuntimeError(f"{self.key}: no resolver for effect {a.effect!r}")
        handler(enc, c, a, opts, rng, ev)

    def spent_text(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> str:
        cost = self.price(enc, c, a, opts)
        return "" if cost == 0 else f" ({cost} {self.currency})"

    def do_plain(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        target = opts.get("target")
        ev.add(
            "action",
            say="base.plain",
            actor=c.id,
            involved=(target,),
            data={
                "action": a.key,
                "name": a.name,
                "target": target,
                # What was paid, as this ruleset words it (a short fragment: " (2 AP)").
                "spent": self.spent_text(enc, c, a, opts),
                "text": opts.get("text") or "",
            },
        )

    def after_action(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any], ev: Events
    ) -> bool:
        """Hook after an action resolves; True ends the actor's turn at once."""
        return False

    # Why a reaction cannot cost the ruleset's currency (empty: it can), for the refusal.
    reaction_not_in_currency = ""

    def adjust(self, enc: Encounter, c: Combatant, key: str, value: Any) -> bool:
        """Set a value only this ruleset has (for the GM's `adjust`); False: no such one."""
        return False

    def check_custom_action(self, spec: dict[str, Any]) -> None:
        """Refuse a GM-made action this ruleset could not charge as asked (RULINGS 6)."""
        if self.reaction_not_in_currency and spec.get("reaction") and spec.get("cost"):
            raise refuse("reaction_cost", self.reaction_not_in_currency, rule="RULINGS 6")

    def path_allowance(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> tuple[float, str, str] | None:
        """What a movement action may spend on a path on the map (paths.py): the metres,
        the rule that grants them in words, and how the mover goes ("walk", "swim",
        "climb", "fly"); None when the action moves nobody to a cell."""
        return None

    def modifiers(self) -> dict[str, Setting]:
        """Per-combatant homebrew modifiers the GM can set (besides per-combatant settings)."""
        return {}

    def refresh_limits(self, enc: Encounter, c: Combatant) -> None:
        """Re-clamp resources after the GM changes a maximum."""

    def hold(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        raise refuse("no_hold", f"{self.name} has no holding: end the turn instead.", who=c.id)

    def abandon(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        raise said("nothing_to_abandon", c)

    def spring(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        raise said("nothing_prepared", c)

    def declined(self, enc: Encounter, c: Combatant, w: Window, ev: Events) -> None:
        """Hook when a reaction window closes unanswered."""

    def turn_windows(self, enc: Encounter, c: Combatant) -> list[Window]:
        """The windows the turn of `c` waits on before it can end: those its own deeds
        opened (an Opportunity Attack on its move, a defence against its attack)."""
        return [w for w in enc.pending if w.trigger == c.id]

    def answer_first(
        self, enc: Encounter, c: Combatant, own: list[Window]
    ) -> tuple[str, str | None]:
        """What `c` must answer before ending its turn, for the refusal's arguments (written
        for each reader by `refusal.answer_own`): the kind of answer and the action that
        waits on it; here its own reaction window, and nothing waits."""
        return "window", None

    def settle(self, enc: Encounter, ev: Events) -> None:
        """After every command: whatever waited on windows that are now gone goes on."""

    # --- reactions --------------------------------------------------------------------
    def can_react(self, enc: Encounter, c: Combatant, kind: str) -> bool:
        return False

    # --- attacks and Action Points (shared) ----------------------------------------------
    def do_attack(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        """A Basic Attack: the attack stat against the target's melee or ranged defence."""
        ranged = bool(opts.get("ranged"))
        terms = self.attack_terms(enc, c, a, opts)
        defence = "ranged" if ranged else "melee"
        self.declare_roll(enc, c, a, opts, rng, ev, stat="attack", terms=terms, defence=defence)

    def attack_terms(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts
    ) -> tuple[str, int, int]:
        """An attack's words for the log, and what its options add to hit and to damage."""
        return f"{a.name}{self.spent_text(enc, c, a, opts)}", 0, 0

    def declare_roll(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: Opts,
        rng: Rng,
        ev: Events,
        *,
        stat: str,
        terms: tuple[str, int, int],
        defence: str,
    ) -> None:
        """`a` rolls `stat` (an attack or a spell) against the target's `defence`: held for
        the target's defence reactions where the ruleset has them, else rolled now. Only a
        weapon attack against melee defence is a melee attack (it engages)."""
        label, to_hit, damage_bonus = terms
        roll: dict[str, Any] = {
            "label": label,
            "name": a.name,
            "stat": stat,
            "to_hit": to_hit,
            "damage_stat": DAMAGE_STATS[stat],
            "damage_bonus": damage_bonus,
            "defence": defence,
            "melee": stat == "attack" and defence == "melee",
        }
        tid = opts.get("target")
        t = enc.combatants.get(tid or "")
        if roll["melee"]:
            from .paths import check_reach

            check_reach(enc, c, a, t, rule=MELEE_REACH)
        if t is None or t.id == c.id or not self.hold_for_defence(enc, c, a, t, roll, ev):
            self.attack_roll(enc, c, tid, rng, ev, **roll)

    def hold_for_defence(
        self, enc: Encounter, c: Combatant, a: ActionDef, t: Combatant, roll: Opts, ev: Events
    ) -> bool:
        """Hold a declared attack for its target's defence reactions; True when held (a
        window opens with the command's die, which the engine hands to `ev`)."""
        return False

    def turn_tally(
        self, enc: Encounter, c: Combatant, setting: str, counter: str
    ) -> tuple[int, int]:
        """A per-turn limit the GM sets for `c`, and how much of it `c` has used this turn."""
        used = c.turn.get(counter, 0)  # a count the turn keeps (attacks, spent, free)
        return int(self.setting(enc, setting, c)), cast(int, used)

    def check_ap(
        self,
        enc: Encounter,
        c: Combatant,
        a: ActionDef,
        opts: Opts,
        *,
        as_what: str = "",
        tail: str = "",
        rule: str,
    ) -> int:
        """Refuse an action that costs more AP than `c` has (under `rule`, the ruleset's
        section); else return its price."""
        cost, have = self.price(enc, c, a, opts), c.res.get("ap", 0)
        if cost > have:
            raise refuse(
                "not_enough_ap",
                f"Not enough AP: {a.name}{as_what} costs {cost}, {c.name} has {have}{tail}.",
                **acting(c, a, cost=cost, left=have, rule=rule),
            )
        return cost

    def react(
        self, enc: Encounter, c: Combatant, w: Window, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        raise refuse(
            "no_reaction", f"{self.name} has no reaction of that kind.", who=c.id, window=w.id
        )

    # --- engagement and movement (shared) ----------------------------------------------
    def opportunity_missing(self, enc: Encounter, other: Combatant) -> list[str]:
        """The attack stats an enemy left behind lacks for an Opportunity Attack it could
        otherwise pay for (none: it can make one, or could not pay anyway)."""
        return []

    def tell_gm_no_opportunity(self, enc: Encounter, mover: Combatant, ev: Events) -> None:
        """An enemy left behind that could pay for an Opportunity Attack but lacks an
        attack stat gets no window; the GM alone is told which stat is missing, since the
        engine asks for a stat rather than guessing (RULINGS ladder 8)."""
        for oid in mover.engaged:
            other = enc.combatants.get(oid)
            if other is None or other.defeated:
                continue
            missing = self.opportunity_missing(enc, other)
            if missing:
                ev.add(
                    "gm_notice",
                    say="base.no_opportunity",
                    actor=other.id,
                    involved=(mover.id,),
                    secret=True,
                    data={"missing": missing, "mover": mover.id},
                )

    def open_opportunity(
        self, enc: Encounter, other: Combatant, mover: Combatant, ev: Events
    ) -> None:
        """`other` may make an Opportunity Attack on `mover`, which leaves its reach."""
        rng, say = getattr(ev, "rng", None), "base.opportunity"
        open_window(enc, "opportunity_attack", other, mover, ev, rng=rng, say=say, mover=mover.id)

    def leave_reach(
        self, enc: Encounter, c: Combatant, *, provokes: bool, ev: Events, reason: str = ""
    ) -> None:
        """The mover leaves the melee reach of everyone engaged with it.

        Each enemy left behind that can still react gets an Opportunity Attack window,
        unless the movement does not provoke (Disengage, forced, teleport).
        """
        left = list(c.engaged)
        for other_id in left:
            other = enc.combatants.get(other_id)
            if other is not None and c.id in other.engaged:
                other.engaged.remove(c.id)
            if (
                provokes
                and other is not None
                and not other.defeated
                and self.can_react(enc, other, "opportunity_attack")
            ):
                self.open_opportunity(enc, other, c, ev)
        c.engaged = []
        if left and not provokes and reason:
            ev.add(
                "move",
                say="base.leave_reach",
                actor=c.id,
                involved=tuple(left),
                data={"left": left, "reason": reason},
            )

    # --- attacks (shared) ---------------------------------------------------------------
    def attack_roll(
        self,
        enc: Encounter,
        attacker: Combatant,
        target_id: str | None,
        rng: random.Random,
        ev: Events,
        *,
        label: str,
        stat: str,
        to_hit: int,
        damage_stat: str,
        damage_bonus: int,
        defence: str,
        melee: bool,
        reaction: tuple[int, str] | None = None,
        name: str = "",
    ) -> bool | None:
        """Roll an attack, and against a target its defence; apply damage on a hit.

        Returns True on a hit, False on a miss, None when there was no target to judge.
        A melee attack puts attacker and target in each other's reach. A hidden attacker's
        attack also gets words for those who cannot see it (`Events.unseen`): the attack's
        `name` (its label when none), the defence and the defender's roll, not the attacker.
        """
        atk = roll_stat(attacker, stat, to_hit, rng, label)
        target = enc.get(target_id) if target_id else None
        if target is None:
            dmg = roll_stat(attacker, damage_stat, damage_bonus, rng, label)
            ev.add(
                "attack",
                say="base.attack_untargeted",
                actor=attacker.id,
                rolls=(atk, dmg),
                data={"label": label, "roll": atk.total, "damage": dmg.total},
            )
            return None
        if target.id == attacker.id:
            raise said("bad_target", attacker, sentence="attack_itself")
        if target.defeated:
            raise said(
                "bad_target",
                attacker,
                sentence="target_defeated",
                others=[target],
                target=target.id,
            )
        if melee:
            engage(enc, attacker, target)
        dstat = f"defend_{defence}" if f"defend_{defence}" in target.stats else "defend"
        need_stat(target, dstat, f"defending against {label}")
        stance = sum(
            int(e.detail.get("bonus", 0))
            for e in target.effects
            if e.detail.get("defence") in (defence, "all")
        )
        # A defence reaction (Action Points: Parry, Intercept) adds to this one roll.
        react_bonus, react_name = reaction or (0, "")
        dfn = roll_stat(target, dstat, stance + react_bonus, rng, "defence")
        # The facts every reader's sentence is written from; a reader who cannot see the
        # attacker gets them without its own roll and the label that tells its cost and
        # bonus (`Events.unseen`): the attack's `name`, the defence and the defender's roll.
        facts: dict[str, Any] = {
            "by": attacker.id,
            "target": target.id,
            "name": name or label,
            "defence": defence,
            "against": dfn.total,
            "stance": stance,
            "reaction": react_name,
            "reaction_bonus": react_bonus,
        }
        private = {"label": label, "roll": atk.total}
        if atk.total >= dfn.total:
            dmg = roll_stat(attacker, damage_stat, damage_bonus, rng, label)
            line = ev.add(
                "attack",
                say="base.attack",
                actor=attacker.id,
                involved=(target.id,),
                rolls=(atk, dfn, dmg),
                data={"hit": True, "damage": dmg.total, **facts, **private},
            )
            ev.health(line, target.id, rolls=(atk, dfn))
            if attacker.hidden:
                seen = {"hit": True, "damage": dmg.total, **facts}
                ev.unseen(line, attacker.id, rolls=(dfn,), data=seen)
            apply_damage(enc, target, dmg.total, ev, source=attacker.id)
            return True
        line = ev.add(
            "attack",
            say="base.attack",
            actor=attacker.id,
            involved=(target.id,),
            rolls=(atk, dfn),
            data={"hit": False, **facts, **private},
        )
        if attacker.hidden:
            ev.unseen(line, attacker.id, rolls=(dfn,), data={"hit": False, **facts})
        return False


# --- helpers used by the rulesets -----------------------------------------------------


def speed_setting(label: str, help: str) -> Setting:
    """A combatant's movement in metres (0 to 100, 6 unless set), worded by its ruleset."""
    return Setting("speed", label, 6, min=0, max=100, per_combatant=True, help=help)


def gauge(
    key: str, label: str, value: int, top: int | None, kind: str, text: str
) -> dict[str, Any]:
    """One of a combatant's resources as the sheet draws it: `kind` is pips, meter, counter,
    progress or toggle; `top` is None where there is no maximum."""
    return {"key": key, "label": label, "value": value, "max": top, "kind": kind, "text": text}


def open_window(
    enc: Encounter,
    kind: str,
    reactor: Combatant,
    trigger: Combatant,
    ev: Events,
    *,
    rng: Rng | None,
    say: str,
    detail: dict[str, Any] | None = None,
    **facts: Any,
) -> Window:
    """Offer `reactor` a chance to answer what `trigger` did, and tell the table: the event
    names the window and its reactor, then the `facts` the sentence needs."""
    w = Window(enc.new_id("w", rng), kind, reactor.id, trigger.id, detail or {})
    enc.pending.append(w)
    data = {"window": w.id, "reactor": reactor.id, **facts}
    ev.add("window", say=say, actor=reactor.id, involved=(trigger.id,), data=data)
    return w


def need_stat(c: Combatant, stat: str, why: str) -> dict[str, Any]:
    s = c.stats.get(stat)
    if not s or not s.get("dice"):
        raise said("missing_stat", c, stat=stat, needed_for=why)
    return s


def roll_stat(c: Combatant, stat: str, extra: int, rng: random.Random, why: str) -> dice.Roll:
    s = need_stat(c, stat, why)
    expr = dice.add_modifier(str(s["dice"]), int(s.get("bonus") or 0) + extra)
    return dice.roll(expr, rng)


def engage(enc: Encounter, a: Combatant, b: Combatant) -> None:
    if b.id not in a.engaged:
        a.engaged.append(b.id)
    if a.id not in b.engaged:
        b.engaged.append(a.id)


def separate(a: Combatant, b: Combatant) -> None:
    """The pair is no longer in melee (a push moved one out of the other's reach)."""
    if b.id in a.engaged:
        a.engaged.remove(b.id)
    if a.id in b.engaged:
        b.engaged.remove(a.id)


def apply_damage(enc: Encounter, c: Combatant, amount: int, ev: Events, source: str | None) -> None:
    if c.hp is None or amount <= 0:
        return
    c.hp = max(0, c.hp - amount)
    if c.hp == 0 and not c.defeated:
        defeat(enc, c, ev)


def defeat(enc: Encounter, c: Combatant, ev: Events) -> None:
    c.defeated = True
    for other_id in list(c.engaged):
        other = enc.combatants.get(other_id)
        if other and c.id in other.engaged:
            other.engaged.remove(c.id)
    c.engaged = []
    enc.pending = [w for w in enc.pending if w.reactor != c.id]
    ev.add("defeated", say="base.defeated", actor=c.id)


def add_effect(c: Combatant, effect: Effect) -> None:
    c.effects.append(effect)


def int_option(opts: dict[str, Any], name: str, label: str, lo: int, hi: int) -> int:
    raw = opts.get(name, 0)
    if raw in (None, ""):
        return 0
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise refuse("bad_option", f"{label} must be a whole number.", option=label)
    try:
        n = int(raw)
    except ValueError:
        raise refuse("bad_option", f"{label} must be a whole number.", option=label) from None
    if n < lo or n > hi:
        raise refuse(
            "bad_option",
            f"{label} must be between {lo} and {hi}; {n} was asked.",
            option=label,
            min=lo,
            max=hi,
            asked=n,
        )
    return n


def custom_action(key: str, spec: dict[str, Any], rs: Ruleset) -> ActionDef:
    """A GM-made action: a name, a cost in the ruleset's currency and a few flags."""
    attack = bool(spec.get("attack"))
    spell = bool(spec.get("spell"))
    reaction = bool(spec.get("reaction"))
    # A reaction answers something that happens, on anyone's turn (RULINGS 6).
    timing = ANY_TIME if spec.get("interrupt") or reaction else OWN_TURN
    return ActionDef(
        key=key,
        name=str(spec.get("name", key)),
        cost=int(spec.get("cost", 0)),
        bonus=int(spec.get("bonus", 0)),
        category=str(spec.get("category") or ("reaction" if reaction else "custom")),
        summary=str(spec.get("summary") or "A custom action added by the GM."),
        effect="plain",
        timing=timing,
        attack=attack or spell,
        spell=spell,
        reaction=reaction,
        options=(TARGET, Option("text", "What happens", kind="text")),
        custom=True,
    )
