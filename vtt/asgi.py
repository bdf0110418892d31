"""ASGI entry point: HTTP through Django, websockets through Channels.

Run with `daphne vtt.asgi:application` (what `make run` does).
"""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")

from vtt.handlers import get_asgi_application  # noqa: E402

# Sets Django up; everything below may import models. A request's middleware and view
# run in one trip to its thread (vtt/handlers.py).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

import combat.routing  # noqa: E402
from combat.access import SameOriginWebsocket  # noqa: E402
from vtt.concurrency import ConcurrencyLimit, limit_from_env  # noqa: E402
from vtt.single_process import refuse_second_process  # noqa: E402

# A second server process on the in-memory channel layer would push only to its own
# sockets: refuse to start it (with the reason) before it binds its port.
refuse_second_process()

# Static files are served by ServeStatic's middleware inside Django (vtt/settings.py).
http_app = django_asgi_app

application = ProtocolTypeRouter(
    {
        # Each request in Django holds a thread and a database connection: bound how many
        # are in at once (vtt/concurrency.py); the rest wait their turn.
        "http": ConcurrencyLimit(http_app, limit_from_env()),
        # Stricter than Channels' AllowedHostsOriginValidator: no Origin, `null`, or an
        # origin other than the host itself is refused, even with `*` in ALLOWED_HOSTS.
        "websocket": SameOriginWebsocket(
            AuthMiddlewareStack(URLRouter(combat.routing.websocket_urlpatterns))
        ),
    }
)

# What is loaded by now (Django, the app, the templates' modules) lives as long as the
# process: keep it out of the collector's full passes, which otherwise walk it all again
# in the middle of a push (tens of ms at a time; docs/performance.md).
gc.collect()
gc.freeze()
