"""The web process's own memory cache ("pages" in settings.CACHES): the match pages,
the frame's parts, the viewer and "seen" memos (games/views/match.py, games/frame.py,
games/viewers.py), read several times on every view of a match page.

Django's LocMemCache checks each key, character by character, for what memcached
would refuse, and only warns; these keys are the site's own (digests and numbers)
and never go to memcached, so the check is left out: it was half of a read's cost.
"""

from __future__ import annotations

from django.core.cache.backends.locmem import LocMemCache


class PageCache(LocMemCache):
    def validate_key(self, key: str) -> None:
        return None
