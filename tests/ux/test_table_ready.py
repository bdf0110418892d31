"""Table-ready, checked in Debian's chromium: accessible, phone-sized, keyboard-driven, legible.

1. Every view passes axe-core with no serious or critical violation, in light and in dark,
   on a desktop and on a phone, and is photographed into docs/screenshots/
   (`<view>-<desktop|phone>-<light|dark>.png`). The spectators' screen is checked on a
   1920x1080 display for text large enough to read across a room. The summary's charts
   are drawn with JavaScript turned off. Along the way the GM saves the Goblin as a
   template and adds two more from it.
2. The keyboard: every control of the GM console and of a player's page is reached with
   Tab and shows a visible focus ring; the GM's shortcuts work (`?` lists them, N, U, I,
   J/K, 1-9, T); an action is taken with Enter.
3. A phone at the table: no sideways scrolling, 44 px touch targets, the player's own
   actions near the top; "your turn" and "reaction available" change the title, show a
   banner, are announced through a live region and vibrate; roll results and turn
   changes are announced; resources read as "AP 3 of 3".

The GM's and players' moves that are not themselves under test are sent to the live
server's JSON API (`api`), so that every open page gets its push as in play.
"""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from combat.models import ApiToken, Encounter

from .conftest import (
    GM_PASSWORD,
    GM_USERNAME,
    HIDDEN,
    SCREENSHOTS,
    api,
    arrive,
    axe_violations,
    log_in,
    open_person,
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
TV = {"viewport": {"width": 1920, "height": 1080}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 1,
    "is_mobile": True,
    "has_touch": True,
}

# Every control a person can use: what Tab must reach and what a finger must hit.
CONTROLS = (
    "a[href], button:not(:disabled), input:not([type=hidden]):not(:disabled), "
    "select:not(:disabled), textarea:not(:disabled), summary"
)

VISIBLE_CONTROLS_JS = """(selector) => {
  const seen = el => {
    if (el.closest('[hidden], [popover]:not(:popover-open), .sr-only')) return false;
    for (let d = el.parentElement; d; d = d.parentElement) {
      const ownSummary = el.tagName === 'SUMMARY' && el.parentElement === d;
      if (d.tagName === 'DETAILS' && !d.open && !ownSummary) return false;
    }
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  return [...document.querySelectorAll(selector)].filter(seen);
}"""


# --- helpers ------------------------------------------------------------------------------


def open_card(gm, cid: str) -> None:
    """The GM clicks a combatant's row in the initiative list: its card opens under it."""
    card = gm.page.get_by_test_id(f"combatant-{cid}")
    if card.get_attribute("open") is None:
        gm.order_row(cid).locator(".gm-row").click()
    expect(card).to_have_attribute("open", "")


def no_axe_violations(page: Any, where: str, rules: tuple[str, ...] = ()) -> None:
    found = axe_violations(page, rules)
    assert not found, f"{where}:\n" + "\n".join(found)


def photograph(page: Any, view: str, device: str, *, check: bool = True) -> None:
    """Light and dark screenshots of the page as it is, each checked by axe first.

    Dark is checked for colour contrast only: the rest of the page is the same in both.
    """
    page.evaluate(
        "() => { window.scrollTo(0, 0); document.getElementById('flash')?.replaceChildren(); }"
    )
    for scheme in ("light", "dark"):
        # Without motion: a colour transition caught half-way is no colour of either scheme.
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        if check:
            # Every rule in light; in dark only what the colours change.
            rules = ("color-contrast",) if scheme == "dark" else ()
            no_axe_violations(page, f"{view} ({device}, {scheme})", rules)
        page.screenshot(path=str(SCREENSHOTS / f"{view}-{device}-{scheme}.png"))
    page.emulate_media(color_scheme="light")


def no_sideways_scroll(page: Any, where: str) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{where} is {overflow}px wider than the screen"


def play_round_one(base: str, t: Any, gm_token: str) -> None:
    """Round 1 through the API; round 2 then starts with Ana's turn."""
    enc = t.enc.pk
    p1, p2 = t.seat1.token, t.seat2.token
    api(base, gm_token, enc, type="start_combat")
    opts = {"target": t.goblin, "to_hit": 1}
    api(base, p1, enc, type="act", actor=t.ana, action="empowered_attack", options=opts)
    api(base, p1, enc, type="end_turn", actor=t.ana)
    opts = {"target": t.goblin}
    api(base, p2, enc, type="act", actor=t.bram, action="basic_attack", options=opts)
    api(base, p2, enc, type="end_turn", actor=t.bram)
    state = Encounter.objects.get(pk=enc).state
    for cid in state["order"]:
        if cid in (t.ana, t.bram):
            continue
        if cid == t.goblin:
            opts = {"target": t.bram}
            api(base, gm_token, enc, type="act", actor=cid, action="basic_attack", options=opts)
        api(base, gm_token, enc, type="end_turn", actor=cid)


# --- 1. every view: axe, light and dark, desktop and phone ---------------------------------------


def test_every_view_passes_axe_and_is_photographed(browser, live_server_url, make_table):
    base = live_server_url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    t = make_table("action_points")
    gm_token = ApiToken.issue(t.enc.owner, "ux")[1]
    people = []
    try:
        # Nobody logged in: the landing and log-in pages.
        for device, args in (("desktop", DESKTOP), ("phone", PHONE)):
            anon = open_person(browser, "spectator", f"Visitor ({device})", **args)
            people.append(anon)
            for view, path in (("landing", "/"), ("login", "/accounts/login/")):
                anon.page.goto(base + path)
                photograph(anon.page, view, device)
                no_sideways_scroll(anon.page, f"{view} ({device})")
            anon.page.goto(base + "/signup/")
            no_axe_violations(anon.page, "signup")
            anon.page.goto(base + "/s/no-such-link/")  # a refusal, as a page
            no_axe_violations(anon.page, "refusal page")
            anon.errors.clear()  # the browser reports the 404 itself

        # The GM prepares: the Goblin becomes a template, and two more come from it.
        gm = open_person(browser, "gm", "GM", **DESKTOP)
        people.append(gm)
        log_in(gm, base, GM_USERNAME, GM_PASSWORD)
        arrive(gm, f"{base}/enc/{t.enc.pk}/")
        no_axe_violations(gm.page, "GM console, setting up")
        open_card(gm, t.goblin)
        gm.page.get_by_test_id(f"save-template-{t.goblin}").click()
        expect(gm.page.get_by_test_id("notice")).to_contain_text("Saved Goblin as a template")
        add = gm.page.locator("#templates form").filter(has_text="Goblin")
        add.get_by_label("How many").fill("2")
        add.get_by_role("button", name="Add Goblin").click()
        expect(gm.page.get_by_test_id("notice")).to_have_text("Added Goblin 2, Goblin 3.")
        for name in ("Goblin 2", "Goblin 3"):
            heading = gm.page.locator("#combatants h3").filter(has_text=re.compile(f"^{name}$"))
            expect(heading).to_have_count(1)
            expect(gm.page.locator("#order .name").filter(has_text=name)).to_have_count(1)

        play_round_one(base, t, gm_token)
        expect(gm.status.get_by_test_id("round")).to_have_text("Round 2")
        expect(gm.turn_mark(t.ana)).to_have_attribute("aria-current", "step")
        photograph(gm.page, "gm", "desktop")
        no_sideways_scroll(gm.page, "GM console")
        gm.page.get_by_test_id("shortcuts-button").click()
        expect(gm.page.get_by_test_id("shortcuts")).to_be_visible()
        photograph(gm.page, "gm-shortcuts", "desktop")
        gm.page.keyboard.press("Escape")
        expect(gm.page.get_by_test_id("shortcuts")).to_be_hidden()
        for view, path in (
            ("encounters", "/"),
            ("encounter-new", "/enc/new/"),
            ("library", "/library/"),
            ("summary", f"/enc/{t.enc.pk}/summary/"),
        ):
            gm.page.goto(base + path)
            photograph(gm.page, view, "desktop")

        # A player and the spectators' screen, and every view again on a phone.
        p1_path, watch_path = f"/p/{t.seat1.token}/", f"/s/{t.enc.spectator_token}/"
        player = open_person(browser, "player", "Player 1", **DESKTOP)
        tv = open_person(browser, "spectator", "Spectator screen", **TV)
        people += [player, tv]
        arrive(player, base + p1_path)
        photograph(player.page, "player", "desktop")
        arrive(tv, base + watch_path)
        photograph(tv.page, "spectator", "tv")
        legible_from_across_the_room(tv.page)

        phone_gm = open_person(browser, "gm", "GM (phone)", **PHONE)
        phone = open_person(browser, "player", "Player 1 (phone)", **PHONE)
        people += [phone_gm, phone]
        log_in(phone_gm, base, GM_USERNAME, GM_PASSWORD)
        for view, path in (
            ("encounters", "/"),
            ("encounter-new", "/enc/new/"),
            ("library", "/library/"),
            ("summary", f"/enc/{t.enc.pk}/summary/"),
            ("gm", f"/enc/{t.enc.pk}/"),
            ("spectator", watch_path),
        ):
            if view in ("gm", "spectator"):
                arrive(phone_gm, base + path)
            else:
                phone_gm.page.goto(base + path)
            photograph(phone_gm.page, view, "phone")
            no_sideways_scroll(phone_gm.page, f"{view} (phone)")
        arrive(phone, base + p1_path)
        expect(phone.page.get_by_test_id(f"your-turn-{t.ana}")).to_be_visible()
        photograph(phone.page, "player", "phone")
        no_sideways_scroll(phone.page, "player (phone)")

        # The summary's charts need no script at all.
        no_js = browser.new_context(java_script_enabled=False, **DESKTOP)
        try:
            page = no_js.new_page()
            page.goto(f"{base}/s/{t.enc.spectator_token}/summary/")
            for chart in ("chart-spent", "chart-damage", "chart-reactions"):
                svg = page.get_by_test_id(chart).locator("svg")
                expect(svg).to_be_visible()
                assert (svg.bounding_box() or {}).get("height", 0) > 80, chart
            expect(page.get_by_test_id("chart-spent").locator("rect.bar-spent")).to_have_count(3)
            expect(page.get_by_test_id("chart-damage")).to_contain_text("dealt")
            assert HIDDEN not in page.content()
        finally:
            no_js.close()
        for p in people:
            p.assert_no_errors()
    finally:
        for p in people:
            p.context.close()


def legible_from_across_the_room(page: Any) -> None:
    """On 1920x1080: big type, nothing to scroll sideways, every combatant on the screen."""
    sizes = page.evaluate(
        """() => {
          const px = sel => [...document.querySelectorAll(sel)].map(
            el => parseFloat(getComputedStyle(el).fontSize));
          return {
            names: px('#roster h2'), res: px('#roster .res-text'),
            order: px('#order .name'), turn: px('#status [data-testid=turn]'),
            log: px('#log .log-line'),
          };
        }"""
    )
    assert sizes["names"] and min(sizes["names"]) >= 36, sizes
    assert min(sizes["res"]) >= 24 and min(sizes["order"]) >= 28, sizes
    assert min(sizes["turn"]) >= 32 and min(sizes["log"]) >= 21, sizes
    no_sideways_scroll(page, "spectator screen")
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('#roster > article')]"
        ".map(a => a.getBoundingClientRect().bottom))"
    )
    assert bottom <= 1080, f"the last combatant ends at {bottom}px, below the screen"


