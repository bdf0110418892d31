"""Spectators who may write (the GM's second switch): a name picked once, posts signed
"name (spectator)", the GM mutes and unmutes from a message, limits per session and address."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from combat.models import ChatMessage

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


def switch(t: TableFixture, read: bool = True, write: bool = True) -> None:
    base = f"/enc/{t.enc.pk}/chat/spectators/"
    assert t.gm.post(base, {"on": "1" if read else "0"}, HTTP_HX_REQUEST="true").status_code == 200
    r = t.gm.post(f"{base}write/", {"on": "1" if write else "0"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200


def s_say(t: TableFixture, client: Client, text: str, name: str | None = None, **extra):
    data = {"text": text, **extra}
    if name is not None:
        data["name"] = name
    return client.post(f"{t.spectator_url}chat/", data, HTTP_HX_REQUEST="true")


def test_writing_is_off_by_default_and_needs_reading_on(table: TableFixture):
    page = table.spectator.get(table.spectator_url).content.decode()
    assert 'data-testid="chat-form"' not in page
    r = s_say(table, table.spectator, "hello?", "Kim")
    assert r.status_code == 400 and "not let spectators write" in r.content.decode()
    # The write switch alone does nothing while spectators do not read.
    switch(table, read=False, write=True)
    assert s_say(table, table.spectator, "hello?", "Kim").status_code == 400
    assert (
        'data-testid="chat-form"' not in table.spectator.get(table.spectator_url).content.decode()
    )
    assert ChatMessage.objects.count() == 0


def test_a_spectator_picks_a_name_once_and_signs_as_a_spectator(table: TableFixture):
    switch(table)
    page = table.spectator.get(table.spectator_url).content.decode()
    assert 'data-testid="chat-name"' in page
    r = s_say(table, table.spectator, "no name yet")
    assert r.status_code == 400 and "Pick a name first" in r.content.decode()
    r = s_say(table, table.spectator, "Go Ana!", "  Kim  ")
    assert r.status_code == 200 and "Sent as Kim (spectator)." in r.content.decode()
    # Their own page now says who they write as, and asks no name.
    page = table.spectator.get(table.spectator_url).content.decode()
    assert "You write as Kim (spectator)." in page and 'data-testid="chat-name"' not in page
    # The name is kept in the browser's session: a later name is not asked for or taken.
    assert s_say(table, table.spectator, "Again!", "Someone Else").status_code == 200
    for url, client in ((table.gm_url, table.gm), (table.player1_url, table.p1)):
        page = client.get(url).content.decode()
        assert "Kim (spectator)" in page and "Go Ana!" in page and "Again!" in page
    assert "Someone Else" not in table.gm.get(table.gm_url).content.decode()
    # A spectator speaks to everyone only.
    r = s_say(table, table.spectator, "/w GM secret")
    assert r.status_code == 400 and "speaks to everyone" in r.content.decode()
    assert s_say(table, table.spectator, "/gr 1d20").status_code == 400
    assert ChatMessage.objects.count() == 2


def test_the_gm_mutes_a_spectator_from_a_message_and_unmutes_them(table: TableFixture):
    switch(table)
    other = Client()
    assert s_say(table, table.spectator, "heckle", "Kim").status_code == 200
    assert s_say(table, other, "cheer", "Lou").status_code == 200
    heckle = ChatMessage.objects.get(text="heckle")
    gm_page = table.gm.get(table.gm_url).content.decode()
    assert f'data-testid="chat-mute-{heckle.pk}"' in gm_page
    # Nobody else gets a mute button (nor a spectator's id).
    assert "chat-mute-" not in table.p1.get(table.player1_url).content.decode()
    r = table.gm.post(
        f"/enc/{table.enc.pk}/chat/mute/", {"message": heckle.pk}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 200 and "Kim (spectator) is muted" in r.content.decode()
    assert 'data-testid="chat-muted"' in r.content.decode()
    r = s_say(table, table.spectator, "more heckling")
    assert r.status_code == 400 and "muted you" in r.content.decode()
    assert s_say(table, other, "still cheering").status_code == 200
    gm_page = table.gm.get(table.gm_url).content.decode()
    assert 'data-testid="chat-muted"' in gm_page and "Kim" in gm_page
    assert not ChatMessage.objects.filter(text="more heckling").exists()
    # A message that is not a spectator's mutes no one.
    seat_msg = table.p1.post(f"{table.player1_url}chat/", {"text": "hi", "to": "all"})
    assert seat_msg.status_code in (200, 302)
    mine = ChatMessage.objects.get(text="hi")
    r = table.gm.post(
        f"/enc/{table.enc.pk}/chat/mute/", {"message": mine.pk}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 404
    table.enc.refresh_from_db()
    (muted_id,) = table.enc.chat_muted
    r = table.gm.post(
        f"/enc/{table.enc.pk}/chat/unmute/", {"spectator": muted_id}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 200 and "may write again" in r.content.decode()
    assert s_say(table, table.spectator, "sorry").status_code == 200
    assert 'data-testid="chat-muted"' not in table.gm.get(table.gm_url).content.decode()


def test_spectators_are_limited_per_session_and_per_address(table: TableFixture, monkeypatch):
    switch(table)
    monkeypatch.setattr("combat.ratelimit.clock", lambda: 1000.0)
    for n in range(5):
        assert s_say(table, table.spectator, f"line {n}", "Kim").status_code == 200
    r = s_say(table, table.spectator, "one too many")
    assert r.status_code == 429 and "Too many messages" in r.content.decode()
    # New sessions from the same address share the address's count (10 in 10 s).
    fresh = [Client() for _ in range(6)]
    results = [s_say(table, c, "hi", f"Fan {i}").status_code for i, c in enumerate(fresh)]
    assert results.count(200) == 5 and results[-1] == 429
    assert ChatMessage.objects.count() == 10
    # Another address has its own count.
    r = Client(REMOTE_ADDR="203.0.113.9").post(
        f"{table.spectator_url}chat/", {"text": "far away", "name": "Zed"}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 200


def test_only_the_gm_flips_the_switch_or_mutes(table: TableFixture):
    base = f"/enc/{table.enc.pk}/chat/"
    for path in ("spectators/write/", "mute/", "unmute/"):
        r = table.outsider.post(base + path, {"on": "1", "message": "1", "spectator": "x"})
        assert r.status_code in (302, 403, 404), path
    table.enc.refresh_from_db()
    assert not table.enc.chat_spectators_write
