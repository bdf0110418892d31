"""Floods that used to fill the disk or slow every table (issue 12, items 7 and 8).

- Rate limits (combat/ratelimit.py): commands per seat, per API token and per GM over
  HTTP and the API; imports per account; sign-ups per address. Past a limit the answer
  is 429 with a sentence saying how long to wait (in the flash region for htmx, with
  Retry-After), and nothing is stored.

Storage per roll and per import, and export memory: tests/integrity/test_bounded_storage.py.
"""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from combat import library, ratelimit
from combat.models import ApiToken

from .conftest import Table, snapshot

HTMX = {"HTTP_HX_REQUEST": "true"}
ROLL = {"type": "roll", "dice": "1d20"}


@pytest.fixture
def still_clock(monkeypatch):
    """Time stands still, so a test's requests all fall in one rate window."""
    monkeypatch.setattr(ratelimit, "clock", lambda: 1_000_000.5)


def words(r) -> str:
    return unescape(r.content.decode())


def api_roll(token: str, enc_id: int):
    return Client().post(
        f"/api/encounters/{enc_id}/commands/",
        json.dumps(ROLL),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


# --- item 8: commands ---------------------------------------------------------------------


def test_a_seat_flooding_rolls_over_htmx_is_refused_with_429_in_the_flash(
    table: Table, settings, still_clock
):
    """The measured flood was 77 rolls a second from one seat link (rule: at most
    VTT_RATE_COMMANDS per seat); past the limit nothing is run or stored."""
    most, window = settings.VTT_RATE_COMMANDS
    player = table.clients["owner"]
    url = f"/p/{table.seat1.token}/command/"
    for _ in range(most):
        assert player.post(url, ROLL, **HTMX).status_code == 200
    before = snapshot()
    r = player.post(url, ROLL, **HTMX)
    assert r.status_code == 429
    assert 'data-testid="refusal"' in r.content.decode()
    assert 'data-code="rate_limited"' in r.content.decode()
    assert "Too many commands in a short time: wait" in words(r)
    assert 1 <= int(r["Retry-After"]) <= window
    assert snapshot() == before
    # Another seat, and the GM, are not held back by this seat's flood.
    other = table.clients["other"].post(f"/p/{table.seat2.token}/command/", ROLL, **HTMX)
    assert other.status_code == 200
    gm = table.clients["gm"].post(f"/enc/{table.enc.pk}/command/", ROLL, **HTMX)
    assert gm.status_code == 200


def test_the_limit_is_far_above_honest_play(settings):
    """A player acts every few seconds; the limit allows several commands every second."""
    most, window = settings.VTT_RATE_COMMANDS
    assert most / window >= 5 and most >= 30


def test_the_seat_limit_counts_its_api_calls_too(table: Table, settings, still_clock):
    settings.VTT_RATE_COMMANDS = (3, 10)
    page = table.clients["owner"]
    page.post(f"/p/{table.seat1.token}/command/", ROLL, **HTMX)
    assert api_roll(table.seat1.token, table.enc.pk).status_code == 200
    assert api_roll(table.seat1.token, table.enc.pk).status_code == 200
    before = snapshot()
    r = api_roll(table.seat1.token, table.enc.pk)
    assert r.status_code == 429
    assert r.json()["error"]["code"] == "rate_limited"
    assert "wait" in r.json()["error"]["message"] and r["Retry-After"]
    assert snapshot() == before


def test_a_gm_api_token_has_its_own_limit(table: Table, settings, still_clock):
    settings.VTT_RATE_COMMANDS = (2, 10)
    for _ in range(2):
        assert api_roll(table.gm_key, table.enc.pk).status_code == 200
    before = snapshot()
    assert api_roll(table.gm_key, table.enc.pk).status_code == 429
    assert snapshot() == before
    # A second token of the same GM counts apart (each script its own).
    _, second = ApiToken.issue(table.gm_user, "Second script")
    assert api_roll(second, table.enc.pk).status_code == 200


def test_a_plain_form_post_past_the_limit_gets_a_page_in_words(table: Table, settings, still_clock):
    settings.VTT_RATE_COMMANDS = (1, 10)
    url = f"/p/{table.seat1.token}/command/"
    table.clients["owner"].post(url, ROLL)
    r = table.clients["owner"].post(url, ROLL)
    assert r.status_code == 429 and "Too many commands" in words(r)


# --- item 7: imports and sign-ups ---------------------------------------------------------


def small_export() -> bytes:
    return json.dumps(
        {
            "format": library.FORMAT,
            "format_version": 1,
            "encounter": {"name": "Copy", "ruleset": "action_points", "settings": {}},
            "combatants": [{"name": "Goblin", "side": "npc", "hp": 7}],
            "log": [],
        }
    ).encode()


def upload(client: Client, content: bytes, name: str = "fight.json"):
    f = SimpleUploadedFile(name, content, content_type="application/json")
    return client.post("/library/import/", {"file": f})


def test_imports_per_account_are_rate_limited(table: Table, settings, still_clock):
    most, _ = settings.VTT_RATE_IMPORTS
    settings.VTT_RATE_IMPORTS = (2, 3600)
    gm = table.clients["gm"]
    assert upload(gm, small_export()).status_code == 302
    assert upload(gm, small_export()).status_code == 302
    before = snapshot()
    r = upload(gm, small_export())
    assert r.status_code == 429
    assert "Too many imports in a short time: wait" in words(r)
    assert 'data-testid="import-error"' in r.content.decode()
    assert snapshot() == before
    # Another account is not held back.
    assert upload(table.clients["outsider"], small_export()).status_code == 302
    assert most >= 10  # far above a GM bringing in a few files a session


def test_sign_ups_per_address_are_rate_limited(db, settings, still_clock):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.VTT_RATE_SIGNUPS = (2, 3600)
    User = get_user_model()

    def sign_up(name: str):
        form = {
            "username": name,
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        }
        return Client().post("/signup/", form)

    assert sign_up("one").status_code == 302
    assert sign_up("two").status_code == 302
    r = sign_up("three")
    assert r.status_code == 429 and "Too many sign-ups in a short time: wait" in words(r)
    assert not User.objects.filter(username="three").exists()
    assert User.objects.count() == 2
