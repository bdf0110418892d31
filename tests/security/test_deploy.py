"""Deployment: the production checklist passes, and every page carries a strict CSP.

Every page type (landing, log-in, sign-up, the encounters list, a new encounter, the GM
console, a player's and a spectator's page, the API token page, the API reference and the
refusal pages) carries a Content-Security-Policy with a fresh nonce and neither 'unsafe-inline' nor
'unsafe-eval', and nothing on the page needs more: every script and style element carries
that nonce, and no element has an inline event handler, a style attribute or a
javascript: address.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client

from .conftest import Table

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "t7Jq2xVbN9pLr4WmZc8KdHs3FgYe6UaR1oXiQ5wTnBvMl0ySkP",
    "DJANGO_ALLOWED_HOSTS": "vtt.example.org",
}
_OWN = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "SERVE_STATIC", "CHANNEL_LAYER_")


def run_python(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(_OWN)}
    base["DJANGO_SETTINGS_MODULE"] = "vtt.settings"
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_passes_check_deploy_at_warning_level():
    result = run_python("manage.py", "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("hosts", ["*", "vtt.example.org,*", " * ", "*,localhost"])
def test_production_never_runs_with_a_wildcard_host(hosts: str):
    result = run_python("manage.py", "check", **{**PRODUCTION, "DJANGO_ALLOWED_HOSTS": hosts})
    assert result.returncode != 0
    assert "DJANGO_ALLOWED_HOSTS must not contain '*' when DJANGO_DEBUG=0" in result.stderr


def test_production_settings_hold_what_the_checklist_cannot_see():
    code = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.ALLOWED_HOSTS, s.CSRF_FAILURE_VIEW, s.SESSION_COOKIE_HTTPONLY,"
        " s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
        " s.X_FRAME_OPTIONS, s.SECURE_CONTENT_TYPE_NOSNIFF)"
    )
    result = run_python("-c", code, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "['vtt.example.org']",
        "combat.views.csrf_failure",
        "True",
        "True",
        "True",
        "True",
        "DENY",
        "True",
    ]


# --- the Content-Security-Policy of every page ------------------------------------------------


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag


def csp_problems(response) -> list[str]:
    policy = response.headers.get("Content-Security-Policy", "")
    if not policy:
        return ["no Content-Security-Policy header"]
    directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in policy.split(";") if d.strip())
    problems = policy_problems(policy, directives)
    nonce = re.search(r"'nonce-([^']+)'", directives.get("script-src", ""))
    if not nonce:
        return [*problems, f"script-src has no nonce: {policy}"]
    if f"'nonce-{nonce.group(1)}'" not in directives.get("style-src", ""):
        problems.append("style-src does not take the nonce")
    if "text/html" in response["Content-Type"]:
        problems += markup_problems(response.content.decode(), nonce.group(1))
    return problems


def policy_problems(policy: str, directives: dict[str, str]) -> list[str]:
    problems = []
    for bad in ("unsafe-inline", "unsafe-eval", "unsafe-hashes", "*"):
        if re.search(rf"(^|\s)'?{re.escape(bad)}'?(\s|$)", policy):
            problems.append(f"policy allows {bad}")
    for name, wanted in (
        ("default-src", "'self'"),
        ("object-src", "'none'"),
        ("frame-ancestors", "'none'"),
        ("base-uri", "'self'"),
        ("form-action", "'self'"),
    ):
        if directives.get(name) != wanted:
            problems.append(f"{name} is {directives.get(name)!r}, not {wanted}")
    return problems


def markup_problems(html: str, nonce: str) -> list[str]:
    """What on the page the policy would block, or what would need a weaker policy."""
    problems = []
    parser = Elements()
    parser.feed(html)
    for tag, attrs in parser.found:
        if tag in ("script", "style") and attrs.get("nonce") != nonce:
            problems.append(f"<{tag} {attrs}> lacks the response's nonce")
        if tag == "script" and not attrs.get("src", "").startswith("/static/"):
            problems.append(f"inline or foreign script {attrs}")
        for name, value in attrs.items():
            if name.startswith("on") or name.startswith("hx-on"):
                problems.append(f"<{tag}> has an inline handler {name}")
            if name == "style":
                problems.append(f"<{tag}> has a style attribute (blocked by this CSP)")
            if value.strip().lower().startswith("javascript:"):
                problems.append(f"<{tag} {name}> is a javascript: address")
    return problems


pytestmark = pytest.mark.django_db


def page_types(t: Table) -> dict[str, tuple[Client, str]]:
    anonymous, gm = Client(), t.clients["gm"]
    return {
        "landing": (anonymous, "/"),
        "login": (anonymous, "/accounts/login/"),
        "signup": (anonymous, "/signup/"),
        "encounters list": (gm, "/"),
        "new encounter": (gm, "/enc/new/"),
        "GM console": (gm, f"/enc/{t.enc.pk}/"),
        "player": (anonymous, f"/p/{t.seat1.token}/"),
        "spectator": (anonymous, f"/s/{t.enc.spectator_token}/"),
        "API token page": (gm, "/account/api-tokens/"),
        "not found page": (anonymous, "/p/not-a-real-link/"),
        "GM edit form": (gm, f"/enc/{t.enc.pk}/combatants/{t.goblin}/"),
        "API reference": (anonymous, "/api/docs/"),
    }


def test_every_page_type_carries_a_nonce_csp_and_needs_nothing_more(table: Table):
    checked = {}
    nonces = set()
    for name, (client, url) in page_types(table).items():
        r = client.get(url)
        assert r.status_code in (200, 404), (name, r.status_code)
        assert csp_problems(r) == [], name
        nonces.add(re.search(r"'nonce-([^']+)'", r.headers["Content-Security-Policy"]).group(1))
        checked[name] = r.status_code
    assert len(nonces) == len(checked)  # a fresh nonce for every response
    assert len(checked) == 12


def test_refusals_carry_the_csp_too(table: Table):
    csrf = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x"})
    assert csrf.status_code == 403 and csp_problems(csrf) == []
    method = Client().post(f"/s/{table.enc.spectator_token}/")
    assert method.status_code == 405 and csp_problems(method) == []
    nobody = Client().post(f"/enc/{table.enc.pk}/command/", {"type": "undo"})
    assert nobody.status_code == 403 and csp_problems(nobody) == []
    api = Client().get("/api/encounters/")
    assert api.status_code == 401 and "Content-Security-Policy" in api.headers
