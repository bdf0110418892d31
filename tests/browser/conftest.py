"""Real browsers against a real ASGI server: several people at one table at once.

- `live_server_url`: daphne (HTTP and websockets, static files) in a forked
  process, serving the test database. Every test here uses pytest-django's
  `transactional_db`, so what a test builds is committed and the server
  process sees it.
- `browser`: Debian's chromium through Playwright's sync API, one per test
  module. Playwright keeps an asyncio loop running in the main thread while it
  is started, so DJANGO_ALLOW_ASYNC_UNSAFE is set only while a browser exists,
  and the browser is stopped (and the variable restored) at the end of each
  module. Browser tests are moved to the end of the run, so the socket tests
  (pytest-asyncio) run before them; `test_zz_after_browsers.py` runs last and
  checks that async and ORM tests still work after the browsers are gone.
- `make_table`: an encounter of a given ruleset built through the app's own
  services: a GM (logged in by a session cookie), Ana (player 1), Bram
  (player 2), a Goblin and a hidden Lurking Troll. Every die is `1d1`, so each
  roll is known.
- `sit_down`: a browser context per person (GM, player 1, player 2,
  spectator), each page open, its socket connected, and every websocket frame
  it receives kept for inspection. The seat and spectator links are read from
  the GM console, as a GM would copy them.

Nothing here reloads a page: each person's page is loaded once, and every
later change must arrive over the socket (`Person.assert_never_reloaded`).
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

BROWSER_TESTS = Path(__file__).resolve().parent
# The photographs in docs/screenshots/ are retaken only on request (`make screenshots`
# sets VTT_SCREENSHOTS=1); any other run takes them into a folder of its own, so a test
# run never changes a tracked file.
SCREENSHOTS = (
    BROWSER_TESTS.parent.parent / "docs" / "screenshots"
    if os.environ.get("VTT_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / f"vtt-screenshots-{os.getpid()}"
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOST = "127.0.0.1"
# What the variable was before any browser started; restored after each module.
ENV_AT_START = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")

# Playwright's default is 5 s; a loaded machine (PostgreSQL, several test runs) needs more.
EXPECT_TIMEOUT_MS = 15_000

GM_USERNAME = "gina"
GM_PASSWORD = "a-long-gm-passphrase-17"
HIDDEN = "Lurking Troll"
# Every roll is known: attacks always hit (51 against 1, or 2 with a Dodge) for 1 damage.
SURE = {
    "attack": {"dice": "1d1", "bonus": 50},
    "damage": {"dice": "1d1", "bonus": 0},
    "defend": {"dice": "1d1", "bonus": 0},
    "spell": {"dice": "1d1", "bonus": 50},
    # The Action Ladder's attributes (FCS adds to hit; AGI is the Dodge roll).
    **{stat: {"dice": "1d1", "bonus": 0} for stat in ("FCS", "AGI", "STR", "RES")},
}
HP = 100
# A phone held upright: what `sit_down(table, phones=True)` gives the two players.
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
FAST_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


# --- ordering -------------------------------------------------------------------------------


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests last (after pytest-django's own ordering), in their file order."""
    browser = [i for i in items if BROWSER_TESTS in Path(str(i.path)).resolve().parents]
    if not browser:
        return
    rest = [i for i in items if i not in browser]
    items[:] = rest + browser


# --- the live server ------------------------------------------------------------------------


def _daphne_process_class():
    from daphne.testing import DaphneProcess

    class ForkedDaphne(DaphneProcess):
        """DaphneProcess, always forked: the child inherits the test database settings
        (and any in-process state) whatever the platform's default start method is."""

        @staticmethod
        def _Popen(process_obj):  # noqa: N802 (multiprocessing's name)
            return multiprocessing.get_context("fork").Process._Popen(process_obj)

    return ForkedDaphne


def _fresh_executors() -> None:
    """asgiref's thread-sensitive executor, as if no sync code had run yet.

    A fork copies the executor but not its worker thread: in the child, work sent to
    it would wait forever (the socket tests that ran before leave it with a thread).
    """
    from asgiref.sync import AsyncToSync, SyncToAsync

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    SyncToAsync.context_to_thread_executor.clear()
    AsyncToSync.loop_thread_executors.clear()


