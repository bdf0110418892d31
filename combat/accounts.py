"""The GM's account: log-in, the e-mail address, and a forgotten password.

Django's own auth views, each with the little this site adds: the log-in page offers a
reset only where mail is configured (settings.MAILERS); a reset request is rate-limited
per address and per e-mail address typed, and never says whether an account matched
(Django's behaviour); a password set through a reset link also lifts django-axes' log-in
pauses for that user name, so a GM paused by someone else's guessing gets back in at once.
"""

from __future__ import annotations

from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render

from combat import forms, ratelimit
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


class PasswordReset(auth_views.PasswordResetView):
    """Ask for a reset link. The answer is the same whether or not an account has that
    address; each request counts toward the limits before the form is read."""

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
                if user.email:
                    messages.success(request, f"Your e-mail address is now {user.email}.")
                else:
                    messages.success(request, "Your account has no e-mail address now.")
                return redirect("account")
    status = 400 if form.errors else 200
    context = {"form": form, "can_reset": mail_configured()}
    return render(request, "registration/account.html", context, status=status)
