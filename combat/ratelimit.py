"""Rate limits for what HTTP and the API let one seat, token, account or address do.

Each limit is "at most N in W seconds", and holds over every span of W seconds, not only
over windows that start on the clock's multiples of W. (It was counted in fixed windows:
N at the end of one and N at the start of the next made 2N within a second, 12 commands
a second from a seat whose limit reads 60 in 10 s.) Time is cut in slices of W/10; a
caller's count is one counter per slice, and a request is let through if the slices
that touch the last W seconds (the current one and the ten before it) hold fewer than N.
That is a little stricter than N in W (up to N in W + W/10) and never looser. A refused
request takes its count back, so a caller who keeps asking past the limit is let in again
as the old slices age out, and told how long that is. `cache.add`, `incr` and `decr` are
single steps both in Redis (shared by every server process when REDIS_URL is set) and in
the local-memory cache, so two requests at once are both counted: at worst both are
refused when one of them would have fitted.

The socket has its own token bucket (combat/consumers.py); these limits are for what
arrives as requests: commands posted from a page or the API, imports and sign-ups.
The numbers are settings (vtt/settings.py) and far above honest play.
"""

from __future__ import annotations

import contextlib
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
    wait: int  # whole seconds, for people and Retry-After
    after: float = 0.0  # the same, to the fraction (for a server that answers then)

    @property
    def message(self) -> str:
        seconds = f"{self.wait} second{'s' if self.wait != 1 else ''}"
        return f"Too many {self.what} in a short time: wait {seconds} and try again."


SLICES = 10  # slices per window


def hit(scope: str, who: str, limit: tuple[int, int], what: str) -> Limited | None:
    """Count one more for `who` under `scope`; a Limited once past `limit` (count, seconds)."""
    most, window = limit
    width = window / SLICES
    now = clock()
    index = int(now // width)
    keys = [f"rate:{scope}:{who}:{window}:{i}" for i in range(index - SLICES, index + 1)]
    current = keys[-1]
    # A slice's counter outlives every window that can still count it.
    ttl = math.ceil(window + 2 * width) + 5
    cache.add(current, 0, timeout=ttl)
    try:
        mine = cache.incr(current)
    except ValueError:  # evicted between add and incr: count afresh
        cache.set(current, 1, timeout=ttl)
        mine = 1
    found = cache.get_many(keys[:-1])
    counts = [int(found.get(k) or 0) for k in keys[:-1]] + [mine]
    if sum(counts) <= most:
        return None
    with contextlib.suppress(ValueError):  # (evicted meanwhile: nothing to take back)
        cache.decr(current)  # refused: not counted
    counts[-1] -= 1
    # The oldest slices leave the span one by one (slice i when the clock reaches
    # slice i + SLICES + 1); wait until the ones left hold fewer than `most`.
    left, gone = sum(counts), 0
    while left >= most and gone < len(counts):
        left -= counts[gone]
        gone += 1
    after = max(0.0, (index + gone) * width - now)
    return Limited(what, max(1, math.ceil(after)), after)


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
