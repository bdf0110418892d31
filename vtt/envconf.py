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
