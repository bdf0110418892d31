"""The command table: for every command, what runs it and who may send it.

One `CommandSpec` a command. The functions live in engine.py, which looks a command
up here (or among the ruleset's own, `Ruleset.commands`) to run it and to refuse a
player a GM-only one; the server reads the same spec to decide whether a seat may send
it (`services.check_permission`). `undo` is the server's: it has a spec, no function.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import board as b
from . import engine as e
from . import plans, reorder

if TYPE_CHECKING:
    from .base import Ruleset
    from .events import Events
    from .state import Encounter

Handler = Callable[["Encounter", "Ruleset", dict[str, Any], random.Random, "Events"], None]

ACTS = "Say which of your combatants acts (the actor)."


@dataclass(frozen=True)
class CommandSpec:
    """One command: its function, and what the server checks before running it.

    gm_only: only the GM sends it. needs_actor: a player sends it only naming a combatant
    of theirs (`actor`), and is told `missing_actor` (code `missing_code`) without one.
    window: it answers a reaction window the player must be able to see. undoable: the
    GM's undo can take it back (everything but undo itself).
    """

    name: str
    fn: Handler | None
    gm_only: bool = False
    needs_actor: bool = False
    window: bool = False
    undoable: bool = True
    missing_actor: str = ACTS
    missing_code: str = "forbidden"


def _specs() -> dict[str, CommandSpec]:

    def gm(name: str, fn: Handler) -> CommandSpec:
        return CommandSpec(name, fn, gm_only=True)

    def player(name: str, fn: Handler, **more: Any) -> CommandSpec:
        return CommandSpec(name, fn, needs_actor=True, **more)

    specs = (
        # GM only
        gm("add_combatant", e.cmd_add_combatant),
        gm("update_combatant", e.cmd_update_combatant),
        gm("remove_combatant", e.cmd_remove_combatant),
        gm("hide", e.cmd_hide),
        gm("reveal", e.cmd_hide),
        gm("defeat", e.cmd_defeat),
        gm("revive", e.cmd_defeat),
        gm("damage", e.cmd_damage),
        gm("heal", e.cmd_damage),
        gm("roll_initiative", e.cmd_roll_initiative),
        gm("set_initiative", e.cmd_set_initiative),
        gm("start_combat", e.cmd_start_combat),
        gm("begin_round", e.cmd_begin_round),
        gm("end_combat", e.cmd_end_combat),
        gm("grant", e.cmd_act),
        gm("adjust", e.cmd_adjust),
        gm("set_cost", e.cmd_set_cost),
        gm("set_modifier", e.cmd_set_modifier),
        gm("set_setting", e.cmd_set_setting),
        gm("add_custom_action", e.cmd_add_custom_action),
        gm("remove_custom_action", e.cmd_remove_custom_action),
        gm("close_windows", e.cmd_close_windows),
        gm("force_move", e.cmd_force_move),
        gm("place_in_order", reorder.cmd_place_in_order),
        # The battle map (board.py)
        gm("set_board", b.cmd_set_board),
        gm("remove_board", b.cmd_remove_board),
        gm("board_image", b.cmd_board_image),
        gm("paint", b.cmd_paint),
        gm("fog", b.cmd_fog),
        gm("place", b.cmd_place),
        # the GM, or a player for a combatant of theirs
        player("act", e.cmd_act),
        player("react", e.cmd_react, window=True),
        player("end_turn", e.cmd_end_turn),
        player("hold", e.cmd_end_turn),
        player("take_turn", e.cmd_take_turn),
        player("seize", e.cmd_seize),
        player("reorder", e.cmd_reorder),
        player("engage", e.cmd_engage),
        player("abandon", e.cmd_abandon),
        player("trigger", e.cmd_trigger),
        player("plan", plans.cmd_plan),
        player("cancel_plan", plans.cmd_cancel_plan),
        # Action Ladder (additive): the GM edits the Slow/Quicken table; conditions by hand.
        gm("set_pace", e.cmd_set_pace),
        gm("set_condition", e.cmd_set_condition),
        # Logged under the combatant's name: a player's roll never reads "The GM rolls".
        player(
            "roll",
            e.cmd_roll,
            missing_actor="Say which of your combatants rolls (the actor): a player's roll "
            "is logged under that combatant's name.",
            missing_code="missing_option",
        ),
    )
    return {s.name: s for s in specs}


COMMANDS: dict[str, CommandSpec] = _specs()
UNDO = CommandSpec("undo", None, gm_only=True, undoable=False)


def lookup(rs: Ruleset | None, kind: str) -> CommandSpec | None:
    """The spec of a command: the ruleset's own first, then the shared table, then undo."""
    if rs is not None:
        for spec in rs.commands:
            if spec.name == kind:
                return spec
    if kind == "undo":
        return UNDO
    return COMMANDS.get(kind)
