"""The headless example in docs/rules.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_headless_example_plays_turns(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    example = next(b for b in blocks if "Table(" in b)
    exec(compile(example, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "Only 1 attack or spell per turn" in out
    assert "Opportunity Attack (Reaction, 0 AP)" in out
    assert "Round 1 begins." in out
