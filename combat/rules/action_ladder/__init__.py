"""The Action Ladder ruleset (action-ladder.md, with RULINGS.md "Action Ladder").

The package is organised by rule: ``ladder`` holds the ladder arithmetic and the pace
table, ``catalogue`` the printed actions as data, ``ruleset`` the engine class, and one
module per family of actions (``movement``, ``attacks``, ``grappling``, ``reactions``,
``abilities``, ``items``, ``turns``, ``costs``) its checks and effects; ``common`` the small
helpers they share. docs/rules.md, "Where each rule lives", maps the rules text to them.
"""

from .catalogue import ACTIONS, ATTACK_NEEDS
from .ladder import (
    DEFENCE_REACTIONS,
    EFFORT_STEP,
    MOVEMENT,
    PACE_TABLE,
    PACES,
    STEP_COST,
    STEP_LABEL,
    STEPS,
    bonus_label,
    cost_text,
    effort_label,
    left_label,
)
from .ruleset import ActionLadder

__all__ = [
    "ACTIONS",
    "ATTACK_NEEDS",
    "DEFENCE_REACTIONS",
    "EFFORT_STEP",
    "MOVEMENT",
    "PACES",
    "PACE_TABLE",
    "STEPS",
    "STEP_COST",
    "STEP_LABEL",
    "ActionLadder",
    "bonus_label",
    "cost_text",
    "effort_label",
    "left_label",
]
