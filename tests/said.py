"""What the GM reads for an event: its sentence, written from its facts (combat/words.py)."""

from typing import Any

from combat import words


def said(ev: dict[str, Any]) -> str:
    return words.text(ev)
