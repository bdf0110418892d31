"""Who may do what: every command, every management view and endpoint, every role.

Roles: the GM, the owning player, another player, a spectator, a revoked link, nobody
(anonymous) and an outsider (another GM account). Only the allowed pairs change anything.
Every other attempt is refused in words with a 4xx status, writes nothing (encounters,
seats, log, tokens compare equal) and registers no broadcast.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from .conftest import HIDDEN, ROLES, Spy, Table, build_table, clients_for, snapshot
from .recipes import ALL_COMMANDS, PLAYER_MAY, RECIPES, as_form, prepare

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def allowed(role: str, command: str) -> bool:
    return role == "gm" or (role == "owner" and command in PLAYER_MAY)


def words(response) -> str:
    """The refusal's sentence, from the JSON error or the flash / page HTML."""
    body = response.content.decode()
    if response["Content-Type"].startswith("application/json"):
        return response.json()["error"]["message"]
    marker = 'data-testid="refusal"'
    assert marker in body, body[:500]
    text = body.split(marker, 1)[1].split(">", 1)[1].split("</p>", 1)[0]
    return text.strip()


def view_post(t: Table, role: str, form: dict[str, str]):
    """Post a command the way each role's browser could: its own page's URL, or the GM's."""
    c = t.clients[role]
    urls = {
        "gm": f"/enc/{t.enc.pk}/command/",
        "owner": f"/p/{t.seat1.token}/command/",
        "other": f"/p/{t.seat2.token}/command/",
        "spectator": f"/p/{t.enc.spectator_token}/command/",
        "revoked": f"/p/{t.revoked.token}/command/",
        "anonymous": f"/enc/{t.enc.pk}/command/",
        "outsider": f"/enc/{t.enc.pk}/command/",
    }
    return c.post(urls[role], form, **HTMX)


def api_post(t: Table, role: str, command: dict[str, Any], path: str = "commands/"):
    token = t.token(role)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().post(
        f"/api/encounters/{t.enc.pk}/{path}",
        json.dumps(command),
        content_type="application/json",
        **auth,
    )


def fresh(users, name: str) -> tuple[Table, dict[str, Any]]:
    t = build_table(*users, RECIPES[name][0])
    t.clients = clients_for(t)
    return t, prepare(t, name)


