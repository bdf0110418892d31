"""ASGI entry point: HTTP through Django, websockets through Channels.

Run with `daphne vtt.asgi:application` (what `make run` does).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")

# Sets Django up; everything below may import models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

import combat.routing  # noqa: E402

# Plain daphne serves no static files; in development (or with SERVE_STATIC=1)
# Django serves them in-process so nothing else is needed.
http_app = ASGIStaticFilesHandler(django_asgi_app) if settings.SERVE_STATIC else django_asgi_app

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(combat.routing.websocket_urlpatterns))
        ),
    }
)
