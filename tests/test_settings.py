"""Settings come from the environment and fail loudly when they are wrong.

Settings are read once per process, so each case starts a fresh Python with
its own environment.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.testing import ApplicationCommunicator
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from vtt.envconf import env_bool, env_int, env_list, env_str

ROOT = Path(__file__).resolve().parent.parent

# 50 characters, varied enough for Django's deploy check on SECRET_KEY.
PRODUCTION_KEY = "t7Jq2xVbN9pLr4WmZc8KdHs3FgYe6UaR1oXiQ5wTnBvMl0ySkP"

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": PRODUCTION_KEY,
    "DJANGO_ALLOWED_HOSTS": "example.org",
}

_OWN_VARIABLES = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "SERVE_STATIC", "CHANNEL_LAYER_", "VTT_")


def run_python(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run Python in the project root with only `env` set of the project's variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_VARIABLES)}
    base["DJANGO_SETTINGS_MODULE"] = "vtt.settings"
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def setting(expression: str, **env: str) -> str:
    """Evaluate `expression` (with `settings` in scope) under `env` and return its str()."""
    result = run_python("-c", f"from django.conf import settings; print({expression})", **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# --- Production refuses unsafe configuration -----------------------------------


def test_production_without_secret_key_stops_with_a_clear_message() -> None:
    env = {**PRODUCTION}
    del env["DJANGO_SECRET_KEY"]

    result = run_python("manage.py", "check", **env)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG=0" in result.stderr


def test_production_refuses_the_development_key() -> None:
    result = run_python(
        "manage.py",
        "check",
        **{
            **PRODUCTION,
            "DJANGO_SECRET_KEY": "django-insecure-vtt-development-key-never-use-in-production",
        },
    )

    assert result.returncode != 0
    assert "public development key" in result.stderr


def test_production_refuses_wildcard_allowed_hosts() -> None:
    result = run_python("manage.py", "check", **{**PRODUCTION, "DJANGO_ALLOWED_HOSTS": "*"})

    assert result.returncode != 0
    assert "DJANGO_ALLOWED_HOSTS must not contain '*' when DJANGO_DEBUG=0" in result.stderr


def test_production_passes_the_deployment_checklist() -> None:
    result = run_python("manage.py", "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)

    assert result.returncode == 0, result.stdout + result.stderr


def test_production_turns_on_https_only_cookies_and_hsts() -> None:
    values = setting(
        "settings.DEBUG, settings.SECURE_SSL_REDIRECT, settings.SESSION_COOKIE_SECURE, "
        "settings.CSRF_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS > 0",
        **PRODUCTION,
    )

    assert values == "False True True True True"


def test_a_malformed_boolean_stops_start_up() -> None:
    result = run_python(
        "-c", "from django.conf import settings; settings.DEBUG", DJANGO_DEBUG="maybe"
    )

    assert result.returncode != 0
    assert "DJANGO_DEBUG must be one of" in result.stderr


# --- Embedded defaults and the switches to PostgreSQL and Redis ---------------------


def test_defaults_are_sqlite_and_the_in_memory_layer() -> None:
    values = setting(
        "settings.DEBUG, settings.DATABASES['default']['ENGINE'], "
        "settings.DATABASES['default']['OPTIONS']['transaction_mode'], "
        "settings.CHANNEL_LAYERS['default']['BACKEND']"
    )

    assert values == ("True django.db.backends.sqlite3 IMMEDIATE vtt.layers.InMemoryChannelLayer")


def test_database_url_switches_to_postgresql() -> None:
    values = setting(
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'], "
        "settings.DATABASES['default']['HOST']",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
    )

    assert values == "django.db.backends.postgresql test 127.0.0.1"


POSTGRES = "postgres://postgres@127.0.0.1:5432/test"

# Ten "requests", each in a thread of its own as under daphne, each ending as Django ends
# a request: prints the PostgreSQL server process that answered each one.
_REQUESTS_IN_THREADS = """
import threading
import django
django.setup()
from django.db import close_old_connections, connection
pids = []
def request():
    close_old_connections()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pids.append(cursor.fetchone()[0])
    close_old_connections()
for _ in range(10):
    t = threading.Thread(target=request)
    t.start()
    t.join(30)
