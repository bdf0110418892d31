"""Django's ASGI handler, with a request's middleware and view run in one trip to a thread.

Django's own ASGI handler runs the middleware chain in async mode: every synchronous
`process_request` and `process_response` of a `MiddlewareMixin` (sessions, CSRF, auth,
messages, security headers, ...) is its own hop from the event loop to the request's
thread and back, a dozen and more per request before the synchronous view gets its own.
Each hop costs CPU on both sides and waits for the GIL while the event loop is busy
writing pushes. Here the chain is loaded in sync mode, as under WSGI, and the whole of it
runs in the request's thread in one call. Reading the body, the request signals and
sending the answer stay Django's.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler


class OneThreadASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def get_response_async(self, request: Any) -> Any:
        """The synchronous chain in the request's thread; Django's handler does the rest
        with the answer (as it does with its own async chain's)."""
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def get_asgi_application() -> OneThreadASGIHandler:
    """`django.core.asgi.get_asgi_application`, with this handler."""
    import django

    django.setup(set_prefix=False)
    return OneThreadASGIHandler()