# --- 2. the keyboard -------------------------------------------------------------------------


TAB_WALK_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  const ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  return {id: el.dataset.kbd || '', ring: ring, what: el.outerHTML.slice(0, 120)};
}"""


def tab_through(page: Any, where: str) -> None:
    """Tab from the top to the end: every visible control is reached, each with a focus ring."""
    total = page.evaluate(
        f"""() => {{
          const all = ({VISIBLE_CONTROLS_JS})({CONTROLS!r});
          all.forEach((el, i) => el.dataset.kbd = String(i));
          return all.length;
        }}"""
    )
    assert total > 5, f"{where}: only {total} controls?"
    # Start from the top of the document (a blur alone leaves Tab's starting point behind).
    page.evaluate(
        """() => {
          window.scrollTo(0, 0);
          document.body.tabIndex = -1;
          document.body.focus();
          document.body.removeAttribute('tabindex');
        }"""
    )
    reached: set[str] = set()
    no_ring: list[str] = []
    for _ in range(total * 2 + 20):
        page.keyboard.press("Tab")
        now = page.evaluate(TAB_WALK_JS)
        if now is None:
            break  # past the last control: focus left the page
        if now["id"] in reached:
            break
        if now["id"]:
            reached.add(now["id"])
        if not now["ring"]:
            no_ring.append(now["what"])
    missed = page.evaluate(
        """(reached) => [...document.querySelectorAll('[data-kbd]')]
             .filter(el => !reached.includes(el.dataset.kbd))
             .map(el => el.outerHTML.slice(0, 120))""",
        sorted(reached),
    )
    assert not missed, f"{where}: Tab never reached {len(missed)} controls: {missed[:5]}"
    assert not no_ring, f"{where}: no visible focus on {no_ring[:5]}"


def test_keyboard_reaches_everything_and_the_gm_has_shortcuts(browser, live_server_url, make_table):
    base = live_server_url
    t = make_table("action_points")
    gm = open_person(browser, "gm", "GM", **DESKTOP)
    player = open_person(browser, "player", "Player 1", **DESKTOP)
    try:
        log_in(gm, base, GM_USERNAME, GM_PASSWORD)
        arrive(gm, f"{base}/enc/{t.enc.pk}/")
        arrive(player, f"{base}/p/{t.seat1.token}/")
        keys = gm.page.keyboard

        # ? lists the shortcuts; Esc closes the list.
        keys.press("?")
        expect(gm.page.get_by_test_id("shortcuts")).to_be_visible()
        expect(gm.page.get_by_test_id("shortcuts")).to_contain_text("Next turn")
        keys.press("Escape")
        expect(gm.page.get_by_test_id("shortcuts")).to_be_hidden()

        # I rolls initiative (while setting up); a key typed into a field is left alone.
        dice = gm.page.get_by_test_id("roll-dice")
        dice.evaluate("el => el.closest('details').open = true")
        dice.press("i")
        expect(dice).to_have_value("i")
        gm.page.wait_for_timeout(300)
        expect(gm.log.locator(".text").filter(has_text="rolls initiative")).to_have_count(0)
        dice.blur()
        keys.press("i")
        expect(gm.log.locator(".text").filter(has_text="rolls initiative")).to_have_count(4)
        gm.page.get_by_test_id("start-combat").click()
        expect(gm.status).to_have_attribute("data-phase", "combat")
        first = gm.acting_row.get_attribute("data-combatant")

        # N hands the turn on; U takes it back.
        keys.press("n")
        expect(gm.turn_mark(first)).not_to_have_attribute("aria-current", "step")
        keys.press("u")
        expect(gm.turn_mark(first)).to_have_attribute("aria-current", "step")

        # J/K walk the combatants, a digit jumps to a place in the order, T to the turn.
        order = gm.page.locator("#order [data-combatant]").evaluate_all(
            "rows => rows.map(r => r.dataset.combatant)"
        )
        keys.press("j")
        expect(gm.page.locator(f"#combatant-{order[0]}")).to_be_focused()
        keys.press("j")
        expect(gm.page.locator(f"#combatant-{order[1]}")).to_be_focused()
        keys.press("k")
        expect(gm.page.locator(f"#combatant-{order[0]}")).to_be_focused()
        keys.press("3")
        expect(gm.page.locator(f"#combatant-{order[2]}")).to_be_focused()
        keys.press("t")
        expect(gm.page.locator(f"#combatant-{first}")).to_be_focused()
        ring = gm.page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert ring != "none"

        # Every control by Tab, with a visible focus, on the console and the player's page.
        tab_through(gm.page, "GM console")
        tab_through(player.page, "player page")

        # A player rolls dice with the keyboard alone: open the tool, type, press Enter.
        tool = player.page.locator(f"#panel-{t.ana} details.tool summary")
        tool.focus()
        player.page.keyboard.press("Enter")
        player.page.keyboard.press("Tab")
        player.page.keyboard.type("1d6+100")
        player.page.keyboard.press("Enter")
        rolled = player.log.locator(".text").filter(has_text=re.compile(r"^Ana rolls 1d6\+100"))
        expect(rolled).to_have_count(1)
        expect(player.page.get_by_test_id("announce")).to_contain_text("Ana rolls 1d6+100")
        for p in (gm, player):
            p.assert_no_errors()
    finally:
        gm.context.close()
        player.context.close()


# --- 3. a phone at the table ------------------------------------------------------------------

RECORD_VIBRATIONS = """
  window.__vibrations = [];
  Object.defineProperty(navigator, 'vibrate', {
    configurable: true,
    value: (pattern) => { window.__vibrations.push(pattern); return true; },
  });
