"""Per-token rate limits, counted in Django's cache so that every web process
shares one count (Redis in production; see CACHE_URL in the settings).

A fixed window: the first request of a window creates its counter, each request
increments it atomically (Redis INCR), and the counter expires with the window.
A client may burst up to twice the limit across a window boundary; in exchange it
is one round trip per request and needs nothing but a cache.
"""

from __future__ import annotations

import math
import time

from django.conf import settings
from django.core.cache import cache


class RateLimited(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__(f"rate limited for {retry_after} s")
        self.retry_after = retry_after


def rate_limit_hit(key: str, *, now: float | None = None) -> None:
    """Count one request for `key`; raise RateLimited when the window's limit is spent."""
    limit = settings.API_RATE_LIMIT
    window = settings.API_RATE_WINDOW_SECONDS
    now = time.time() if now is None else now
    bucket = int(now // window)
    counter = f"h3:api-rate:{key}:{bucket}"
    # add() sets only if absent, so concurrent first requests do not reset the count.
    cache.add(counter, 0, timeout=window + 5)
    try:
        count = cache.incr(counter)
    except ValueError:  # expired between add and incr: this request opens it again
        cache.add(counter, 1, timeout=window + 5)
        count = 1
    if count > limit:
        raise RateLimited(max(1, math.ceil((bucket + 1) * window - now)))
