"""Rate limits for what HTTP and the API let one seat, token, account or address do.

Each limit is "at most N in W seconds", counted in Django's cache in fixed windows of
W seconds (one counter per window and caller). `cache.add` and `cache.incr` are single
steps both in Redis (shared by every server process when REDIS_URL is set) and in the
local-memory cache, so two requests at once are both counted.

The socket has its own token bucket (combat/consumers.py); these limits are for what
arrives as requests: commands posted from a page or the API, imports and sign-ups.
The numbers are settings (vtt/settings.py) and far above honest play.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

# The wall clock (tests set it still); windows are counted in it, across processes.
clock = time.time


@dataclass(frozen=True)
class Limited:
    """A refusal: what was limited and how long to wait."""

    what: str
    wait: int

    @property
    def message(self) -> str:
        seconds = f"{self.wait} second{'s' if self.wait != 1 else ''}"
        return f"Too many {self.what} in a short time: wait {seconds} and try again."


def hit(scope: str, who: str, limit: tuple[int, int], what: str) -> Limited | None:
    """Count one more for `who` under `scope`; a Limited once past `limit` (count, seconds)."""
    most, window = limit
    now = clock()
    index = int(now // window)
    key = f"rate:{scope}:{who}:{index}"
    # The counter lives a little longer than its window, so it cannot lapse mid-window.
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr: count afresh
        cache.set(key, 1, timeout=window + 5)
        count = 1
    if count <= most:
        return None
    wait = max(1, math.ceil((index + 1) * window - now))
    return Limited(what, wait)


# What an account makes, each counted on its own: the setting with its limit, and the
# words of the refusal ("Too many new seats in a short time: ...").
MAKING = {
    "encounters": ("VTT_RATE_NEW_ENCOUNTERS", "new encounters"),
    "seats": ("VTT_RATE_NEW_SEATS", "new seats"),
    "links": ("VTT_RATE_NEW_LINKS", "new links"),
    "tokens": ("VTT_RATE_NEW_TOKENS", "new API tokens"),
}


def making(kind: str, account: object) -> Limited | None:
    """Count one more `kind` (a key of MAKING) made by the account with this id."""
    setting, what = MAKING[kind]
    return hit(f"new-{kind}", str(account), getattr(settings, setting), what)
