from .base import Ruleset


class ActionLadder(Ruleset):
    key = "action_ladder"
    name = "Action Ladder"
