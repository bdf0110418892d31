"""A post without the page's CSRF token is refused with 403 and a sentence, and changes nothing.

htmx posts get the sentence as the flash fragment (htmx 4 swaps 4xx answers into #flash),
plain posts a short page, the API JSON. With the token the same post goes through.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client, RequestFactory

from combat.views import csrf_failure

from .conftest import Table, snapshot

pytestmark = pytest.mark.django_db

SENTENCE = "security token (CSRF). Reload the page and try again"


def strict(user=None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def token_of(page: str) -> str:
    return re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)


def gm_posts(t: Table) -> list[tuple[str, dict[str, str]]]:
    e = t.enc.pk
    return [
        (f"/enc/{e}/command/", {"type": "damage", "actor": t.goblin, "amount": "3"}),
        (f"/enc/{e}/combatants/", {"name": "Newt", "side": "npc"}),
        (f"/enc/{e}/combatants/{t.goblin}/", {"name": "Goblin Boss"}),
        (f"/enc/{e}/combatants/{t.goblin}/duplicate/", {}),
        (f"/enc/{e}/seats/", {"name": "Player 3"}),
        (f"/enc/{e}/seats/{t.seat2.pk}/revoke/", {"confirm": "yes"}),
        (f"/enc/{e}/seats/{t.seat2.pk}/regenerate/", {}),
        (f"/enc/{e}/spectator/", {"do": "disable"}),
        ("/enc/new/", {"name": "Another", "ruleset": "action_points"}),
        ("/account/api-tokens/", {"name": "sneaky"}),
    ]


def test_htmx_posts_without_the_token_get_403_and_a_sentence(table: Table):
    before = snapshot()
    gm = strict(table.gm_user)
    refused = 0
    for url, data in gm_posts(table):
        for extra in ({}, {"HTTP_X_CSRFTOKEN": "forged-" + "a" * 57}):
            r = gm.post(url, data, HTTP_HX_REQUEST="true", **extra)
            body = r.content.decode()
            assert r.status_code == 403, url
            assert SENTENCE in body and 'data-code="csrf"' in body, url
            assert "<html" not in body, url  # the flash sentence only, swapped into #flash
            refused += 1
    player = strict()
    page = player.get(f"/p/{table.seat1.token}/")
    assert page.status_code == 200
    r = player.post(
        f"/p/{table.seat1.token}/command/",
        {"type": "roll", "actor": table.ana, "dice": "1d6"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 403 and SENTENCE in r.content.decode()
    assert snapshot() == before
    assert refused == 2 * len(gm_posts(table))

    # With the page's token the same post is taken.
    token = token_of(page.content.decode())
    r = player.post(
        f"/p/{table.seat1.token}/command/",
        {"type": "roll", "actor": table.ana, "dice": "1d6"},
        HTTP_HX_REQUEST="true",
        HTTP_X_CSRFTOKEN=token,
    )
    assert r.status_code == 200 and 'data-testid="notice"' in r.content.decode()
    assert snapshot() != before


def test_plain_posts_without_the_token_get_a_short_page(table: Table):
    before = snapshot()
    for client, url, data in (
        (strict(), "/accounts/login/", {"username": "gina", "password": "gm-password-1"}),
        (strict(), "/signup/", {"username": "x", "password1": "p", "password2": "p"}),
        (strict(table.gm_user), f"/enc/{table.enc.pk}/seats/", {"name": "P3"}),
    ):
        r = client.post(url, data)
        body = r.content.decode()
        assert r.status_code == 403, url
        assert SENTENCE in body and "<html" in body, url
        assert "Content-Security-Policy" in r.headers
    assert snapshot() == before


def test_the_gm_session_on_the_api_needs_the_token_too(table: Table):
    before = snapshot()
    gm = strict(table.gm_user)
    r = gm.post(
        f"/api/encounters/{table.enc.pk}/commands/",
        '{"type": "roll", "dice": "1d6"}',
        content_type="application/json",
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf"
    assert "CSRF" in r.json()["error"]["message"]
    assert snapshot() == before


def test_the_failure_view_answers_json_under_api():
    request = RequestFactory().post("/api/encounters/1/commands/")
    r = csrf_failure(request, reason="CSRF cookie not set.")
    assert r.status_code == 403 and r["Content-Type"] == "application/json"
    assert SENTENCE in r.content.decode()
