"""A locked-out GM gets a way back (issue 36 item 1): an optional e-mail address on the
account, a reset link by e-mail where mail is configured (which also lifts log-in pauses
on the user name), and the host's commands otherwise."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from combat.models import ConfirmedEmail

from .test_hardening import _login, _settings_with

LOGIN = "/accounts/login/"
RESET = "/accounts/password_reset/"


@pytest.fixture
def with_mail(settings: Any) -> Any:
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    settings.DEFAULT_FROM_EMAIL = "Combat Table <vtt@example.org>"
    return settings


def _pause(username: str, ip: str, limit: int) -> None:
    for n in range(limit):
        _login(LOGIN, username, f"wrong-{n}", ip)
    assert _login(LOGIN, username, "gm-password-1", ip).status_code == 429


# --- without mail (the embedded default) --------------------------------------------------


def test_without_mail_there_is_no_reset_by_mail(users: Any, settings: Any):
    assert getattr(settings, "MAILERS", {}) == {}  # the default: no DJANGO_EMAIL_HOST
    users[0].email = "gina@example.org"
    users[0].save()
    page = Client().get(LOGIN).content.decode()
    assert "Forgot your password?" not in page and RESET not in page
    for answer in (Client().get(RESET), Client().post(RESET, {"email": "gina@example.org"})):
        assert answer.status_code == 404
        assert "does not send e-mail" in answer.content.decode()
    assert Client().get("/accounts/reset/MQ/set-password/").status_code == 404
    assert mail.outbox == []


def test_the_host_lets_a_paused_gm_back_in_with_two_commands(
    users: Any, settings: Any, monkeypatch: Any
):
    """docs/deploy.md: `axes_reset_username` lifts the pause, `changepassword` sets a new
    password; the GM logs in with it from the address that was paused."""
    from django.contrib.auth.management.commands import changepassword

    _pause("gina", "10.0.0.1", settings.AXES_FAILURE_LIMIT)
    out = io.StringIO()
    call_command("axes_reset_username", "gina", stdout=out)
    assert "attempts removed" in out.getvalue()
    monkeypatch.setattr(
        changepassword.Command, "_get_pass", lambda self, prompt="": "New-passphrase-77"
    )
    call_command("changepassword", "gina", stdout=io.StringIO())
    assert _login(LOGIN, "gina", "gm-password-1", "10.0.0.1").status_code == 200  # the old one
    assert _login(LOGIN, "gina", "New-passphrase-77", "10.0.0.1").status_code == 302


# --- the e-mail address on the account -----------------------------------------------------


def test_sign_up_takes_an_optional_email_address(db: Any):
    form = {"password1": "Long-enough-pass-1", "password2": "Long-enough-pass-1"}
    page = Client().get("/signup/").content.decode()
    assert 'name="email"' in page and "Optional" in page
    r = Client(REMOTE_ADDR="10.0.0.5").post("/signup/", {**form, "username": "gwen"})
    assert r.status_code == 302
    r = Client(REMOTE_ADDR="10.0.0.5").post(
        "/signup/", {**form, "username": "gus", "email": "gus@example.org"}
    )
    assert r.status_code == 302
    users = get_user_model().objects
    assert users.get(username="gwen").email == ""
    assert users.get(username="gus").email == "gus@example.org"
    r = Client(REMOTE_ADDR="10.0.0.5").post(
        "/signup/", {**form, "username": "gil", "email": "not an address"}
    )
    assert r.status_code == 200 and not users.filter(username="gil").exists()


def test_sign_up_says_only_that_a_name_is_taken(users: Any):
    r = Client().post(
        "/signup/",
        {"username": "gina", "password1": "Long-enough-pass-1", "password2": "Long-enough-pass-1"},
    )
    errors = re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', r.content.decode(), re.S)
    assert [re.sub(r"<[^>]+>", "", e).strip() for e in errors] == [
        "A user with that username already exists."
    ]


def test_the_account_page_changes_the_address_with_the_current_password(users: Any):
    gm = Client()
    gm.force_login(users[0])
    page = gm.get("/account/")
    assert page.status_code == 200 and 'data-testid="email-form"' in page.content.decode()
    wrong = gm.post("/account/", {"email": "gina@example.org", "password": "guess"})
    assert wrong.status_code == 400 and "not your current password" in wrong.content.decode()
    users[0].refresh_from_db()
    assert users[0].email == ""
    right = gm.post("/account/", {"email": "gina@example.org", "password": "gm-password-1"})
    assert right.status_code == 302
    users[0].refresh_from_db()
    assert users[0].email == "gina@example.org"
    assert "gina@example.org" in gm.get("/account/").content.decode()
    gm.post("/account/", {"email": "", "password": "gm-password-1"})
    users[0].refresh_from_db()
    assert users[0].email == ""
    assert Client().get("/account/").status_code == 302  # to the log-in page


def test_wrong_passwords_on_the_account_page_count_toward_the_pause(users: Any, settings: Any):
    gm = Client(REMOTE_ADDR="10.0.0.1")
    gm.force_login(users[0])
    for n in range(settings.AXES_FAILURE_LIMIT):
        gm.post("/account/", {"email": "x@example.org", "password": f"wrong-{n}"})
    r = gm.post("/account/", {"email": "x@example.org", "password": "gm-password-1"})
    assert r.status_code == 429
    users[0].refresh_from_db()
    assert users[0].email == ""


# --- a reset link by e-mail -----------------------------------------------------------------


def _confirmed(user: Any, email: str) -> None:
    """The account has this address and its owner confirmed it."""
    user.email = email
    user.save()
    ConfirmedEmail.objects.update_or_create(user=user, defaults={"email": email})


def test_a_reset_link_by_mail_sets_a_new_password_and_lifts_the_pause(users: Any, with_mail: Any):
    gina = users[0]
    _confirmed(gina, "gina@example.org")
    _pause("gina", "10.0.0.1", with_mail.AXES_FAILURE_LIMIT)
    page = Client().get(LOGIN).content.decode()
    assert "Forgot your password?" in page and RESET in page
    me = Client(REMOTE_ADDR="10.0.0.1")
    r = me.post(RESET, {"email": "GINA@example.org"})
    assert r.status_code == 302 and r["Location"] == "/accounts/password_reset/done/"
    assert "If an account has that address" in me.get(r["Location"]).content.decode()
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["gina@example.org"] and sent.from_email == "Combat Table <vtt@example.org>"
    assert '"gina"' in sent.body
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+/)", sent.body)
    assert link is not None
    form = me.get(link.group(1))
    assert form.status_code == 302  # Django moves the token into the session
    page = me.get(form["Location"])
    assert 'data-testid="password-set-form"' in page.content.decode()
    done = me.post(
        form["Location"],
        {"new_password1": "Fresh-passphrase-42", "new_password2": "Fresh-passphrase-42"},
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert "log-in pauses" in me.get(done["Location"]).content.decode()
    # The pause on the address that guessed is lifted with the new password in place.
    assert _login(LOGIN, "gina", "gm-password-1", "10.0.0.1").status_code == 200
    assert _login(LOGIN, "gina", "Fresh-passphrase-42", "10.0.0.1").status_code == 302
    # The link works once.
    again = Client().get(link.group(1), follow=True)
    assert "This link does not work" in again.content.decode()


def test_a_reset_request_never_says_whether_an_address_has_an_account(users: Any, with_mail: Any):
    _confirmed(users[0], "gina@example.org")
    known = Client().post(RESET, {"email": "gina@example.org"}, follow=True)
    unknown = Client().post(RESET, {"email": "nobody@example.org"}, follow=True)
    assert known.status_code == unknown.status_code == 200
    assert known.redirect_chain == unknown.redirect_chain
    strip = re.compile(
        r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"|nonce="[^"]*"'
    )
    assert strip.sub("", known.content.decode()) == strip.sub("", unknown.content.decode())
    assert [m.to for m in mail.outbox] == [["gina@example.org"]]


def test_reset_requests_are_rate_limited_per_address_and_per_email(users: Any, with_mail: Any):
    with_mail.VTT_RATE_PASSWORD_RESETS = (3, 3600)
    here = Client(REMOTE_ADDR="10.0.0.1")
    for n in range(3):
        assert here.post(RESET, {"email": f"a{n}@example.org"}).status_code == 302
    r = here.post(RESET, {"email": "gina@example.org"})
    assert r.status_code == 429 and "Too many password reset requests" in r.content.decode()
    assert int(r["Retry-After"]) > 0
    # One inbox asked for from many addresses is limited too...
    for n in range(3):
        assert (
            Client(REMOTE_ADDR=f"10.1.0.{n}").post(RESET, {"email": "a9@x.org"}).status_code == 302
        )
    assert Client(REMOTE_ADDR="10.1.0.9").post(RESET, {"email": "A9@x.org"}).status_code == 429
    # ...and others are not.
    assert Client(REMOTE_ADDR="10.2.0.1").post(RESET, {"email": "b@x.org"}).status_code == 302


def test_mail_needs_a_from_address():
    run = _settings_with(DJANGO_EMAIL_HOST="smtp.example.org")
    assert run.returncode != 0 and "DJANGO_DEFAULT_FROM_EMAIL must be set" in run.stderr
    ok = _settings_with(
        DJANGO_EMAIL_HOST="smtp.example.org", DJANGO_DEFAULT_FROM_EMAIL="vtt@example.org"
    )
    assert ok.returncode == 0, ok.stderr


# --- the address is confirmed before a reset goes to it -------------------------------------


def _link(body: str) -> str:
    found = re.search(r"https?://[^/\s]+(/account/email/confirm/\S+/)", body)
    assert found is not None, body
    return found.group(1)


def test_a_saved_address_gets_no_reset_until_its_owner_confirms_it(users: Any, with_mail: Any):
    """Issue 36 item 1: a reset link goes only to an address the owner confirmed. Saving
    an address mails a confirmation link to it; until it is followed, a reset request for
    that address mails nothing, and the account page says so."""
    gm = Client()
    gm.force_login(users[0])
    saved = gm.post("/account/", {"email": "Gina@example.org", "password": "gm-password-1"})
    assert saved.status_code == 302
    assert [m.to for m in mail.outbox] == [["Gina@example.org"]]
    link = _link(mail.outbox[0].body)
    page = gm.get("/account/").content.decode()
    assert "A link to confirm it was sent there" in page
    assert 'data-testid="email-unconfirmed"' in page and "no password reset goes to it" in page
    mail.outbox.clear()
    assert Client().post(RESET, {"email": "gina@example.org"}).status_code == 302
    assert mail.outbox == []  # not confirmed: no reset mail
    # The owner follows the link (from the mailbox, logged in or not).
    confirmed = Client().get(link)
    assert confirmed.status_code == 200 and "is confirmed" in confirmed.content.decode()
    page = gm.get("/account/").content.decode()
    assert "(confirmed)" in page and 'data-testid="email-unconfirmed"' not in page
    assert Client().post(RESET, {"email": "gina@example.org"}).status_code == 302
    assert [m.to for m in mail.outbox] == [["Gina@example.org"]]
    # A new address starts unconfirmed again, and gets its own link.
    mail.outbox.clear()
    gm.post("/account/", {"email": "gina@elsewhere.org", "password": "gm-password-1"})
    assert [m.to for m in mail.outbox] == [["gina@elsewhere.org"]]
    mail.outbox.clear()
    Client().post(RESET, {"email": "gina@elsewhere.org"})
    assert mail.outbox == []


def test_a_confirmation_link_works_only_for_the_address_it_was_sent_to(users: Any, with_mail: Any):
    gm = Client()
    gm.force_login(users[0])
    gm.post("/account/", {"email": "old@example.org", "password": "gm-password-1"})
    old = _link(mail.outbox[-1].body)
    gm.post("/account/", {"email": "new@example.org", "password": "gm-password-1"})
    # The link to the old address does not confirm the new one.
    r = Client().get(old)
    assert r.status_code == 400 and "This link does not work" in r.content.decode()
    # Nor does a link with its signature altered.
    new = _link(mail.outbox[-1].body)
    forged = new[:-3] + ("A" if new[-3] != "A" else "B") + new[-2:]
    assert Client().get(forged).status_code == 400
    assert not ConfirmedEmail.objects.filter(user=users[0]).exists()
    assert Client().get(new).status_code == 200
    assert ConfirmedEmail.objects.get(user=users[0]).email == "new@example.org"


def test_sign_up_with_an_address_mails_its_confirmation(db: Any, with_mail: Any):
    form = {"password1": "Long-enough-pass-1", "password2": "Long-enough-pass-1"}
    r = Client(REMOTE_ADDR="10.0.0.5").post(
        "/signup/", {**form, "username": "gus", "email": "gus@example.org"}, follow=True
    )
    assert "A link to confirm it was sent there" in r.content.decode()
    assert [m.to for m in mail.outbox] == [["gus@example.org"]]
    Client().get(_link(mail.outbox[0].body))
    assert ConfirmedEmail.objects.get(user__username="gus").email == "gus@example.org"


def test_without_mail_the_account_page_says_the_address_is_not_confirmed(users: Any):
    gm = Client()
    gm.force_login(users[0])
    gm.post("/account/", {"email": "gina@example.org", "password": "gm-password-1"})
    page = gm.get("/account/").content.decode()
    assert 'data-testid="email-unconfirmed"' in page
    assert "this site does not send e-mail at present" in page
    assert mail.outbox == []
