"""The fields each command reads, as data: the source of the API's published description.

This table says, for each command in COMMANDS (and `undo`, which the server handles),
which fields it takes, of what kind and within which bounds; the engine's handlers
(engine.py) check each number and text against the bounds given here (`span`, `length`),
so the description and the checks are one. The OpenAPI description of the JSON
API (combat/contract.py) is built from it, from each ruleset's action options and from
its per-combatant settings, so a command added to COMMANDS without a line here fails
tests/web/test_api_contract.py.

Kinds: "int" (min..max), "bool", "text" (at most max_length characters), "choice"
(one of choices), "id" (a combatant, window or action key), "object" (stats, options),
"scalar" (a number, true/false or text, checked against the setting it names).
"""

from __future__ import annotations

from dataclasses import dataclass

# Lengths of names, notes and free text, wherever they appear.
MAX_NAME = 80
MAX_NOTES = 2000
MAX_TEXT = 500


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    help: str
    required: bool = False
    min: int = 0
    max: int = 0
    max_length: int = 0
    choices: tuple[str, ...] = ()


def _int(name: str, lo: int, hi: int, help: str, required: bool = False) -> Field:
    return Field(name, "int", help, required, min=lo, max=hi)


def _text(name: str, limit: int, help: str, required: bool = False) -> Field:
    return Field(name, "text", help, required, max_length=limit)


def _bool(name: str, help: str) -> Field:
    return Field(name, "bool", help)


def _id(name: str, help: str, required: bool = False) -> Field:
    return Field(name, "id", help, required)


ACTOR = _id("actor", "the combatant's id (like c1)", required=True)
ACTOR_OPTIONAL = _id("actor", "the combatant's id; leave out for the one whose turn it is")

# What add_combatant and update_combatant set (engine.apply_fields), besides the
# per-combatant settings of the encounter's ruleset (added by combat/contract.py).
COMBATANT_FIELDS = (
    Field("side", "choice", "which side it fights on", choices=("pc", "npc")),
    _text("notes", MAX_NOTES, "the GM's notes (only the GM sees them)"),
    _int("initiative_bonus", -100, 100, "added to its initiative roll"),
    _int("initiative", -100, 1000, "a fixed initiative instead of a roll"),
    _int("hp", 0, 100_000, "maximum (and, for a new combatant, current) HP"),
    _bool("hidden", "hidden from players and spectators"),
    Field(
        "npc_health",
        "choice",
        "how players and spectators see this NPC's health (exact, band or hidden); "
        "encounter: follow the encounter's npc_health setting",
        choices=("encounter", "exact", "band", "hidden"),
    ),
    Field("stats", "object", "name to {dice, bonus}, or name to a dice expression"),
    _text("group", MAX_NAME, "a group name: its members act on one initiative"),
    _int("grit", 0, 99, "Initiative Passes: Grit points"),
)

# act, and grant (the same action at no cost, by the GM).
ACTION_FIELDS = (
    ACTOR,
    _id("action", "the action's key (see GET /api/rulesets)", required=True),
    _id("target", "the target's id, where the action has one"),
    Field("options", "object", "the action's declared options"),
)

