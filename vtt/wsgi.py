"""WSGI entry point, for tooling that expects one.

The tabletop needs websockets, so serve it with the ASGI application in
vtt/asgi.py (daphne); this plain-HTTP entry point cannot carry them.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")

application = get_wsgi_application()
