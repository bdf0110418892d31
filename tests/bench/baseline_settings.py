"""Settings of the stock baseline: the app's own settings (database, channel layer,
middleware, production switches), with the baseline's URLs."""

from vtt.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.baseline_asgi"
ASGI_APPLICATION = "tests.bench.baseline_asgi.application"
