"""One working example of every command: the ruleset, the GM's setup, and the command itself.

Placeholders in braces name the table's combatants ({ana}, {goblin}, ...), the open reaction
window ({window}) or whoever's turn it is ({turn}). Each recipe is accepted when the GM sends
it; `PLAYER_MAY` marks the commands the owning player (seat 1: Ana and Cid) may send too.
"""

from __future__ import annotations

from typing import Any

from combat import services
from combat.access import gm_viewer
from combat.rules import COMMANDS

from .conftest import Table

Step = tuple[str, dict[str, Any]]
START: Step = ("start_combat", {})
AP, LADDER, PASSES = "action_points", "action_ladder", "initiative_passes"

RECIPES: dict[str, tuple[str, list[Step], dict[str, Any]]] = {
    # GM only
    "add_combatant": (AP, [], {"name": "Newt", "side": "npc"}),
    "update_combatant": (AP, [], {"actor": "{goblin}", "name": "Goblin Boss"}),
    "remove_combatant": (AP, [], {"actor": "{goblin}"}),
    "hide": (AP, [], {"actor": "{goblin}"}),
    "reveal": (AP, [], {"actor": "{troll}"}),
    "defeat": (AP, [], {"actor": "{goblin}"}),
    "revive": (AP, [("defeat", {"actor": "{goblin}"})], {"actor": "{goblin}"}),
    "damage": (AP, [], {"actor": "{goblin}", "amount": 3}),
    "heal": (
        AP,
        [("damage", {"actor": "{goblin}", "amount": 3})],
        {"actor": "{goblin}", "amount": 2},
    ),
    "roll_initiative": (AP, [], {}),
    "set_initiative": (AP, [], {"actor": "{goblin}", "initiative": 12}),
    "start_combat": (AP, [], {}),
    "begin_round": (PASSES, [START], {}),
    "end_combat": (AP, [START], {}),
    "grant": (
        AP,
        [START],
        {"actor": "{ana}", "action": "basic_attack", "options": {"target": "{goblin}"}},
    ),
    "adjust": (AP, [], {"actor": "{ana}", "resource": "hp", "value": 10}),
    "set_cost": (AP, [], {"action": "basic_attack", "cost": 2}),
    "set_modifier": (AP, [], {"actor": "{ana}", "key": "attacks_per_turn", "value": 2}),
    "set_setting": (AP, [], {"key": "initiative_formula", "value": "1d12"}),
    "add_custom_action": (AP, [], {"name": "Kick", "cost": 1}),
    "remove_custom_action": (
        AP,
        [("add_custom_action", {"name": "Kick", "cost": 1})],
        {"action": "custom_kick"},
    ),
    "close_windows": (
        AP,
        [
            START,
            ("engage", {"actor": "{ana}", "target": "{goblin}"}),
            ("act", {"actor": "{ana}", "action": "move"}),
        ],
        {},
    ),
    "force_move": (AP, [], {"actor": "{ana}", "how": "forced"}),
    "place_in_order": (AP, [], {"actor": "{goblin}", "before": "{ana}"}),
    # the battle map (issue 34)
    "set_board": (AP, [], {"width": 8, "height": 6}),
    "remove_board": (AP, [("set_board", {"width": 8, "height": 6})], {}),
    "board_image": (
        AP,
        [("set_board", {"width": 8, "height": 6})],
        {"image": "0123456789abcdef0123456789abcdef", "width": 640, "height": 480},
    ),
    "paint": (AP, [("set_board", {"width": 8, "height": 6})], {"cells": "B2", "terrain": "wall"}),
    "fog": (AP, [("set_board", {"width": 8, "height": 6})], {"cells": "C3:D4"}),
    "place": (AP, [("set_board", {"width": 8, "height": 6})], {"actor": "{ana}", "cell": "C4"}),
    "set_pace": (LADDER, [], {"step": "½ Action", "pace": "slowed", "to": "Full Action"}),
    "set_condition": (AP, [], {"actor": "{goblin}", "name": "Prone"}),
    "undo": (AP, [("damage", {"actor": "{goblin}", "amount": 3})], {}),
    # the GM, or the player whose combatant it is
    "act": (
        AP,
        [START],
        {"actor": "{ana}", "action": "basic_attack", "options": {"target": "{goblin}"}},
    ),
    "react": (
        AP,
        [
            START,
            ("engage", {"actor": "{goblin}", "target": "{ana}"}),
            ("end_turn", {}),
            ("end_turn", {}),
            ("act", {"actor": "{goblin}", "action": "move"}),
        ],
        {"actor": "{ana}", "window": "{window}", "accept": True},
    ),
    "end_turn": (AP, [START], {"actor": "{ana}"}),
    "hold": (PASSES, [START, ("begin_round", {})], {"actor": "{turn}"}),
    "take_turn": (
        AP,
        [
            ("update_combatant", {"actor": "{ana}", "group": "Party"}),
            ("update_combatant", {"actor": "{cid}", "group": "Party"}),
            ("set_initiative", {"actor": "{ana}", "initiative": 30}),
            START,
        ],
        {"actor": "{cid}"},
    ),
    "seize": (PASSES, [START], {"actor": "{ana}"}),
    "reorder": (
        AP,
        [("set_initiative", {"actor": "{cid}", "initiative": 20})],
        {"actor": "{ana}", "direction": "down"},
    ),
    "engage": (AP, [], {"actor": "{ana}", "target": "{goblin}"}),
    "abandon": (
        LADDER,
        [
            START,
            # A Full Action on a turn with one Action left: the rest carries over.
            ("act", {"actor": "{ana}", "action": "ability", "options": {"length": "full"}}),
        ],
        {"actor": "{ana}"},
    ),
    "trigger": (
        LADDER,
        [START, ("act", {"actor": "{ana}", "action": "skip", "options": {"text": "x"}})],
        {"actor": "{ana}"},
    ),
    "roll": (AP, [], {"actor": "{ana}", "dice": "1d6"}),
    # Planning off-turn: Cid waits while Ana acts.
    "plan": (
        AP,
        [START],
        {"actor": "{cid}", "action": "basic_attack", "options": {"target": "{goblin}"}},
    ),
    "cancel_plan": (
        AP,
        [
            START,
            (
                "plan",
                {"actor": "{cid}", "action": "basic_attack", "options": {"target": "{goblin}"}},
            ),
        ],
        {"actor": "{cid}"},
    ),
}

