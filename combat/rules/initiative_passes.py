"""The Initiative Passes ruleset (initiative-passes.md, with RULINGS.md).

Each combatant has a pool of AP (3 by default) that is restored at the start of
every round, not every turn. A round is made of passes: in each pass every
combatant still in play takes a turn in initiative order and may spend up to
4 AP in it. AP left when the turn ends is kept for later passes and for
Interrupts (a Minor or Major action taken outside one's own turn). A combatant
drops out of the passes when it runs out of AP, chooses to hold, or ends a pass
turn without spending any AP; the round ends when a pass finishes and nobody is
left in. Before each round, anyone with Grit may spend 1 to Seize the Moment.

There are no Opportunity Attacks: the rules text has none, so normal movement is
free and leaving an enemy's reach provokes nothing.
"""

from __future__ import annotations

from typing import Any

from .base import DESTINATION, TARGET, Opts, Rng, Ruleset, gauge, plural, speed_setting
from .catalogue import ANY_TIME, ActionDef, Option, Setting
from .events import Events
from .refusal import acting, refuse
from .state import SEIZE, Combatant, Encounter

FREE = "free"
MINOR = "minor"
MAJOR = "major"
MOVEMENT = "movement"

WHAT = Option("text", "What happens", kind="text")
RANGED = Option("ranged", "Ranged", kind="bool", default=False)
LEAVE = Option("leave", "Leave melee reach", kind="bool", default=True)


def _free(key: str, name: str, summary: str) -> ActionDef:
    return ActionDef(key, name, 0, FREE, summary, options=(TARGET, WHAT))


def _minor(key: str, name: str, summary: str) -> ActionDef:
    return ActionDef(key, name, 1, MINOR, summary, timing=ANY_TIME, options=(TARGET, WHAT))


def _major(key: str, name: str, summary: str, **kw: Any) -> ActionDef:
    kw.setdefault("options", (TARGET, WHAT))
    return ActionDef(key, name, 2, MAJOR, summary, timing=ANY_TIME, **kw)


# The catalogue. Costs are the rules text's categories: Free 0 AP, Minor 1 AP,
# Major 2 AP; normal movement 0 AP. Minor and Major actions can also be taken as
# Interrupts outside one's own turn (RULINGS, Initiative Passes 4).
ACTIONS = (
    _free("call_warning", "Call a Warning", "Shout a warning to someone: no AP."),
    _free("drop_item", "Drop an Item", "Let go of something held: no AP."),
    _free("gesture", "Make a Gesture", "A nod, a signal, a rude sign: no AP."),
    _free("speak", "Speak a Short Phrase", "A few words, said on the move: no AP."),
    _free("free_action", "Free Action", "Any other simple thing that takes no attention: no AP."),
    _minor("draw_weapon", "Draw a Weapon", "Ready a weapon or swap one in hand."),
    _minor("reload", "Reload", "Put fresh ammunition in a weapon."),
    _minor("open_door", "Open a Door", "Open or shut a door, a hatch, a lid within reach."),
    _minor("use_device", "Use a Device", "Work a device within reach: a switch, a panel, a lock."),
    _minor("minor_ability", "Minor Ability", "Activate a small ability, trait or piece of gear."),
    _minor("minor_action", "Minor Action", "Any other quick or supporting action (say what)."),
    _major(
        "attack",
        "Attack",
        "A melee or ranged attack: your attack roll against the target's defence, damage on a hit.",
        effect="attack",
        options=(TARGET, RANGED),
        extra={"needs": ("attack", "damage")},
    ),
    _major("hack", "Hack under Pressure", "Break into a system while the fight goes on."),
    _major("magical_ability", "Magical Ability", "Use a spell or magical power."),
    _major("emergency_treatment", "Emergency Treatment", "Patch up someone who is hurt."),
    _major("force_barrier", "Force a Barrier", "Break open a door, a gate or a jammed hatch."),
    _major(
        "major_action", "Major Action", "Any other action that takes real attention (say what)."
    ),
    ActionDef(
        "move",
        "Move",
        0,
        MOVEMENT,
        "Normal movement: no AP. Leaving an enemy's reach provokes nothing; this "
        "ruleset has no Opportunity Attacks.",
        effect="move",
        options=(LEAVE, WHAT, DESTINATION),
    ),
)

# The rule a refusal about AP cites, in the rules' own words.
AP_RULE = "Action Points and Actions"


