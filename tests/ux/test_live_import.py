"""A live fight exports and imports: resumed exactly where it stood, or refused in words.

Issue 33, "A live fight exports and imports": export and import reproduce a live
encounter mid-combat (phase, round, pass, turn, order, resources, effects, engagements,
pending windows, the log); "a new encounter in set-up from this file" stays the other
option; both are in the JSON API for a GM token; an imported file is untrusted, checked
against the rules engine's invariants and refused with a sentence when inconsistent.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from combat import services
from combat.access import gm_viewer
from combat.models import ApiToken, Encounter, LogEntry
from combat.rules import Encounter as State
from combat.rules import apply

from .helpers import add, encounter, gm, user

pytestmark = pytest.mark.django_db(transaction=True)

RULESETS = ["action_points", "action_ladder", "initiative_passes"]
ATTACK = {"action_points": "basic_attack", "action_ladder": "attack", "initiative_passes": "attack"}
STATS = {
    "attack": "1d20+2",
    "damage": "1d6+1",
    "defend": "1d20",
    "AGI": "1d10",
    "STR": "1d10",
    "FCS": "1d10",
    "RES": "1d10",
    "defense": "1d12",
}


def next_command(state: State) -> dict[str, Any] | None:
    """What a GM running every combatant does next: answer an open window, begin the round,
    attack the first enemy standing, or end the turn. None once the fight is over."""
    if state.phase == "ended":
        return None
    if state.pending:
        w = state.pending[0]
        return {"type": "react", "window": w.id, "actor": w.reactor, "accept": False}
    if state.phase == "seize":
        return {"type": "begin_round"}
    actor = state.combatants.get(state.turn or "")
    if actor is None:
        return None
    foes = [
        c
        for c in state.combatants.values()
        if c.side != actor.side and not c.defeated and (c.hp or 0) > 0
    ]
    if foes and not state.combatants[actor.id].turn.get("attacks"):
        key = ATTACK[state.ruleset]
        return {"type": "act", "actor": actor.id, "action": key, "options": {"target": foes[0].id}}
    return {"type": "end_turn", "actor": actor.id}


def play(state: State, rng: random.Random, steps: int) -> tuple[State, list[Any]]:
    """Up to `steps` commands by `next_command`, each refused one replaced by ending the turn."""
    trail: list[Any] = []
    for _ in range(steps):
        cmd = next_command(state)
        if cmd is None:
            break
        out = apply(state, {**cmd, "by": "gm"}, rng)
        if not out.ok and state.turn:
            out = apply(state, {"type": "end_turn", "actor": state.turn, "by": "gm"}, rng)
        trail.append((cmd, out.ok, out.events if out.ok else out.refusal.code))
        if out.ok:
            state = out.state
        else:
            break
    return state, trail


def live_fight(owner, ruleset: str) -> Encounter:
    """Four combatants (one hidden), a condition with a duration, a melee engagement; then
    played through the service until a reaction window is open in round 1 or 2."""
    enc = encounter(owner, f"Live {ruleset}", ruleset)
    pc = {"side": "pc", "hp": 30, "stats": STATS}
    npc = {"side": "npc", "hp": 25, "stats": STATS}
    if ruleset == "action_points":
        pc["defence_prompts"] = True
    ana = add(enc, name="Ana", initiative=20, **pc)
    add(enc, name="Bram", initiative=15, **pc)
    ogre = add(enc, name="Ogre", initiative=12, **npc)
    add(enc, name="Lurker", initiative=3, hidden=True, **npc)
    gm(enc, type="set_condition", actor=ogre, name="Hexed", stacks=2, until="rounds", rounds=3)
    gm(enc, type="engage", actor=ana, target=ogre, engaged=1)
    gm(enc, type="set_board", width=8, height=6)
    gm(enc, type="paint", cells="D1:D3", terrain="wall")
    gm(enc, type="fog", cells="G5:H6")
    gm(enc, type="place", actor=ana, cell="B2")
    gm(enc, type="place", actor=ogre, cell="B3", size=2)  # next to Ana: in her reach
    gm(enc, type="start_combat")
    for _ in range(40):
        enc.refresh_from_db()
        state = State.from_dict(enc.state)
        if state.pending and state.round >= 1:
            break
        cmd = next_command(state)
        assert cmd is not None
        result = services.run_command(enc.pk, gm_viewer(enc), cmd)
        if not result.ok:
            services.run_command(enc.pk, gm_viewer(enc), {"type": "end_turn", "actor": state.turn})
    enc.refresh_from_db()
    return enc


def upload(content: bytes, mode: str | None = "resume") -> dict[str, Any]:
    body: dict[str, Any] = {
        "file": SimpleUploadedFile("fight.json", content, content_type="application/json")
    }
    if mode is not None:
        body["mode"] = mode
    return body


def imported(client: Client, exported: bytes, mode: str | None = "resume") -> Encounter:
    before = set(Encounter.objects.values_list("pk", flat=True))
    r = client.post("/library/import/", upload(exported, mode))
    assert r.status_code == 302, r.content.decode()[:2000]
    return Encounter.objects.exclude(pk__in=before).get()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_live_fight_resumes_exactly_and_plays_on_identically(owner, client, ruleset):
    """Exported mid-round and imported, the fight is the same state, ids included, and the
    same commands with the same seed give the same rolls and outcomes to the end."""
    enc = live_fight(owner, ruleset)
    state = State.from_dict(enc.state)
    assert state.phase == "combat" and state.turn
    if ruleset != "initiative_passes":  # no defence windows in that ruleset
        assert state.pending, "the export is taken while a reaction window is open"
    exported = client.get(f"/enc/{enc.pk}/export.json").getvalue()
    new = imported(client, exported)

    assert new.state == enc.state  # phase, round, pass, turn, order, resources, effects, ...
    theirs = State.from_dict(new.state)
    assert [e.name for e in theirs.combatants[state.order[0]].effects] == [
        e.name for e in state.combatants[state.order[0]].effects
    ]
    assert any(c.engaged for c in theirs.combatants.values())
    assert theirs.board and theirs.board["terrain"] and theirs.board["fog"]
    history = new.log.filter(kind=LogEntry.IMPORTED)
    assert history.count() == enc.log.filter(kind=LogEntry.COMMAND).count()
    assert not new.log.filter(kind=LogEntry.COMMAND).exists()  # nothing here to undo

    a, trail_a = play(state, random.Random(7), 200)
    b, trail_b = play(theirs, random.Random(7), 200)
    assert trail_a == trail_b and len(trail_a) > 10
    assert a.to_dict() == b.to_dict()


def test_the_resumed_fight_goes_on_in_the_console(owner, client):
    """The GM lands on the console at the same round and turn, told so, and can play on."""
    enc = live_fight(owner, "action_ladder")
    state = State.from_dict(enc.state)
    exported = client.get(f"/enc/{enc.pk}/export.json").getvalue()
    r = client.post("/library/import/", upload(exported), follow=True)
    page = r.content.decode()
    turn = state.combatants[state.turn].name
    assert f"as it stood (round {state.round}, {turn}&#x27;s turn" in page
    new = Encounter.objects.exclude(pk=enc.pk).get()
    w = state.pending[0]
    answer = {"type": "react", "window": w.id, "actor": w.reactor, "accept": False}
    assert services.run_command(new.pk, gm_viewer(new), answer).ok
    undo = services.run_command(new.pk, gm_viewer(new), {"type": "undo"})
    assert undo.ok  # the answer just given is undone; the imported history never is
    again = services.run_command(new.pk, gm_viewer(new), {"type": "undo"})
    assert not again.ok and again.refusal.message


def test_set_up_anew_stays_the_other_choice(owner, client):
    enc = live_fight(owner, "action_points")
    exported = client.get(f"/enc/{enc.pk}/export.json").getvalue()
    new = imported(client, exported, mode="setup")
    state = State.from_dict(new.state)
    assert state.phase == "setup" and state.round == 0 and not state.pending
    assert sorted(c.name for c in state.combatants.values()) == ["Ana", "Bram", "Lurker", "Ogre"]


def test_a_file_saved_before_fights_could_resume_starts_in_set_up_and_says_so(owner, client):
    enc = live_fight(owner, "action_points")
    data = json.loads(client.get(f"/enc/{enc.pk}/export.json").getvalue())
    del data["state"]
    data["format_version"] = 1
    r = client.post("/library/import/", upload(json.dumps(data).encode()), follow=True)
    assert "saved before fights could be resumed, so it starts in set-up" in r.content.decode()
    new = Encounter.objects.exclude(pk=enc.pk).get()
    assert new.state["phase"] == "setup"


def tampered(state: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """Files a GM (or anyone) could edit by hand, each with the words of its refusal."""
    cid = next(iter(state["combatants"]))
    cases = []

    def case(label: str, change: Any, words: str) -> None:
        s = copy.deepcopy(state)
        change(s)
        cases.append((label, s, words))

    case("turn", lambda s: s.update(turn="cnobody12"), "is not in this encounter")
    case("hp", lambda s: s["combatants"][cid].update(hp=999), "HP, outside 0 to its maximum")
    case("unknown key", lambda s: s.update(extra=1), "which this site does not know")
    case("bad type", lambda s: s["combatants"][cid].update(initiative="high"), "whole number")
    case("window", lambda s: s["pending"][0].update(reactor="cnobody12"), "not in this encounter")
    case("melee", lambda s: s["combatants"][cid].update(engaged=[cid]), "in melee with itself")
    case("phase", lambda s: s.update(phase="lunch"), "is not one of")
    case(
        "turn outside combat",
        lambda s: s.update(phase="setup"),
        "It is someone's turn while the phase is 'setup'",
    )
    case(
        "resource",
        lambda s: s["combatants"][cid]["res"].update(effort=-3),
        "outside 0 to its maximum",
    )
    case(
        "a name the engine refuses",
        lambda s: s["combatants"][cid].update(name="A" * 300),
        "was refused",
    )
    case(
        "a dice expression the engine refuses",
        lambda s: s["combatants"][cid]["stats"].update(attack={"dice": "1d0", "bonus": 0}),
        "was refused",
    )
    board = state["board"]
    ogre = next(k for k, c in state["combatants"].items() if c["name"] == "Ogre")
    case("a huge map", lambda s: s["board"].update(width=100_000), "width should be 1 to 100")
    case("fog off the map", lambda s: s["board"]["fog"].append("99,1"), "off the 8 × 6 map")
    case("lava", lambda s: s["board"]["terrain"].update({"1,1": "lava"}), "is not one of")
    case(
        "a token of nobody",
        lambda s: s["board"]["tokens"].update(cnobody12=board["tokens"][ogre]),
        "not in this encounter",
    )
    case(
        "a token hanging off the edge",
        lambda s: s["board"]["tokens"][ogre].update(at=[7, 5]),
        "off the 8 × 6 map",
    )
    case(
        "an id hidden in a window",
        lambda s: s["pending"][0]["detail"].update(attacker="czzzzzzzz"),
        "not in this encounter",
    )
    return cases


def test_an_inconsistent_fight_is_refused_in_words_and_nothing_is_stored(owner, client):
    enc = live_fight(owner, "action_ladder")
    data = json.loads(client.get(f"/enc/{enc.pk}/export.json").getvalue())
    count = Encounter.objects.count()
    for label, state, words in tampered(data["state"]):
        body = json.dumps({**data, "state": state}).encode()
        r = client.post("/library/import/", upload(body))
        page = r.content.decode()
        assert r.status_code == 400, label
        assert "The fight in that export cannot be resumed" in page or "was refused" in page, label
        assert words.replace("'", "&#x27;") in page, (
            label,
            page[page.find("import-error") :][:400],
        )
        assert Encounter.objects.count() == count, label
    r = client.post("/library/import/", upload(json.dumps(data).encode(), mode="sideways"))
    assert r.status_code == 400 and "Choose how to start" in r.content.decode()
    assert Encounter.objects.count() == count


def test_export_and_import_in_the_json_api_for_a_gm_token(owner):
    enc = live_fight(owner, "initiative_passes")
    _, raw = ApiToken.issue(owner, "bot")
    bot = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    r = bot.get(f"/api/encounters/{enc.pk}/export")
    assert r.status_code == 200 and "attachment" in r["Content-Disposition"]
    exported = r.getvalue()
    assert json.loads(exported)["state"] == enc.state

    r = bot.post("/api/encounters/import", exported, content_type="application/json")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["resumed"] is True and "as it stood" in body["message"]
    new = Encounter.objects.get(pk=body["id"])
    assert new.state == enc.state and r["Location"] == f"/api/encounters/{new.pk}/"

    r = bot.post("/api/encounters/import?mode=setup", exported, content_type="application/json")
    assert r.status_code == 201 and r.json()["resumed"] is False
    assert r.json()["state"]["phase"] == "setup"

    count = Encounter.objects.count()
    for raw, words in [
        (b'{"format": "nope"}', "not an encounter export"),
        (b"[1, 2", "not JSON"),
        (b"", "empty"),
    ]:
        r = bot.post("/api/encounters/import", raw, content_type="application/json")
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_import", raw
        assert words in r.json()["error"]["message"], r.json()
    r = bot.post("/api/encounters/import?mode=later", exported, content_type="application/json")
    assert r.status_code == 400 and "Choose how to start" in r.json()["error"]["message"]
    assert Encounter.objects.count() == count

    seat = services.create_seat(enc.pk, "Player", [])
    player = Client(HTTP_AUTHORIZATION=f"Bearer {seat.token}")
    assert player.get(f"/api/encounters/{enc.pk}/export").status_code == 403
    refused = player.post("/api/encounters/import", exported, content_type="application/json")
    assert refused.status_code == 403
    stranger = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user('other-gm'))[1]}")
    assert stranger.get(f"/api/encounters/{enc.pk}/export").status_code == 404
