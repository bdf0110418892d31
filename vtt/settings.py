"""Django settings for the virtual tabletop, read from the environment.

With nothing set, the project runs as an embedded development server:
DEBUG on, a fixed development secret, SQLite in the project folder and the
in-memory channel layer. `DATABASE_URL` switches to PostgreSQL (or any
database dj-database-url understands) and `REDIS_URL` to Redis.

Production (`DJANGO_DEBUG=0`) refuses to start without `DJANGO_SECRET_KEY`
or with `*` in `DJANGO_ALLOWED_HOSTS`, and turns on secure cookies, HSTS and
the HTTPS redirect.
"""

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from vtt.envconf import env_bool, env_int, env_list, env_opt, env_str, weak_secret_key
from vtt.lan import lan_addresses, serving_on_lan

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core --------------------------------------------------------------------

DEBUG = env_bool("DJANGO_DEBUG", True)

# Only ever used with DEBUG on; production must bring its own key.
_DEV_SECRET_KEY = "django-insecure-vtt-development-key-never-use-in-production"

_secret_key = env_opt("DJANGO_SECRET_KEY")
if _secret_key is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG=0. Generate one with: "
            "python -c 'from django.core.management.utils import get_random_secret_key; "
            "print(get_random_secret_key())'"
        )
    _secret_key = _DEV_SECRET_KEY
elif not DEBUG and _secret_key == _DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is the public development key; set a secret one for production."
    )
elif not DEBUG and (_weak := weak_secret_key(_secret_key)):
    # A short or repetitive key can be guessed, and it signs every session.
    raise ImproperlyConfigured(_weak)
SECRET_KEY = _secret_key

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
if DEBUG and serving_on_lan() and env_opt("DJANGO_ALLOWED_HOSTS") is None:
    # `HOST=0.0.0.0 make run`: phones on the same network reach this machine by address.
    ALLOWED_HOSTS += lan_addresses()
if not DEBUG and "*" in ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "DJANGO_ALLOWED_HOSTS must not contain '*' when DJANGO_DEBUG=0; "
        "list the host names this site is served under, e.g. 'vtt.example.org'."
    )

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # First, so that `runserver` is daphne's ASGI server (HTTP and websockets).
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # django.contrib.staticfiles, without the files of django-ninja's no page loads.
    "vtt.staticfiles.StaticFiles",
    "channels",
    "django_htmx",
    "axes",
    # django-ninja: the API description (combat/contract.py) and its Swagger UI assets.
    "ninja",
    "combat",
]

# Static files are served in-process unless SERVE_STATIC=0 (see "Static files" below).
SERVE_STATIC = env_bool("SERVE_STATIC", True)

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    *(["whitenoise.middleware.WhiteNoiseMiddleware"] if SERVE_STATIC else []),
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Pages reached by a secret link (and what they post to) are never kept by a cache.
    "vtt.redact.NoStoreSecretPages",
    # Players and spectators never get a debug page, whatever DEBUG says.
    "combat.linkpages.LinkErrorPages",
    # Last, as django-axes asks: it answers a locked-out log-in (ours and /admin/'s).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "vtt.urls"
WSGI_APPLICATION = "vtt.wsgi.application"
ASGI_APPLICATION = "vtt.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # The project's templates without their indentation (vtt/squeeze.py); the
            # apps' own (the admin's) as they are.
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    ["vtt.squeeze.Loader", "django.template.loaders.app_directories.Loader"],
                ),
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ----------------------------------------------------------------

_SQLITE_OPTIONS = {
    # Writers take the lock when the transaction begins, so two
    # concurrent actions queue instead of failing to upgrade a
    # read lock half-way ("database is locked").
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}

