"""Events written before their family moved to facts: their words are kept as they were
written, the GM's in the event's data and each other reader's in the version written for
them (combat/migrations/0009_old_log_words.py). `screens.event_for` gives a reader only
the version written for them, so these words are the ones they may read."""

from __future__ import annotations

from combat.words import WRITTEN, Said, says


@says(WRITTEN)
def _written(s: Said) -> str:
    return str(s["words"])
