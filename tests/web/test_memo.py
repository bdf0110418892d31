"""Pushed views reuse fragments (`{% memo %}`), and must be exactly what a full render gives.

For each ruleset a demo table plays a seeded combat of a few hundred commands: turns,
allowed actions with their options, reactions answered or declined, damage, hiding and
revealing, seats given and taken away, undo. After each command every audience's push
is rendered twice, once reusing fragments kept from all the pushes before and once in
full, and the two must be equal byte for byte. A fragment that depends on something its
`{% memo %}` tag does not name shows up here as an old value on someone's screen.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from django.core.management import call_command

from combat import broadcast, screens, services
from combat.models import Encounter, Seat
from combat.rules import rulesets
from combat.templatetags.memo import STORE
from tests.replay import a_command
from tests.web.conftest import HIDDEN

# A few hundred commands rendered twice for every audience: with the other long replays
# (tests/realtime/test_replay.py), in the whole suite but not in `make quick`.
pytestmark = [pytest.mark.django_db, pytest.mark.fuzz, pytest.mark.timeout(600)]


def views(enc: Encounter, *, memo: bool) -> dict[str, str]:
    """Every audience's push of the encounter as it is, with or without reused fragments."""
    enc.refresh_from_db()
    state = screens.load_state(enc)
    shared = screens.Shared()
    old = broadcast.MEMO
    broadcast.MEMO = memo
    try:
        out = {"gm": broadcast.render_gm(enc, state, prev_version=1, shared=shared)}
        for seat in enc.seats.filter(revoked=False):
            out[seat.name] = broadcast.render_player(
                enc, seat, state, prev_version=1, shared=shared
            )
        out["public"] = broadcast.render_public(enc, state, prev_version=1, shared=shared)
    finally:
        broadcast.MEMO = old
    return out


@pytest.mark.parametrize("ruleset", sorted(rulesets()))
def test_every_push_equals_a_full_render(ruleset: str) -> None:
    call_command("seed_demo", stdout=io.StringIO())
    enc = Encounter.objects.get(ruleset=ruleset)
    services.create_seat(enc.pk, "Player 3", [])
    STORE.clear()
    rng = random.Random(f"memo-{ruleset}")
    compared = 0
    kinds: set[str] = set()
    for _ in range(150):
        enc.refresh_from_db()
        viewer, command = a_command(enc, rng)
        services.run_command(enc.pk, viewer, command)
        kinds.add(command["type"])
        reused, full = views(enc, memo=True), views(enc, memo=False)
        assert reused.keys() == full.keys()
        for audience, html in full.items():
            assert reused[audience] == html, f"{audience} after {command}"
            compared += 1
    # The run reused fragments (or it proves nothing) and covered the game, not one corner.
    assert STORE.hits > 10 * STORE.misses / 4, (STORE.hits, STORE.misses)
    assert {"act", "end_turn", "undo", "hide", "damage"} <= kinds, kinds
    assert compared >= 150 * 4
    assert Seat.objects.filter(encounter=enc).count() == 3


def log_of(html: str) -> str:
    """The log region of a page."""
    start = html.index('id="log"')
    return html[start : html.index("</section>", start)]


def test_kept_log_lines_follow_hiding_revealing_and_undo(table) -> None:
    """A log line is built once and kept, but a line about a combatant the GM hides again
    leaves the players' log while it is hidden (chosen by id, issue 12 item 9), is back
    once revealed, and shows an undo."""
    table.gm_post(type="reveal", actor=table.troll)
    table.gm_post(type="start_combat")
    r = table.p1_post(
        type="act", actor=table.ana, action="basic_attack", opt_target=table.troll, opt_ranged="0"
    )
    assert b'data-testid="notice"' in r.content
    seen = log_of(table.p1.get(table.player1_url).content.decode())
    assert HIDDEN in seen

    table.gm_post(type="hide", actor=table.troll)
    hidden = log_of(table.p1.get(table.player1_url).content.decode())
    assert HIDDEN not in hidden and "Basic Attack" not in hidden and "someone" not in hidden
    assert HIDDEN in log_of(table.gm.get(table.gm_url).content.decode())

    table.gm_post(type="reveal", actor=table.troll)
    table.gm_post(type="undo")  # the reveal
    table.gm_post(type="undo")  # the hiding
    table.gm_post(type="undo")  # Ana's attack
    items = log_of(table.p1.get(table.player1_url).content.decode()).split("<li")[1:]
    attack = [i for i in items if "Basic Attack" in i and "undoes" not in i]
    assert attack and all("is-undone" in i and HIDDEN in i for i in attack)


