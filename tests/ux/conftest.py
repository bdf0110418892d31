"""Shared pieces for the table-ready checks (accessibility, phones, keyboard, reuse, summary).

The Playwright tests here reuse the real-browser fixtures of tests/browser (a forked
daphne live server, Debian's chromium, a table built through the services, people at
it). They are imported, not redefined, and run after every other test but before those
of tests/browser (whose last file checks that no browser left anything behind).

Also here:
- `axe_violations(page)`: axe-core (vendored under tests/ux/vendor with its licence)
  run in the page; the serious and critical violations, each as a line.
- `owner`, `client`: a GM account and a test client logged in as it (no browser).
- `api(...)`: a command sent to the live server's JSON API, so that its push reaches
  the open pages (a command run in the test process would push only to the test
  process's own in-memory channel layer, which no page listens to).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import (  # noqa: F401 (fixtures are used by name)
    GM_PASSWORD,
    GM_USERNAME,
    HIDDEN,
    HP,
    SCREENSHOTS,
    arrive,
    browser,
    gm_user,
    live_server_url,
    log_in,
    make_table,
    open_person,
    sit_down,
)

UX = Path(__file__).resolve().parent
BROWSER_TESTS = UX.parent / "browser"
AXE = UX / "vendor" / "axe-core-4.14.1" / "axe.min.js"
# Which of our files drive a browser (the rest of tests/ux is plain Django tests).
BROWSER_FILES = {"test_table_ready.py"}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]):
    """Our browser tests after everything else, just before tests/browser's own.

    A wrapper, so it runs after every ordinary and trylast implementation (the one in
    tests/browser/conftest.py moves its tests to the end).
    """
    result = yield
    ours = [i for i in items if Path(str(i.path)).name in BROWSER_FILES]
    if ours:
        rest = [i for i in items if i not in ours]
        first_browser = next(
            (n for n, i in enumerate(rest) if BROWSER_TESTS in Path(str(i.path)).parents),
            len(rest),
        )
        items[:] = rest[:first_browser] + ours + rest[first_browser:]
    return result


@pytest.fixture(autouse=True)
def fast_passwords(request: pytest.FixtureRequest) -> None:
    # The default hasher is slow on purpose; the plain tests make a few users each. Not for
    # the browser tests: their live server, forked earlier, checks passwords its own way.
    if Path(str(request.node.path)).name not in BROWSER_FILES:
        settings = request.getfixturevalue("settings")
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- axe-core ---------------------------------------------------------------------------

AXE_RUN = """async (rules) => {
  const runOnly = rules.length ? {type: "rule", values: rules} : {type: "tag", values: [
    "wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice",
  ]};
  const result = await axe.run(document, {resultTypes: ["violations"], runOnly});
  return result.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.impact} ${v.id}: ${v.help} :: ` + v.nodes.slice(0, 4).map(n =>
      n.target.join(" ") + " " + (n.failureSummary || "").replace(/\\s+/g, " ")
    ).join(" | "));
}"""


def axe_violations(page: Any, rules: tuple[str, ...] = ()) -> list[str]:
    """Serious and critical axe-core violations on the page as it is now (of `rules` only,
    when given: the dark scheme changes colours, so only `color-contrast` is run again).

    axe is evaluated through the DevTools protocol (page.evaluate), which the page's CSP
    does not govern: the page keeps its strict policy while it is checked. (An injected
    <script> tag would be refused by that policy, as it should be.)
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(AXE_RUN, list(rules))


# --- the JSON API of the live server --------------------------------------------------------


def api(base: str, token: str, encounter_id: int, **command: Any) -> dict[str, Any]:
    """POST one command to the live server as the holder of `token`; the JSON answer."""
    request = urllib.request.Request(
        f"{base}/api/encounters/{encounter_id}/commands",
        data=json.dumps(command).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as r:  # noqa: S310 (our own server)
        return json.loads(r.read())


@pytest.fixture
def owner():
    from .helpers import user

    return user("gina")


@pytest.fixture
def client(owner):
    from .helpers import client_for

    return client_for(owner)
