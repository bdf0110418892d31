"""Table talk: posting, whispers seen by exactly their readers, rolls, refusals, limits,
the GM's delete, older pages, and the export's round trip (combat/chat.py)."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from combat import chat, library
from combat.models import ChatMessage

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def gm_say(t: TableFixture, text: str, *to: str):
    return t.gm.post(
        f"/enc/{t.enc.pk}/chat/", {"text": text, "to": list(to) or ["all"]}, HTTP_HX_REQUEST="true"
    )


def p_say(client, url: str, text: str, to: str = "all"):
    return client.post(f"{url}chat/", {"text": text, "to": to}, HTTP_HX_REQUEST="true")


def pages(t: TableFixture) -> dict[str, str]:
    t.enc.refresh_from_db()
    return {
        "gm": t.gm.get(t.gm_url).content.decode(),
        "p1": t.p1.get(t.player1_url).content.decode(),
        "p2": t.p2.get(t.player2_url).content.decode(),
        "spectator": t.spectator.get(t.spectator_url).content.decode(),
    }


def test_a_message_to_everyone_is_on_every_table_page_signed_with_seat_and_character(
    table: TableFixture,
):
    r = p_say(table.p1, table.player1_url, "Hello, table")
    assert r.status_code == 200 and "Sent." in r.content.decode()
    shown = pages(table)
    for who in ("gm", "p1", "p2"):
        assert "Hello, table" in shown[who], who
        assert "Player 1 (Ana)" in shown[who], who
    # Spectators read chat only once the GM lets them.
    assert "Hello, table" not in shown["spectator"]
    r = table.gm.post(f"/enc/{table.enc.pk}/chat/spectators/", {"on": "1"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert "Hello, table" in pages(table)["spectator"]


def test_a_whisper_is_only_on_its_recipients_pages(table: TableFixture):
    table.gm.post(f"/enc/{table.enc.pk}/chat/spectators/", {"on": "1"}, HTTP_HX_REQUEST="true")
    assert gm_say(table, "Only Ana hears the bells", str(table.seat1.pk)).status_code == 200
    assert p_say(table.p2, table.player2_url, "Bram tells the GM a secret", "gm").status_code == 200
    shown = pages(table)
    assert "Only Ana hears the bells" in shown["gm"] and "Only Ana hears the bells" in shown["p1"]
    assert "Only Ana hears the bells" not in shown["p2"]
    assert "Only Ana hears the bells" not in shown["spectator"]
    assert (
        "Bram tells the GM a secret" in shown["gm"] and "Bram tells the GM a secret" in shown["p2"]
    )
    assert "Bram tells the GM a secret" not in shown["p1"]
    assert "Bram tells the GM a secret" not in shown["spectator"]
    # Nor through the older-messages address.
    first = ChatMessage.objects.order_by("id").last().pk + 1
    older = table.p2.get(f"{table.player2_url}chat/older/?before={first}").content.decode()
    assert "Only Ana hears the bells" not in older


def test_a_player_cannot_whisper_to_another_seat(table: TableFixture):
    r = p_say(table.p1, table.player1_url, "psst", str(table.seat2.pk))
    assert r.status_code == 400
    assert "GM only" in r.content.decode()
    assert not ChatMessage.objects.exists()


def test_slash_r_rolls_on_the_server_for_all_and_slash_gr_for_the_gm_only(table: TableFixture):
    assert p_say(table.p1, table.player1_url, "/r 2d6+3 sneak").status_code == 200
    assert p_say(table.p1, table.player1_url, "/gr 1d20").status_code == 200
    assert gm_say(table, "/gr 1d1+4").status_code == 200
    public, mine, gms = ChatMessage.objects.order_by("id")
    assert public.roll["expression"] == "2d6+3" and not public.whisper and public.text == "sneak"
    assert len(public.roll["terms"][0]["results"]) == 2
    assert mine.whisper and gms.whisper and gms.roll["total"] == 5
    shown = pages(table)
    assert "2d6+3: [" in shown["p2"] and "sneak" in shown["p2"]
    assert "1d20: [" in shown["p1"] and "1d20: [" in shown["gm"]
    assert "1d20: [" not in shown["p2"]
    assert "1d1+4: [1] + 4 = 5" in shown["gm"]
    assert "1d1+4" not in shown["p1"] and "1d1+4" not in shown["p2"]


def test_w_whispers_to_a_seat_by_name(table: TableFixture):
    assert gm_say(table, "/w Player 2 you feel watched").status_code == 200
    msg = ChatMessage.objects.get()
    assert msg.whisper and list(msg.recipients.all()) == [table.seat2]
    assert msg.text == "you feel watched"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("   ", "empty"),
        ("x" * 501, "at most 500"),
        ("bell\x07", "control characters"),
        ("/r 2d", "cannot be rolled"),
        ("/r 5000d6", "cannot be rolled"),
        ("/r", "which dice"),
        ("/nope hi", "not a chat command"),
    ],
)
def test_bad_input_is_refused_in_words_and_stores_nothing(table: TableFixture, text, words):
    r = gm_say(table, text)
    assert r.status_code == 400
    assert words in r.content.decode()
    assert 'data-testid="chat-refusal"' in r.content.decode()
    assert not ChatMessage.objects.exists()


def test_text_is_escaped(table: TableFixture):
    gm_say(table, "<script>alert(1)</script>")
    page = pages(table)["p1"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page


def test_six_messages_in_ten_seconds_are_too_many(table: TableFixture, monkeypatch):
    cache.clear()
    monkeypatch.setattr("combat.ratelimit.clock", lambda: 1000.0)
    for n in range(5):
        assert p_say(table.p1, table.player1_url, f"line {n}").status_code == 200
    r = p_say(table.p1, table.player1_url, "one too many")
    assert r.status_code == 429
    assert "Too many messages" in r.content.decode()
    assert ChatMessage.objects.count() == 5
    # Another seat has its own count.
    assert p_say(table.p2, table.player2_url, "still fine").status_code == 200


def test_the_gm_deletes_a_message_for_everyone(table: TableFixture):
    p_say(table.p1, table.player1_url, "oops, wrong table")
    msg = ChatMessage.objects.get()
    assert f'data-testid="chat-delete-{msg.pk}"' in pages(table)["gm"]
    assert "chat-delete-" not in pages(table)["p1"]
    r = table.gm.post(
        f"/enc/{table.enc.pk}/chat/delete/", {"message": msg.pk}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 200
    for who, page in pages(table).items():
        assert "oops, wrong table" not in page, who
    assert "message deleted by the GM" in pages(table)["p2"]
    # Players cannot delete: there is no such address for a link.
    assert table.p1.post(f"{table.player1_url}chat/delete/", {"message": msg.pk}).status_code in (
        403,
        404,
        405,
    )


def test_the_page_shows_the_latest_fifty_and_older_ones_on_asking(table: TableFixture):
    ChatMessage.objects.bulk_create(
        ChatMessage(encounter=table.enc, author_kind="gm", author_name="GM", text=f"line {n:03}")
        for n in range(120)
    )
    page = pages(table)["p1"]
    assert "line 119" in page and "line 070" in page and "line 069" not in page
    assert 'data-testid="chat-older"' in page
    oldest = ChatMessage.objects.get(text="line 070").pk
    older = table.p1.get(f"{table.player1_url}chat/older/?before={oldest}").content.decode()
    assert table.seat1.token not in older  # addresses relative to the page, not the link
    assert "line 069" in older and "line 020" in older and "line 019" not in older
    assert "line 070" not in older and 'data-testid="chat-older"' in older
    oldest = ChatMessage.objects.get(text="line 020").pk
    last = table.p1.get(f"{table.player1_url}chat/older/?before={oldest}").content.decode()
    assert "line 000" in last and 'data-testid="chat-older"' not in last


def test_chat_goes_out_with_the_gms_export_and_comes_back_on_import(table: TableFixture):
    gm_say(table, "To all")
    gm_say(table, "Only Ana", str(table.seat1.pk))
    p_say(table.p1, table.player1_url, "/r 1d1+1")
    p_say(table.p2, table.player2_url, "scratch that")
    table.gm.post(
        f"/enc/{table.enc.pk}/chat/delete/",
        {"message": ChatMessage.objects.get(text="scratch that").pk},
        HTTP_HX_REQUEST="true",
    )
    exported = b"".join(table.gm.get(f"/enc/{table.enc.pk}/export.json").streaming_content)
    data = json.loads(exported)
    said = data["chat"]
    assert [m["text"] for m in said] == ["To all", "Only Ana", "", "scratch that"]
    assert said[1]["whisper"] and said[1]["to"] == ["Player 1"]
    assert said[2]["roll"]["total"] == 2 and said[2]["author"] == "Player 1 (Ana)"
    assert said[3]["deleted"]
    new = library.import_encounter(table.enc.owner, library.parse_export(exported))
    back = list(new.chat.order_by("id"))
    assert [m.text for m in back] == ["To all", "Only Ana", "", "scratch that"]
    assert [m.whisper for m in back] == [False, True, False, False]
    assert back[2].roll["total"] == 2 and back[3].deleted
    assert back[2].author_name == "Player 1 (Ana)"
    # Seats are not imported: a whisper comes back for the GM alone.
    assert not back[1].recipients.exists()


def test_the_chat_limit_is_five_in_ten_seconds():
    assert chat.DEFAULT_RATE == (5, 10)
