"""Table talk, second step, in browsers: a folded chat counts the messages that came
while folded and opening it clears the count; a spectator the GM lets write picks a
name, is read by the table, and is refused in words once muted."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Person


def say(person: Person, text: str) -> None:
    page = person.page
    box = page.get_by_test_id("chat-text")
    box.fill(text)
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    box.press("Enter")
    expect(page.get_by_test_id("chat-sent")).to_be_visible()


def test_a_folded_chat_counts_new_messages_and_opening_clears_it(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1 = people.gm, people.p1
    fold = p1.page.get_by_test_id("chat-fold")
    expect(fold).to_have_attribute("aria-expanded", "true")
    fold.click()
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(p1.page.get_by_test_id("chat-messages")).to_be_hidden()
    expect(p1.page.get_by_test_id("chat-unread")).to_be_hidden()
    say(gm, "First news")
    expect(p1.page.get_by_test_id("chat-unread")).to_have_text("(1 new)")
    say(gm, "Second news")
    expect(p1.page.get_by_test_id("chat-unread")).to_have_text("(2 new)")
    fold.click()
    expect(p1.page.get_by_test_id("chat-messages")).to_contain_text("Second news")
    expect(p1.page.get_by_test_id("chat-unread")).to_be_hidden()
    # Folded again, only what comes after counts.
    fold.click()
    say(gm, "Third news")
    expect(p1.page.get_by_test_id("chat-unread")).to_have_text("(1 new)")


def test_a_spectator_writes_under_a_name_and_the_gm_mutes_them(make_table, sit_down):
    t = make_table("action_points")
    people = sit_down(t)
    gm, p1, spectator = people.gm, people.p1, people.spectator
    gm.page.get_by_test_id("chat-spectators").click()
    gm.page.get_by_test_id("chat-spectators-write").click()
    expect(gm.page.get_by_test_id("chat-spectators-write")).to_have_text("Stop spectators writing")
    page = spectator.page
    expect(page.get_by_test_id("chat-name")).to_be_visible()
    page.get_by_test_id("chat-text").fill("Go Ana!")
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("chat-refusal")).to_contain_text("Pick a name first")
    page.get_by_test_id("chat-name").fill("Kim")
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("chat-sent")).to_be_visible()
    for p in (gm, p1):
        expect(p.page.get_by_test_id("chat-messages")).to_contain_text("Kim (spectator)")
    gm.page.locator("[data-testid^=chat-mute-]").first.click()
    expect(gm.page.get_by_test_id("chat-muted")).to_contain_text("Kim")
    page.get_by_test_id("chat-text").fill("more")
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("chat-refusal")).to_contain_text("muted you")
    gm.page.get_by_test_id("chat-unmute-1").click()
    expect(gm.page.get_by_test_id("chat-muted")).to_have_count(0)


def test_the_chat_passes_axe_on_the_gm_and_player_pages_light_and_dark(make_table, sit_down):
    from tests.ux.conftest import axe_violations

    t = make_table("action_points")
    people = sit_down(t)
    gm, p1, spectator = people.gm, people.p1, people.spectator
    gm.page.get_by_test_id("chat-spectators").click()
    gm.page.get_by_test_id("chat-spectators-write").click()
    expect(spectator.page.get_by_test_id("chat-name")).to_be_visible()
    spectator.page.get_by_test_id("chat-name").fill("Kim")
    spectator.page.get_by_test_id("chat-text").fill("Go Ana!")
    spectator.page.get_by_test_id("chat-send").click()
    expect(spectator.page.get_by_test_id("chat-sent")).to_be_visible()
    say(p1, "/r 2d6+3 sneak attack")
    say(gm, "The bells ring")
    gm.page.locator("[data-testid^=chat-mute-]").first.click()
    expect(gm.page.get_by_test_id("chat-muted")).to_contain_text("Kim")
    for person, where in ((gm, "GM console"), (p1, "player page"), (spectator, "spectators")):
        page = person.page
        expect(page.get_by_test_id("chat-messages")).to_contain_text("The bells ring")
        expect(page.get_by_test_id("chat-fold")).to_have_attribute("aria-expanded", "true")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            rules = ("color-contrast",) if scheme == "dark" else ()
            found = axe_violations(page, rules)
            assert not found, f"{where} ({scheme}):\n" + "\n".join(found)
        page.emulate_media(color_scheme="light")
