"""Names and notes that look like markup are stored intact and shown as text, never as markup.

`<script>`, htmx attributes (`hx-get`, `hx-on`), quotes and template syntax go into every
free-text field a GM or player fills: combatant names, notes and groups, seat names, the
encounter's name, custom actions, conditions, roll labels, API token names. Each is stored
exactly as typed and appears escaped on every page, pushed view and API answer; no page
gains a script, an event handler or an htmx attribute it did not have. Text over a field's
stated limit (names 80, notes 2000) is refused with a sentence saying so, and stores nothing.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.utils.html import escape

from combat import broadcast
from combat.access import gm_viewer, seat_viewer, spectator_viewer
from combat.models import ApiToken, Encounter, Seat

from .conftest import Table, snapshot

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

NAMES = [
    '<script>alert("n")</script>',
    '" hx-get="/evil" hx-trigger="load" x="',
    "' hx-on:click='alert(1)' x='",
    '<img src=x onerror="alert(1)">',
    "{{ 7|add:7 }} {% csrf_token %}",
    'hx-on::load="alert(1)" & &amp; &lt;',
    "</textarea><b>bold</b><!--",
    'Bobby"); DROP TABLE combat_seat;--',
]
NOTES = ("\n".join(NAMES) + "\n") * 8
NOTES = (NOTES + "x" * 2000)[:2000]  # exactly the limit


class Markup(HTMLParser):
    """Every tag and attribute of a page, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def injected(html: str) -> list[str]:
    """What in this page could be markup that a name brought in (empty when inert)."""
    parser = Markup()
    parser.feed(html)
    bad = []
    for tag, attrs in parser.tags:
        if tag == "script" and not (attrs.get("src", "") or "").startswith("/static/"):
            bad.append(f"inline script {attrs}")
        if tag in ("img", "b", "iframe", "object", "embed"):
            bad.append(f"<{tag}>")
        for name, value in attrs.items():
            value = value or ""
            # Attributes a name could only have brought in by breaking out of its quotes.
            if name.startswith("on") or name.startswith("hx-on") or name == "x":
                bad.append(f"{tag} {name}={value!r}")
            # Attributes whose value is an address or a trigger, not text shown to a person.
            address = name in ("hx-get", "hx-post", "src", "href", "action", "hx-trigger")
            if address and ("evil" in value or value == "load" or "alert(" in value):
                bad.append(f"{tag} {name}={value!r}")
    return bad


def shows(html: str, text: str) -> bool:
    """`text` appears escaped, and nowhere raw (where it would differ from the escaped form)."""
    return escape(text) in html and (escape(text) == text or text not in html)


def views_of(t: Table) -> dict[str, str]:
    """Every page and pushed view of the table, for every audience."""
    seat1 = Seat.objects.get(pk=t.seat1.pk)
    enc = Encounter.objects.get(pk=t.enc.pk)
    gm = t.clients["gm"]
    out = {
        "gm page": gm.get(f"/enc/{enc.pk}/").content.decode(),
        "encounters page": gm.get("/").content.decode(),
        "player page": Client().get(f"/p/{seat1.token}/").content.decode(),
        "spectator page": Client().get(f"/s/{enc.spectator_token}/").content.decode(),
        "gm view": broadcast.render_view(gm_viewer(enc))[0],
        "player view": broadcast.render_view(seat_viewer(seat1))[0],
        "spectator view": broadcast.render_view(spectator_viewer(enc))[0],
    }
    for cid in enc.state["combatants"]:
        out[f"gm edit {cid}"] = gm.get(f"/enc/{enc.pk}/combatants/{cid}/", **HTMX).content.decode()
    return out


def test_markup_in_every_free_text_field_is_stored_intact_and_shown_inert(table: Table):
    gm, p1 = table.clients["gm"], table.clients["owner"]
    e = table.enc.pk
    for n, name in enumerate(NAMES):
        r = gm.post(
            f"/enc/{e}/combatants/",
            {"name": name, "side": "npc", "hp": "7", "notes": NOTES, "group": name, "seat": ""},
            **HTMX,
        )
        assert r.status_code == 200 and 'data-testid="notice"' in r.content.decode(), name
        assert gm.post(f"/enc/{e}/seats/", {"name": name}, **HTMX).status_code == 200
        r = gm.post(
            f"/enc/{e}/command/", {"type": "add_custom_action", "name": f"{n}{name}"[:80]}, **HTMX
        )
        assert r.status_code == 200, r.content
        r = gm.post(
            f"/enc/{e}/command/",
            {"type": "set_condition", "actor": table.goblin, "name": name[:40]},
            **HTMX,
        )
        assert r.status_code == 200, r.content
        r = p1.post(
            f"/p/{table.seat1.token}/command/",
            {"type": "roll", "actor": table.ana, "dice": "1d6", "label": name},
            **HTMX,
        )
        assert r.status_code == 200 and escape(name) in r.content.decode(), name
        r = gm.post("/account/api-tokens/", {"name": name})
        assert r.status_code == 200
    r = gm.post("/enc/new/", {"name": NAMES[0], "ruleset": "action_points"})
    assert r.status_code == 302

    # Stored exactly as typed.
    state = Encounter.objects.get(pk=e).state
    by_name = {c["name"]: c for c in state["combatants"].values()}
    for name in NAMES:
        assert by_name[name]["notes"] == NOTES
        assert name in {g["name"] for g in state["groups"].values()}
        assert Seat.objects.filter(encounter_id=e, name=name).exists()
        assert ApiToken.objects.filter(name=name).exists()
    assert Encounter.objects.filter(name=NAMES[0]).exists()

    # Shown as text everywhere, and no page gained markup.
    pages = views_of(table)
    pages["api tokens page"] = gm.get("/account/api-tokens/").content.decode()
    for where, html in pages.items():
        assert injected(html) == [], where
    for name in NAMES:
        for where in ("gm page", "player page", "spectator page", "gm view", "player view"):
            assert shows(pages[where], name), (where, name)
        assert shows(pages["api tokens page"], name)
    for where in ("gm page",):
        assert shows(pages[where], NOTES), where
    # Notes are the GM's only.
    for where in ("player page", "spectator page", "player view", "spectator view"):
        assert escape(NOTES[:200]) not in pages[where], where

    # And the API hands the same text back unchanged, as JSON strings.
    for token in (table.gm_key, table.seat1.token, table.enc.spectator_token):
        body = Client().get(f"/api/encounters/{e}/", HTTP_AUTHORIZATION=f"Bearer {token}")
        names = {c["name"] for c in body.json()["state"]["combatants"].values()}
        assert set(NAMES) <= names
        assert body["Content-Type"] == "application/json"
    log = gm.get(f"/enc/{e}/log.json")
    assert any(name in json.dumps(log.json(), ensure_ascii=False) for name in NAMES)