_database_url = env_opt("DATABASE_URL")
if _database_url:
    DATABASES: dict[str, dict[str, Any]] = {
        "default": dict(
            dj_database_url.parse(
                _database_url,
                conn_max_age=env_int("DJANGO_CONN_MAX_AGE", 0),
                conn_health_checks=True,
            )
        )
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Each request runs in a thread of its own under daphne, so Django cannot keep a
        # connection per thread (DJANGO_CONN_MAX_AGE); a pool per process can. Opening a
        # PostgreSQL connection costs the server a process: a few ms a request without it.
        _pool_size = env_int("DJANGO_DB_POOL", env_int("DJANGO_MAX_CONCURRENT_REQUESTS", 16) + 8)
        if _pool_size < 0:
            raise ImproperlyConfigured("DJANGO_DB_POOL must be 0 (no pool) or more.")
        if _pool_size and DATABASES["default"]["CONN_MAX_AGE"]:
            raise ImproperlyConfigured(
                "DJANGO_DB_POOL and DJANGO_CONN_MAX_AGE cannot both be set: a pooled "
                "connection goes back to the pool after each request. Set DJANGO_DB_POOL=0 "
                "to keep connections by age instead."
            )
        if _pool_size:
            DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
                "min_size": 2,
                "max_size": _pool_size,
                "timeout": 10,
            }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        # `sqlite:////path/to/file.sqlite3` is the embedded database in another file.
        DATABASES["default"]["OPTIONS"] = {
            **_SQLITE_OPTIONS,
            **DATABASES["default"].get("OPTIONS", {}),
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            "OPTIONS": dict(_SQLITE_OPTIONS),
            "TEST": {
                # A file, not :memory:, so a daphne live server forked from the
                # test process sees the same database. The process id keeps two
                # test runs in one checkout from deleting each other's database.
                "NAME": Path(tempfile.gettempdir()) / f"vtt-test-{os.getpid()}.sqlite3",
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels ----------------------------------------------------------------

_redis_url = env_opt("REDIS_URL")
if _redis_url:
    # The pub/sub layer measured as fast as the list-based core layer here and
    # keeps nothing in Redis between messages.
    CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [_redis_url],
                "prefix": env_str("CHANNEL_LAYER_PREFIX", "vtt"),
            },
        }
    }
else:
    # One process only: enough for `make run` and the tests, not for several workers
    # (vtt/asgi.py refuses to start a second server process on it). Each process listens
    # once per group (combat/fanout.py), so a queue holds pushes, not pushes x sockets:
    # 1000 absorbs any burst a table makes, where the default 100 silently dropped some.
    # Group memberships otherwise lapse after a day, and a table's listener with them.
    # Channels' in-memory contract, with expiry dealt with per channel and group instead
    # of sweeping all of them on every message (vtt/layers.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "vtt.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": 1000, "group_expiry": 10 * 365 * 24 * 3600},
        }
    }

# --- Cache (rate limits) ----------------------------------------------------

# The rate limits (combat/ratelimit.py) count in Django's cache. With REDIS_URL every
# server process counts in the same place; without it each process counts for itself,
# which is right for the one process the embedded server runs.
if _redis_url:
    CACHES: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _redis_url,
            "KEY_PREFIX": env_str("CACHE_PREFIX", "vtt"),
        }
    }
else:
    # The history of pushed frames and each audience's digests are kept here too
    # (combat/broadcast.py): about twenty entries per audience of every table. Past
    # MAX_ENTRIES the cache throws out a third of what it holds, the oldest first: at the
    # default 300, fifty tables lost the digests the next push needed and got whole views.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": env_int("VTT_CACHE_ENTRIES", 100_000)},
        }
    }

# --- Bounds on what one account, seat or token may store ------------------------

# One import: the file, its log entries and combatants, and all it may store in total
# (log and combatants), and how deeply its JSON may nest (docs/integrity.md).
VTT_IMPORT_MAX_BYTES = env_int("VTT_IMPORT_MAX_BYTES", 2 * 1024 * 1024)
VTT_IMPORT_MAX_ENTRIES = env_int("VTT_IMPORT_MAX_ENTRIES", 5000)
VTT_IMPORT_MAX_COMBATANTS = env_int("VTT_IMPORT_MAX_COMBATANTS", 200)
VTT_IMPORT_MAX_STORED_BYTES = env_int("VTT_IMPORT_MAX_STORED_BYTES", 8 * 1024 * 1024)
VTT_IMPORT_MAX_DEPTH = env_int("VTT_IMPORT_MAX_DEPTH", 32)