"""


def test_a_phone_never_misses_its_turn_or_its_reaction(browser, live_server_url, make_table):
    base = live_server_url
    t = make_table("action_points")
    gm_token = ApiToken.issue(t.enc.owner, "ux")[1]
    enc = t.enc.pk
    phone = open_person(browser, "player", "Player 1 (phone)", **PHONE)
    phone.context.add_init_script(RECORD_VIBRATIONS)
    page = phone.page
    try:
        arrive(phone, f"{base}/p/{t.seat1.token}/")
        base_title = page.title()
        no_sideways_scroll(page, "player page (phone)")

        # Resources are read as words, not as coloured dots.
        api(base, gm_token, enc, type="start_combat")
        ap = page.locator(f"#panel-{t.ana} [data-testid='res-{t.ana}-ap']")
        expect(ap).to_have_attribute("data-value", "3")
        snapshot = ap.aria_snapshot()
        assert "AP 3 of 3" in snapshot and "●" not in snapshot, snapshot
        pips = ap.locator(".pips > *")
        assert pips.evaluate_all("ps => ps.map(p => p.textContent)") == ["●", "●", "●"]

        # Your turn: a banner, the title, a live region, and (once touched) a vibration.
        banner = page.get_by_test_id(f"your-turn-{t.ana}")
        expect(banner).to_be_visible()
        expect(page).to_have_title(re.compile(r"^▶ Your turn: Ana · "))
        assert "is-my-turn" in (page.locator("body").get_attribute("class") or "")
        box = banner.bounding_box()
        assert box and box["y"] < 844 / 2, f"the banner is at {box}"

        # Touch targets and the player's own actions within one screen-scroll of the top.
        small = page.evaluate(
            f"""() => ({VISIBLE_CONTROLS_JS})({CONTROLS!r}).map(el => {{
                  const target = el.type === 'checkbox' ? el.closest('label') || el : el;
                  const r = target.getBoundingClientRect();
                  return [r.width, r.height, el.outerHTML.slice(0, 90)];
               }}).filter(([w, h]) => w < 44 || h < 44)"""
        )
        assert not small, f"touch targets under 44 px: {small[:5]}"
        for testid in (f"end-turn-{t.ana}", f"action-button-{t.ana}-basic_attack"):
            top = page.get_by_test_id(testid).evaluate(
                "el => el.getBoundingClientRect().top + window.scrollY"
            )
            assert top < 2 * 844, f"{testid} starts {top}px down the page"
        page.get_by_test_id("sound-toggle").tap()  # the first touch; the sound is on now
        expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")

        # A roll is announced with its dice.
        opts = {"target": t.goblin}
        api(base, t.seat1.token, enc, type="act", actor=t.ana, action="basic_attack", options=opts)
        expect(page.get_by_test_id("announce")).to_contain_text("Ana: Basic Attack")
        expect(page.get_by_test_id("announce")).to_contain_text("Rolled 1d1+50")

        # Someone else's turn: announced, and the title is the page's own again.
        api(base, t.seat1.token, enc, type="end_turn", actor=t.ana)
        expect(page.get_by_test_id("announce")).to_contain_text("Turn: Bram")
        expect(page).to_have_title(base_title)
        expect(banner).to_have_count(0)
        api(base, t.seat2.token, enc, type="end_turn", actor=t.bram)

        # The Goblin (in melee since Ana's attack) walks away: Ana may react.
        before = page.evaluate("() => window.__vibrations.length")
        api(base, gm_token, enc, type="act", actor=t.goblin, action="move")
        alert = page.locator("[data-testid^='reaction-alert-']")
        expect(alert).to_be_visible()
        expect(alert).to_contain_text("Reaction available")
        expect(page).to_have_title(re.compile(r"^⚡ Reaction available · "))
        expect(page.get_by_test_id("announce-urgent")).to_contain_text(
            "Reaction available: Opportunity attack: Ana may react to Goblin now."
        )
        assert page.evaluate("() => window.__vibrations.length") > before
        photograph(page, "player-reaction", "phone", check=False)
        alert.get_by_role("link", name="Answer").tap()
        accept = page.locator("#reactions [data-testid^='accept-']")
        expect(accept).to_be_in_viewport()
        accept.tap()
        expect(alert).to_have_count(0)
        expect(page).to_have_title(base_title)
        expect(page.get_by_test_id("announce")).to_contain_text("Opportunity Attack")

        # Round 2: Ana's turn again, announced urgently, with a vibration.
        before = page.evaluate("() => window.__vibrations.length")
        api(base, gm_token, enc, type="end_turn", actor=t.goblin)
        api(base, gm_token, enc, type="end_turn", actor=t.troll)
        expect(page.get_by_test_id("announce-urgent")).to_contain_text("Your turn: Ana.")
        deadline = time.monotonic() + 5
        while page.evaluate("() => window.__vibrations.length") <= before:
            assert time.monotonic() < deadline, "no vibration for the second turn"
            page.wait_for_timeout(50)
        phone.assert_never_reloaded()
        phone.assert_no_errors()
    finally:
        phone.context.close()
