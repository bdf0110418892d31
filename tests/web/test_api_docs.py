"""docs/api.md documents every command the API accepts, and every endpoint."""

from __future__ import annotations

import re
from pathlib import Path

from combat.rules import COMMANDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def headings() -> set[str]:
    return set(re.findall(r"^### (\S+)\s*$", DOC.read_text(), re.M))


def test_every_command_has_a_section_with_an_example():
    text = DOC.read_text()
    missing = sorted((set(COMMANDS) | {"undo"}) - headings())
    assert not missing, f"docs/api.md lacks: {missing}"
    for name in [*COMMANDS, "undo"]:
        section = text.split(f"### {name}\n", 1)[1].split("\n### ", 1)[0]
        assert f'"type": "{name}"' in section, name
        assert "HTTP " in section, name


def test_every_endpoint_is_listed():
    text = DOC.read_text()
    for endpoint in (
        "GET /api/rulesets",
        "POST /api/encounters",
        "GET /api/encounters/<id>/",
        "POST /api/encounters/<id>/commands",
        "GET /api/encounters/<id>/log",
        "Idempotency-Key",
        "expected_version",
    ):
        assert endpoint in text, endpoint
