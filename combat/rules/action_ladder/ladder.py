"""The ladder's arithmetic: steps, their costs and labels, and the printed pace table
(action-ladder.md "The Action Ladder" and "Slow and Quicken"; RULINGS ladder 1 and 5)."""

from __future__ import annotations

STEPS = ("bonus", "half", "one", "one_half", "full")
STEP_COST: dict[str, tuple[int, int]] = {  # (effort half-steps, Bonus Actions)
    "bonus": (0, 1),
    "half": (1, 0),
    "one": (2, 0),
    "one_half": (3, 0),
    "full": (4, 0),
}
STEP_LABEL = {
    "bonus": "Bonus Action",
    "half": "½ Action",
    "one": "1 Action",
    "one_half": "1½ Action",
    "full": "Full Action",
}
EFFORT_STEP = {1: "half", 2: "one", 3: "one_half", 4: "full"}
PACES = ("standard", "slowed", "quickened")

# The Slow/Quicken table exactly as printed, last row included (RULINGS ladder 5):
# a standard pace maps to where it lands when Slowed and when Quickened.
PACE_TABLE: dict[str, dict[str, str]] = {
    "bonus": {"slowed": "half", "quickened": "bonus"},
    "half": {"slowed": "one", "quickened": "bonus"},
    "one": {"slowed": "one_half", "quickened": "half"},
    "one_half": {"slowed": "full", "quickened": "one"},
    "full": {"slowed": "full", "quickened": "half"},
}

MOVEMENT = ("step", "walk", "run", "sprint", "climb", "crawl", "swim", "jump")
DEFENCE_REACTIONS = ("dodge", "parry", "block")


# --- labels ---------------------------------------------------------------------------


def effort_label(n: int) -> str:
    """The ladder's name for an effort cost: 1 → '½ Action', 4 → 'Full Action'."""
    if n in EFFORT_STEP:
        return STEP_LABEL[EFFORT_STEP[n]]
    whole, half = divmod(n, 2)
    return f"{whole}{'½' if half else ''} Actions"


def left_label(n: int) -> str:
    """How much effort is left, in Actions: 0 → 'no Actions', 3 → '1½ Actions'."""
    if n <= 0:
        return "no Actions"
    if n == 1:
        return "½ Action"
    if n == 2:
        return "1 Action"
    whole, half = divmod(n, 2)
    return f"{whole}{'½' if half else ''} Actions"


def bonus_label(n: int, alone: bool = True) -> str:
    if n == 1 and alone:
        return "Bonus Action"
    return f"{n} Bonus Action{'s' if n != 1 else ''}"


def cost_text(effort: int, bonus: int) -> str:
    """'½ Action', 'Bonus Action', '1 Action + 1 Bonus Action', '2 Bonus Actions'."""
    if not effort and not bonus:
        return "Free Action"
    if not bonus:
        return effort_label(effort)
    if not effort:
        return bonus_label(bonus)
    return f"{effort_label(effort)} + {bonus_label(bonus, alone=False)}"