class InitiativePasses(Ruleset):
    key = "initiative_passes"
    name = "Initiative Passes"
    currency = "AP"
    actions = ACTIONS
    uses_passes = True
    has_seize = True
    settings = (
        Setting(
            "ap_pool",
            "AP per round",
            3,
            min=0,
            max=20,
            per_combatant=True,
            help="Restored to the maximum at the start of every round; what is left at "
            "the end of a turn is kept for later passes and Interrupts.",
        ),
        Setting(
            "ap_per_turn",
            "AP per turn",
            4,
            min=0,
            max=20,
            help="The most AP a combatant may spend in one of its own turns. AP spent "
            "on Interrupts does not count.",
        ),
        Setting(
            "free_actions_per_turn",
            "Free Actions per turn (0: no cap)",
            0,
            min=0,
            max=20,
            help="The rules set no strict limit; the GM may cap them here.",
        ),
        speed_setting(
            "Movement per turn (m)",
            "Normal movement costs no AP; on the map a combatant moves this far in "
            "each of its turns, over as many moves as it likes.",
        ),
    )

    # --- resources ---------------------------------------------------------------------
    def init_combatant(self, enc: Encounter, c: Combatant) -> None:
        c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
        c.res.setdefault("ap", c.res["ap_max"])
        c.res["ap"] = min(c.res["ap"], c.res["ap_max"])
        c.res.setdefault("grit", 0)

    def refresh_limits(self, enc: Encounter, c: Combatant) -> None:
        c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
        c.res["ap"] = min(c.res.get("ap", 0), c.res["ap_max"])

    def modifiers(self) -> dict[str, Setting]:
        mods = {s.key: s for s in self.settings if s.per_combatant}
        # A trait or implant may let one combatant spend more (or less) per turn.
        mods["ap_per_turn"] = Setting(
            "ap_per_turn", "AP per turn", 4, min=0, max=20, per_combatant=True
        )
        return mods

    def spent_this_turn(self, enc: Encounter, c: Combatant) -> int:
        return int(c.turn.get("spent", 0)) if enc.turn == c.id else 0

    def resources(self, enc: Encounter, c: Combatant) -> list[dict[str, Any]]:
        ap, top = c.res.get("ap", 0), c.res.get("ap_max", 0)
        limit = int(self.setting(enc, "ap_per_turn", c))
        spent = self.spent_this_turn(enc, c)
        grit = c.res.get("grit", 0)
        if c.held:
            held = f"Holding: {ap} AP kept for Interrupts only"
        else:
            held = "In the passes" if ap else "Out of AP until the next round"
        return [
            gauge("ap", "AP", ap, top, "pips", f"AP {ap} of {top}"),
            gauge(
                "spent",
                "Spent this turn",
                spent,
                limit,
                "meter",
                f"spent this turn {spent} of {limit}",
            ),
            gauge("grit", "Grit", grit, None, "counter", f"Grit {grit}"),
            gauge("held", "Holding", int(c.held), 1, "toggle", held),
        ]

    # --- flow: rounds and passes ----------------------------------------------------------
    def on_round_start(self, enc: Encounter, ev: Events) -> None:
        super().on_round_start(enc, ev)
        for c in enc.combatants.values():
            c.res["ap_max"] = int(self.setting(enc, "ap_pool", c))
            c.res["ap"] = c.res["ap_max"]
            c.held = False
        ev.add("ap_restored", say="ip.ap_restored", data={"round": enc.round})

    def on_turn_start(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        super().on_turn_start(enc, c, ev)
        c.turn["spent"] = 0
        c.turn["free"] = 0

    def on_turn_end(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        # Ending a pass turn without spending any AP counts as holding (RULINGS 3).
        if c.held or c.turn.get("spent", 0):
            return
        c.held = True
        ap = c.res.get("ap", 0)
        if ap and not c.defeated:
            ev.add("hold", say="ip.held_by_default", actor=c.id, data={"ap": ap})

    def in_passes(self, c: Combatant) -> bool:
        """Still due a turn in the next pass: AP left, not holding, not defeated."""
        return not c.defeated and not c.held and c.res.get("ap", 0) > 0

    def eligible(self, enc: Encounter, c: Combatant) -> bool:
        if c.defeated:
            return False
        # Everyone standing has a turn in the first pass, even with no AP (normal
        # movement and Free Actions cost nothing); later passes only those still in.
        return enc.pass_no <= 1 or self.in_passes(c)

    def another_pass(self, enc: Encounter, ev: Events) -> bool:
        return any(self.in_passes(enc.combatants[i]) for i in enc.order if i in enc.combatants)

    def hold(self, enc: Encounter, c: Combatant, ev: Events) -> None:
        c.held = True
        ev.add("hold", say="ip.hold", actor=c.id, data={"ap": c.res.get("ap", 0)})

    # --- costs and limits ----------------------------------------------------------------
    def check_timing(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        if enc.phase == SEIZE:
            raise refuse(
                "between_rounds",
                f"Round {enc.round + 1} has not begun: between rounds only Seize the Moment "
                "can be declared.",
                **acting(c, a, round=enc.round + 1, rule="Seize the Moment"),
            )
        super().check_timing(enc, c, a, opts)

    def interrupts_allowed(self, enc: Encounter, c: Combatant, a: ActionDef) -> bool:
        # Minor and Major actions, and custom actions marked as interrupts, are ANY_TIME.
        return a.timing == ANY_TIME

    def check_limits(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> None:
        super().check_limits(enc, c, a, opts)
        if a.category == FREE:
            cap, used = self.turn_tally(enc, c, "free_actions_per_turn", "free")
            if cap and used >= cap:
                raise refuse(
                    "free_action_limit",
                    f"The GM allows {plural(cap, 'Free Action')} per turn: {c.name} has "
                    f"taken {used} this turn.",
                    **acting(c, a, limit=cap, made=used, rule="Free Actions"),
                )

    def check_cost(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        if self.off_turn(enc, c):
            if c.res.get("ap", 0) < 1:
                raise refuse(
                    "no_ap_left",
                    f"An Interrupt is paid from AP left: {c.name} has 0 AP until the next round.",
                    **acting(c, a, left=0, rule=AP_RULE),
                )
            self.check_ap(
                enc, c, a, opts, as_what=" as an Interrupt", tail=" left this round", rule=AP_RULE
            )
            return
        restored = " left this round (AP is restored at the start of the next round)"
        cost = self.check_ap(enc, c, a, opts, tail=restored, rule=AP_RULE)
        limit, spent = self.turn_tally(enc, c, "ap_per_turn", "spent")
        if spent + cost > limit:
            raise refuse(
                "turn_limit",
                f"At most {limit} AP per turn: {c.name} has spent {spent} this turn and "
                f"{a.name} costs {cost} more.",
                **acting(c, a, cost=cost, spent=spent, limit=limit, rule=AP_RULE),
            )

    def pay(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> None:
        cost = self.price(enc, c, a, opts)
        c.res["ap"] -= cost
        if self.off_turn(enc, c):
            # Interrupts are paid from the pool but not counted toward the per-turn limit.
            c.round["interrupt_ap"] = c.round.get("interrupt_ap", 0) + cost
        else:
            c.turn["spent"] = c.turn.get("spent", 0) + cost

    def record(self, enc: Encounter, c: Combatant, a: ActionDef, *, free: bool) -> None:
        if self.off_turn(enc, c):
            # The combatant's own turn counters are left alone: this is not its turn.
            c.round["interrupts"] = c.round.get("interrupts", 0) + 1
            c.round[a.key] = c.round.get(a.key, 0) + 1
            return
        super().record(enc, c, a, free=free)
        if a.category == FREE and not free:
            c.turn["free"] = c.turn.get("free", 0) + 1

    # --- resolvers -----------------------------------------------------------------------
    def resolve(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        first = len(ev.items)
        super().resolve(enc, c, a, opts, rng, ev)
        if self.off_turn(enc, c):
            for e in ev.items[first:]:
                e["data"]["interrupt"] = True

    def spent_text(self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]) -> str:
        cost = self.price(enc, c, a, opts)
        paid = "no AP" if cost == 0 else f"{cost} AP"
        return f" (Interrupt, {paid})" if self.off_turn(enc, c) else f" ({paid})"

    def path_allowance(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: dict[str, Any]
    ) -> tuple[float, str, str] | None:
        """Normal movement is free, up to the combatant's movement per turn, over as many
        moves as it likes; what is left this turn is the allowance."""
        if a.key != "move":
            return None
        speed = float(self.setting(enc, "speed", c))
        moved = float(c.turn.get("moved", 0))
        rule = (
            f"Normal movement does not cost AP: {speed:g} m a turn, {moved:g} m moved "
            "already this turn"
        )
        return max(speed - moved, 0.0), rule, "walk"

    def do_move(
        self, enc: Encounter, c: Combatant, a: ActionDef, opts: Opts, rng: Rng, ev: Events
    ) -> None:
        data: dict[str, Any] = {
            "action": a.key,
            "spent": self.spent_text(enc, c, a, opts),
            "what": opts.get("text") or "",
        }
        if opts.get("to"):
            from .paths import take

            moved = take(enc, self, c, a, opts)
            c.turn["moved"] = float(c.turn.get("moved", 0)) + moved["cost"]
            data |= {
                "to": moved["to"],
                "metres": moved["cost"],
                "short_of": moved["path"][-1] if moved.get("stopped") else None,
                "this_turn": c.turn["moved"],
                "speed": float(self.setting(enc, "speed", c)),
            }
        ev.add("move", say="ip.move", actor=c.id, data=data)
        if opts.get("leave", True) and c.engaged:
            # No Opportunity Attacks in this ruleset: leaving reach never provokes.
            self.leave_reach(enc, c, provokes=False, ev=ev)
