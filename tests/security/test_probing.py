"""Hidden things cannot be probed for (issue 12 items 9 and 10).

Item 9: a refusal used to repeat the caller's text, and a scrubber then replaced hidden
names in it with "someone", so one request carrying 1,100 guesses told which guess was a
hidden combatant's name; the same scrubber turned a visible "Lurking Troll 2" into
"someone 2". Now refusals never repeat what was sent and nothing rewrites text: every
answer below is the same byte for byte whether or not the guesses hold the hidden name.

Item 10: a player could answer a reaction window a hidden combatant opened by guessing
its id ("w5"), and ids counted up, so a gap told that something hidden was there.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from django.test import Client

from combat import services
from combat.access import gm_viewer
from combat.models import Encounter

from .conftest import HIDDEN, Table, add

pytestmark = pytest.mark.django_db

GUESSES = 1_100


def guesses(hit: bool) -> list[str]:
    """1,100 names a prober might try; with `hit`, the hidden one is among them."""
    words = [f"Lurking Thing {i}" for i in range(GUESSES)]
    words[737] = HIDDEN if hit else "Lurking Trolx"
    return words


def api(t: Table, role: str, body: Any) -> tuple[int, str]:
    r = Client().post(
        f"/api/encounters/{t.enc.pk}/commands/",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {t.token(role)}",
    )
    return r.status_code, r.content.decode()


def page_post(t: Table, fields: dict[str, str]) -> tuple[int, str]:
    r = Client().post(f"/p/{t.seat1.token}/command/", fields, HTTP_HX_REQUEST="true")
    return r.status_code, r.content.decode()


def probes(t: Table, text: str) -> list[tuple[str, Any]]:
    """Every place a player's words come back in a refusal, each carrying `text`."""
    return [
        ("command type", {"type": text}),
        ("action", {"type": "act", "actor": t.ana, "action": text}),
        ("target", {"type": "act", "actor": t.ana, "action": "basic_attack", "target": text}),
        ("actor", {"type": "end_turn", "actor": text}),
        ("option", {"type": "act", "actor": t.ana, "action": "basic_attack", "options": {text: 1}}),
        ("window", {"type": "react", "actor": t.ana, "window": text}),
        ("number", {"type": "act", "actor": t.ana, "action": "empowered_attack",
                    "options": {"to_hit": text}}),
    ]  # fmt: skip


def test_a_thousand_guesses_in_one_request_find_no_hidden_name(table: Table) -> None:
    """1,100 guesses in each field a player can fill: the answer with the hidden name among
    them is identical to the answer without it, and repeats none of the guesses."""
    services.run_command(table.enc.pk, gm_viewer(table.enc), {"type": "start_combat"})
    hit, miss = ", ".join(guesses(True)), ", ".join(guesses(False))
    asked = 0
    pairs = zip(probes(table, hit), probes(table, miss), strict=True)
    for (what, with_hit), (_, with_miss) in pairs:
        a, b = api(table, "owner", with_hit), api(table, "owner", with_miss)
        asked += 2 * GUESSES
        assert a == b, what
        assert a[0] in (400, 403, 404, 409), (what, a)
        assert "someone" not in a[1] and "Lurking" not in a[1], (what, a[1])
    # The pages answer the same way (the form's fields).
    for field in ("type", "action", "target", "window", "opt_to_hit"):
        form = {"type": "act", "actor": table.ana, "action": "empowered_attack"}
        a = page_post(table, {**form, field: hit})
        b = page_post(table, {**form, field: miss})
        asked += 2 * GUESSES
        assert a == b, field
        assert "someone" not in a[1] and "Lurking" not in a[1], (field, a[1])
    assert asked >= 1_000


def test_dice_guesses_find_no_hidden_name(table: Table) -> None:
    """A dice expression that is not one is refused without being repeated: guesses put
    into `roll` (100 characters at a time, the field's limit) all get the same answer."""
    answers = set()
    for n, word in enumerate(guesses(True)):
        if n % 100 and word != HIDDEN:
            continue  # every hundredth guess and the hidden name: the rest answer alike
        status, body = api(table, "owner", {"type": "roll", "actor": table.ana, "dice": word})
        assert status == 400
        answers.add(body)
    assert len(answers) == 1
    assert "Lurking" not in answers.pop()


def test_a_players_own_text_comes_back_as_typed(table: Table) -> None:
    """Nothing rewrites text, so a roll label naming the hidden combatant is shown as the
    player typed it, exactly like a label naming nobody: the log tells no guess apart."""
    for label in (HIDDEN, "Lurking Trolx"):
        status, _ = api(
            table, "owner", {"type": "roll", "actor": table.ana, "dice": "1d6", "label": label}
        )
        assert status == 200
    page = Client().get(f"/p/{table.seat1.token}/").content.decode()
    assert f"Ana rolls {HIDDEN}: 1d6" in page
    assert "Ana rolls Lurking Trolx: 1d6" in page
    assert "someone" not in page


