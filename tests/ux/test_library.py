"""Reuse: combatant templates (several at once, numbered), export and import of encounters."""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from combat import library
from combat.models import CombatantTemplate, Encounter, LogEntry
from combat.rules import Encounter as State

from .helpers import HIDDEN, SURE, add, client_for, encounter, gm, names, user

pytestmark = pytest.mark.django_db


def state_with(*taken: str) -> State:
    s = State(ruleset="action_points")
    for n, name in enumerate(taken):
        from combat.rules.state import Combatant

        s.combatants[f"c{n}"] = Combatant(id=f"c{n}", name=name)
    return s


# --- numbering ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("taken", "count", "expected"),
    [
        ((), 1, ["Goblin"]),
        ((), 2, ["Goblin 1", "Goblin 2"]),
        (("Goblin",), 1, ["Goblin 2"]),
        (("Goblin",), 2, ["Goblin 2", "Goblin 3"]),
        (("Goblin 1", "Goblin 2"), 3, ["Goblin 3", "Goblin 4", "Goblin 5"]),
        (("Goblin 7", "Goblin Chief"), 1, ["Goblin 8"]),
        (("Goblin Chief",), 2, ["Goblin 1", "Goblin 2"]),
    ],
)
def test_copies_get_the_next_free_numbers(taken, count, expected):
    assert library.numbered_names(state_with(*taken), "Goblin", count) == expected


def test_a_template_keeps_the_name_without_its_number():
    assert library.base_name("Goblin 3") == "Goblin"
    assert library.base_name("Goblin") == "Goblin"
    assert library.base_name("42") == "42"


# --- templates through the pages -------------------------------------------------------------


