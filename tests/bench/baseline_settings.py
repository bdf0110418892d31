"""Settings of the stock baseline: the app's own settings (database, channel layer,
middleware, production switches), with the baseline's URLs."""

from vtt.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.baseline_asgi"
ASGI_APPLICATION = "tests.bench.baseline_asgi.application"

# The baseline is stock Channels: on the embedded stack, the in-memory layer as Channels
# ships it (with the app's capacity and group expiry), not the app's own (vtt/layers.py).
if CHANNEL_LAYERS["default"]["BACKEND"] == "vtt.layers.InMemoryChannelLayer":  # noqa: F405
    CHANNEL_LAYERS = {
        "default": {
            **CHANNEL_LAYERS["default"],  # noqa: F405
            "BACKEND": "channels.layers.InMemoryChannelLayer",
        }
    }
