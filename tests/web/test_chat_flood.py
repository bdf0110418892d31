"""A seat flooding the table talk as fast as it is let: refused past the limit, storing
nothing beyond it, while another table's commands take their usual time."""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import cache
from django.test import Client

from combat import chat, services
from combat.access import gm_viewer
from combat.models import ChatMessage

from .conftest import TableFixture, build_table

pytestmark = pytest.mark.django_db

BOUND = 0.5  # seconds: a command on another table is never held up longer than this


def timed_command(enc) -> float:
    start = time.perf_counter()
    result = services.run_command(
        enc.pk, gm_viewer(enc), {"type": "add_combatant", "name": "Rat", "side": "npc", "hp": 3}
    )
    took = time.perf_counter() - start
    assert result.ok, result.refusal
    return took


def test_a_flooding_seat_is_refused_past_the_limit_and_slows_no_other_table(
    table: TableFixture, outsider_user
):
    cache.clear()
    other = build_table(outsider_user)["enc"]
    most, _window = chat.rate()
    answers, times = [], []
    for n in range(40):
        r = table.p1.post(
            f"{table.player1_url}chat/", {"text": f"spam {n}", "to": "all"}, HTTP_HX_REQUEST="true"
        )
        answers.append(r.status_code)
        times.append(timed_command(other))
    assert answers[:most] == [200] * most
    assert set(answers[most:]) == {429}
    assert ChatMessage.objects.filter(encounter=table.enc).count() == most
    assert max(times) < BOUND, max(times)
    # The same flood through the API is counted with it: nothing more is stored.
    for n in range(10):
        r = Client().post(
            f"/api/encounters/{table.enc.pk}/chat",
            json.dumps({"text": f"bot spam {n}"}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {table.seat1.token}",
        )
        assert r.status_code == 429
        times.append(timed_command(other))
    assert ChatMessage.objects.filter(encounter=table.enc).count() == most
    assert max(times) < BOUND, max(times)
    # The flooding seat's neighbour still talks.
    r = table.p2.post(
        f"{table.player2_url}chat/", {"text": "can we play?", "to": "all"}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 200
