from .base import Ruleset


class InitiativePasses(Ruleset):
    key = "initiative_passes"
    name = "Initiative Passes"
