"""Each ruleset keeps per turn only the keys its TypedDict names (combat/rules/turns.py).

mypy checks `turn["key"]`, `turn.pop("key")` and the values written; it lets
`turn.get("key")` and `"key" in turn` through with any key (TypedDicts are structural), so
this scan covers those: every constant key a module uses on `<x>.turn` belongs to its
ruleset's TypedDict (the shared one for the engine's own modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

from combat.rules import registry, turns
from combat.rules.state import Combatant, Encounter

RULES = Path(__file__).resolve().parents[2] / "combat" / "rules"

OWN = {
    "action_points.py": turns.ActionPointsTurn,
    "initiative_passes.py": turns.InitiativePassesTurn,
    "action_ladder": turns.ActionLadderTurn,
}
RULESETS = {
    "action_points": turns.ActionPointsTurn,
    "initiative_passes": turns.InitiativePassesTurn,
    "action_ladder": turns.ActionLadderTurn,
}


def is_turn(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "turn"


def constant(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def keys_in(tree: ast.AST) -> set[str]:
    """turn["k"], turn.get/pop/setdefault("k"), "k" in turn, turn = {"k": ...}."""
    found: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_turn(node.value):
            found.add(constant(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and is_turn(node.func.value)
            and node.args
        ):
            found.add(constant(node.args[0]))
        elif isinstance(node, ast.Compare) and any(is_turn(c) for c in node.comparators):
            found.add(constant(node.left))
        elif (
            isinstance(node, ast.Assign)
            and any(is_turn(t) for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            found |= {constant(k) for k in node.value.keys}
    return {k for k in found if k}


def owner(path: Path) -> type:
    rel = path.relative_to(RULES)
    return OWN.get(rel.parts[0], turns.SharedTurn)


def test_each_module_uses_only_its_rulesets_turn_keys():
    seen: set[str] = set()
    for path in sorted(RULES.rglob("*.py")):
        keys = keys_in(ast.parse(path.read_text()))
        allowed = owner(path).__optional_keys__ | owner(path).__required_keys__
        assert keys <= allowed, (path.name, sorted(keys - allowed))
        seen |= keys
    # The scan does find them (a rename of the field would make it vacuous).
    assert {"actions", "attacks", "disengaged", "spent", "free", "moved", "declared"} <= seen


def test_the_combatants_turn_is_every_rulesets_keys():
    union = set().union(*(td.__optional_keys__ for td in RULESETS.values()))
    assert set(turns.Turn.__optional_keys__) == union
    assert set(turns.FREE_KEYS.values()) <= turns.ActionLadderTurn.__optional_keys__


def test_no_action_counts_under_a_named_key_of_another_kind():
    """Every action counts itself under its own key: none of the catalogue's keys is a
    named per-turn key, except the Action Ladder's Disengage, whose counter is also the
    flag that it was bought (1 or True, both truthy)."""
    for key, rs in registry.rulesets().items():
        named = RULESETS[key].__optional_keys__
        clashes = {a.key for a in rs.actions} & named
        assert clashes <= ({"disengage"} if key == "action_ladder" else set()), key


def test_the_stored_shape_is_a_plain_json_object():
    c = Combatant(id="c1", name="Ana")
    c.turn = {"actions": 2, "attacks": 1, "moved": 3.5, "sustain_due": "c2"}
    c.turn["declared"] = {"kind": "action", "action": "cast", "name": "Cast", "opts": {}}
    enc = Encounter(ruleset="action_ladder", combatants={"c1": c})
    stored = enc.to_dict()["combatants"]["c1"]["turn"]
    assert type(stored) is dict
    assert stored == {
        "actions": 2,
        "attacks": 1,
        "moved": 3.5,
        "sustain_due": "c2",
        "declared": {"kind": "action", "action": "cast", "name": "Cast", "opts": {}},
    }
    assert Encounter.from_dict(enc.to_dict()).combatants["c1"].turn == stored
