"""No debug page ever meets a player or a spectator (issue 12, item 4).

Under /p/ and /s/ a link that does not work (revoked, replaced, mistyped, or an address
below it that does not exist) gets the app's own page saying so, and anything that goes
wrong gets the plain server-error page, whatever DJANGO_DEBUG says: Django's debug pages
show settings and code, and they are for the person running the server, not the table.
"""

from __future__ import annotations

import logging

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin

from combat.rules import Refusal
from vtt.redact import is_secret_path

log = logging.getLogger(__name__)

GONE = Refusal("link_gone", "This link no longer works: ask the GM for a new one.")


def _htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def link_gone(request: HttpRequest) -> HttpResponse:
    """The page for a link that does not work (404), or its sentence for htmx."""
    if _htmx(request):
        return render(request, "combat/components/flash.html", {"refusal": GONE}, status=404)
    response = render(request, "combat/link_gone.html", {"hide_login": True}, status=404)
    response.link_page = True  # type: ignore[attr-defined]
    return response


class LinkErrorPages(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_secret_path(request.path):
            return None
        if isinstance(exception, Http404):
            return link_gone(request)
        from combat.views import server_error

        log.error("Error on a player or spectator page", exc_info=exception)
        return server_error(request)

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        # A 404 no view saw (an address under a link that does not exist): Django's own
        # page, the debug one with DEBUG on. An htmx answer of ours is left as it is.
        if (
            is_secret_path(request.path)
            and response.status_code == 404
            and not getattr(response, "link_page", False)
            and not _htmx(request)
        ):
            return link_gone(request)
        return response
