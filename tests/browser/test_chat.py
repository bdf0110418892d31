"""Table talk in four browsers: a message appears on the others' pages as it is sent, a
whisper only on its recipient's, Enter sends and Up recalls, and the GM's delete takes a
message off every page (combat/chat.py)."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Person


def say(person: Person, text: str, to: str | list[str] | None = None) -> None:
    page = person.page
    if to is not None:
        page.get_by_test_id("chat-to").select_option(to)
    box = page.get_by_test_id("chat-text")
    box.fill(text)
    # Enter sends through the form's Send button, which stays busy for a moment after
    # each post (static/js/posts.js): a second Enter within it sends nothing.
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    box.press("Enter")
    expect(page.get_by_test_id("chat-sent")).to_be_visible()
    expect(box).to_have_value("")


def chat(person: Person):
    return person.page.get_by_test_id("chat-messages")


def test_table_talk_reaches_the_right_pages_live(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1, p2, spectator = people.gm, people.p1, people.p2, people.spectator

    # Spectators read table talk only once the GM lets them; their page opens it at once.
    expect(spectator.page.get_by_test_id("chat-closed")).to_be_visible()
    gm.page.get_by_test_id("chat-spectators").click()
    expect(gm.page.get_by_test_id("chat-spectators")).to_have_text(
        "Hide table talk from spectators"
    )
    expect(chat(spectator)).to_be_attached()

    # Said to everyone: on every page, signed with the seat and its character.
    say(p1, "Hold the bridge!")
    for p in people.everyone:
        expect(chat(p)).to_contain_text("Hold the bridge!")
        expect(chat(p)).to_contain_text("Player 1 (Ana)")

    # Up brings the last message back into the empty box.
    p1.page.get_by_test_id("chat-text").press("ArrowUp")
    expect(p1.page.get_by_test_id("chat-text")).to_have_value("Hold the bridge!")
    p1.page.get_by_test_id("chat-text").fill("")

    # Bad dice are refused in words in the chat form, and nothing is said.
    box = p2.page.get_by_test_id("chat-text")
    box.fill("/r 2d")
    expect(p2.page.get_by_test_id("chat-send")).to_be_enabled()
    box.press("Enter")
    expect(p2.page.get_by_test_id("chat-refusal")).to_contain_text("cannot be rolled")
    expect(box).to_have_value("/r 2d")
    box.fill("")

    # A whisper from the GM to Player 2: only on the GM's and Player 2's pages.
    say(gm, "Bram smells smoke", [str(t.seat2.pk)])
    expect(chat(p2)).to_contain_text("Bram smells smoke")
    expect(chat(gm)).to_contain_text("Bram smells smoke")
    # A later message to everyone arrives after it: had the whisper reached the others,
    # it would be there by now.
    say(gm, "Roll for it", ["all"])
    for p in (p1, spectator):
        expect(chat(p)).to_contain_text("Roll for it")
        assert "Bram smells smoke" not in p.everything_received(), p.name

    # The GM deletes a message: it disappears from every page.
    line = gm.page.locator("#chat-messages li", has_text="Hold the bridge!")
    line.get_by_role("button", name="Delete").click()
    for p in people.everyone:
        expect(chat(p)).not_to_contain_text("Hold the bridge!")
        expect(chat(p)).to_contain_text("message deleted by the GM")
    for p in (gm, p1, spectator):
        assert not p.errors, (p.name, p.errors)
    # Player 2's only one: the refused dice, answered 400 with the sentence shown above.
    assert len(p2.errors) == 1 and "400" in p2.errors[0], p2.errors
