"""The log a push shows: the entry a command just wrote comes from what it wrote, not read
back, and the GM's Undo button is decided from the entries shown when they settle it.

Both save a query on every command and push (docs/performance.md); what is shown must be
exactly what the database holds.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from combat import screens, services
from combat.access import gm_viewer
from combat.models import LogEntry
from tests.said import said

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def damage(table: TableFixture, amount: int) -> None:
    result = services.run_command(
        table.enc.pk,
        gm_viewer(table.enc),
        {"type": "damage", "actor": table.goblin, "amount": amount},
    )
    assert result.ok, result.refusal


def undo_button(table: TableFixture) -> bytes:
    page = table.gm.get(table.gm_url).content
    start = page.index(b'data-testid="undo"')
    return page[page.rindex(b"<button", 0, start) : page.index(b">", start)]


def test_the_new_entry_is_shown_as_written_without_reading_it_back(fight: TableFixture):
    damage(fight, 3)
    enc = fight.refresh()
    with CaptureQueriesContext(connection) as seen:
        entries = screens.recent_entries(enc)
    assert not [q for q in seen.captured_queries if '"events"' in q["sql"]], seen.captured_queries
    stored = enc.log.order_by("-seq").first()
    assert entries[0].seq == stored.seq
    assert entries[0].events == stored.events
    assert "3" in said(entries[0].events[0])


def test_an_entry_rolled_back_never_reaches_the_log(fight: TableFixture):
    with pytest.raises(RuntimeError), transaction.atomic():
        damage(fight, 4)
        raise RuntimeError("the request failed after the command")
    damage(fight, 2)
    enc = fight.refresh()
    lines = [line["text"] for line in screens.gm_context(enc)["log"]]
    assert any("2" in text and "Goblin" in text for text in lines), lines
    assert not any("4 damage" in text for text in lines), lines
    entries = screens.recent_entries(enc)
    assert [e.events for e in entries] == [e.events for e in enc.log.order_by("-seq")[:60]]


def test_undo_is_offered_while_a_command_is_left_to_undo(fight: TableFixture):
    damage(fight, 1)
    assert b"disabled" not in undo_button(fight)
    # Undo everything: start_combat, the damage, the combatants and seats added.
    while services.run_command(fight.enc.pk, gm_viewer(fight.enc), {"type": "undo"}).ok:
        pass
    assert b"disabled" in undo_button(fight)


def test_undo_is_offered_for_a_command_older_than_the_log_shows(fight: TableFixture):
    """A command kept, then more than a log's worth of commands each undone: none of the
    entries shown is left to undo, but the old one is."""
    damage(fight, 1)
    for _ in range(screens.LOG_LINES // 2 + 1):
        damage(fight, 1)
        assert services.run_command(fight.enc.pk, gm_viewer(fight.enc), {"type": "undo"}).ok
    shown = screens.recent_entries(fight.refresh())
    assert not [e for e in shown if e.kind == LogEntry.COMMAND and not e.undone]
    assert b"disabled" not in undo_button(fight)
    assert fight.refresh().state["combatants"][fight.goblin]["hp"] == 10 - 1
