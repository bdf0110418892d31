"""Refusals carry their facts (docs/api.md, "Refusal codes"): a refusal whose sentence is
built from values (a name, a number, an action) also hands those values to programs as
arguments, so an API client or a reader's page can tell who was refused, for what and under
which rule without reading the sentence. Read from the rulesets' code, so a new refusal
written as a bare sentence fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "combat" / "rules"

# The rulesets' own modules (the engine and the board have their own checks).
FILES = (
    RULES / "action_points.py",
    RULES / "initiative_passes.py",
    RULES / "base.py",
    RULES / "catalogue.py",
    *sorted(p for p in (RULES / "action_ladder").glob("*.py") if p.name != "movement.py"),
)
REFUSERS = frozenset({"refuse", "Refused", "said"})


def _bare_refusals(source: str, where: str) -> list[str]:
    """Calls that write a sentence from values (an f-string) but pass no argument."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in REFUSERS:
            continue
        message = node.args[1] if len(node.args) > 1 else None
        interpolated = any(isinstance(n, ast.JoinedStr) for n in ast.walk(message or node))
        if interpolated and not node.keywords:
            bad.append(f"{where}:{node.lineno}: {ast.unparse(node)[:90]}")
    return bad


def test_the_check_tells_a_bare_refusal_from_one_with_its_facts() -> None:
    bare = 'def f(c):\n    raise refuse("x", f"{c.name} cannot.")\n'
    carried = 'def f(c):\n    raise refuse("x", f"{c.name} cannot.", who=c.id)\n'
    plain = 'def f():\n    raise refuse("x", "Nobody can.")\n'
    assert _bare_refusals(bare, "probe") == ["probe:2: refuse('x', f'{c.name} cannot.')"]
    assert _bare_refusals(carried, "probe") == []
    assert _bare_refusals(plain, "probe") == []
    assert len(FILES) > 8 and all(p.exists() for p in FILES)


def test_refusals_in_rulesets_carry_their_facts() -> None:
    bad = [
        line
        for path in FILES
        for line in _bare_refusals(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not bad, "refusals written from values that pass none of them:\n" + "\n".join(bad)