LONG = "<script>" + "x" * 9_992  # 10,000 characters


def test_text_over_the_limit_is_refused_with_the_limit_in_words(table: Table):
    gm, p1 = table.clients["gm"], table.clients["owner"]
    e = table.enc.pk
    before = snapshot()
    cases = [
        (
            gm,
            f"/enc/{e}/combatants/",
            {"name": LONG, "side": "npc"},
            "Name is too long: at most 80 characters, got 10000.",
        ),
        (
            gm,
            f"/enc/{e}/combatants/",
            {"name": "Ok", "side": "npc", "notes": LONG},
            "Notes is too long: at most 2000 characters, got 10000.",
        ),
        (
            gm,
            f"/enc/{e}/combatants/",
            {"name": "Ok", "side": "npc", "notes": "n" * 2001},
            "Notes is too long: at most 2000 characters, got 2001.",
        ),
        (
            gm,
            f"/enc/{e}/combatants/",
            {"name": "Ok", "side": "npc", "group": LONG},
            "Group is too long: at most 80 characters",
        ),
        (
            gm,
            f"/enc/{e}/combatants/{table.goblin}/",
            {"name": LONG},
            "Name is too long: at most 80 characters",
        ),
        (
            gm,
            f"/enc/{e}/combatants/{table.goblin}/",
            {"name": "Goblin", "notes": LONG},
            "Notes is too long",
        ),
        (
            gm,
            f"/enc/{e}/seats/",
            {"name": LONG},
            "A seat name is at most 80 characters; this one has 10000.",
        ),
        (
            gm,
            f"/enc/{e}/command/",
            {"type": "add_custom_action", "name": LONG},
            "Action name is too long",
        ),
        (
            gm,
            f"/enc/{e}/command/",
            {"type": "set_condition", "actor": table.goblin, "name": LONG},
            "Condition is too long: at most 40",
        ),
        (
            p1,
            f"/p/{table.seat1.token}/command/",
            {"type": "roll", "actor": table.ana, "dice": "1d6", "label": LONG},
            "Label is too long: at most 80",
        ),
        (
            p1,
            f"/p/{table.seat1.token}/command/",
            {"type": "roll", "actor": table.ana, "dice": LONG},
            "too long",
        ),
    ]
    for client, url, data, sentence in cases:
        r = client.post(url, data, **HTMX)
        assert r.status_code == 400, (url, r.status_code)
        assert sentence in r.content.decode(), (sentence, r.content[:300])
        assert "xxxxxxxxxx" not in r.content.decode()  # the refusal does not echo the text
        assert snapshot() == before, sentence
    r = gm.post("/enc/new/", {"name": LONG, "ruleset": "action_points"})
    assert "Encounter name is too long: at most 80 characters, got 10000." in r.content.decode()
    r = gm.post("/account/api-tokens/", {"name": LONG})
    assert "A token name is at most 80 characters; this one has 10000." in r.content.decode()
    assert snapshot() == before

    # The API says the same.
    for path, body, sentence in (
        ("commands/", {"type": "add_combatant", "name": LONG}, "Name is too long"),
        (
            "commands/",
            {"type": "update_combatant", "actor": table.goblin, "notes": LONG},
            "Notes is too long",
        ),
        ("seats/", {"name": LONG}, "A seat name is at most 80 characters"),
    ):
        r = Client().post(
            f"/api/encounters/{e}/{path}",
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {table.gm_key}",
        )
        assert r.status_code == 400 and sentence in r.json()["error"]["message"]
    r = Client().post(
        "/api/encounters/",
        json.dumps({"name": LONG, "ruleset": "action_points"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {table.gm_key}",
    )
    assert r.status_code == 400 and "too long" in r.json()["error"]["message"]
    assert snapshot() == before


def test_notes_at_exactly_the_limit_are_kept_whole(table: Table):
    gm = table.clients["gm"]
    r = gm.post(
        f"/enc/{table.enc.pk}/combatants/{table.goblin}/",
        {"name": "Goblin", "notes": NOTES},
        **HTMX,
    )
    assert r.status_code == 200
    assert (
        Encounter.objects.get(pk=table.enc.pk).state["combatants"][table.goblin]["notes"] == NOTES
    )
    assert shows(gm.get(f"/enc/{table.enc.pk}/").content.decode(), NOTES)