def test_a_visible_name_holding_a_hidden_one_is_shown_whole(table: Table) -> None:
    """'Lurking Troll 2' stays 'Lurking Troll 2' while 'Lurking Troll' is hidden: on the
    players' and the spectators' pages, in the log and in the API."""
    gm = gm_viewer(table.enc)
    two = add(table.enc, name=f"{HIDDEN} 2", side="npc", hp=12, initiative=3)
    services.run_command(table.enc.pk, gm, {"type": "start_combat"})
    services.run_command(table.enc.pk, gm, {"type": "damage", "actor": two, "amount": 2})
    services.run_command(table.enc.pk, gm, {"type": "set_condition", "actor": two, "name": "Dazed"})
    table.refresh()
    seen = {
        "player page": Client().get(f"/p/{table.seat1.token}/").content.decode(),
        "spectator page": Client().get(f"/s/{table.enc.spectator_token}/").content.decode(),
    }
    for role in ("owner", "spectator"):
        for path in ("", "log/"):
            r = Client().get(
                f"/api/encounters/{table.enc.pk}/{path}",
                HTTP_AUTHORIZATION=f"Bearer {table.token(role)}",
            )
            seen[f"{role} api {path}"] = r.content.decode()
    for where, text in seen.items():
        assert f"{HIDDEN} 2" in text, where
        assert "someone 2" not in text, where
        # The hidden one itself appears nowhere: every mention is of the visible one.
        assert not re.search(rf"{HIDDEN}(?! 2)", text), where


# --- item 10: reaction windows and ids -------------------------------------------------------


def _hidden_window(t: Table) -> tuple[Encounter, str]:
    """Ana in the hidden Troll's reach; the Troll's turn; it moves away: Ana may make an
    Opportunity Attack on it. The window is the GM's to settle (Ana's player sees none)."""
    gm = gm_viewer(t.enc)
    run = lambda cmd: services.run_command(t.enc.pk, gm, cmd)  # noqa: E731
    assert run({"type": "start_combat"}).ok
    assert run({"type": "engage", "actor": t.troll, "target": t.ana}).ok
    while Encounter.objects.get(pk=t.enc.pk).state["turn"] != t.troll:
        assert run({"type": "end_turn"}).ok
    moved = run({"type": "act", "actor": t.troll, "action": "move"})
    assert moved.ok, moved.refusal
    enc = Encounter.objects.get(pk=t.enc.pk)
    [w] = [w for w in enc.state["pending"] if w["reactor"] == t.ana]
    return enc, w["id"]


def test_a_guessed_hidden_window_is_refused_like_an_unknown_one(table: Table) -> None:
    """Answering the window by its id is refused with the very answer an id that never
    existed gets (status, code and sentence), and changes nothing."""
    enc, wid = _hidden_window(table)
    before = (enc.version, json.dumps(enc.state, sort_keys=True))
    guessed = api(table, "owner", {"type": "react", "actor": table.ana, "window": wid})
    unknown = api(table, "owner", {"type": "react", "actor": table.ana, "window": "w999999"})
    assert guessed == unknown
    assert guessed[0] == 409
    assert json.loads(guessed[1])["error"]["code"] == "no_window"
    form = {"type": "react", "actor": table.ana, "accept": "1"}
    assert page_post(table, {**form, "window": wid}) == page_post(
        table, {**form, "window": "w999999"}
    )
    enc.refresh_from_db()
    assert (enc.version, json.dumps(enc.state, sort_keys=True)) == before
    # The GM settles it.
    closed = services.run_command(enc.pk, gm_viewer(enc), {"type": "close_windows"})
    assert closed.ok


def test_ids_count_nothing(table: Table) -> None:
    """New combatants' and windows' ids are random, not numbered: the ids a player sees
    say nothing of how many hidden things came before, and no two are alike."""
    gm = gm_viewer(table.enc)
    ids = [add(table.enc, name=f"Goblin {n}", side="npc", hp=5, initiative=2) for n in range(30)]
    assert len(set(ids)) == len(ids)
    # Random base32 letters, not a number counting up: "c" and 8 of a-z, 2-7.
    assert all(re.fullmatch(r"c[a-z2-7]{8}", i) for i in ids)
    assert sorted(ids) != ids
    _, wid = _hidden_window(table)
    assert re.fullmatch(r"w[a-z2-7]{8}", wid)
    # What a player's API answer holds of the order of adding: nothing.
    r = Client().get(
        f"/api/encounters/{table.enc.pk}/", HTTP_AUTHORIZATION=f"Bearer {table.token('owner')}"
    )
    combatants = r.json()["state"]["combatants"]
    assert combatants and all("seq" not in c and "tie" not in c for c in combatants.values())
    assert "counter" not in r.json()["state"]
    assert gm.is_gm


def test_seeded_ids_replay(table: Table) -> None:
    """A seeded die gives the same ids again, so a seeded test replays exactly."""
    from combat.rules import apply, new_encounter

    made = []
    for _ in range(2):
        state = new_encounter("action_points")
        out = apply(state, {"type": "add_combatant", "name": "Ana", "by": "gm"}, random.Random(7))
        made.append(list(out.state.combatants))
    assert made[0] == made[1]


def test_an_undo_line_leaves_with_what_it_undid(table: Table) -> None:
    """The undo line repeats the undone line, so it involves the same combatants: once the
    combatant it names is hidden, players no longer see either."""
    gm = gm_viewer(table.enc)
    run = lambda cmd: services.run_command(table.enc.pk, gm, cmd)  # noqa: E731
    assert run({"type": "reveal", "actor": table.troll}).ok
    assert run({"type": "start_combat"}).ok
    hit = {"type": "act", "actor": table.ana, "action": "basic_attack", "target": table.troll}
    assert api(table, "owner", hit)[0] == 200
    assert run({"type": "undo"}).ok
    page = Client().get(f"/p/{table.seat1.token}/").content.decode()
    assert f"The GM undoes: Ana: Basic Attack for 1 AP on {HIDDEN}" in page
    assert run({"type": "hide", "actor": table.troll}).ok
    for url in (f"/p/{table.seat1.token}/", f"/s/{table.enc.spectator_token}/"):
        assert HIDDEN not in Client().get(url).content.decode(), url
