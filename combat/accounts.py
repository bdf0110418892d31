"""The GM's account: log-in, the e-mail address, and a forgotten password.

Django's own auth views, each with the little this site adds: the log-in page offers a
reset only where mail is configured (settings.MAILERS); a reset request is rate-limited
per address and per e-mail address typed, and never says whether an account matched
(Django's behaviour); a password set through a reset link also lifts django-axes' log-in
pauses for that user name, so a GM paused by someone else's guessing gets back in at once.

A reset link goes only to an address its owner confirmed: saving an address mails a link
to it (signed with the site's key, for that account and that address, good for
CONFIRM_DAYS), and following it marks the address confirmed (models.ConfirmedEmail).
Until then the account's address gets no reset mail, and the account page says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.core import signing
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from combat import forms, ratelimit
from combat.models import ConfirmedEmail, confirmed_email
from combat.views import (
    UserHttpRequest,
    _bad_input,
    login_required,
    refuse,
    require_http_methods,
    too_many,
)

NO_MAIL = (
    "This site does not send e-mail, so a password cannot be reset by mail here. "
    "Ask the person who runs it: they can lift a log-in pause and set a new password "
    "for your user name."
)


def mail_configured() -> bool:
    """Whether this site can send mail: a "default" mailer is set (DJANGO_EMAIL_HOST)."""
    return "default" in getattr(settings, "MAILERS", {})


class LogIn(auth_views.LoginView):
    """Django's log-in page; "Forgot your password?" only where a reset can be mailed."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "can_reset": mail_configured()}


class ConfirmedResetForm(PasswordResetForm):
    """Django's reset form, mailing only accounts whose address is the one they confirmed."""

    def get_users(self, email: str) -> Iterator[Any]:
        for user in super().get_users(email):
            if confirmed_email(user):
                yield user


class PasswordReset(auth_views.PasswordResetView):
    """Ask for a reset link. The answer is the same whether or not an account has that
    address (or has confirmed it); each request counts toward the limits before the form
    is read."""

    form_class = ConfirmedResetForm

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not mail_configured():
            return refuse(request, 404, NO_MAIL, "no_mail")
        if request.method == "POST":
            if bad := _bad_input(request):
                return bad
            address = request.META.get("REMOTE_ADDR") or "unknown"
            typed = str(request.POST.get("email", "")).strip().lower()[:254]
            what = "password reset requests"
            limit = settings.VTT_RATE_PASSWORD_RESETS
            limited = ratelimit.hit("password-resets", address, limit, what) or (
                ratelimit.hit("password-resets-to", typed, limit, what) if typed else None
            )
            if limited is not None:
                return too_many(request, limited)
        return super().dispatch(request, *args, **kwargs)


class PasswordResetConfirm(auth_views.PasswordResetConfirmView):
    """Set a new password from a reset link; that also lifts the user name's log-in pauses."""

    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


def _mail_only(view: Any) -> Any:
    """The reset pages that follow a mailed link: "not here" in words without mail."""

    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not mail_configured():
            return refuse(request, 404, NO_MAIL, "no_mail")
        response: HttpResponse = view(request, *args, **kwargs)
        return response

    return inner


password_reset = PasswordReset.as_view()
password_reset_done = _mail_only(auth_views.PasswordResetDoneView.as_view())
password_reset_confirm = _mail_only(PasswordResetConfirm.as_view())
password_reset_complete = _mail_only(auth_views.PasswordResetCompleteView.as_view())


@login_required
@require_http_methods(["GET", "POST"])
def account(request: UserHttpRequest) -> HttpResponse:
    """The account page: the e-mail address (changed with the current password), and links
    to change the password and to the API tokens."""
    user = request.user
    form = forms.EmailForm(request.POST or None, initial={"email": user.email})
    if request.method == "POST":
        if bad := _bad_input(request):
            return bad
        if form.is_valid():
            # Through authenticate(), so wrong passwords here count toward django-axes'
            # pause like the log-in page's (and a paused address gets its 429 page).
            checked = authenticate(
                request, username=user.get_username(), password=form.cleaned_data["password"]
            )
            if checked is None or checked.pk != user.pk:
                form.add_error("password", "That is not your current password.")
            else:
                user.email = form.cleaned_data["email"]
                user.save(update_fields=["email"])
                if not user.email:
                    messages.success(request, "Your account has no e-mail address now.")
                elif confirmed_email(user):
                    messages.success(request, f"Your e-mail address is now {user.email}.")
                elif mail_configured():
                    send_confirmation(request, user)
                    messages.success(request, SENT_TO_CONFIRM.format(email=user.email))
                else:
                    messages.success(request, f"Your e-mail address is now {user.email}.")
                return redirect("account")
    status = 400 if form.errors else 200
    context = {
        "form": form,
        "can_reset": mail_configured(),
        "confirmed": bool(confirmed_email(user)),
    }
    return render(request, "registration/account.html", context, status=status)


# --- confirming the address -----------------------------------------------------------------

CONFIRM_SALT = "combat.accounts.confirm-email"
SENT_TO_CONFIRM = (
    "Your e-mail address is now {email}. A link to confirm it was sent there: no password "
    "reset goes to it until you follow that link."
)
CONFIRM_DAYS = 3


def confirmation_token(user: Any) -> str:
    """A signed, dated note of this account and the address it has now."""
    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=CONFIRM_SALT)


def send_confirmation(request: HttpRequest, user: Any) -> None:
    link = request.build_absolute_uri(
        reverse("confirm_email", kwargs={"token": confirmation_token(user)})
    )
    context = {"user": user, "link": link, "days": CONFIRM_DAYS, "domain": request.get_host()}
    send_mail(
        f"Confirm your e-mail address on {request.get_host()}",
        render_to_string("registration/confirm_email.txt", context),
        None,
        [user.email],
    )


@require_http_methods(["GET"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """Follow the mailed link: the address is confirmed if the account still has it."""
    try:
        note = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_DAYS * 24 * 3600)
    except signing.BadSignature:  # altered, or older than CONFIRM_DAYS (SignatureExpired)
        note = {}
    pk = note.get("u")
    user = get_user_model().objects.filter(pk=pk).first() if isinstance(pk, int) else None
    if user is None or not user.email or user.email.lower() != note.get("e"):
        return refuse(
            request,
            400,
            f"This link does not work: it is older than {CONFIRM_DAYS} days, or the account's "
            "e-mail address has changed since it was sent. Save the address again on your "
            "account page to get a new link.",
            "bad_link",
        )
    ConfirmedEmail.objects.update_or_create(user=user, defaults={"email": user.email})
    return render(request, "registration/email_confirmed.html", {"email": user.email})