def _before_fork() -> None:
    """No thread, socket or file of the parent's should be shared with the server."""
    from asgiref.sync import SyncToAsync
    from django.db import connections

    connections.close_all()
    # A PostgreSQL pool holds open connections and threads of its own: closed, and made
    # again on first use on each side of the fork.
    for conn in connections.all(initialized_only=True):
        if getattr(conn, "pool", None) is not None:
            conn.close_pool()
    SyncToAsync.single_thread_executor.shutdown(wait=True)
    _fresh_executors()


def _in_child() -> None:
    """Runs in the server process before it serves: forget what the parent held."""
    from channels.layers import channel_layers
    from django.db import connections

    _fresh_executors()
    # Connections were closed before the fork; make sure no object is shared.
    for conn in connections.all(initialized_only=True):
        conn.connection = None
    # A channel layer made in the parent belongs to the parent's event loop.
    channel_layers.backends = {}


def _make_app():
    from channels.testing.live import make_application
    from django.conf import settings
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    # vtt/asgi.py already serves static files when SERVE_STATIC is on (DEBUG's default).
    return make_application(
        static_wrapper=None if settings.SERVE_STATIC else ASGIStaticFilesHandler
    )


@contextmanager
def serving(django_db_blocker: Any, **settings: Any) -> Iterator[str]:
    """http://127.0.0.1:<port> of a daphne process serving the test database, with
    `settings` changed for it (the server inherits them at the fork)."""
    from django.db import connections
    from django.test.utils import override_settings

    for conn in connections.all():
        if conn.vendor == "sqlite" and conn.is_in_memory_db():
            pytest.fail("The browser tests need a file database (DATABASES TEST NAME).")

    # The log-in page still checks a real password, with a hasher that takes
    # microseconds instead of a second (the default is slow on purpose). The server
    # inherits the setting at the fork; the tests that make users share it.
    changed = override_settings(PASSWORD_HASHERS=FAST_HASHERS, **settings)
    changed.enable()
    process = None
    try:
        # The child is forked with the database unblocked, so its views may use it;
        # this process goes back to pytest-django's rules straight after.
        with django_db_blocker.unblock():
            _before_fork()
            process = _daphne_process_class()(HOST, _make_app, setup=_in_child)
            process.start()
        deadline = time.monotonic() + 30
        while not process.ready.wait(timeout=0.5):
            if not process.is_alive() or time.monotonic() > deadline:
                detail = ""
                if not process.errors.empty():
                    detail = process.errors.get_nowait()[1]
                pytest.fail(f"The daphne live server did not start.\n{detail}")
        yield f"http://{HOST}:{process.port.value}"
    finally:
        if process is not None:
            process.terminate()
            process.join(10)
        changed.disable()


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """http://127.0.0.1:<port> of a daphne process serving the test database."""
    with serving(django_db_blocker) as url:
        yield url


# --- the browser ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(live_server_url) -> Iterator[Any]:
    """One chromium per test module (started after the server has forked)."""
    from playwright.sync_api import expect, sync_playwright

    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    # Playwright's loop counts as "running" in this thread until it stops; the ORM in
    # fixtures and pytest-django's flush between tests must still work meanwhile.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    pw = sync_playwright().start()
    try:
        expect.set_options(timeout=EXPECT_TIMEOUT_MS)
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


# --- people ---------------------------------------------------------------------------------