PLAYER_MAY = frozenset(
    {
        "act",
        "react",
        "end_turn",
        "hold",
        "take_turn",
        "seize",
        "reorder",
        "engage",
        "abandon",
        "trigger",
        "roll",
        "plan",
        "cancel_plan",
    }
)

# Every command the server takes: the engine's catalogue of commands, plus the GM's undo.
ALL_COMMANDS = sorted({*COMMANDS, "undo"})


def fill(value: Any, t: Table) -> Any:
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        key = value[1:-1]
        state = t.refresh().state
        if key == "window":
            return state["pending"][0]["id"]
        if key == "turn":
            return state["turn"]
        return t.ids[key]
    if isinstance(value, dict):
        return {k: fill(v, t) for k, v in value.items()}
    return value


def prepare(t: Table, name: str) -> dict[str, Any]:
    """Play the recipe's setup as the GM and return its command, ready to send."""
    _, setup, command = RECIPES[name]
    for kind, fields in setup:
        result = services.run_command(t.enc.pk, gm_viewer(t.enc), {"type": kind, **fill(fields, t)})
        assert result.ok, (name, kind, result.refusal)
    return {"type": name, **fill(command, t)}


def as_form(command: dict[str, Any]) -> dict[str, str]:
    """The command as the pages post it: plain fields, and options as opt_<name>."""
    out: dict[str, str] = {}
    for key, value in command.items():
        if key == "options":
            out.update({f"opt_{k}": _text(v) for k, v in value.items()})
        else:
            out[key] = _text(value)
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)
