"""Typed readers for settings that come from the environment.

Each helper either returns a value of the promised type or raises
ImproperlyConfigured naming the variable and what was wrong with it, so a
typo in a deployment stops start-up instead of silently falling back.
"""

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def env_str(name: str, default: str | None = None, *, env: Mapping[str, str] = os.environ) -> str:
    """Return the variable's value, or `default`; fail when neither exists."""
    value = env.get(name)
    if value is not None:
        return value
    if default is None:
        raise ImproperlyConfigured(f"The environment variable {name} must be set.")
    return default


def env_opt(name: str, *, env: Mapping[str, str] = os.environ) -> str | None:
    """Return the variable's value, or None when it is unset or empty."""
    return env.get(name) or None


def env_bool(name: str, default: bool, *, env: Mapping[str, str] = os.environ) -> bool:
    """Read 1/0, true/false, yes/no or on/off (any case); unset or empty means `default`."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"The environment variable {name} must be one of 1/0, true/false, yes/no, on/off; "
        f"got {env[name]!r}."
    )


def env_int(name: str, default: int, *, env: Mapping[str, str] = os.environ) -> int:
    """Read a whole number; unset or empty means `default`."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(
            f"The environment variable {name} must be a whole number; got {raw!r}."
        ) from None


def env_list(name: str, default: list[str], *, env: Mapping[str, str] = os.environ) -> list[str]:
    """Read a comma-separated list, dropping blanks; unset or empty means `default`."""
    raw = env.get(name, "").strip()
    if not raw:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# Django's own deploy check (security.W009) asks for 50 characters and 5 different ones; a
# key such as "password" seven times or "abcde" ten times passes it and can be guessed.
# `get_random_secret_key()` gives about 32 different characters in 50, a 64-digit hex key 16.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_DIFFERENT = 10


def weak_secret_key(key: str) -> str | None:
    """Why `key` is too weak to sign a production site's sessions, or None if it will do.

    The sentence never holds the key itself.
    """
    different = len(set(key))
    period = next(
        (p for p in range(1, len(key) // 2 + 1) if key == (key[:p] * len(key))[: len(key)]), 0
    )
    if (
        len(key) >= SECRET_KEY_MIN_LENGTH
        and different >= SECRET_KEY_MIN_DIFFERENT
        and not period
        and not key.startswith("django-insecure-")
    ):
        return None
    repeated = f", a piece of {period} characters repeated" if period else ""
    return (
        f"DJANGO_SECRET_KEY is too weak for production ({len(key)} characters, {different} "
        f"different{repeated}): use at least {SECRET_KEY_MIN_LENGTH} characters with at least "
        f"{SECRET_KEY_MIN_DIFFERENT} different ones, not a short piece repeated and not "
        "starting with 'django-insecure-'. Generate one with: python -c 'from "
        "django.core.management.utils import get_random_secret_key; "
        "print(get_random_secret_key())'"
    )