@dataclass
class Person:
    """One person at the table: their own browser context, one page, and what reached it."""

    role: str  # "gm", "player" or "spectator"
    name: str
    context: Any
    page: Any
    frames: list[str] = field(default_factory=list)
    sockets: list[str] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # The page's form posts sent and not yet answered (by Playwright's request object).
    posts_on_the_way: set[Any] = field(default_factory=set)

    # -- regions of the page -------------------------------------------------------------
    def region_for(self, cid: str) -> str:
        """The CSS scope where this person's page shows a combatant's card (one per page)."""
        if self.role == "gm":
            return f"#combatants [data-combatant='{cid}']"
        if self.role == "player":
            return f"#panels [data-combatant='{cid}'], #others [data-testid='other-{cid}']"
        return f"#roster [data-testid='roster-{cid}']"

    def hp(self, cid: str):
        return self.page.locator(f"{self.region_for(cid)}").locator(f"[data-testid='hp-{cid}']")

    def resource(self, cid: str, key: str):
        return self.page.locator(self.region_for(cid)).locator(f"[data-testid='res-{cid}-{key}']")

    def order_row(self, cid: str):
        return self.page.locator(f"#order [data-testid='order-{cid}']")

    def turn_mark(self, cid: str):
        """What says that a combatant acts (`aria-current="step"`): on the GM's console its
        row's line, on the players' and spectators' order its row's tags (app.css draws
        either on the whole row)."""
        if self.role == "gm":
            return self.page.locator(f"#order #rowline-{cid}")
        return self.page.locator(f"#order #orderstate-{cid}")

    @property
    def acting_row(self):
        """The row of the order marked as acting, whichever element of it carries the mark."""
        return self.page.locator(
            "#order [data-combatant]:is([aria-current='step'], :has([aria-current='step']))"
        )

    @property
    def log(self):
        return self.page.locator("#log")

    @property
    def status(self):
        return self.page.locator("#status")

    # -- what reached the browser ------------------------------------------------------------
    def everything_received(self) -> str:
        """The page's HTML now, and every websocket frame it has received so far."""
        return self.page.content() + "\n".join(self.frames)

    def assert_never_reloaded(self) -> None:
        """Loaded once, one socket opened: every change came as a push on that socket
        (a reconnect would have fetched the whole view and hidden a lost push)."""
        assert len(self.navigations) == 1, (
            f"{self.name}'s page navigated {len(self.navigations)} times: {self.navigations}"
        )
        assert len(self.sockets) == 1, f"{self.name}'s page opened sockets {self.sockets}"

    def assert_no_errors(self) -> None:
        assert not self.errors, f"{self.name}'s page reported errors: {self.errors}"

    def wait_for_posts_answered(self) -> None:
        """Every post this page has sent is answered and htmx is done with it.

        The marker that nothing more is coming from this page's clicks: a repeated post,
        had the page sent one, is on the way or answered (and so logged) by now. A button
        stays busy (data-busy) until htmx has swapped its answer in (static/js/posts.js).
        """
        deadline = time.monotonic() + EXPECT_TIMEOUT_MS / 1000
        while True:
            # A round trip to the page first: the events of requests it made before are in.
            busy = self.page.evaluate("document.querySelectorAll('[data-busy]').length")
            if not busy and not self.posts_on_the_way:
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.name}'s page still has {len(self.posts_on_the_way)} posts "
                    f"unanswered and {busy} busy buttons"
                )
            self.page.wait_for_timeout(25)

    def wait_for_frames(self, count: int) -> None:
        deadline = time.monotonic() + EXPECT_TIMEOUT_MS / 1000
        while len(self.frames) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.name}'s socket received {len(self.frames)} frames, expected {count}"
                )
            self.page.wait_for_timeout(25)


def open_person(browser, role: str, name: str, **context_args: Any) -> Person:
    """A new browser context (a new person), not yet on any page."""
    context = browser.new_context(**context_args)
    page = context.new_page()
    person = Person(role=role, name=name, context=context, page=page)

    def on_socket(ws) -> None:
        person.sockets.append(ws.url)
        ws.on(
            "framereceived",
            lambda payload: person.frames.append(
                payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
            ),
        )

    def on_console(msg) -> None:
        if msg.type == "error":
            person.errors.append(f"console: {msg.text}")

    def on_request(request) -> None:
        if request.method == "POST":
            person.posts_on_the_way.add(request)

    def on_request_done(request) -> None:
        person.posts_on_the_way.discard(request)

    page.on("websocket", on_socket)
    page.on("request", on_request)
    page.on("requestfinished", on_request_done)
    page.on("requestfailed", on_request_done)
    page.on("console", on_console)
    page.on("pageerror", lambda exc: person.errors.append(f"pageerror: {exc}"))
    # One "domcontentloaded" per document: a reload or a full-page post would add one.
    page.on("domcontentloaded", lambda p: person.navigations.append(p.url))
    return person


