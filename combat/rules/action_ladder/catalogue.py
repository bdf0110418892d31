"""The Action Ladder's catalogue as data: every printed action with its cost, timing,
options and the stats it needs (action-ladder.md, RULINGS "Action Ladder")."""

from __future__ import annotations

from typing import Any

from ..base import DESTINATION, TARGET, TARGET_REQUIRED
from ..catalogue import ANY_TIME, OWN_TURN, REACTION, ActionDef, Option
from .ladder import PACES, STEPS

# --- options --------------------------------------------------------------------------

PACE = Option("pace", "Pace (Slow or Quicken)", kind="choice", choices=PACES, default="standard")
LEAVE = Option("leave", "Leave melee reach", kind="bool", default=True)
DIFFICULT = Option("difficult", "Difficult terrain", kind="bool", default=False)
FOLD_JUMP = Option(
    "jump",
    "Jump while moving",
    kind="choice",
    choices=("none", "standing", "running"),
    default="none",
)
RUN_UP = Option("run_up", "Running start (m)", min=0, max=100, default=0)
LEDGE = Option("ledge", "Grab an overhead ledge", kind="bool")
RANGED = Option("ranged", "Ranged", kind="bool", default=False)
WHAT = Option("text", "What happens", kind="text")
WEIGHT = Option("weight", "Item weight", min=0, max=1000, default=0)
DISTANCE = Option("distance", "Distance (m)", min=0, max=1000, default=0)
THROW_DISTANCE = Option(
    "distance", "Distance (m), checked against the Throw Range", min=0, max=1000, required=True
)


def _act(key: str, name: str, cost: int, category: str, summary: str, **kw: Any) -> ActionDef:
    """An ActionDef with the Pace option that every action taken with `act` carries."""
    options = tuple(kw.pop("options", ()))
    if kw.get("timing") != REACTION:
        options = (*options, PACE)
    return ActionDef(key, name, cost, category, summary, options=options, **kw)


def _reaction(
    key: str, name: str, summary: str, *, bonus: int = 1, timing: str = REACTION, **kw: Any
) -> ActionDef:
    """A reaction of the catalogue: it takes no ½ Actions and is paid in Bonus Actions."""
    return _act(key, name, 0, "reaction", summary, bonus=bonus, timing=timing, reaction=True, **kw)


def _prone(key: str, name: str, cost: int, summary: str, question: Option) -> ActionDef:
    """Stand Up or Fall Prone: a Movement Action with its own effect and one question."""
    return _act(key, name, cost, "movement", summary, effect=key, options=(question,))


# --- Movement Actions: each leaves melee reach (LEAVE) and counts as movement -------------

GET_OUT = Option("get_out", "Get up or out of the water", kind="bool")
FOLDS = (DIFFICULT, FOLD_JUMP, RUN_UP, LEDGE)  # a Walk, Run or Sprint may fold in a jump
DIRECTION = Option("direction", "Direction", kind="choice", choices=("up", "down"), default="up")
HANDS_EMPTY = Option("hands_empty", "Nothing held to stow", kind="bool", default=False)
JUMP_KIND = Option(
    "kind", "Jump", kind="choice", choices=("standing", "running"), default="standing"
)
RUN = "Move your full Speed plus your Athletics level; a jump can be folded in."
SPRINT = "Move your full Speed plus Athletics level plus an AGI roll with its bonus."
CLIMB = (
    "Climb up or down as many metres as your AGI die has sides; beginning a climb "
    "stows what you hold, as the turn's Draw/Stow."
)
CRAWL = (
    "Prone only: crawl half your AGI die size in metres. Once crawling, keep to Crawl "
    "until you Stand Up."
)
SWIM = "Swim or dive a third of your Speed. Once swimming, keep to Swim until a Step takes you out."
JUMP = (
    "A standing or running jump on its own, on a map to a cell within its distance "
    "(fold it into a Walk, Run or Sprint to spend metres instead)."
)


