"""docs/api.md, "The state, key by key", names everything a bot reads in the state.

The rulesets' code is scanned for what the state can hold (its fields, the resource keys,
the turn and round counters, effect names, the keys of `carry` and `prepared`, the kinds
of reaction window and the options `react` reads), so a new one cannot ship without its
line in the guide.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from combat.rules import state

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "combat" / "rules"
DOC = ROOT / "docs" / "api.md"


def section() -> str:
    text = DOC.read_text()
    return text.split("## The state, key by key\n", 1)[1].split("\n## ", 1)[0]


def windows_part() -> str:
    return section().split("#### Reaction windows", 1)[1]


def documented() -> set[str]:
    return set(re.findall(r"`([^`]+)`", section()))


def trees() -> Iterator[ast.AST]:
    for path in sorted(RULES.rglob("*.py")):
        yield ast.parse(path.read_text())


def text_of(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def key_read(node: ast.AST, owner: Callable[[ast.AST], bool]) -> str | None:
    """The constant key when `node` is owner["key"] or owner.get/setdefault/pop("key")."""
    if isinstance(node, ast.Subscript) and owner(node.value):
        return text_of(node.slice)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "setdefault", "pop")
        and owner(node.func.value)
        and node.args
    ):
        return text_of(node.args[0])
    return None


def keys_used(attr: str) -> set[str]:
    """Constant keys read or written on `<x>.<attr>`: x.res["ap"], x.turn.get("spent")."""

    def owner(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr

    return {k for tree in trees() for node in ast.walk(tree) if (k := key_read(node, owner))}


def call_args(name: str, index: int) -> set[str]:
    """The constant text given as argument `index` wherever `name(...)` is called."""
    found: set[str] = set()
    for tree in trees():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == name
                and len(node.args) > index
            ):
                value = text_of(node.args[index])
                if value:
                    found.add(value)
    return found


def dict_keys_assigned(attr: str) -> set[str]:
    """Keys of the dict literals assigned to `<x>.<attr>` (c.carry = {...})."""
    found: set[str] = set()
    for tree in trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Dict):
                continue
            if any(isinstance(t, ast.Attribute) and t.attr == attr for t in node.targets):
                found |= {k for k in map(text_of, node.value.keys) if k}
    return found


def react_options() -> set[str]:
    """Every option a ruleset's react (and the react_* helpers) reads from `opts`."""

    def owner(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "opts"

    return {
        k
        for tree in trees()
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef) and fn.name.startswith("react")
        for node in ast.walk(fn)
        if (k := key_read(node, owner))
    }


def window_kinds() -> set[str]:
    kinds = call_args("Window", 1)
    for tree in trees():
        for node in ast.walk(tree):
            # w.kind == "catch", w.kind in ("defend", "catch")
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == "kind"
                and isinstance(node.left.value, ast.Name)
                and node.left.value.id == "w"
            ):
                for right in node.comparators:
                    values = right.elts if isinstance(right, ast.Tuple) else [right]
                    kinds |= {k for k in map(text_of, values) if k}
    return kinds


def missing(names: set[str], where: set[str]) -> list[str]:
    return sorted(n for n in names if n not in where)


def test_every_field_of_the_state_is_documented():
    """Each field of the encounter, a combatant, a group, a window and an effect."""
    names = {
        f.name
        for cls in (state.Encounter, state.Combatant, state.Group, state.Window, state.Effect)
        for f in dataclasses.fields(cls)
    }
    assert {"phase", "pending", "carry", "effects", "reactor"} <= names
    assert not missing(names, documented()), "docs/api.md lacks these state fields"


def test_every_resource_key_is_documented():
    """The `res` keys every ruleset fills: ap, grit, effort, bonus and their maxima."""
    keys = keys_used("res")
    assert {"ap", "ap_max", "grit", "effort", "effort_max", "bonus", "bonus_max"} <= keys
    assert not missing(keys, documented())


def test_every_turn_and_round_counter_is_documented():
    keys = keys_used("turn") | keys_used("round")
    assert {"attacks", "spent", "attack_rolls", "opportunity_attack"} <= keys
    assert not missing(keys, documented())


def test_every_effect_and_every_key_of_carry_and_prepared_is_documented():
    effects = call_args("Effect", 0)
    assert {"Defensive Stance", "Prone", "Guard", "Brace"} <= effects
    assert not missing(effects, documented())
    plans = dict_keys_assigned("carry") | dict_keys_assigned("prepared")
    assert {"remaining", "total", "sprung"} <= plans
    assert not missing(plans, documented())


def test_every_window_kind_has_its_paragraph():
    kinds = window_kinds()
    assert {"opportunity_attack", "defend", "catch"} <= kinds
    headings = set(re.findall(r"^\*\*`([a-z_]+)`\*\*", windows_part(), re.M))
    assert not missing(kinds, headings), "docs/api.md has no paragraph for these windows"


def test_every_option_of_react_is_documented():
    options = react_options()
    assert {"reaction", "with", "use_guard", "drop"} <= options
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", windows_part(), re.M))
    assert not missing(options, listed), "docs/api.md lists no such react option"
    for value in ("dodge", "parry", "block", "STR", "AGI"):
        assert f"`{value}`" in windows_part(), value