def test_keyed_values_key_by_content_wherever_they_stand() -> None:
    """A fragment keyed on a card that holds a combatant's actions keys on their digest:
    equal actions built twice give the same key, one changed reason gives another."""
    from combat.templatetags.memo import KeyedDict, KeyedList, key_of

    def actions(reason: str) -> KeyedList:
        return KeyedList(
            [
                {"key": "basic_attack", "allowed": False, "reason": reason},
                {"key": "cast_spell", "allowed": True, "reason": ""},
            ]
        )

    def card(acts: KeyedList) -> dict[str, Any]:
        return {"id": "c1", "name": "Ana", "actions": acts, "ap": 3}

    a, b = card(actions("Not Ana's turn.")), card(actions("Not Ana's turn."))
    assert a["actions"] is not b["actions"]
    assert key_of("card", [True, a]) == key_of("card", [True, b])
    assert key_of("card", [True, a]) != key_of("card", [True, card(actions("No AP left."))])
    assert key_of("card", [True, a]) != key_of("card", [False, a])  # escaping is part of it
    assert key_of("card", [True, a]) != key_of("other site", [True, a])
    # A keyed list of keyed lines: the log, keyed by its lines' own digests.
    line = {"seq": 3, "text": "Ana hits the Ogre.", "undone": False}
    log = KeyedList([KeyedDict(line), KeyedDict(line, seq=2)])
    same = KeyedList([KeyedDict(line), KeyedDict(line, seq=2)])
    undone = KeyedList([KeyedDict(line, undone=True), KeyedDict(line, seq=2)])
    assert key_of("log", [True, log]) == key_of("log", [True, same])
    assert key_of("log", [True, log]) != key_of("log", [True, undone])
    assert key_of("log", [True, log]) != key_of("log", [True, log.head(1)])


def test_the_whole_log_is_kept_for_its_own_push_only(fight) -> None:
    """The log changes with every command: its whole fragment serves the other views of
    the same push (six players see one log) and is never put in the store, where it would
    push out the cards and lines later pushes show again."""
    enc = fight.refresh()
    STORE.clear()
    shared = screens.Shared()
    first = broadcast.render_player(enc, fight.seat1, prev_version=1, shared=shared)
    second = broadcast.render_player(enc, fight.seat2, prev_version=1, shared=shared)
    assert log_of(first) == log_of(second)
    kept = shared["memo"].kept
    assert len(kept) == 1 and log_of(next(iter(kept.values()))) == log_of(first)
    assert not [html for html in STORE._items.values() if 'id="log"' in html]
    # Its lines are in the store: the next push renders only the new one.
    assert any("Round 1 begins." in html for html in STORE._items.values())


def test_kept_fragments_take_a_byte_per_character() -> None:
    """The table's own symbols (pips, turn markers, dashes) are written as character
    references, so a kept fragment with plain names stays one byte per character in
    memory instead of two or four (docs/performance.md)."""
    call_command("seed_demo", stdout=io.StringIO())
    enc = Encounter.objects.get(ruleset="action_points")
    STORE.clear()
    views(enc, memo=True)
    assert len(STORE) > 20
    wide = [html for html in STORE._items.values() if max(html) > "\xff"]
    assert not wide, sorted({ch for html in wide for ch in html if ch > "\xff"})
