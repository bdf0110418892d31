"""Static files in production: what `collectstatic` writes and how the app serves it.

With `DJANGO_DEBUG=0` the pages link hashed file names (a new release never meets a
stale cached copy), the app serves them itself (WhiteNoise) with a far-future,
immutable cache lifetime and a compressed variant for a browser that asks for one, and
a static answer carries the same security headers as a page.
"""

from __future__ import annotations

import json
import re

from .test_deploy import PRODUCTION, run_python

YEAR = 365 * 24 * 3600

# Runs in a production-configured process: the hashed URL of htmx, and the answers to
# a request for it (brotli, gzip, none) and for the plain name.
PROBE = """
import json
import django
django.setup()
from django.templatetags.static import static
from django.test import Client

url = static("vendor/htmx-4.0.1/htmx.min.js")
client = Client(HTTP_HOST="vtt.example.org")
out = {"url": url}
for name, accept in (("br", "br, gzip"), ("gzip", "gzip"), ("plain", "")):
    r = client.get(url, secure=True, HTTP_ACCEPT_ENCODING=accept)
    body = b"".join(r.streaming_content) if r.streaming else r.content
    out[name] = {"status": r.status_code, "headers": dict(r.headers), "size": len(body),
                 "starts": body[:9].decode("latin-1")}
print(json.dumps(out))
"""


def test_production_serves_hashed_compressed_static_files_cached_for_a_year(tmp_path):
    env = {**PRODUCTION, "DJANGO_STATIC_ROOT": str(tmp_path / "static")}
    collected = run_python("manage.py", "collectstatic", "--noinput", "-v0", **env)
    assert collected.returncode == 0, collected.stderr
    assert (tmp_path / "static" / "staticfiles.json").exists()

    probe = run_python("-c", PROBE, **env)
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)

    # A hashed name: htmx.min.<12 hex digits>.js
    assert re.fullmatch(r"/static/vendor/htmx-4\.0\.1/htmx\.min\.[0-9a-f]{12}\.js", seen["url"])

    plain, br, gz = seen["plain"], seen["br"], seen["gzip"]
    for answer in (plain, br, gz):
        assert answer["status"] == 200
        headers = {k.lower(): v for k, v in answer["headers"].items()}
        max_age = int(re.search(r"max-age=(\d+)", headers["cache-control"]).group(1))
        assert max_age >= YEAR
        assert "immutable" in headers["cache-control"]
        assert "accept-encoding" in headers["vary"].lower()
        # The headers every page carries.
        assert headers["x-content-type-options"] == "nosniff"
        assert "max-age=" in headers["strict-transport-security"]
        assert headers["referrer-policy"] == "same-origin"
        assert headers["cross-origin-opener-policy"] == "same-origin"

    assert plain["starts"] == "var htmx="
    assert "content-encoding" not in {k.lower() for k in plain["headers"]}
    assert {k.lower(): v for k, v in br["headers"].items()}["content-encoding"] == "br"
    assert {k.lower(): v for k, v in gz["headers"].items()}["content-encoding"] == "gzip"
    # Compressed means smaller on the wire.
    assert br["size"] < gz["size"] < plain["size"]
