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
