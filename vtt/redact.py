"""Secret links kept out of logs and caches.

A seat's or the spectators' link is the whole credential: whoever reads it in a log file or
a shared cache can play that seat. Logs show `/p/[link]/` instead, and every answer under
`/p/` and `/s/` says `Cache-Control: no-store`, but for the battle map's image (named by
its content hash, served with `private` caching by combat/board_image.py: only the
browser that fetched it may keep it).
"""

from __future__ import annotations

import logging
import re

from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

# A player or spectator address (page, sub-page or socket), wherever it appears in a line.
_LINK = re.compile(r"(/(?:ws/)?[ps]/)[^/?#\s\"']+")
REDACTED = "[link]"
# The map's background image under a link: content-addressed, privately cacheable.
_MAP_IMAGE = re.compile(r"^/[ps]/[^/]+/map/[0-9a-f]{32}(-[0-9a-f]{12})?\.webp$")


def redact(text: str) -> str:
    """`text` with the secret part of every player and spectator address replaced."""
    return _LINK.sub(rf"\1{REDACTED}", text)


def is_secret_path(path: str) -> bool:
    return path.startswith(("/p/", "/s/"))


class RedactLinks(logging.Filter):
    """A logging filter: the record's message, formatted, with its links redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


class NoStoreSecretPages(MiddlewareMixin):
    """Middleware: `Cache-Control: no-store` on every answer under /p/ and /s/ (pages,
    summaries, posts, refusals) and on every JSON API answer about encounters (their state,
    log, seats with links, command results), so no browser or proxy cache keeps a seat's
    view or what a bearer token was shown."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if _MAP_IMAGE.match(request.path) and response.status_code in (200, 304):
            return response
        if is_secret_path(request.path) or request.path.startswith("/api/encounters"):
            response["Cache-Control"] = "no-store"
        return response