# Rate limits, each "at most N in W seconds" over any span of W seconds, per seat,
# account or address (combat/ratelimit.py). Far above honest play: a player acts every
# few seconds, a GM imports a few files a session and a household signs up a few accounts.
VTT_RATE_COMMANDS = (env_int("VTT_RATE_COMMANDS", 60), 10)
# Table talk (combat/chat.py), per seat link and per GM account.
VTT_RATE_CHAT = (env_int("VTT_RATE_CHAT", 5), 10)
VTT_RATE_IMPORTS = (env_int("VTT_RATE_IMPORTS", 20), 3600)
VTT_RATE_SIGNUPS = (env_int("VTT_RATE_SIGNUPS", 20), 3600)
# Password reset requests, per address and per e-mail address typed (so nobody's inbox is
# flooded from many addresses); every request counts, whether or not an account matches.
VTT_RATE_PASSWORD_RESETS = (env_int("VTT_RATE_PASSWORD_RESETS", 5), 3600)

# What one account may make in a minute: encounters (the page and the API), player seats,
# new links (a spectator link made or replaced, a seat's link replaced) and API tokens. A GM
# setting up a table makes a handful of each; a script looping on them is stopped.
VTT_RATE_NEW_ENCOUNTERS = (env_int("VTT_RATE_NEW_ENCOUNTERS", 30), 60)
VTT_RATE_NEW_SEATS = (env_int("VTT_RATE_NEW_SEATS", 30), 60)
VTT_RATE_NEW_LINKS = (env_int("VTT_RATE_NEW_LINKS", 30), 60)
VTT_RATE_NEW_TOKENS = (env_int("VTT_RATE_NEW_TOKENS", 10), 60)

# The most API tokens one account may hold at once (a program or two, a spare).
VTT_MAX_API_TOKENS = env_int("VTT_MAX_API_TOKENS", 10)

# The most sockets one client address may hold on one spectators' link (a room's TV, a
# laptop, a phone or two), so a leaked link cannot be held open by thousands of sockets
# from one machine; the link's own cap is the GM's setting (combat/presence.py). The
# address is the one the rate limits count by (REMOTE_ADDR: behind a proxy, what daphne's
# --proxy-headers puts there). Raise it for a classroom watching from behind one address.
VTT_SPECTATORS_PER_ADDRESS = env_int("VTT_SPECTATORS_PER_ADDRESS", 4)
if VTT_SPECTATORS_PER_ADDRESS < 1:
    raise ImproperlyConfigured("VTT_SPECTATORS_PER_ADDRESS must be 1 or more.")

# Bytes pushed to each audience with its own screen (the spectators of an encounter, each
# seat), per server process: a token bucket of VTT_PUSH_BYTES_BURST, refilled at
# VTT_PUSH_BYTES_PER_SECOND. Past it the changes in between are not sent; once the budget
# allows again (and at most every VTT_PUSH_CATCH_UP_SECONDS) the audience gets one whole
# view of the newest version (combat/fanout.py). A fight at 2 commands a second sends a
# spectator about 9 KiB a second and a seat up to 18 (frames of 4-9 KiB, docs/security.md):
# never near it. It is the ceiling a flood cannot pass, however large its frames.
VTT_PUSH_BYTES_PER_SECOND = env_int("VTT_PUSH_BYTES_PER_SECOND", 32 * 1024)
VTT_PUSH_BYTES_BURST = env_int("VTT_PUSH_BYTES_BURST", 1024 * 1024)
VTT_PUSH_CATCH_UP_SECONDS = env_int("VTT_PUSH_CATCH_UP_SECONDS", 2)
if VTT_PUSH_BYTES_PER_SECOND < 1 or VTT_PUSH_BYTES_BURST < 1:
    raise ImproperlyConfigured("VTT_PUSH_BYTES_PER_SECOND and _BURST must be 1 or more.")

