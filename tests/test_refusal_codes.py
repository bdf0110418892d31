"""Every refusal code the product can give is documented in docs/api.md ("Refusal codes"):
the code, when it is given, and its arguments. The codes are read from the code that
refuses, so a new code without a line in the table fails here, as does a line for a code
that is no longer given."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMBAT = ROOT / "combat"
API_DOC = ROOT / "docs" / "api.md"

# The callables that take a refusal code: the engine's refuse/said/Refused/Refusal, the
# services' Result.refused, the API's error and the pages' refuse(request, status, ...).
REFUSERS = frozenset({"refuse", "said", "Refused", "Refusal", "refused", "error"})


def _callee(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id if f.id in REFUSERS else None
    if isinstance(f, ast.Attribute):
        owner = getattr(f.value, "id", None)
        if f.attr == "refused" or (f.attr == "error" and owner == "api"):
            return f.attr
    return None  # messages.error, logger.error, a consumer's self.refuse(close code)


def _code_arg(call: ast.Call) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == "code":
            return kw.value
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Name) and first.id == "request":  # views.refuse(request, ...)
        return call.args[3] if len(call.args) > 3 else ast.Constant("refused")
    return first


def _passes_through(node: ast.expr, params: frozenset[str]) -> bool:
    """A wrapper handing on a code it was given (a parameter, or a field of one)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in params


def _calls(
    tree: ast.AST, params: frozenset[str] = frozenset()
) -> Iterator[tuple[ast.Call, frozenset[str]]]:
    """Every call to a refuser, with the parameters of the function it is made in."""
    for node in ast.iter_child_nodes(tree):
        inner = params
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            inner = frozenset(p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs])
        if isinstance(node, ast.Call) and _callee(node) is not None:
            yield node, params
        yield from _calls(node, inner)


def _walk() -> tuple[dict[str, list[str]], list[str]]:
    codes: dict[str, list[str]] = {}
    bad: list[str] = []
    for path in sorted(COMBAT.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(ROOT)
        for node, params in _calls(tree):
            code = _code_arg(node)
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                codes.setdefault(code.value, []).append(f"{where}:{node.lineno}")
            elif isinstance(code, ast.Attribute) and code.attr == "missing_code":
                continue  # a command's own code for a missing actor: read below
            elif code is None or not _passes_through(code, params):
                bad.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    # CommandSpec.missing_code: its default and every command that sets its own.
    for node in ast.walk(ast.parse((COMBAT / "rules" / "commands.py").read_text())):
        if isinstance(node, ast.keyword) and node.arg == "missing_code":
            codes.setdefault(ast.literal_eval(node.value), []).append("commands.py")
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "missing_code":
            codes.setdefault(ast.literal_eval(node.value), []).append("commands.py")
    return codes, bad


def _documented() -> set[str]:
    text = API_DOC.read_text(encoding="utf-8")
    start = text.index("\n## Refusal codes")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else None]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))


def test_every_refusal_code_is_a_literal() -> None:
    """A code is a stable word written where the refusal is made, so it can be read here."""
    _codes, bad = _walk()
    assert not bad, "refusals whose code is not a literal word:\n" + "\n".join(bad)


def test_every_refusal_code_is_documented() -> None:
    codes, _bad = _walk()
    assert len(codes) > 100  # the walk found the engine's refusals, not nothing
    missing = sorted(set(codes) - _documented())
    assert not missing, "docs/api.md (Refusal codes) lacks: " + ", ".join(
        f"{c} ({codes[c][0]})" for c in missing
    )


def test_no_documented_code_is_stale() -> None:
    codes, _bad = _walk()
    stale = sorted(_documented() - set(codes))
    assert not stale, f"docs/api.md documents codes nothing gives any more: {stale}"


# ---- refusals29a: every refusal carries its facts (issue 29) ----

# The files whose refusals carry their facts as arguments; the other areas join as they
# are done.
CARRY_ARGS_IN: tuple[str, ...] = (
    "combat/rules/engine.py",
    "combat/rules/state.py",
    "combat/rules/registry.py",
    "combat/rules/reorder.py",
    "combat/rules/flow.py",
    "combat/rules/plans.py",
    "combat/rules/turns.py",
    "combat/rules/turn_start.py",
    "combat/rules/table.py",
    "combat/rules/commands.py",
    "combat/rules/fields.py",
    "combat/rules/dice.py",
    "combat/rules/action_points.py",
    "combat/rules/initiative_passes.py",
    "combat/rules/base.py",
    "combat/rules/catalogue.py",
    "combat/rules/board.py",
    "combat/rules/paths.py",
    "combat/rules/action_ladder/movement.py",
    *sorted(
        f"combat/rules/action_ladder/{p.name}"
        for p in (ROOT / "combat/rules/action_ladder").glob("*.py")
        if p.name != "movement.py"
    ),
)


def _bare_fstring_refusals(source: str, where: str) -> list[str]:
    """`refuse(...)` or `Refused(...)` calls whose message is an f-string and that pass no
    keyword argument: the message holds facts the arguments do not."""
    bare = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id not in ("refuse", "Refused") or len(node.args) < 2:
            continue
        if isinstance(node.args[1], ast.JoinedStr) and not node.keywords:
            bare.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return bare


def test_a_refusal_that_names_facts_carries_them_as_arguments() -> None:
    """Issue 29: a refusal is a stable code with typed arguments (who, what, which rule).
    A message written from values (an f-string) passes those values as arguments too, so
    a program reads them without parsing the sentence."""
    bare = [
        line
        for f in CARRY_ARGS_IN
        for line in _bare_fstring_refusals((ROOT / f).read_text(encoding="utf-8"), f)
    ]
    assert not bare, "refusals whose message holds facts no argument carries:\n" + "\n".join(bare)


def test_the_argument_check_finds_a_bare_refusal() -> None:
    """The check above is not vacuous: it flags a message written from a value with no
    argument, and passes the same refusal once it carries the value."""
    bare = 'raise refuse("no_hp", f"{c.name} has no HP.")\n'
    carried = 'raise refuse("no_hp", f"{c.name} has no HP.", who=c.id)\n'
    assert len(_bare_fstring_refusals(bare, "x.py")) == 1
    assert _bare_fstring_refusals(carried, "x.py") == []
    engine = (ROOT / "combat/rules/engine.py").read_text(encoding="utf-8")
    assert engine.count("refuse(") > 50  # the real files are read, not nothing
