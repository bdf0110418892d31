"""An import is checked in the server's planning process and written in slices (issue 36,
item 4; docs/security.md): what a GM notices when that process dies or a slice fails."""

from __future__ import annotations

import os
from html import unescape
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from combat import library, planner
from combat.models import Encounter, LogEntry
from tests.ux.helpers import add, client_for, encounter, gm, user

pytestmark = pytest.mark.django_db


def an_export() -> tuple[Any, bytes]:
    """A GM and the export of a fight of theirs with a few commands in its history."""
    owner = user("gina")
    enc = encounter(owner)
    ana = add(enc, name="Ana", side="pc", hp=20)
    add(enc, name="Goblin", side="npc", hp=7)
    gm(enc, type="start_combat")
    gm(enc, type="damage", actor=ana, amount=3)
    gm(enc, type="end_turn")
    return owner, "".join(library.export_chunks(enc)).encode()


def upload(client: Any, raw: bytes) -> Any:
    return client.post("/library/import/", {"file": SimpleUploadedFile("fight.json", raw)})


def test_a_planning_process_that_died_is_told_in_words_and_replaced():
    owner, raw = an_export()
    client = client_for(owner)
    assert upload(client, raw).status_code == 302  # the planning process is running
    # As if the host's out-of-memory killer took it: the next import finds it gone.
    planner._process().submit(os._exit, 1)
    refused = upload(client, raw)
    assert refused.status_code == 400
    assert "could not be checked" in unescape(refused.content.decode())
    assert Encounter.objects.filter(owner=owner).count() == 2  # nothing half-made
    # The import after that starts a new planning process and goes through.
    assert upload(client, raw).status_code == 302
    assert Encounter.objects.filter(owner=owner).count() == 3


def test_a_slice_that_fails_leaves_no_encounter_behind(monkeypatch):
    owner, raw = an_export()
    plan = library.plan_import(library.parse_export(raw))
    assert len(plan.rows) >= 3
    monkeypatch.setattr(library, "ROWS_PER_WRITE", 1)
    real = LogEntry.objects.bulk_create
    written: list[int] = []

    def full_disk_on_the_third(rows: list[LogEntry], **kw: Any) -> Any:
        if len(written) == 2:
            raise OSError("the disk is full")
        written.append(len(rows))
        return real(rows, **kw)

    monkeypatch.setattr(LogEntry.objects, "bulk_create", full_disk_on_the_third)
    before = Encounter.objects.count(), LogEntry.objects.count()
    with pytest.raises(OSError):
        library.write_import(owner, plan)
    assert written == [1, 1], "two slices were written before the failure"
    assert (Encounter.objects.count(), LogEntry.objects.count()) == before
