"""What a combatant keeps per turn (`Combatant.turn`), key by key, per ruleset.

The counters reset when the combatant's turn starts. They are stored as a plain JSON
object, so these are TypedDicts (plain dicts at runtime): the stored shape is the one
encounters have always had, and mypy checks every key's name and value type.

Besides the keys named here, every action counts itself under its own key
(`turn["basic_attack"]`): those keys come from the catalogue and the GM's custom
actions, so they are read and written through `action_count` and `count_action`.
docs/rules.md, "Per-turn state", has a table per ruleset.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast


class Walking(TypedDict, total=False):
    """The rest of a move on the map held at the cell where it leaves an enemy's reach,
    while that enemy's Opportunity Attack window is open (paths.py, "Reach"); for a jump,
    only its action, name and landing (action_ladder/movement.py, `do_jump`)."""

    action: str  # the movement action's key
    name: str  # and its name, for the log
    goal: str  # the cell asked for ("E1")
    cells: list[str]  # the cells still to step into, in order
    left: float  # metres of the action's allowance not yet spent
    par: int  # "1-2-1": 1 when the next diagonal step counts double
    mode: str  # how it moves (walk, swim, climb, fly)
    passed: list[str]  # enemies whose window this move already opened
    threat: str  # the enemy whose window is still to open (only within the command)
    landing: list[int]  # a jump held at its take-off: the cell (x, y) it lands on


class SharedTurn(TypedDict, total=False):
    """The keys every ruleset keeps (base.Ruleset)."""

    actions: int  # actions taken this turn
    attacks: int  # attacks and spells made, against attacks_per_turn
    moved: float  # metres moved this turn (on the map in every ruleset; jumps too)
    walking: Walking  # a move held for an Opportunity Attack, walked on once it is answered


class ActionPointsTurn(SharedTurn, total=False):
    disengaged: bool  # Disengage was taken: no move this turn provokes


class InitiativePassesTurn(SharedTurn, total=False):
    spent: int  # AP spent this turn, against ap_per_turn
    free: int  # Free Actions paid for this turn


class Declared(TypedDict, total=False):
    """A spell or ranged attack held until its Interrupt windows are answered."""

    kind: Literal["action", "attack"]
    name: str
    action: str  # kind "action": the action's key, resolved with `opts`
    opts: dict[str, Any]
    spec: dict[str, Any]  # kind "attack": the attack's spec, launched again


FreeKey = Literal["free_drop", "free_draw_stow", "free_consume"]


class ActionLadderTurn(SharedTurn, total=False):
    attack_rolls: int  # attack rolls made (the FCS bonus falls with each)
    free_drop: int  # free actions of each kind used (the first of a kind is free)
    free_draw_stow: int
    free_consume: int
    # Disengage bought and waiting for the next movement. It is also the Disengage
    # action's own counter, so it holds 1 (counted) or True (bought): both truthy.
    disengage: int
    disengage_active: bool  # the movement being resolved is covered by Disengage
    sustain_due: str  # id of the one it grapples: sustain the grapple this turn
    declared: Declared


class Turn(ActionPointsTurn, InitiativePassesTurn, ActionLadderTurn, total=False):
    """The type of `Combatant.turn`: the keys of all the rulesets (one combatant only
    ever holds its own ruleset's; tests/rules/test_turn_keys.py checks each ruleset
    uses only its own)."""


FREE_KEYS: dict[str, FreeKey] = {
    "drop": "free_drop",
    "draw_stow": "free_draw_stow",
    "consume": "free_consume",
}


def free_key(kind: str) -> FreeKey:
    """The counter of a free action's kind (ActionDef.free_kind)."""
    return FREE_KEYS[kind]


def action_count(turn: Turn, key: str) -> int:
    """How many times the action `key` was taken this turn."""
    return int(cast("dict[str, int]", turn).get(key, 0))


def count_action(turn: Turn, key: str) -> None:
    """Count the action `key` once more this turn."""
    counts = cast("dict[str, int]", turn)
    counts[key] = counts.get(key, 0) + 1