FIELDS: dict[str, tuple[Field, ...]] = {
    "add_combatant": (_text("name", MAX_NAME, "its name", required=True), *COMBATANT_FIELDS),
    "update_combatant": (ACTOR, _text("name", MAX_NAME, "a new name"), *COMBATANT_FIELDS),
    "remove_combatant": (ACTOR,),
    "hide": (ACTOR, _bool("hidden", "true hides, false shows (default: hide)")),
    "reveal": (ACTOR, _bool("hidden", "true hides, false shows (default: reveal)")),
    "defeat": (ACTOR,),
    "revive": (ACTOR,),
    "damage": (ACTOR, _int("amount", 0, 100_000, "HP taken away", required=True)),
    "heal": (ACTOR, _int("amount", 0, 100_000, "HP given back", required=True)),
    "roll_initiative": (_id("actor", "one combatant; leave out for everyone"),),
    "set_initiative": (ACTOR, _int("initiative", -100, 1000, "the initiative", required=True)),
    "start_combat": (),
    "begin_round": (),
    "end_combat": (),
    "grant": ACTION_FIELDS,
    "adjust": (
        ACTOR,
        _id("resource", "hp, reaction, or a resource the combatant has (ap, grit, ...)", True),
        Field("value", "scalar", "the new value: a whole number (true/false for the reaction)"),
    ),
    "set_cost": (
        _id("action", "the action's key", required=True),
        _int("cost", 0, 20, "the new cost in the ruleset's currency", required=True),
        _id("actor", "one combatant only; leave out for everyone"),
    ),
    "set_modifier": (
        ACTOR,
        _id("key", "a per-combatant setting or modifier of the ruleset", required=True),
        Field("value", "scalar", "its value: a whole number, or true/false for a yes/no one"),
    ),
    "set_setting": (
        _id("key", "a setting of the ruleset (see GET /api/rulesets)", required=True),
        Field("value", "scalar", "its value: a number, true/false, a dice expression or a choice"),
    ),
    "add_custom_action": (
        _text("name", MAX_NAME, "the action's name; its key becomes custom_<name>", True),
        _int("cost", 0, 20, "its cost in the ruleset's currency"),
        _int("bonus", 0, 4, "Action Ladder: Bonus Actions it takes"),
        _bool("attack", "counts toward the attacks per turn"),
        _bool("spell", "is a spell"),
        _bool("reaction", "is taken as a reaction"),
        _bool("interrupt", "may be taken outside the actor's turn"),
        _text("summary", MAX_TEXT, "what it does, in words"),
    ),
    "remove_custom_action": (_id("action", "the custom action's key", required=True),),
    "close_windows": (),
    "force_move": (
        ACTOR,
        Field("how", "choice", "forced movement or teleportation", choices=("forced", "teleport")),
        _text("cell", 10, "on a map, where to: its (top-left) cell, C4 or x,y from 0"),
    ),
    # The battle map (board.py). Cells: "C4 D4 A1:B3", or x,y counted from 0.
    "set_board": (
        _int("width", 1, 100, "columns (required to add a map; default: unchanged)"),
        _int("height", 1, 100, "rows (required to add a map; default: unchanged)"),
        Field("cell_m", "scalar", "the side of a cell in metres, 0.1 to 100 (default 1)"),
        Field(
            "diagonals",
            "choice",
            "how diagonal steps count: 1-2-1 (every second one is two cells; the default) or "
            "1-1-1 (each is one)",
            choices=("1-2-1", "1-1-1"),
        ),
    ),
    "remove_board": (),
    "board_image": (
        _text(
            "image",
            32,
            "the name (a content hash) the GM's upload form gave the image; empty removes it",
        ),
        _int("width", 1, 4096, "its width in pixels (required with an image)"),
        _int("height", 1, 4096, "its height in pixels (required with an image)"),
    ),
    "paint": (
        _text("cells", 20_000, "the cells: C4 D4 A1:B3 (spaces between)", required=True),
        Field(
            "terrain",
            "choice",
            "the terrain to paint, or clear to erase",
            True,
            choices=("difficult", "water", "deep_water", "wall", "climbable", "clear"),
        ),
    ),
    "fog": (
        _text("cells", 20_000, "the cells: C4 D4 A1:B3 (spaces between)", required=True),
        _bool("fogged", "false clears the fog (default: fog)"),
    ),
    "place": (
        ACTOR,
        _text("cell", 10, "its (top-left) cell: C4 or x,y from 0; off (or empty) takes it off"),
        Field("size", "scalar", "its size in cells, 1 to 10 (default 1)"),
        Field("reach", "scalar", "its melee reach in metres (default: one cell)"),
    ),
    "undo": (),
    "act": ACTION_FIELDS,
    "react": (
        ACTOR,
        _id("window", "the open reaction window's id (state.pending)", required=True),
        _bool("accept", "false lets the moment pass (default: true)"),
        Field("options", "object", "the reaction's options"),
    ),
    "end_turn": (ACTOR_OPTIONAL,),
    "hold": (ACTOR_OPTIONAL,),
    "take_turn": (ACTOR,),
    "seize": (ACTOR,),
    "reorder": (
        ACTOR,
        Field("direction", "choice", "which neighbour to swap with", True, choices=("up", "down")),
    ),
    "engage": (
        ACTOR,
        _id("target", "the other combatant's id", required=True),
        _bool("engaged", "false separates them (GM only; default: true)"),
    ),
    "abandon": (ACTOR,),
    "trigger": (ACTOR,),
    "plan": ACTION_FIELDS,
    "place_in_order": (
        ACTOR,
        _id("before", "the combatant it is placed right before"),
        _id("after", "the combatant it is placed right after"),
    ),
    "cancel_plan": (ACTOR,),
    "set_pace": (
        _id("step", "Action Ladder: the step (or its label) being slowed or quickened"),
        Field("pace", "choice", "which column", choices=("slowed", "quickened")),
        _id("to", "the step it becomes"),
        _bool("reset", "true restores the printed table"),
    ),
    "set_condition": (
        ACTOR,
        _text("name", 40, "the condition's name (Prone, Bleeding, ...)", required=True),
        _int("stacks", 0, 99, "how many (0 clears it; default 1)"),
        Field(
            "until",
            "choice",
            "how long it lasts: until cleared (the default), the start or end of the "
            "next turn of the combatant named in `of`, or a number of `rounds`",
            choices=("cleared", "turn_start", "turn_end", "rounds"),
        ),
        _id("of", "whose next turn ends it (with until turn_start or turn_end)"),
        _int("rounds", 1, 99, "with until rounds: how many rounds, the current one counting"),
    ),
    "roll": (
        _text("dice", 100, "a dice expression like 2d6+1", required=True),
        _text("label", MAX_NAME, "what the roll is for"),
        _id("actor", "who rolls; leave out for the GM"),
        _bool("secret", "GM only: a roll only the GM sees"),
    ),
}


def field(command: str, name: str) -> Field:
    """The field `name` of `command` in the table (a KeyError is a bug: the table is fixed)."""
    for f in FIELDS[command]:
        if f.name == name:
            return f
    raise KeyError(f"{command} has no field {name}")


def span(command: str, name: str) -> tuple[int, int]:
    """The smallest and largest whole number the field takes."""
    f = field(command, name)
    assert f.kind == "int", (command, name)
    return f.min, f.max


def length(command: str, name: str) -> int:
    """The most characters the text field takes."""
    f = field(command, name)
    assert f.kind == "text", (command, name)
    return f.max_length
