"""The encounter list manages encounters (rename, duplicate, delete with confirmation) and
the library edits combatant templates (issue 30). Only the owner can; bad input is said in
words and changes nothing."""

from __future__ import annotations

import pytest

from combat import library
from combat.models import CombatantTemplate, Encounter

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def listed(t: TableFixture) -> str:
    return t.gm.get("/").content.decode()


def test_renaming_an_encounter_shows_the_new_name_on_the_list_and_the_console(table: TableFixture):
    t = table
    r = t.gm.post(f"/enc/{t.enc.pk}/rename/", {"name": "  Ambush at the ford "}, follow=True)
    page = r.content.decode()
    assert "Renamed to \u201cAmbush at the ford\u201d." in page
    assert "Ambush at the ford" in page and "Bridge fight" not in page
    assert "<title>Ambush at the ford (GM)" in t.gm.get(t.gm_url).content.decode()
    assert t.refresh().state["name"] == "Ambush at the ford"


def test_a_blank_or_long_name_is_refused_in_words(table: TableFixture):
    t = table
    page = t.gm.post(f"/enc/{t.enc.pk}/rename/", {"name": "   "}, follow=True).content.decode()
    assert "Give the encounter a name." in page
    page = t.gm.post(f"/enc/{t.enc.pk}/rename/", {"name": "x" * 81}, follow=True).content.decode()
    assert "A name has at most 80 characters; this one has 81." in page
    assert t.refresh().name == "Bridge fight"


def test_only_the_owner_renames_duplicates_or_deletes(table: TableFixture):
    t = table
    for what in ("rename", "duplicate", "delete"):
        r = t.outsider.post(f"/enc/{t.enc.pk}/{what}/", {"name": "Mine now", "confirm": "yes"})
        assert r.status_code == 404
    assert t.refresh().name == "Bridge fight"
    assert Encounter.objects.count() == 1


def test_duplicating_makes_a_copy_in_set_up_with_the_same_combatants(table: TableFixture):
    t = table
    t.gm_post(type="start_combat")
    page = t.gm.post(f"/enc/{t.enc.pk}/duplicate/", follow=True).content.decode()
    assert "Made \u201cBridge fight (copy)\u201d, in set-up." in page
    copy = Encounter.objects.exclude(pk=t.enc.pk).get()
    assert copy.owner == t.enc.owner and copy.name == "Bridge fight (copy)"
    assert copy.state["phase"] == "setup"
    names = sorted(c["name"] for c in copy.state["combatants"].values())
    assert names == ["Ana", "Bram", "Goblin", "Lurking Troll"]
    assert t.refresh().state["phase"] == "combat"  # the original is untouched


def test_deleting_asks_first_then_removes_the_encounter(table: TableFixture):
    t = table
    r = t.gm.post(f"/enc/{t.enc.pk}/delete/")
    page = r.content.decode()
    assert r.status_code == 200
    assert "Delete <strong>Bridge fight</strong>" in page and "cannot be undone" in page
    assert Encounter.objects.filter(pk=t.enc.pk).exists()
    page = t.gm.post(f"/enc/{t.enc.pk}/delete/", {"confirm": "yes"}, follow=True).content.decode()
    assert "\u201cBridge fight\u201d deleted." in page
    assert not Encounter.objects.filter(pk=t.enc.pk).exists()
    assert t.gm.get(t.gm_url).status_code == 404
    assert t.p1.get(f"/p/{t.seat1.token}/").status_code in (404, 410)


def test_the_list_offers_rename_duplicate_and_delete(table: TableFixture):
    page = listed(table)
    pk = table.enc.pk
    for testid in (f"rename-{pk}", f"duplicate-{pk}", f"delete-{pk}"):
        assert f'data-testid="{testid}"' in page


def saved_goblin(t: TableFixture) -> CombatantTemplate:
    from combat.screens import load_state

    template, _ = library.save_template(t.enc.owner, load_state(t.enc), t.goblin)
    return template


def test_a_template_is_edited_from_the_library(table: TableFixture):
    t = table
    tpl = saved_goblin(t)
    form = t.gm.get(f"/library/{tpl.pk}/edit/").content.decode()
    assert 'value="Goblin"' in form and 'value="10"' in form
    r = t.gm.post(
        f"/library/{tpl.pk}/edit/",
        {
            "name": "Goblin chief",
            "side": "npc",
            "hp": "25",
            "initiative_bonus": "2",
            "notes": "Shouts orders",
            "stat_name_0": "attack",
            "stat_dice_0": "1d20",
            "stat_bonus_0": "4",
        },
        follow=True,
    )
    page = r.content.decode()
    assert "Template Goblin chief saved." in page
    tpl.refresh_from_db()
    assert tpl.name == "Goblin chief"
    assert tpl.data["hp"] == 25 and tpl.data["initiative_bonus"] == 2
    assert tpl.data["notes"] == "Shouts orders"
    assert tpl.data["stats"] == {"attack": {"dice": "1d20", "bonus": 4}}
    assert 'data-testid="template-edit-' in page


def test_a_template_edit_the_rules_refuse_changes_nothing(table: TableFixture):
    t = table
    tpl = saved_goblin(t)
    before = (tpl.name, tpl.data)
    r = t.gm.post(
        f"/library/{tpl.pk}/edit/",
        {"name": "Goblin", "side": "npc", "hp": "10", "stat_name_0": "attack", "stat_dice_0": "d"},
    )
    assert r.status_code == 400
    assert 'data-testid="refusal"' in r.content.decode()
    tpl.refresh_from_db()
    assert (tpl.name, tpl.data) == before
    assert t.outsider.get(f"/library/{tpl.pk}/edit/").status_code == 404