def test_save_a_combatant_as_a_template_and_add_three_to_another_encounter(owner, client):
    first = encounter(owner, "Ambush")
    goblin = add(first, name="Goblin 2", side="npc", hp=7, initiative_bonus=2, stats=SURE)
    r = client.post(f"/enc/{first.pk}/combatants/{goblin}/template/", HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert "Saved Goblin as a template" in r.content.decode()
    assert 'id="templates"' in r.content.decode()  # the list on the console, refreshed
    template = CombatantTemplate.objects.get(owner=owner)
    assert template.name == "Goblin" and template.ruleset == "action_points"
    assert template.data["hp"] == 7 and template.data["stats"]["attack"]["bonus"] == 50

    second = encounter(owner, "Bridge")
    add(second, name="Ana", side="pc", hp=20)
    r = client.post(
        f"/enc/{second.pk}/templates/",
        {"template": template.pk, "count": "3"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    assert "Added Goblin 1, Goblin 2, Goblin 3." in r.content.decode()
    assert names(second) == ["Ana", "Goblin 1", "Goblin 2", "Goblin 3"]
    goblins = [c for c in second.state["combatants"].values() if c["name"].startswith("Goblin")]
    assert {(c["max_hp"], c["initiative_bonus"], c["side"]) for c in goblins} == {(7, 2, "npc")}
    # Each is its own command: one undo takes back the last goblin only.
    gm(second, type="undo")
    assert names(second) == ["Ana", "Goblin 1", "Goblin 2"]


def test_adding_from_a_template_twice_with_one_key_adds_the_copies_once(owner, client):
    """A double click on "Add" (the same form, the same page version) adds two goblins,
    not four, and the second answer names the same two."""
    first = encounter(owner, "Ambush")
    goblin = add(first, name="Goblin", side="npc", hp=7)
    client.post(f"/enc/{first.pk}/combatants/{goblin}/template/", HTTP_HX_REQUEST="true")
    template = CombatantTemplate.objects.get(owner=owner)
    second = encounter(owner, "Bridge")
    shown = str(Encounter.objects.get(pk=second.pk).version)
    form = {"template": template.pk, "count": "2", "form_key": shown}
    a = client.post(f"/enc/{second.pk}/templates/", form, HTTP_HX_REQUEST="true")
    b = client.post(f"/enc/{second.pk}/templates/", form, HTTP_HX_REQUEST="true")
    assert "Added Goblin 1, Goblin 2." in a.content.decode()
    assert b.content == a.content
    assert names(second) == ["Goblin 1", "Goblin 2"]
    # A page that showed the new version adds two more, on purpose.
    form["form_key"] = str(Encounter.objects.get(pk=second.pk).version)
    client.post(f"/enc/{second.pk}/templates/", form, HTTP_HX_REQUEST="true")
    assert names(second) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]


def test_the_console_lists_the_templates_with_how_many(owner, client):
    enc = encounter(owner)
    ogre = add(enc, name="Ogre", side="npc", hp=30)
    client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/")
    html = client.get(f"/enc/{enc.pk}/").content.decode()
    template = CombatantTemplate.objects.get(owner=owner)
    assert f'data-testid="template-{template.pk}"' in html
    assert f'data-testid="template-count-{template.pk}"' in html
    assert "HP 30" in html


def test_saving_again_updates_the_template(owner, client):
    enc = encounter(owner)
    ogre = add(enc, name="Ogre", side="npc", hp=30)
    client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/")
    gm(enc, type="update_combatant", actor=ogre, hp=45)
    r = client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/", HTTP_HX_REQUEST="true")
    assert "Updated the template Ogre" in r.content.decode()
    assert CombatantTemplate.objects.get(owner=owner).data["hp"] == 45


def test_a_template_from_another_ruleset_drops_the_settings_this_one_lacks(owner, client):
    ladder = encounter(owner, "Ladder", "action_ladder")
    cid = add(ladder, name="Duelist", side="npc", hp=12, stats=SURE)
    state = State.from_dict(Encounter.objects.get(pk=ladder.pk).state)
    state.combatants[cid].mods["not_a_setting_here"] = 3
    library.save_template(owner, state, cid)
    points = encounter(owner, "Points")
    template = CombatantTemplate.objects.get(owner=owner)
    r = client.post(f"/enc/{points.pk}/templates/", {"template": template.pk, "count": "1"})
    assert r.status_code == 302
    assert names(points) == ["Duelist"]


@pytest.mark.parametrize("count", ["0", "21", "many", "-1"])
def test_how_many_must_be_from_1_to_20(owner, client, count):
    enc = encounter(owner)
    ogre = add(enc, name="Ogre", side="npc", hp=30)
    client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/")
    template = CombatantTemplate.objects.get(owner=owner)
    r = client.post(
        f"/enc/{enc.pk}/templates/",
        {"template": template.pk, "count": count},
        HTTP_HX_REQUEST="true",
    )
    assert "a whole number from 1 to 20" in r.content.decode()
    assert names(enc) == ["Ogre"]


def test_another_gms_template_or_encounter_is_not_reachable(owner, client):
    enc = encounter(owner)
    ogre = add(enc, name="Ogre", side="npc", hp=30)
    client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/")
    template = CombatantTemplate.objects.get(owner=owner)
    otto = user("otto")
    theirs = encounter(otto, "Theirs")
    other = client_for(otto)
    r = other.post(
        f"/enc/{theirs.pk}/templates/", {"template": template.pk}, HTTP_HX_REQUEST="true"
    )
    assert "There is no such template" in r.content.decode()
    assert names(theirs) == []
    assert other.post(f"/enc/{enc.pk}/combatants/{ogre}/template/").status_code == 404
    assert other.post(f"/library/{template.pk}/delete/").status_code == 404
    assert client.post(f"/library/{template.pk}/delete/").status_code == 302
    assert not CombatantTemplate.objects.exists()


def test_the_library_page_lists_templates_and_offers_the_import(owner, client):
    enc = encounter(owner)
    ogre = add(enc, name="Ogre", side="npc", hp=30)
    client.post(f"/enc/{enc.pk}/combatants/{ogre}/template/")
    html = client.get("/library/").content.decode()
    assert "Ogre" in html and 'data-testid="import-form"' in html
    assert client_for(user("someone")).get("/library/").content.decode().count("Ogre") == 0


# --- export and import ------------------------------------------------------------------------


def fought(owner) -> Encounter:
    enc = encounter(owner, "Bridge fight")
    gm(enc, type="set_setting", key="attacks_per_turn", value="2")
    gm(enc, type="add_custom_action", name="Shield Bash", cost="2", attack="1")
    ana = add(enc, name="Ana", side="pc", hp=20, initiative=20, stats=SURE, grit=2)
    goblin = add(enc, name="Goblin", side="npc", hp=10, initiative=10, stats=SURE)
    add(enc, name=HIDDEN, side="npc", hp=40, initiative=5, stats=SURE, hidden=True)
    gm(enc, type="start_combat")
    gm(enc, type="act", actor=ana, action="basic_attack", options={"target": goblin})
    enc.refresh_from_db()
    return enc


def test_export_holds_settings_combatants_and_log_and_no_secret(owner, client):
    enc = fought(owner)
    from combat import services

    seat = services.create_seat(enc.pk, "Player 1", [])
    r = client.get(f"/enc/{enc.pk}/export.json")
    assert r.status_code == 200
    assert 'filename="Bridge-fight.encounter.json"' in r["Content-Disposition"]
    data = json.loads(r.getvalue())
    assert data["format"] == library.FORMAT and data["format_version"] == library.FORMAT_VERSION
    assert data["state"]["phase"] == "combat" and data["state"]["round"] == 1
    assert data["encounter"]["ruleset"] == "action_points"
    assert data["encounter"]["settings"]["attacks_per_turn"] == 2
    assert [c["name"] for c in data["combatants"]] == ["Ana", "Goblin", HIDDEN]
    goblin = data["combatants"][1]
    assert goblin["current_hp"] == 7 and goblin["hp"] == 10
    assert data["combatants"][2]["hidden"] is True
    assert any("Basic Attack" in ev["text"] for e in data["log"] for ev in e["events"])
    body = r.getvalue().decode()
    assert seat.token not in body and str(enc.spectator_token) not in body
    assert "state_before" not in body


def test_import_makes_a_new_encounter_with_the_same_combatants_and_history(owner, client):
    """Imported "anew, in set-up": the combatants at their HP, before initiative."""
    enc = fought(owner)
    exported = client.get(f"/enc/{enc.pk}/export.json").getvalue()
    upload = SimpleUploadedFile("fight.json", exported, content_type="application/json")
    r = client.post("/library/import/", {"file": upload, "mode": "setup"})
    assert r.status_code == 302
    new = Encounter.objects.exclude(pk=enc.pk).get(owner=owner)
    assert r["Location"] == f"/enc/{new.pk}/"
    assert new.name == "Bridge fight" and new.ruleset == "action_points"
    state = State.from_dict(new.state)
    assert state.phase == "setup"
    assert state.settings["attacks_per_turn"] == 2
    assert [a["name"] for a in state.custom_actions.values()] == ["Shield Bash"]
    by_name = {c.name: c for c in state.combatants.values()}
    assert set(by_name) == {"Ana", "Goblin", HIDDEN}
    assert (by_name["Goblin"].hp, by_name["Goblin"].max_hp) == (7, 10)
    assert by_name[HIDDEN].hidden and by_name["Ana"].res["grit"] == 2
    assert by_name["Ana"].stats == SURE
    imported = list(new.log.filter(kind=LogEntry.IMPORTED).order_by("seq"))
    assert imported, "the history came along"
    attack = next(e for e in imported if e.command.get("type") == "act")
    # Ids in the history are the new encounter's.
    assert attack.command["actor"] == by_name["Ana"].id
    assert attack.events[0]["data"]["target"] == by_name["Goblin"].id
    # History is never undone: undo takes back the import's own last command.
    last_own = new.log.filter(kind=LogEntry.COMMAND).order_by("-seq").first()
    gm(new, type="undo")
    last_own.refresh_from_db()
    assert last_own.undone
    assert not new.log.filter(kind=LogEntry.IMPORTED, undone=True).exists()
    page = client.get(f"/enc/{new.pk}/").content.decode()
    assert "Ana: Basic Attack" in page  # the history is in the console's log


def bad_upload(client, content: bytes, name: str = "fight.json"):
    upload = SimpleUploadedFile(name, content, content_type="application/json")
    return client.post("/library/import/", {"file": upload})


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "The file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not text"),
        (b"name,hp\nGoblin,7\n", "not JSON"),
        (b'{"name": "Goblin"}', "not an encounter export"),
        (b"[1, 2, 3]", "not an encounter export"),
        (
            b'{"format": "combat-table-encounter", "format_version": 99, "encounter": {}}',
            "format version 99",
        ),
        (
            b'{"format": "combat-table-encounter", "format_version": 1,'
            b' "encounter": {"name": "X", "ruleset": "chess"}}',
            "does not have",
        ),
        (
            b'{"format": "combat-table-encounter", "format_version": 1,'
            b' "encounter": {"name": "X", "ruleset": "action_points"}, "combatants": {}}',
            '"combatants" is not a list',
        ),
        (
            b'{"format": "combat-table-encounter", "format_version": 1,'
            b' "encounter": {"name": "X", "ruleset": "action_points"},'
            b' "combatants": [{"name": "Goblin", "hp": "lots"}]}',
            "The combatant 'Goblin' was refused",
        ),
    ],
)
def test_a_file_that_is_not_an_export_is_refused_in_words(owner, client, content, words):
    r = bad_upload(client, content)
    assert r.status_code == 400
    html = unescape(r.content.decode())
    assert 'data-testid="import-error"' in html
    assert words in html, html.split('data-testid="import-error">')[1][:300]
    assert "fight.json" in html
    assert not Encounter.objects.filter(owner=owner).exists()


def test_a_file_too_large_or_missing_is_refused(owner, client, monkeypatch):
    monkeypatch.setattr(library, "MAX_IMPORT_BYTES", 100)
    r = bad_upload(client, b"{" + b" " * 200 + b"}")
    assert r.status_code == 400 and "too large" in r.content.decode()
    r = client.post("/library/import/", {})
    assert r.status_code == 400 and "Choose a file" in r.content.decode()


def test_import_and_export_are_for_the_gm_only(owner, client):
    enc = fought(owner)
    from django.test import Client

    anonymous = Client()
    assert anonymous.get(f"/enc/{enc.pk}/export.json").status_code in (302, 403)
    assert client_for(user("otto")).get(f"/enc/{enc.pk}/export.json").status_code == 404
    upload = SimpleUploadedFile("f.json", b"{}", content_type="application/json")
    assert anonymous.post("/library/import/", {"file": upload}).status_code in (302, 403)
