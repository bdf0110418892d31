"""`manage.py seed_demo`: a demo GM and one demo encounter per ruleset, idempotent."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from combat.models import Encounter, Seat
from combat.rules import rulesets
from combat.rules.paths import reaches
from combat.screens import load_state

pytestmark = pytest.mark.django_db


def seed(monkeypatch: pytest.MonkeyPatch, port: str = "8765") -> str:
    monkeypatch.setenv("PORT", port)
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_seed_demo_creates_a_table_per_ruleset_and_prints_the_links(monkeypatch, settings):
    settings.DEBUG = True
    text = seed(monkeypatch)
    assert "http://127.0.0.1:8765/accounts/login/" in text and "demo-gm" in text
    assert Encounter.objects.count() == len(rulesets())
    for enc in Encounter.objects.all():
        assert enc.seats.count() == 2
        hidden = [c for c in enc.state["combatants"].values() if c["hidden"]]
        assert len(hidden) == 1
        # A map with everyone on it; the hidden Troll stands in the fog.
        board = enc.state["board"]
        assert set(board["tokens"]) == set(enc.state["combatants"])
        troll = next(k for k, c in enc.state["combatants"].items() if c["hidden"])
        x, y = board["tokens"][troll]["at"]
        assert f"{x},{y}" in board["fog"]
        # The fight is joined: Ana can strike the Ogre, and every foe Bram, with no move
        # first (melee reach from the tokens on the map, docs/rules.md).
        state = load_state(enc)
        who = {c.name: c for c in state.combatants.values()}
        assert reaches(state, who["Ana"], who["Ogre"])
        for foe in ("Goblin", "Ogre", "Lurking Troll"):
            assert reaches(state, who[foe], who["Bram"]), foe
        assert f"http://127.0.0.1:8765/enc/{enc.pk}/" in text
        assert f"http://127.0.0.1:8765/s/{enc.spectator_token}/" in text
    links = re.findall(r"http://127\.0\.0\.1:8765(/p/[^/\s]+/)", text)
    assert len(links) == 2 * len(rulesets())
    assert Client().get(links[0]).status_code == 200
    # Through the log-in form, as the GM would (the throttling backend needs a request).
    r = Client().post("/accounts/login/", {"username": "gm", "password": "demo-gm"})
    assert r.status_code == 302 and r["Location"] == "/"


def test_seed_demo_twice_changes_nothing(monkeypatch, settings):
    settings.DEBUG = True
    first = seed(monkeypatch)
    second = seed(monkeypatch)
    assert first == second
    assert Encounter.objects.count() == len(rulesets())
    assert Seat.objects.count() == 2 * len(rulesets())
    assert get_user_model().objects.filter(username="gm").count() == 1


def test_seed_demo_without_debug_never_uses_the_known_password(monkeypatch, settings):
    settings.DEBUG = False
    text = seed(monkeypatch)
    assert "demo-gm" not in text
    assert not get_user_model().objects.get(username="gm").check_password("demo-gm")
