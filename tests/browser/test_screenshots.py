"""The README's pictures, taken from the demo table mid-fight (and checked while at it).

`seed_demo` builds the table and prints the log-in and the links; the test follows
them as a new GM would: log in, open the Action Points demo, start combat, hand the
turn round to Ana, and let her player make an Empowered Attack on the Ogre. Then:

- docs/screenshots/gm.png: the GM console (1280x800)
- docs/screenshots/player.png: Ana's player page (1280x800)
- docs/screenshots/player-phone.png: the same page on a phone (390x844)
- docs/screenshots/spectator.png: the spectators' screen (1280x800)
- docs/screenshots/spectator-tv.png: the same screen on a TV (1920x1080)
- docs/screenshots/spectator-overlay.png: the overlay a streaming program lays over its
  video (`?overlay=1&show=turn,order,log`, 1920x1080, transparent)
- docs/screenshots/map-gm.png, map-phone.png and map-tv.png: the demo's battle map on the
  GM's console, Ana's phone and the TV

and, in a test of its own, the table talk: docs/screenshots/chat-gm.png and chat-phone.png.
"""

from __future__ import annotations

import io
import re
from urllib.parse import urlsplit

from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import HIDDEN, SCREENSHOTS, arrive, log_in, open_person, reveal

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
TV = {"viewport": {"width": 1920, "height": 1080}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def demo_links(out: str, ruleset: str) -> dict[str, str]:
    """The GM log-in and this ruleset's links, as `seed_demo` printed them."""
    login = re.search(r"GM log-in: (\S+)\s+user: (\S+)\s+password: (\S+)", out)
    assert login, out
    section = out.split(f"({ruleset})", 1)[1].split("\n\n", 1)[0]
    links = {
        "login": urlsplit(login.group(1)).path,
        "user": login.group(2),
        "password": login.group(3),
        "gm": urlsplit(re.search(r"GM console: (\S+)", section).group(1)).path,
        "ana": urlsplit(re.search(r"\(plays Ana\): (\S+)", section).group(1)).path,
        "bram": urlsplit(re.search(r"\(plays Bram\): (\S+)", section).group(1)).path,
        "spectator": urlsplit(re.search(r"Spectators: (\S+)", section).group(1)).path,
    }
    return links


def photograph_the_map(ana: str, gm, phone, tv) -> None:
    """docs/screenshots/map-gm.png, map-phone.png and map-tv.png."""
    # The battle map on each screen: Ana's token on all of them, the hidden Troll's on
    # the GM's alone (tests/realtime and tests/security prove it never reaches the
    # others' frames).
    for p, name in ((gm, "map-gm"), (phone, "map-phone"), (tv, "map-tv")):
        board = p.page.get_by_test_id("board")
        expect(board.get_by_test_id(f"token-{ana}"), p.name).to_have_count(1)
        if p is phone:
            # The phone as its player sees it: the map just under what stays on top.
            p.page.evaluate(
                """() => {
                    const stack = document.querySelector("[data-testid=top-stack]");
                    const map = document.getElementById("board");
                    const below = stack ? stack.getBoundingClientRect().bottom : 0;
                    window.scrollBy(0, map.getBoundingClientRect().top - below);
                }"""
            )
            p.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        else:
            board.scroll_into_view_if_needed()
            board.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def test_screenshots_for_the_readme(browser, live_server_url, transactional_db):
    out = io.StringIO()
    call_command("seed_demo", stdout=out, no_color=True)
    links = demo_links(out.getvalue(), "action_points")
    base = live_server_url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    gm = open_person(browser, "gm", "GM", **DESKTOP)
    player = open_person(browser, "player", "Player 1", **DESKTOP)
    player2 = open_person(browser, "player", "Player 2", **DESKTOP)
    phone = open_person(browser, "player", "Player 1 (phone)", **PHONE)
    spectator = open_person(browser, "spectator", "Spectator", **DESKTOP)
    tv = open_person(browser, "spectator", "Spectator (TV)", **TV)
    overlay = open_person(browser, "spectator", "Stream overlay", **TV)
    people = [gm, player, player2, phone, spectator, tv, overlay]
    try:
        assert links["login"] == "/accounts/login/"
        log_in(gm, base, links["user"], links["password"])
        gm.navigations.clear()
        arrive(gm, base + links["gm"])
        for p, path in (
            (player, links["ana"]),
            (phone, links["ana"]),
            (player2, links["bram"]),
            (spectator, links["spectator"]),
            (tv, links["spectator"]),
            (overlay, links["spectator"] + "?overlay=1&show=turn,order,log"),
        ):
            arrive(p, base + path)

        # The GM sees who is at the table, as they arrive.
        presence = gm.page.get_by_test_id("presence")
        for who in ("GM connected", "Player 1 connected", "Player 2 connected"):
            expect(presence).to_contain_text(who)
        expect(presence).to_contain_text("3 spectators watching")  # a desktop, a TV, an overlay

        gm.page.get_by_test_id("start-combat").click()
        expect(gm.status).to_have_attribute("data-phase", "combat")
        # Initiative is rolled: the GM hands the turn on (acting for NPCs) until Ana's.
        ana = player.page.locator("#panels [data-combatant]").first.get_attribute("data-combatant")
        assert ana
        for _ in range(6):
            if gm.page.locator(f"#order #rowline-{ana}[aria-current='step']").count():
                break
            turn = gm.acting_row
            cid = turn.get_attribute("data-combatant")
            attack = gm.page.locator(f"#turn [data-testid='action-button-{cid}-basic_attack']")
            if turn.locator(".tag.side-npc").count():
                # The NPC swings at Bram (Ana is the one in the pictures).
                target = gm.page.locator(
                    f"#turn [data-testid='action-{cid}-basic_attack'] select[name='opt_target']"
                )
                target.select_option(label="Bram")
                attack.click()
                expect(gm.page.get_by_test_id("refusal")).to_have_count(0)
            gm.page.get_by_test_id("advance-turn").click()
            expect(gm.turn_mark(cid)).not_to_have_attribute("aria-current", "step")
        for p in people:
            expect(p.turn_mark(ana), p.name).to_have_attribute("aria-current", "step")

        # Ana's player: an Empowered Attack on the Ogre, +1 to hit (2 AP of 3).
        form = player.page.get_by_test_id(f"action-{ana}-empowered_attack")
        reveal(form)  # in the Attacks group, under the Basic Attack
        form.locator("select[name='opt_target']").select_option(label="Ogre")
        form.locator("input[name='opt_to_hit']").fill("1")
        form.get_by_test_id(f"action-button-{ana}-empowered_attack").click()
        player.wait_for_posts_answered()
        expect(player.page.get_by_test_id("refusal")).to_have_count(0)
        # The overlay shows no combatant cards: it is checked by its large outcome below.
        for p in (p for p in people if p is not overlay):
            expect(
                p.log.locator("li .text").filter(
                    has_text=re.compile(
                        r"^Ana: Empowered Attack \(\+1 to hit, \+0 damage\) for 2 AP on Ogre"
                    )
                )
            ).to_have_count(1)
            expect(p.page.locator(f"[data-testid='res-{ana}-ap']").first, p.name).to_have_attribute(
                "data-value", "1"
            )

        for p in (tv, overlay):
            expect(p.page.get_by_test_id("spotlight-outcome"), p.name).to_contain_text(
                "Empowered Attack"
            )
        expect(overlay.page.locator("#roster")).to_have_count(0)

        # The phone layout fits the phone: nothing to scroll sideways, the buttons in reach.
        overflow = phone.page.evaluate(
            "() => document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0, f"the player page is {overflow}px wider than the phone"
        end = phone.page.get_by_test_id(f"end-turn-{ana}")
        expect(end).to_be_visible()
        box = end.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390

        # The GM sees the hidden Troll; nobody else ever did.
        expect(gm.page.locator("#combatants")).to_contain_text(HIDDEN)
        for p in (player, player2, phone, spectator, tv, overlay):
            assert HIDDEN not in p.everything_received(), f"{HIDDEN} reached {p.name}"

        for p in people:
            p.page.evaluate(
                "() => { document.activeElement && document.activeElement.blur();"
                " window.scrollTo(0, 0); }"
            )
        gm.page.screenshot(path=str(SCREENSHOTS / "gm.png"))
        player.page.screenshot(path=str(SCREENSHOTS / "player.png"))
        phone.page.screenshot(path=str(SCREENSHOTS / "player-phone.png"))
        spectator.page.screenshot(path=str(SCREENSHOTS / "spectator.png"))
        tv.page.screenshot(path=str(SCREENSHOTS / "spectator-tv.png"))
        overlay.page.screenshot(
            path=str(SCREENSHOTS / "spectator-overlay.png"), omit_background=True
        )
        photograph_the_map(ana, gm, phone, tv)
        names = (
            "gm",
            "player",
            "player-phone",
            "spectator",
            "spectator-tv",
            "spectator-overlay",
            "map-gm",
            "map-phone",
            "map-tv",
        )
        for name in names:
            png = SCREENSHOTS / f"{name}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png

        for p in people:
            p.assert_never_reloaded()
            p.assert_no_errors()
    finally:
        for p in people:
            p.context.close()


def test_screenshots_of_table_talk(browser, live_server_url, transactional_db):
    """docs/screenshots/chat-gm.png: the GM console with the table talk in view, holding a
    whisper to Ana's player, a roll and the players' words (1280x800);
    docs/screenshots/chat-phone.png: the same talk on Ana's phone (390x844), the whisper
    to her included (Bram's page is checked not to have it)."""
    out = io.StringIO()
    call_command("seed_demo", stdout=out, no_color=True)
    links = demo_links(out.getvalue(), "action_points")
    base = live_server_url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    gm = open_person(browser, "gm", "GM", **DESKTOP)
    phone = open_person(browser, "player", "Player 1 (phone)", **PHONE)
    bram = open_person(browser, "player", "Player 2", **DESKTOP)
    people = [gm, phone, bram]

    def say(person, text: str, to: list[str] | None = None) -> None:
        page = person.page
        if to is not None:
            page.get_by_test_id("chat-to").select_option(to)
        box = page.get_by_test_id("chat-text")
        box.fill(text)
        expect(page.get_by_test_id("chat-send")).to_be_enabled()
        box.press("Enter")
        expect(page.get_by_test_id("chat-sent")).to_be_visible()
        expect(box).to_have_value("")

    try:
        log_in(gm, base, links["user"], links["password"])
        gm.navigations.clear()
        arrive(gm, base + links["gm"])
        arrive(phone, base + links["ana"])
        arrive(bram, base + links["bram"])

        say(phone, "I'll keep the Ogre busy on the left.")
        say(bram, "/r 1d20+2 Perception")
        # The GM's whisper to Ana's player alone (her seat, by name in the To list).
        seat = gm.page.locator("#chat-to option", has_text="Player 1").get_attribute("value")
        assert seat
        say(gm, "Only you see it: the Ogre favours its left leg.", [seat])
        say(gm, "Roll initiative when you are ready.", ["all"])
        chat = phone.page.get_by_test_id("chat-messages")
        expect(chat).to_contain_text("the Ogre favours its left leg")
        expect(chat).to_contain_text("Roll initiative")
        expect(bram.page.get_by_test_id("chat-messages")).to_contain_text("Roll initiative")
        # Said after the whisper and seen by Bram: had the whisper reached him, it would be
        # there by now.
        assert "favours its left leg" not in bram.everything_received()
        expect(gm.page.get_by_test_id("chat-messages")).to_contain_text("rolled")

        for p in (gm, phone):
            expect(p.page.get_by_test_id("chat-send")).to_be_enabled()  # not "Send ..." (busy)
            p.page.evaluate("() => document.activeElement && document.activeElement.blur()")
            # The talk in view, its latest lines at the bottom (as the page keeps them).
            p.page.locator("#chat").evaluate("el => el.scrollIntoView({block: 'center'})")
            p.page.locator("#chat-scroll").evaluate("el => { el.scrollTop = el.scrollHeight; }")
        gm.page.screenshot(path=str(SCREENSHOTS / "chat-gm.png"))
        phone.page.screenshot(path=str(SCREENSHOTS / "chat-phone.png"))
        for name in ("chat-gm", "chat-phone"):
            png = SCREENSHOTS / f"{name}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png

        for p in people:
            p.assert_never_reloaded()
            p.assert_no_errors()
    finally:
        for p in people:
            p.context.close()