print(len(pids), len(set(pids)))
"""


def test_postgresql_connections_come_from_a_pool_per_process() -> None:
    default = setting("settings.DATABASES['default']['OPTIONS']['pool']", DATABASE_URL=POSTGRES)
    sized = setting(
        "settings.DATABASES['default']['OPTIONS']['pool']['max_size']",
        DATABASE_URL=POSTGRES,
        DJANGO_MAX_CONCURRENT_REQUESTS="4",
    )
    off = setting(
        "settings.DATABASES['default'].get('OPTIONS', {})",
        DATABASE_URL=POSTGRES,
        DJANGO_DB_POOL="0",
    )

    assert default == "{'min_size': 2, 'max_size': 24, 'timeout': 10}"
    assert sized == "12"
    assert "pool" not in off


def test_requests_in_threads_of_their_own_reuse_pooled_connections() -> None:
    pooled = run_python("-c", _REQUESTS_IN_THREADS, DATABASE_URL=POSTGRES)
    unpooled = run_python("-c", _REQUESTS_IN_THREADS, DATABASE_URL=POSTGRES, DJANGO_DB_POOL="0")

    assert pooled.returncode == 0, pooled.stderr
    assert unpooled.returncode == 0, unpooled.stderr
    requests, servers = map(int, pooled.stdout.split())
    # The pool opens two as it starts, and a third if asked before those are ready.
    assert requests == 10 and servers <= 3
    assert unpooled.stdout.split() == ["10", "10"]  # a new server process per request


def test_a_pool_and_connections_kept_by_age_are_refused_together() -> None:
    both = run_python(
        "-c",
        "from django.conf import settings; settings.DATABASES",
        DATABASE_URL=POSTGRES,
        DJANGO_CONN_MAX_AGE="60",
    )
    negative = run_python(
        "-c",
        "from django.conf import settings; settings.DATABASES",
        DATABASE_URL=POSTGRES,
        DJANGO_DB_POOL="-1",
    )

    assert both.returncode != 0
    assert "DJANGO_DB_POOL and DJANGO_CONN_MAX_AGE cannot both be set" in both.stderr
    assert negative.returncode != 0
    assert "DJANGO_DB_POOL must be 0 (no pool) or more" in negative.stderr


def test_redis_url_switches_the_channel_layer_to_redis() -> None:
    values = setting(
        "settings.CHANNEL_LAYERS['default']['BACKEND'], "
        "settings.CHANNEL_LAYERS['default']['CONFIG']['hosts']",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )

    assert values == "channels_redis.pubsub.RedisPubSubChannelLayer ['redis://127.0.0.1:6379/0']"


def test_csrf_trusted_origins_come_from_the_environment() -> None:
    values = setting(
        "settings.CSRF_TRUSTED_ORIGINS",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://vtt.example.org, https://b.example.org",
    )

    assert values == "['https://vtt.example.org', 'https://b.example.org']"


# --- The typed readers -------------------------------------------------------------


def test_env_bool_reads_common_spellings_and_rejects_others() -> None:
    assert env_bool("X", False, env={"X": "Yes"}) is True
    assert env_bool("X", True, env={"X": "0"}) is False
    assert env_bool("X", True, env={}) is True
    assert env_bool("X", False, env={"X": ""}) is False
    with pytest.raises(ImproperlyConfigured, match="X must be one of"):
        env_bool("X", False, env={"X": "2"})


def test_env_list_splits_on_commas_and_drops_blanks() -> None:
    assert env_list("X", ["d"], env={"X": " a.org, ,b.org ,"}) == ["a.org", "b.org"]
    assert env_list("X", ["d"], env={}) == ["d"]


def test_env_int_and_env_str_fail_loudly() -> None:
    assert env_int("X", 3, env={"X": "42"}) == 42
    with pytest.raises(ImproperlyConfigured, match="X must be a whole number"):
        env_int("X", 3, env={"X": "forty"})
    assert env_str("X", "d", env={}) == "d"
    with pytest.raises(ImproperlyConfigured, match="X must be set"):
        env_str("X", env={})


# --- What the running application sends ----------------------------------------------


@pytest.mark.django_db
def test_pages_carry_a_nonce_based_content_security_policy() -> None:
    response = Client().get("/admin/login/")

    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    assert "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy


async def test_asgi_application_serves_vendored_htmx_in_development() -> None:
    from vtt.asgi import application

    path = "/static/vendor/htmx-4.0.1/htmx.min.js"
    communicator = ApplicationCommunicator(
        application,
        {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []},
    )
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=5)
    body = b""
    while True:
        # Not channels' HttpCommunicator: the ASGI spec lets "body" be absent
        # from the last message, and Django's file responses use that.
        message = await communicator.receive_output(timeout=5)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break

    assert start["status"] == 200
    assert body.startswith(b"var htmx=")