# --- Authentication ----------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Log-in throttling (django-axes, vtt/logins.py): after AXES_FAILURE_LIMIT wrong passwords
# for one user name from one address, or VTT_LOGIN_ADDRESS_FAILURES for any names from one
# address, further tries from that address are refused for the cool-off time with 429 and a
# page in words (templates/registration/locked_out.html). Never per account alone: a
# guesser elsewhere cannot lock the GM out. Both the GM's log-in and /admin/'s go through it.
# The address is REMOTE_ADDR only: behind a proxy, daphne's --proxy-headers puts the
# client's address there (docs/deploy.md); a client-sent X-Forwarded-For is never believed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("VTT_LOGIN_FAILURES", 10)
VTT_LOGIN_ADDRESS_FAILURES = env_int("VTT_LOGIN_ADDRESS_FAILURES", 100)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("VTT_LOGIN_COOLOFF_MINUTES", 15))
if AXES_FAILURE_LIMIT < 1 or timedelta(0) >= AXES_COOLOFF_TIME:
    raise ImproperlyConfigured(
        "VTT_LOGIN_FAILURES and VTT_LOGIN_COOLOFF_MINUTES must each be 1 or more."
    )
if VTT_LOGIN_ADDRESS_FAILURES < AXES_FAILURE_LIMIT:
    raise ImproperlyConfigured(
        "VTT_LOGIN_ADDRESS_FAILURES (wrong passwords from one address for any names) must be "
        f"at least VTT_LOGIN_FAILURES ({AXES_FAILURE_LIMIT}, for one user name)."
    )
AXES_HANDLER = "vtt.logins.AddressAndNameHandler"
# The address and the user name together, then the address alone (vtt/logins.py reads them
# in this order); never the user name alone.
AXES_LOCKOUT_PARAMETERS: list[str | list[str]] = [["ip_address", "username"], "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
AXES_DISABLE_ACCESS_LOG = True  # keep failed attempts only, not every log-in

# --- E-mail (only for a forgotten password) --------------------------------------
#
# Off unless DJANGO_EMAIL_HOST is set: the embedded default defines no mailer and sends no
# mail, and then there is no "Forgot your password?" link and /accounts/password_reset/
# says why in words (the host lets a locked-out GM back in with manage.py commands:
# docs/deploy.md). "Configured" means a "default" mailer exists (combat.accounts). With a
# host, mail goes out by SMTP with STARTTLS unless DJANGO_EMAIL_USE_TLS=0 (or implicit TLS
# with DJANGO_EMAIL_USE_SSL=1), from DJANGO_DEFAULT_FROM_EMAIL, which must then be set.
# Django 6.1's MAILERS, not the EMAIL_* settings it deprecates.
# Without a host MAILERS is left undefined, not empty: Django warns (mail.W001, failing
# `check --deploy` at warning level) about a MAILERS with no "default".
_email_host = env_opt("DJANGO_EMAIL_HOST")
if _email_host is not None:
    _use_ssl = env_bool("DJANGO_EMAIL_USE_SSL", False)
    _use_tls = env_bool("DJANGO_EMAIL_USE_TLS", not _use_ssl)
    if _use_ssl and _use_tls:
        raise ImproperlyConfigured(
            "DJANGO_EMAIL_USE_TLS and DJANGO_EMAIL_USE_SSL cannot both be on."
        )
    MAILERS: dict[str, dict[str, Any]] = {}
    MAILERS["default"] = {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": _email_host,
            "port": env_int("DJANGO_EMAIL_PORT", 465 if _use_ssl else 587),
            "username": env_str("DJANGO_EMAIL_HOST_USER", ""),
            "password": env_str("DJANGO_EMAIL_HOST_PASSWORD", ""),
            "use_tls": _use_tls,
            "use_ssl": _use_ssl,
            "timeout": 10,
        },
    }
    _from_email = env_opt("DJANGO_DEFAULT_FROM_EMAIL")
    if _from_email is None:
        raise ImproperlyConfigured(
            "DJANGO_DEFAULT_FROM_EMAIL must be set when DJANGO_EMAIL_HOST is, e.g. "
            "'Combat Table <vtt@example.org>': password reset links are sent from it."
        )
    DEFAULT_FROM_EMAIL = _from_email
# A reset link stays good for an hour (Django's default is three days).
PASSWORD_RESET_TIMEOUT = 3600

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- Internationalisation ----------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files ------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))

