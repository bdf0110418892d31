"""Runs after every browser test (the conftest keeps this file last): the rest of a
pytest run must not notice that browsers were here.

Playwright's sync API keeps an asyncio loop running in the main thread while it is
started; if it leaked, pytest-asyncio tests would fail to get a loop and Django would
refuse sync ORM calls ("You cannot call this from an async context").
"""

from __future__ import annotations

import asyncio
import os

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from combat import services
from combat.models import Encounter
from vtt.asgi import application

from .conftest import ENV_AT_START


def test_no_event_loop_is_left_running_and_the_orm_works(transactional_db):
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    assert os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE") == ENV_AT_START
    get_user_model().objects.create_user("after")
    assert get_user_model().objects.filter(username="after").exists()


@pytest.mark.django_db(transaction=True)
async def test_sockets_still_work_under_pytest_asyncio():
    from channels.db import database_sync_to_async

    def build() -> Encounter:
        owner = get_user_model().objects.create_user("owner")
        enc = services.create_encounter(owner, "After the browsers", "action_points", {})
        assert isinstance(enc, Encounter)
        return enc

    enc = await database_sync_to_async(build)()
    comm = WebsocketCommunicator(
        application, f"/ws/s/{enc.spectator_token}/", headers=[(b"origin", b"http://127.0.0.1")]
    )
    connected, _ = await comm.connect(timeout=5)
    assert connected
    frame = await comm.receive_from(timeout=5)
    assert 'id="status"' in frame
    await comm.disconnect()
