"""Hypothesis throws generated input at the forms, the JSON API and the sockets.

Over 1,000 generated inputs in all, in-process: commands of every known type and of made-up
ones, fields of every JSON type, text with markup, NUL bytes, lone surrogates and 20,000
characters, numbers far out of range, dice bombs, random bytes as bodies. Not one answer is
a 500 or an unhandled exception; every refusal is a 4xx with a sentence and writes nothing;
every answer comes within a second; and after each input every combatant's HP and resources
are still within their bounds and the encounter within its size limits.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings as django_settings
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.forms import COMMAND_FIELDS
from combat.models import Encounter, LogEntry, Seat

from .conftest import build_table, clients_for
from .recipes import ALL_COMMANDS
from .sockets import PER_SOCKET, TIMEOUT, build, db_snapshot, socket

# VTT_FUZZ_SCALE=10 runs ten times as many inputs (a longer hunt than CI's 1,010).
SCALE = max(1, int(os.environ.get("VTT_FUZZ_SCALE", "1")))
FAST = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

NASTY_TEXT = [
    "<script>alert(1)</script>",
    '" hx-get="/evil" x="',
    "' hx-on:click='alert(1)'",
    "a\x00b",
    "\ud800",
    "x" * 20_001,
    "1000000d1000000",
    "99999999999999999999999",
    "-1",
    "NaN",
    "1e999",
    "🎲" * 50,
    "",
    " ",
    "c1",
    "w1",
    "{{ 7|add:7 }}",
]
text = st.one_of(st.sampled_from(NASTY_TEXT), st.text(max_size=40))
numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-5, max_value=30),
    st.floats(allow_nan=False, allow_infinity=False),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
FIELDS = [*COMMAND_FIELDS, "options", "stats", "hp", "notes", "side", "group", "grit"]


@st.composite
def commands(draw, ids: list[str]) -> dict[str, Any]:
    kind = draw(st.one_of(st.sampled_from(ALL_COMMANDS), text))
    command: dict[str, Any] = {"type": kind}
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=6, unique=True)):
        if key in ("actor", "target"):
            command[key] = draw(st.one_of(st.sampled_from(ids), json_values))
        elif key == "options":
            command[key] = draw(
                st.one_of(
                    st.dictionaries(
                        st.sampled_from(
                            ["target", "to_hit", "damage", "ranged", "length", "text", "x"]
                        ),
                        st.one_of(st.sampled_from(ids), json_values),
                        max_size=3,
                    ),
                    json_values,
                )
            )
        else:
            command[key] = draw(json_values)
    return command


def as_form(command: dict[str, Any]) -> dict[str, str]:
    form = {}
    for key, value in command.items():
        if key == "options" and isinstance(value, dict):
            form.update({f"opt_{k}"[:40]: _text(v) for k, v in value.items()})
        else:
            form[key] = _text(value)
    return form


def _text(value: Any) -> str:
    # Form fields are text; the test client cannot send half a surrogate pair.
    raw = value if isinstance(value, str) else json.dumps(value)
    return raw.encode("utf-8", "replace").decode()


def check_bounds(encounter_id: int) -> None:
    """HP and every resource within its limits; the encounter within its size limits."""
    for state in Encounter.objects.filter(pk=encounter_id).values_list("state", flat=True):
        combatants = state["combatants"]
        assert len(combatants) <= 200
        for c in combatants.values():
            if c["hp"] is not None:
                assert 0 <= c["hp"] <= max(c["max_hp"] or 0, c["hp"] if c["max_hp"] is None else 0)
            for key, value in c["res"].items():
                assert isinstance(value, int) and 0 <= value <= 10_000, (key, value)
                top = c["res"].get(f"{key}_max")
                if top is not None and not key.endswith("_max"):
                    assert value <= max(top, 99), (key, value, top)


def answered_well(r, before: tuple[int, int], after: tuple[int, int], seen: Counter) -> None:
    assert r.status_code < 500, r.content[:500]
    if r.status_code >= 400:
        if r["Content-Type"].startswith("application/json"):
            assert r.json()["error"]["message"], r.content
        else:
            assert 'data-testid="refusal"' in r.content.decode(), r.content[:500]
        assert after == before, "a refused input changed something"
        seen["refused"] += 1
    else:
        seen["accepted"] += 1


@pytest.mark.django_db
def test_fuzz_commands_over_forms_and_the_api(users, monkeypatch):
    # Hundreds of commands a second from one seat: past the rate limit (tested in
    # test_storage_bounds.py), which would answer most of them 429 before the rules see them.
    monkeypatch.setattr(django_settings, "VTT_RATE_COMMANDS", (1_000_000, 10))
    t = build_table(*users)
    t.clients = clients_for(t)
    ids = list(t.ids.values()) + ["c999", ""]
    seen: Counter = Counter()
    slowest = [0.0]

    def mark(enc_id: int) -> tuple[int, int]:
        enc = Encounter.objects.get(pk=enc_id)
        return enc.version, LogEntry.objects.filter(encounter=enc).count()

    @settings(FAST, max_examples=600 * SCALE)
    @given(
        channel=st.sampled_from(
            ["gm form", "player form", "gm api", "player api", "spectator api"]
        ),
        command=commands(ids),
        raw=st.one_of(st.none(), st.binary(max_size=64)),
    )
    def run(channel: str, command: dict[str, Any], raw: bytes | None) -> None:
        before = mark(t.enc.pk)
        # CPU time of this thread (the test client answers in it): what a dice bomb or a
        # runaway input would use up, and what waiting behind other test runs does not.
        start = time.thread_time()
        if channel == "gm form":
            r = t.clients["gm"].post(
                f"/enc/{t.enc.pk}/command/", as_form(command), HTTP_HX_REQUEST="true"
            )
        elif channel == "player form":
            r = t.clients["owner"].post(
                f"/p/{t.seat1.token}/command/", as_form(command), HTTP_HX_REQUEST="true"
            )
        else:
            role = channel.split()[0].replace("player", "owner")
            body = raw if raw is not None and len(raw) % 4 == 0 else json.dumps(command)
            r = Client().post(
                f"/api/encounters/{t.enc.pk}/commands/",
                body,
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {t.token(role)}",
            )
        slowest[0] = max(slowest[0], time.thread_time() - start)
        answered_well(r, before, mark(t.enc.pk), seen)
        check_bounds(t.enc.pk)
        seen["inputs"] += 1

    run()
    assert seen["inputs"] >= 600, seen
    assert seen["accepted"] > 0 and seen["refused"] > 0, seen
    assert slowest[0] < 1.0, slowest


@pytest.mark.django_db
def test_fuzz_management_forms_and_endpoints(users):
    t = build_table(*users)
    t.clients = clients_for(t)
    seen: Counter = Counter()
    e = t.enc.pk

    def mark() -> tuple[int, int]:
        return Encounter.objects.count(), Seat.objects.count() + sum(
            x.version for x in Encounter.objects.all()
        )

    field_values = st.dictionaries(
        st.sampled_from(
            [
                "name",
                "side",
                "hp",
                "notes",
                "group",
                "initiative",
                "initiative_bonus",
                "grit",
                "seat",
                "hidden",
                "ruleset",
                "stat_name_0",
                "stat_dice_0",
                "stat_bonus_0",
                "do",
                "delete",
                "setting_initiative_formula",
            ]
        ),
        st.one_of(text, st.integers(-(10**20), 10**20).map(str)),
        max_size=8,
    )

    @settings(FAST, max_examples=200 * SCALE)
    @given(
        target=st.sampled_from(
            ["add", "edit", "seat", "new", "tokens", "api seats", "api encounters", "spectator"]
        ),
        data=field_values,
        body=json_values,
    )
    def run(target: str, data: dict[str, str], body: Any) -> None:
        gm = t.clients["gm"]
        form = {k: _text(v) for k, v in data.items()}
        before = mark()
        urls = {
            "add": f"/enc/{e}/combatants/",
            "edit": f"/enc/{e}/combatants/{t.goblin}/",
            "seat": f"/enc/{e}/seats/",
            "new": "/enc/new/",
            "tokens": "/account/api-tokens/",
            "spectator": f"/enc/{e}/spectator/",
        }
        if target in urls:
            r = gm.post(urls[target], form, HTTP_HX_REQUEST="true")
            assert r.status_code < 500, r.content[:300]
            if r.status_code >= 400:
                assert 'data-testid="refusal"' in r.content.decode()
                assert mark() == before
        else:
            path = f"/api/encounters/{e}/seats/" if target == "api seats" else "/api/encounters/"
            r = Client().post(
                path,
                json.dumps(body),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {t.gm_key}",
            )
            answered_well(r, before, mark(), Counter())
        check_bounds(e)
        seen["inputs"] += 1

    run()
    assert seen["inputs"] >= 200, seen


frames = st.one_of(
    st.builds(
        json.dumps,
        st.fixed_dictionaries(
            {"type": st.sampled_from(["heartbeat", "resync", *ALL_COMMANDS])},
            optional={"version": json_values, "actor": json_values, "amount": json_values},
        ),
    ),
    st.builds(json.dumps, json_values),
    st.text(max_size=200),
    st.sampled_from(
        [
            "{",
            "[" * 3000,
            "[" * 60_000,
            "\x00",
            '{"type": "heartbeat", "version": 1e308}',
            '{"type": "heartbeat", "version": 1e999}',
            '{"type": "heartbeat", "version": NaN}',
        ]
    ),
)


# 600 command inputs + 200 management inputs + 210 socket frames: 1,010 inputs in all.
SOCKET_FRAMES = 210
SOCKETS = -(-SOCKET_FRAMES // (PER_SOCKET - 1))  # each socket takes PER_SOCKET - 1 frames


@pytest.mark.django_db(transaction=True)
def test_fuzz_socket_frames():
    t, gm_cookie, _ = async_to_sync(build)()
    before = async_to_sync(db_snapshot)()
    seen: Counter = Counter()

    async def one_socket(path: str, cookie: str | None, batch: list[str]) -> None:
        comm = socket(path, cookie=cookie)
        connected, code = await comm.connect(timeout=TIMEOUT)
        assert connected, code
        await comm.receive_from(timeout=TIMEOUT)
        for frame in batch:  # with the resync below, within the consumer's burst
            await comm.send_to(text_data=frame if frame else " ")
        # Still there and still at the same version: the whole view comes back on request.
        await comm.send_to(text_data=json.dumps({"type": "resync"}))
        while True:
            out = await comm.receive_output(timeout=TIMEOUT)
            assert out["type"] == "websocket.send", out
            if 'data-version="' in out.get("text", "") and 'id="status"' in out.get("text", ""):
                break
        await comm.disconnect()

    @settings(FAST, max_examples=SOCKETS * SCALE)
    @given(
        who=st.sampled_from(["gm", "player", "spectator"]),
        batch=st.lists(frames, min_size=PER_SOCKET - 1, max_size=PER_SOCKET - 1),
    )
    def run(who: str, batch: list[str]) -> None:
        path, cookie = {
            "gm": (f"/ws/enc/{t.enc.pk}/gm/", gm_cookie),
            "player": (f"/ws/p/{t.seat1.token}/", None),
            "spectator": (f"/ws/s/{t.enc.spectator_token}/", None),
        }[who]
        async_to_sync(one_socket)(path, cookie, batch)
        seen["inputs"] += len(batch)

    run()
    assert async_to_sync(db_snapshot)() == before
    assert seen["inputs"] >= SOCKET_FRAMES, seen