# The status a refusal may carry on each channel, per role (a rules reason would be 409).
VIEW_REFUSED = {
    "owner": {400, 403},  # 400: a hidden combatant is "no such combatant", as a missing one
    "other": {400, 403},
    "spectator": {404},  # a spectator link is not a seat: no such player link
    "revoked": {404},
    "anonymous": {403},
    "outsider": {404},
}
API_REFUSED = {
    "owner": {400, 403},
    "other": {400, 403},
    "spectator": {403},
    "revoked": {401},
    "anonymous": {401},
    "outsider": {404},
}


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_command_matrix(users, name: str, spy: Spy, django_capture_on_commit_callbacks):
    """Each command x each role x (pages, API): allowed pairs act once, others change nothing."""
    t, command = fresh(users, name)
    figures = {"refused": 0, "allowed": 0}
    for channel, send, refused_status in (
        ("view", lambda r: view_post(t, r, as_form(command)), VIEW_REFUSED),
        ("api", lambda r: api_post(t, r, command), API_REFUSED),
    ):
        for role in ROLES:
            if allowed(role, name):
                continue
            before, calls = snapshot(), spy.count()
            with django_capture_on_commit_callbacks(execute=True) as callbacks:
                r = send(role)
            where = f"{name} by {role} over {channel}"
            assert r.status_code in refused_status[role], (where, r.status_code, r.content[:300])
            sentence = words(r)
            assert len(sentence.split()) >= 3, (where, sentence)
            assert HIDDEN not in r.content.decode(), where
            assert snapshot() == before, f"{where} changed something"
            assert callbacks == [] and spy.count() == calls, f"{where} broadcast"
            figures["refused"] += 1

    # The allowed pairs, each on a fresh table: accepted, one version, one log line, one push.
    for channel in ("view", "api"):
        for role in ("gm", "owner"):
            if not allowed(role, name):
                continue
            t, command = fresh(users, name)
            version = t.refresh().version
            entries = t.enc.log.count()
            publishes = spy.publishes()
            with django_capture_on_commit_callbacks(execute=True):
                if channel == "view":
                    r = view_post(t, role, as_form(command))
                else:
                    r = api_post(t, role, command)
            where = f"{name} by {role} over {channel}"
            assert r.status_code == 200, (where, r.content[:300])
            enc = t.refresh()
            assert enc.version == version + 1, where
            assert enc.log.count() == entries + 1, where
            assert spy.publishes() == publishes + 1, where
            figures["allowed"] += 1
    expected_allowed = 4 if name in PLAYER_MAY else 2
    assert figures == {
        "refused": 2 * (len(ROLES) - expected_allowed // 2),
        "allowed": expected_allowed,
    }


def test_matrix_covers_every_command():
    """The matrix is over the engine's whole command table, plus undo."""
    from combat.rules import COMMANDS

    assert set(RECIPES) == set(COMMANDS) | {"undo"}
    assert len(ALL_COMMANDS) == len(COMMANDS) + 1


def test_spectator_page_takes_no_posts(table: Table):
    before = snapshot()
    for data in ({"type": "end_turn", "actor": table.ana}, {}):
        for extra in (HTMX, {}):
            r = table.clients["spectator"].post(f"/s/{table.enc.spectator_token}/", data, **extra)
            assert r.status_code == 405 and r["Allow"] == "GET"
            assert "does not take POST" in words(r)
    assert snapshot() == before


# --- the GM's management pages -------------------------------------------------------------


def management_views(t: Table) -> list[tuple[str, str, dict[str, str]]]:
    e, goblin = t.enc.pk, t.goblin
    return [
        ("get", f"/enc/{e}/", {}),
        ("get", f"/enc/{e}/log.json", {}),
        ("get", f"/enc/{e}/combatants/{goblin}/", {}),
        ("get", f"/enc/{e}/combatants/close/", {}),
        ("post", f"/enc/{e}/command/", {"type": "damage", "actor": goblin, "amount": "3"}),
        ("post", f"/enc/{e}/combatants/", {"name": "Newt", "side": "npc", "hp": "5"}),
        (
            "post",
            f"/enc/{e}/combatants/{goblin}/",
            {"name": "Goblin Boss", "side": "npc", "hp": "10", "initiative": "10"},
        ),
        ("post", f"/enc/{e}/combatants/{goblin}/duplicate/", {}),
        ("post", f"/enc/{e}/seats/", {"name": "Player 3"}),
        ("post", f"/enc/{e}/seats/{t.seat2.pk}/revoke/", {"confirm": "yes"}),
        ("post", f"/enc/{e}/seats/{t.seat2.pk}/regenerate/", {}),
        ("post", f"/enc/{e}/spectator/", {"do": "disable"}),
    ]


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_management_views_refuse_everyone_but_the_gm(
    table: Table, spy: Spy, django_capture_on_commit_callbacks, htmx: bool
):
    extra = HTMX if htmx else {}
    # Player, spectator and revoked browsers hold no log-in: to these views they are nobody.
    for role in ("anonymous", "owner", "spectator", "revoked", "outsider"):
        client = table.clients[role]
        for method, url, data in management_views(table):
            before, calls = snapshot(), spy.count()
            with django_capture_on_commit_callbacks(execute=True) as callbacks:
                r = getattr(client, method)(url, data, **extra)
            where = f"{method.upper()} {url} by {role}"
            if role == "outsider":
                assert r.status_code == 404, where
                assert words(r) == "No such encounter.", where
            elif method == "get" and not htmx:
                assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")
            else:
                assert r.status_code == 403, where
                assert "Only the GM, logged in, can do that" in words(r), where
            body = r.content.decode()
            assert HIDDEN not in body and table.seat1.token not in body, where
            assert snapshot() == before, f"{where} changed something"
            assert callbacks == [] and spy.count() == calls, f"{where} broadcast"


def reuse_views(t: Table) -> list[tuple[str, str, dict[str, str]]]:
    """The GM's other pages on an encounter: templates, export, the after-combat summary."""
    e = t.enc.pk
    return [
        ("post", f"/enc/{e}/combatants/{t.goblin}/template/", {}),
        ("post", f"/enc/{e}/templates/", {"template": "1", "count": "2"}),
        ("get", f"/enc/{e}/export.json", {}),
        ("get", f"/enc/{e}/summary/", {}),
    ]


def test_reuse_and_summary_views_refuse_everyone_but_the_gm(
    table: Table, spy: Spy, django_capture_on_commit_callbacks
):
    for role in ("anonymous", "owner", "outsider"):
        for method, url, data in reuse_views(table):
            before, calls = snapshot(), spy.count()
            with django_capture_on_commit_callbacks(execute=True) as callbacks:
                r = getattr(table.clients[role], method)(url, data, **HTMX)
            where = f"{method.upper()} {url} by {role}"
            assert r.status_code == (404 if role == "outsider" else 403), where
            assert len(words(r).split()) >= 3, where
            assert HIDDEN not in r.content.decode(), where
            assert snapshot() == before and callbacks == [] and spy.count() == calls, where
    for method, url in (("get", "/library/"), ("post", "/library/import/")):
        r = getattr(table.clients["anonymous"], method)(url, **HTMX)
        assert r.status_code == 403 and "Only the GM" in words(r), url


def test_management_views_work_for_the_gm(table: Table, django_capture_on_commit_callbacks):
    gm = table.clients["gm"]
    for method, url, data in management_views(table):
        before = snapshot()
        with django_capture_on_commit_callbacks(execute=True):
            r = getattr(gm, method)(url, data, **HTMX)
        assert r.status_code == 200, (url, r.content[:300])
        if method == "post":
            assert snapshot() != before, f"{url} changed nothing"


def test_a_gm_cannot_reach_another_encounters_seat(table: Table, users):
    """Seat ids are global: the GM of encounter A names a seat of encounter B through A."""
    gm_b = build_table(*users)  # another encounter of the same GM, to have a foreign seat id
    before = snapshot()
    for action in ("revoke", "regenerate"):
        r = table.clients["gm"].post(f"/enc/{table.enc.pk}/seats/{gm_b.seat1.pk}/{action}/", **HTMX)
        assert r.status_code == 404 and words(r) == "No such seat in this encounter."
    assert snapshot() == before


def test_api_tokens_page_is_per_account(table: Table):
    theirs = table.clients["outsider"]
    gm_token = table.gm_user.api_tokens.first()
    before = snapshot()
    for data in ({"delete": str(gm_token.pk)}, {"delete": "not-a-number"}, {"delete": "9" * 30}):
        r = theirs.post("/account/api-tokens/", data, follow=True)
        assert r.status_code == 404
        assert "There is no such token" in r.content.decode()
    assert snapshot() == before
    r = table.clients["anonymous"].post("/account/api-tokens/", {"name": "x"})
    assert r.status_code == 403 and "Only the GM" in words(r)
    assert snapshot() == before


# --- the JSON API's management endpoints ------------------------------------------------------


def api_call(t: Table, role: str, method: str, path: str, body: Any = None):
    token = t.token(role)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = json.dumps(body) if body is not None else ""
    return getattr(Client(), method)(path, data, content_type="application/json", **auth)


@pytest.mark.parametrize("role", [r for r in ROLES if r != "gm"])
def test_api_management_refuses_everyone_but_the_gm(
    table: Table, role: str, spy: Spy, django_capture_on_commit_callbacks
):
    e = table.enc.pk
    calls = [
        ("post", "/api/encounters/", {"name": "Mine now", "ruleset": "action_points"}),
        ("get", f"/api/encounters/{e}/seats/", None),
        ("post", f"/api/encounters/{e}/seats/", {"name": "Sneaky", "combatants": [table.ana]}),
        ("put", f"/api/encounters/{e}/", {"name": "x"}),
        ("delete", f"/api/encounters/{e}/", None),
        ("put", f"/api/encounters/{e}/commands/", {"type": "end_turn"}),
        ("delete", f"/api/encounters/{e}/log/", None),
    ]
    if role != "outsider":  # Otto may list (his own) and create (his own) encounters
        calls.append(("get", "/api/encounters/", None))
    else:
        calls = calls[1:]
    expected = {
        "owner": {403, 405},
        "other": {403, 405},
        "spectator": {403, 405},
        "revoked": {401, 405},
        "anonymous": {401, 405},
        "outsider": {404, 405},
    }[role]
    for method, path, body in calls:
        before, pushes = snapshot(), spy.count()
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            r = api_call(table, role, method, path, body)
        where = f"{method.upper()} {path} by {role}"
        assert r.status_code in expected, (where, r.status_code)
        assert len(r.json()["error"]["message"].split()) >= 2, where
        assert snapshot() == before and callbacks == [] and spy.count() == pushes, where


def test_api_reads_follow_the_roles(table: Table):
    """Reading: the GM, both players and the spectator read; the others are refused."""
    e = table.enc.pk
    status = {
        "gm": 200,
        "owner": 200,
        "other": 200,
        "spectator": 200,
        "revoked": 401,
        "anonymous": 401,
        "outsider": 404,
    }
    for role, code in status.items():
        for path in (f"/api/encounters/{e}/", f"/api/encounters/{e}/log/"):
            r = api_call(table, role, "get", path)
            assert r.status_code == code, (role, path)
            if code == 200 and role != "gm":
                assert HIDDEN not in r.content.decode(), (role, path)
    mine = api_call(table, "outsider", "get", "/api/encounters/").json()["encounters"]
    assert [x["name"] for x in mine] == ["Otto's own fight"]