def _move(
    key: str,
    name: str,
    cost: int,
    summary: str,
    *options: Option,
    needs: tuple[str, ...] = (),
    effect: str = "move",
    **kw: Any,
) -> ActionDef:
    """A Movement Action of the catalogue: LEAVE first among its options, and marked movement."""
    extra: dict[str, Any] = {"movement": True, **({"needs": needs} if needs else {})}
    return _act(
        key,
        name,
        cost,
        "movement",
        summary,
        effect=effect,
        options=(LEAVE, *((DESTINATION,) if effect in ("move", "jump") else ()), *options),
        extra=extra,
        **kw,
    )


def _contest(
    key: str,
    name: str,
    cost: int,
    needs: tuple[str, ...],
    against: tuple[str, ...],
    summary: str,
    **kw: Any,
) -> ActionDef:
    """A contest against a named target: the actor rolls `needs`, the target `against`."""
    extra = {"needs": needs, "target_needs": against}
    return _act(
        key,
        name,
        cost,
        "combat",
        summary,
        effect=key,
        options=(TARGET_REQUIRED,),
        extra=extra,
        **kw,
    )


ATTACK_NEEDS = ("attack", "damage", "FCS")

ACTIONS = (
    # Basic movement
    _move(
        "step", "Step", 0, "Move up to 2 m (1 m in difficult terrain).", DIFFICULT, GET_OUT, bonus=1
    ),
    _move("walk", "Walk", 1, "Move up to a third of your Speed; a jump can be folded in.", *FOLDS),
    _move("run", "Run", 2, RUN, *FOLDS),
    _move("sprint", "Sprint", 2, SPRINT, *FOLDS, needs=("AGI",), bonus=1),
    _move("climb", "Climb", 2, CLIMB, DIRECTION, HANDS_EMPTY, needs=("AGI",)),
    _move("crawl", "Crawl", 2, CRAWL, needs=("AGI",)),
    _move("swim", "Swim", 2, SWIM),
    _move("jump", "Jump", 1, JUMP, JUMP_KIND, RUN_UP, LEDGE, needs=("AGI",), effect="jump"),
    _prone(
        "stand_up",
        "Stand Up",
        2,
        "Get up from prone (not while someone occupies your space).",
        Option("occupied", "Someone occupies my space", kind="bool"),
    ),
    _prone(
        "fall_prone",
        "Fall Prone",
        1,
        "Drop prone; in water waist-deep or deeper you begin to swim instead.",
        Option("deep_water", "In waist-deep water or deeper", kind="bool"),
    ),
    # Basic combat actions
    _act(
        "aim", "Aim", 0, "combat", "+2 to hit with your next Ranged Attack.", effect="aim", bonus=1
    ),
    _act(
        "assist",
        "Assist",
        0,
        "combat",
        "A quick helping hand to an ally (a Bonus Action); say what you help with, and the "
        "GM judges what it is worth.",
        effect="assist",
        bonus=1,
        options=(TARGET_REQUIRED, WHAT),
    ),
    _act(
        "attack",
        "Attack",
        1,
        "combat",
        "A basic melee or ranged attack, repeatable: the 2nd in a turn adds half your "
        "FCS bonus, later ones none.",
        effect="attack",
        attack=True,
        options=(TARGET, RANGED),
        extra={"needs": ATTACK_NEEDS},
    ),
    _act(
        "brace",
        "Brace",
        2,
        "combat",
        "Until your next turn your RES counts double on every defence roll.",
        effect="brace",
        extra={"needs": ("RES",)},
    ),
    _act(
        "consume",
        "Consume",
        0,
        "free",
        "Drink a potion or remedy, or eat a bite: free the first time each turn, then a "
        "Bonus Action.",
        effect="free",
        free_kind="consume",
        options=(WHAT,),
    ),
    _act(
        "disarm",
        "Disarm",
        2,
        "combat",
        "Contested melee attack; if you win, the enemy's weapon falls to the ground.",
        effect="disarm",
        attack=True,
        options=(TARGET_REQUIRED,),
        extra={"needs": ("attack", "FCS"), "target_needs": ("attack", "FCS")},
    ),
    _act(
        "draw_stow",
        "Draw / Stow Weapon",
        0,
        "free",
        "Draw or stow a weapon or shield: free the first time each turn, then a Bonus Action.",
        effect="free",
        free_kind="draw_stow",
        options=(
            Option(
                "which", "Draw or stow", kind="choice", choices=("draw", "stow"), default="draw"
            ),
            WHAT,
        ),
    ),
    _act(
        "drop",
        "Drop",
        0,
        "free",
        "Let go of a held item: free the first time each turn, then a Bonus Action.",
        effect="free",
        free_kind="drop",
        options=(WHAT,),
    ),
    _act(
        "pick_up",
        "Pick Up",
        1,
        "combat",
        "Pick an item up off the ground.",
        effect="pick_up",
        options=(WHAT,),
    ),
    _act(
        "evade",
        "Evade",
        1,
        "combat",
        "Your AGI bonus counts double on your first AGI Save or Dodge before your next turn.",
        effect="evade",
        extra={"needs": ("AGI",)},
    ),
    _contest(
        "feint",
        "Feint",
        1,
        ("deception",),
        ("FCS",),
        "Deception against the target's FCS (Focus) save; win and your next melee attack "
        "roll gets +5.",
    ),
    _act(
        "aid",
        "Aid",
        3,
        "combat",
        "Help an ally in reach: lift Incapacitated, put out 2 Burning stacks, or stem "
        "Bleeding by a First Aid roll − 10.",
        effect="aid",
        options=(
            TARGET_REQUIRED,
            Option(
                "condition",
                "Condition",
                kind="choice",
                choices=("incapacitated", "burning", "bleeding"),
                required=True,
            ),
        ),
    ),
    _act(
        "administer",
        "Administer",
        2,
        "combat",
        "First Aid (heal your First Aid level) or help a willing creature drink a potion "
        "you carry.",
        effect="administer",
        options=(
            TARGET_REQUIRED,
            Option(
                "mode", "What", kind="choice", choices=("first_aid", "potion"), default="first_aid"
            ),
            WHAT,
        ),
    ),
    _act(
        "grapple",
        "Grapple",
        3,
        "combat",
        "Begin a grapple (a STR contest) for 1½ Action or 2 Bonus Actions; sustain it at "
        "the start of each of your turns with 2 Bonus Actions.",
        effect="grapple",
        options=(TARGET, Option("with_bonus", "Pay 2 Bonus Actions instead", kind="bool")),
        extra={"needs": ("STR",), "target_needs": ("STR",), "alt": (0, 2)},
    ),
    _act(
        "break_free",
        "Break Free",
        4,
        "combat",
        "While grappled, once per turn: a Full Action to roll the grappling test.",
        effect="break_free",
        limit="once_per_turn",
        extra={"needs": ("STR",)},
    ),
    _act(
        "guard",
        "Guard",
        1,
        "combat",
        "Once per round: a free Parry or Block against one attack before your next turn.",
        effect="guard",
        limit="once_per_round",
    ),
    _contest(
        "hide",
        "Hide",
        2,
        ("stealth",),
        ("perception",),
        "Stealth against the target's Perception; win and you are Unseen by them.",
    ),
    _contest(
        "shove",
        "Shove",
        0,
        ("STR",),
        ("STR",),
        "STR contest; the loser is pushed back half your STR dice (min 1 m) and must "
        "make a STR save against your roll or fall prone.",
        bonus=1,
    ),
    _act(
        "skip",
        "Skip / Prepare",
        0,
        "combat",
        "Your first action only: describe what you wait for and end the turn. When it "
        "happens you act right after that turn, and keep that place in later rounds.",
        effect="skip",
        limit="first_action",
        options=(Option("text", "Prepared for", kind="text", required=True),),
        extra={"label": "Skip Turn"},
    ),
    _act(
        "throw",
        "Throw",
        1,
        "combat",
        "Ranged attack with a hurled item; range is STR bonus − weight (+X for Thrown(X)). "
        "The target may Dodge, or Catch it after the hit.",
        effect="throw",
        attack=True,
        options=(
            TARGET,
            WEIGHT,
            Option("thrown", "Thrown (X)", min=0, max=100, default=0),
            THROW_DISTANCE,
        ),
        extra={"needs": ("STR", *ATTACK_NEEDS)},
    ),
    _act(
        "toss",
        "Toss",
        0,
        "combat",
        "Toss a held item of up to half your STR bonus in weight, up to your STR bonus in "
        "metres; the one it is tossed to may Catch it.",
        effect="toss",
        bonus=1,
        options=(
            TARGET,
            WEIGHT,
            DISTANCE,
            Option("wd", "Weapon damage (WD), if a weapon", min=0, max=100, default=0),
            WHAT,
        ),
        extra={"needs": ("STR",)},
    ),
    _act(
        "trip",
        "Trip",
        2,
        "combat",
        "Melee attack (double FCS with a Trip weapon); on a hit, damage and an AGI save "
        "against the hit roll or fall prone.",
        effect="trip",
        attack=True,
        options=(TARGET, Option("trip_weapon", "With a Trip weapon", kind="bool")),
        extra={"needs": ATTACK_NEEDS, "target_needs": ("AGI",)},
    ),
    _act(
        "ability",
        "Ability or Spell",
        2,
        "magic",
        "Use an Ability or Spell in place of a basic action: choose how long it takes "
        "(a Quick Spell is ½, a Complex Spell 1½, a Very Complex one Full).",
        effect="plain",
        options=(
            Option("length", "How long", kind="choice", choices=STEPS, default="one"),
            TARGET,
            WHAT,
        ),
    ),
    _act(
        "extended",
        "Extended Action",
        0,
        "other",
        "A very long task (donning armour): as many whole turns as the GM sets when it is "
        "declared.",
        effect="plain",
        options=(
            Option(
                "turns",
                "Whole turns (set by the GM)",
                min=1,
                max=20,
                gm_only="An Extended Action takes as many whole turns as the "
                "GM sets; sent without it, the encounter's Extended Action setting applies",
            ),
            WHAT,
        ),
        extra={"label": "Extended Action"},
    ),
    # Reactions: Bonus Actions, off-turn allowed
    _reaction(
        "dodge",
        "Dodge",
        "When attacked: add an AGI roll and bonus to your defence (not while prone).",
        extra={"needs": ("AGI",)},
    ),
    _reaction(
        "parry",
        "Parry",
        "When attacked: add a STR or AGI roll and bonus plus the weapon's Parry Rating.",
    ),
    _reaction(
        "block",
        "Block",
        "When attacked, with a shield: add a RES roll and bonus plus the Block Rating.",
        extra={"needs": ("RES",)},
    ),
    _reaction(
        "opportunity_attack",
        "Attack of Opportunity",
        "When an enemy leaves your reach with a Movement Action: a basic Attack.",
        attack=True,
        extra={"needs": ATTACK_NEEDS},
    ),
    _reaction(
        "disengage",
        "Disengage",
        "Retreat without provoking: the Movement Action taken directly after it does not "
        "provoke Attacks of Opportunity.",
        effect="disengage",
        timing=OWN_TURN,  # taken on one's own turn, before the Movement Action
    ),
    _reaction(
        "catch",
        "Catch",
        "Catch a thrown or tossed item about to hit you (a free hand needed).",
    ),
    _reaction(
        "interrupt",
        "Interrupt",
        "Melee attack on an adjacent enemy; they may only Dodge. On a hit their action "
        "under way is lost and you deal damage.",
        effect="interrupt",
        bonus=2,
        timing=ANY_TIME,
        attack=True,
        options=(TARGET_REQUIRED,),
        extra={"needs": ATTACK_NEEDS},
    ),
)