# WhiteNoise serves static files from the app itself, inside the middleware chain behind
# SecurityMiddleware and the CSP middleware, so they carry the same headers as pages. In
# development it reads the files in place and sees edits at once; in production
# (`DJANGO_DEBUG=0`) it serves what `manage.py collectstatic` wrote (`make run` runs it):
# hashed names cached for a year and more, with gzip and brotli variants. A site whose
# web server serves /static/ itself can turn it off with SERVE_STATIC=0 (read above,
# where the middleware is listed). Why WhiteNoise and not ServeStatic: docs/decisions.md.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
# Uploaded files (the battle map's background image, combat/board_image.py) go through
# Django's storage API: a folder on the embedded default, any S3-compatible store when
# VTT_S3_BUCKET is set (django-storages, `pip install -e '.[s3]'`; the credentials come
# from the usual AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY). Either way the app serves
# the files itself, to those who hold the encounter's links only (docs/deploy.md).
MEDIA_ROOT = Path(env_str("VTT_MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_URL = "/media-not-served/"  # never linked: files are served by views that check links
VTT_MAP_IMAGE_MAX_BYTES = env_int("VTT_MAP_IMAGE_MAX_BYTES", 10 * 1024 * 1024)
_S3_BUCKET = env_opt("VTT_S3_BUCKET")
_DEFAULT_STORAGE: dict[str, Any] = (
    {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": _S3_BUCKET,
            "endpoint_url": env_opt("VTT_S3_ENDPOINT_URL"),
            "region_name": env_opt("VTT_S3_REGION"),
            "location": env_str("VTT_S3_PREFIX", "vtt-media"),
            "default_acl": "private",
            "file_overwrite": True,
        },
    }
    if _S3_BUCKET
    else {"BACKEND": "django.core.files.storage.FileSystemStorage"}
)
STORAGES = {
    "default": _DEFAULT_STORAGE,
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Pushes --------------------------------------------------------------------

# Each live page tells its socket it is there every HEARTBEAT_SECONDS; a socket that says
# nothing for PRESENCE_TIMEOUT_SECONDS (two heartbeats missed, and some slack) is closed
# and leaves the GM's list of who is connected (0: never; the benchmark's sockets send no
# heartbeat). Tests shorten both.
HEARTBEAT_SECONDS = 15
PRESENCE_TIMEOUT_SECONDS = env_int("VTT_PRESENCE_TIMEOUT", 40)
if PRESENCE_TIMEOUT_SECONDS and PRESENCE_TIMEOUT_SECONDS <= 2 * HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        f"VTT_PRESENCE_TIMEOUT must be 0 or more than two heartbeats ({2 * HEARTBEAT_SECONDS} s)."
    )

# --- Security ----------------------------------------------------------------

# Scripts and styles only from this origin, or inline with the per-response
# nonce (`{{ csp_nonce }}` in templates). `'self'` in connect-src also covers
# same-origin ws:/wss: sockets. No unsafe-inline, no unsafe-eval: htmx
# features that evaluate JavaScript from attributes (hx-on, js: values) are off.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "connect-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# A post without the CSRF token is refused in words: JSON under /api/, the flash sentence
# for htmx, a short page otherwise (not Django's technical 403 page).
CSRF_FAILURE_VIEW = "combat.views.csrf_failure"

# Forms here are small (the combatant form is about a hundred fields, its longest value
# 2000 characters); anything far bigger is refused with a 400 before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = 512 * 1024
# The proxy's body limit in docs/deploy.md is VTT_IMPORT_MAX_BYTES (the largest encounter
# export that can be imported, set above) plus this (a test keeps them equal).
DATA_UPLOAD_MAX_NUMBER_FIELDS = 500

X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips
    # it from clients), set this so Django knows the request was HTTPS.
    if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Logging -----------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    # Secret links never reach a log in full (Django logs the path of a 404, for one).
    "filters": {"redact_links": {"()": "vtt.redact.RedactLinks"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_links"],
        },
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # Instead of Django's own handlers for these, which print unfiltered (a 404's path, and
    # `runserver`'s request lines): through the redacting handler above, once.
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # django-axes says something at INFO on every log-in; lock-outs are WARNING.
        "axes": {"level": "WARNING"},
    },
}