def arrive(person: Person, url: str) -> None:
    """Load the page once and wait until its socket has delivered the whole view."""
    before = len(person.frames)
    person.page.goto(url)
    person.wait_for_frames(before + 1)


# --- the table ------------------------------------------------------------------------------


@dataclass
class Table:
    ruleset: str
    enc: Any
    seat1: Any
    seat2: Any
    ana: str
    bram: str
    goblin: str
    troll: str

    @property
    def ids(self) -> dict[str, str]:
        return {"Ana": self.ana, "Bram": self.bram, "Goblin": self.goblin, HIDDEN: self.troll}

    def state(self) -> dict[str, Any]:
        self.enc.refresh_from_db()
        return self.enc.state


def _add(enc, **fields) -> str:
    from combat import services
    from combat.access import gm_viewer

    result = services.run_command(enc.pk, gm_viewer(enc), {"type": "add_combatant", **fields})
    assert result.ok, result.refusal
    return next(e["data"]["id"] for e in result.events if e["kind"] == "combatant_added")


@pytest.fixture
def gm_user(transactional_db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(GM_USERNAME, password=GM_PASSWORD)


@pytest.fixture
def make_table(gm_user) -> Callable[..., Table]:
    """Build an encounter through the app's services, ready to start (setup phase).

    Initiatives are fixed (Ana 20, Bram 15, Goblin 10, Troll 5), so the order is known;
    every die is 1d1, so every roll is known.
    """
    from combat import services
    from combat.models import Encounter

    def make(
        ruleset: str, *, grit: dict[str, int] | None = None, settings: dict | None = None
    ) -> Table:
        # These tests follow HP as numbers on every page: NPC health shown exact. (Banded,
        # the default, and hidden health: tests/web/test_npc_health.py and
        # test_npc_health_bands_on_the_phone_and_the_screen in tests/browser/test_hidden.py.)
        chosen = {"npc_health": "exact", **(settings or {})}
        enc = services.create_encounter(gm_user, f"Bridge fight ({ruleset})", ruleset, chosen)
        assert isinstance(enc, Encounter), enc
        grit = grit or {}

        def extra(name: str) -> dict[str, Any]:
            return {"grit": grit[name]} if name in grit else {}

        ana = _add(enc, name="Ana", side="pc", hp=HP, initiative=20, stats=SURE, **extra("Ana"))
        bram = _add(enc, name="Bram", side="pc", hp=HP, initiative=15, stats=SURE, **extra("Bram"))
        goblin = _add(enc, name="Goblin", side="npc", hp=HP, initiative=10, stats=SURE)
        troll = _add(enc, name=HIDDEN, side="npc", hp=HP, initiative=5, stats=SURE, hidden=True)
        seat1 = services.create_seat(enc.pk, "Player 1", [ana])
        seat2 = services.create_seat(enc.pk, "Player 2", [bram])
        enc.refresh_from_db()
        return Table(ruleset, enc, seat1, seat2, ana, bram, goblin, troll)

    return make


@dataclass
class People:
    gm: Person
    p1: Person
    p2: Person
    spectator: Person

    @property
    def everyone(self) -> list[Person]:
        return [self.gm, self.p1, self.p2, self.spectator]

    def others(self, *but: Person) -> list[Person]:
        return [p for p in self.everyone if p not in but]

    @property
    def not_gm(self) -> list[Person]:
        return [self.p1, self.p2, self.spectator]


def log_in(person: Person, base: str, username: str, password: str) -> None:
    """Through the log-in page, as a person would."""
    from playwright.sync_api import expect

    person.page.goto(f"{base}/accounts/login/")
    form = person.page.get_by_test_id("login-form")
    form.get_by_label("Username").fill(username)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Log in").click()
    expect(person.page.get_by_role("link", name="Log in")).to_have_count(0)
    expect(person.page.get_by_role("button", name="Log out")).to_be_visible()
    # The page after the log-in has finished loading (and reported its navigation), so a
    # caller that clears the navigations from here on does not meet a late one.
    person.page.wait_for_load_state("load")


def logged_in_cookie(user: Any, base: str) -> dict[str, str]:
    """The session cookie of `user` logged in, for a browser context on `base`."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return {"name": name, "value": client.cookies[name].value, "url": base}


def link_of(gm: Person, testid: str) -> str:
    link = gm.page.get_by_test_id(testid)
    href = link.get_attribute("href")
    assert href and href.startswith("/"), f"{testid}: {href!r}"
    # What the GM sees is what they copy: the link's text is the same address.
    assert link.inner_text().strip() == href
    return href


@pytest.fixture
def sit_down(browser, live_server_url, transactional_db) -> Iterator[Callable[..., People]]:
    """Open the table for four people; every context is closed after the test."""
    opened: list[Person] = []

    def sit(
        table: Table, *, fake_clock: bool = False, phones: bool = False, **context_args: Any
    ) -> People:
        """`fake_clock`: every page's timers run on Playwright's clock, which a test can
        move forward (`person.page.clock.fast_forward`) instead of waiting. `phones`: the
        two players are on phones (`PHONE`), the GM and the spectators on wide screens."""
        base = live_server_url
        args = {"viewport": {"width": 1280, "height": 800}, **context_args}

        def person(role: str, name: str) -> Person:
            own = {**args, **PHONE} if phones and role == "player" else args
            p = open_person(browser, role, name, **own)
            opened.append(p)
            if fake_clock:
                p.context.clock.install()  # time flows as usual until moved on
            return p

        gm = person("gm", "GM")
        # Logged in already (the log-in page itself is driven by test_screenshots.py and
        # tests/ux): the GM's browser holds the session cookie a log-in would have set.
        gm.context.add_cookies([logged_in_cookie(table.enc.owner, base)])
        arrive(gm, f"{base}/enc/{table.enc.pk}/")
        seat1 = link_of(gm, f"seat-link-{table.seat1.pk}")
        seat2 = link_of(gm, f"seat-link-{table.seat2.pk}")
        watch = link_of(gm, "spectator-link")
        people = []
        for role, name, path in (
            ("player", "Player 1", seat1),
            ("player", "Player 2", seat2),
            ("spectator", "Spectator", watch),
        ):
            p = person(role, name)
            arrive(p, base + path)
            people.append(p)
        return People(gm, *people)

    yield sit
    for p in opened:
        p.context.close()


# --- acting through the pages -----------------------------------------------------------------


def action_form(person: Person, cid: str, key: str):
    """The form of one catalogue action: the GM's turn panel, or the player's own panel."""
    scope = "#turn" if person.role == "gm" else f"#panel-{cid}"
    return person.page.locator(scope).get_by_test_id(f"action-{cid}-{key}")


def reveal(form: Any) -> None:
    """Open the collapsed group of the action panel that holds an action's form (by its
    summary, as a person would); an action shown in full is left as it is."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for _ in range(3):
        closed = form.evaluate("el => { const d = el.closest('details'); return !!d && !d.open; }")
        if not closed:
            return
        try:
            form.locator("xpath=ancestor::details[1]/summary").click(timeout=5000)
            return
        except PlaywrightTimeoutError:
            continue  # a push moved the action meanwhile (into the actions open now): look again


def act(person: Person, cid: str, key: str, **options: Any) -> None:
    """Open the action's group if it is collapsed, choose its options and press its button.

    First the answers to the page's own posts are in, as a person sees the page settle
    before choosing: an answer swapped in after the options were chosen draws the form
    afresh, with its default target (none, for a required one: the button then sends
    nothing, as happened to the GM's attack right after an End Turn under load)."""
    person.wait_for_posts_answered()
    form = action_form(person, cid, key)
    reveal(form)
    for name, value in options.items():
        field_ = form.locator(f"[name='opt_{name}']").last
        tag = field_.evaluate("el => el.tagName.toLowerCase() + ':' + (el.type || '')")
        if tag.startswith("select"):
            field_.select_option(str(value))
        elif tag == "input:checkbox":
            field_.set_checked(bool(value))
        else:
            field_.fill(str(value))
    form.get_by_test_id(f"action-button-{cid}-{key}").click()


def end_turn(person: Person, cid: str) -> None:
    scope = "#turn" if person.role == "gm" else f"#panel-{cid}"
    person.page.locator(scope).get_by_test_id(f"end-turn-{cid}").click()
