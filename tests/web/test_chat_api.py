"""Table talk through the JSON API: a bot reads, posts, whispers and rolls with a token,
and a whisper is in no other reader's answer (combat/chat_api.py)."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.test import Client

from combat.models import ApiToken, ChatMessage

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


@pytest.fixture
def gm_token(gm_user) -> str:
    return ApiToken.issue(gm_user)[1]


def url(t: TableFixture) -> str:
    return f"/api/encounters/{t.enc.pk}/chat"


def say(t: TableFixture, token: str, body) -> object:
    return Client().post(url(t), json.dumps(body), content_type="application/json", **bearer(token))


def read(t: TableFixture, token: str, query: str = ""):
    return Client().get(url(t) + query, **bearer(token))


def texts(r) -> list[str]:
    return [m.get("text") for m in r.json()["messages"]]


def test_a_seat_posts_and_everyone_at_the_table_reads_it(table: TableFixture, gm_token):
    r = say(table, table.seat1.token, {"text": "Hello from a bot"})
    assert r.status_code == 201
    message = r.json()["message"]
    assert message["text"] == "Hello from a bot" and message["author"] == "Player 1 (Ana)"
    assert message["whisper"] is False
    for token in (gm_token, table.seat1.token, table.seat2.token):
        assert texts(read(table, token)) == ["Hello from a bot"]
    # The same message is on the pages.
    assert "Hello from a bot" in table.p2.get(table.player2_url).content.decode()


def test_a_whisper_is_absent_from_every_other_readers_answer(table: TableFixture, gm_token):
    table.enc.chat_spectators = True
    table.enc.save()
    spectator = table.enc.spectator_token
    assert say(table, gm_token, {"text": "Only Ana", "to": [table.seat1.pk]}).status_code == 201
    assert say(table, table.seat2.token, {"text": "Bram to GM", "to": ["gm"]}).status_code == 201
    assert say(table, table.seat1.token, {"text": "/w GM psst"}).status_code == 201
    assert say(table, gm_token, {"text": "/gr 1d20 secret roll"}).status_code == 201
    assert say(table, table.seat1.token, {"text": "Said aloud"}).status_code == 201
    answers = {
        "gm": read(table, gm_token).content.decode(),
        "p1": read(table, table.seat1.token).content.decode(),
        "p2": read(table, table.seat2.token).content.decode(),
        "spectator": read(table, spectator).content.decode(),
    }
    assert all("Said aloud" in a for a in answers.values())
    seen = {
        "Only Ana": {"gm", "p1"},
        "Bram to GM": {"gm", "p2"},
        "psst": {"gm", "p1"},
        "secret roll": {"gm"},
    }
    for text, readers in seen.items():
        for who, answer in answers.items():
            assert (text in answer) == (who in readers), (text, who)
    # The recipient is told it is for them; the GM sees the seat's name.
    p1 = {m["text"]: m for m in read(table, table.seat1.token).json()["messages"]}
    assert p1["Only Ana"]["to"] == ["you"]
    gm = {m["text"]: m for m in read(table, gm_token).json()["messages"]}
    assert gm["Only Ana"]["to"] == ["Player 1"]
    assert gm["secret roll"]["roll"]["expression"] == "1d20"


def test_a_roll_is_rolled_by_the_server(table: TableFixture):
    r = say(table, table.seat1.token, {"text": "/r 2d6+3 sneak attack"})
    assert r.status_code == 201
    roll = r.json()["message"]["roll"]
    assert roll["expression"] == "2d6+3" and 5 <= roll["total"] <= 15


def test_refusals_say_why_and_store_nothing(table: TableFixture, gm_token):
    cases = [
        ({"text": ""}, "bad_chat"),
        ({"text": "x" * 501}, "bad_chat"),
        ({"text": "/x what"}, "bad_chat"),
        ({"text": "tab\there"}, "bad_chat"),
        ({"text": "hi", "to": [table.seat2.pk]}, "bad_chat"),  # a seat whispers to the GM only
        ({"text": "hi", "to": "gm"}, "bad_request"),
        ({"text": "hi", "to": [True]}, "bad_request"),
        ({"words": "hi"}, "bad_request"),
        (["hi"], "bad_request"),
    ]
    for body, code in cases:
        r = say(table, table.seat1.token, body)
        assert r.status_code == 400, body
        assert r.json()["error"]["code"] == code, body
        assert r.json()["error"]["message"], body
    r = Client().post(
        url(table), b"{not json", content_type="application/json", **bearer(table.seat1.token)
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    assert ChatMessage.objects.count() == 0


def test_who_may_read_and_post(table: TableFixture, gm_token, outsider_user):
    spectator = table.enc.spectator_token
    r = read(table, spectator)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    table.enc.chat_spectators = True
    table.enc.save()
    assert read(table, spectator).status_code == 200
    r = say(table, spectator, {"text": "a spectator speaks"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert Client().get(url(table)).status_code == 401
    assert read(table, "x" * 40).status_code == 401
    other = ApiToken.issue(outsider_user)[1]
    assert read(table, other).status_code == 404
    assert Client().delete(url(table), **bearer(gm_token)).status_code == 405
    assert ChatMessage.objects.count() == 0


def test_older_messages_come_on_request(table: TableFixture, gm_token, settings):
    settings.VTT_RATE_CHAT = (1000, 10)
    for n in range(55):
        assert say(table, gm_token, {"text": f"line {n}"}).status_code == 201
    first = read(table, table.seat1.token).json()
    assert len(first["messages"]) == 50 and first["messages"][-1]["text"] == "line 54"
    older = read(table, table.seat1.token, f"?before={first['older']}").json()
    assert [m["text"] for m in older["messages"]] == [f"line {n}" for n in range(5)]
    assert older["older"] is None
    r = read(table, table.seat1.token, "?before=-3")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"


def test_posts_are_limited_like_the_chat_box(table: TableFixture, monkeypatch):
    monkeypatch.setattr("combat.ratelimit.clock", lambda: 1000.0)
    for n in range(5):
        assert say(table, table.seat1.token, {"text": f"line {n}"}).status_code == 201
    r = say(table, table.seat1.token, {"text": "one too many"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    assert int(r["Retry-After"]) >= 1
    # The chat box counts with the API: the seat's link is the same seat.
    r = table.p1.post(
        f"{table.player1_url}chat/", {"text": "from the page", "to": "all"}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 429
    assert ChatMessage.objects.count() == 5
