"""The web process's own memory cache ("pages" in settings.CACHES): the match pages,
the frame's parts, the viewer and "seen" memos, a turn's boards and click hints
(games/views/match.py, games/frame.py, games/viewers.py, games/views/board.py), read
several times on every view of a match page.

Django's LocMemCache checks each key, character by character, for what memcached
would refuse, and only warns; these keys are the site's own (digests and numbers)
and never go to memcached, so the check is left out: it was half of a read's cost.

It also pickles every value it stores and unpickles it on every read, so that no
caller can change what another reads. A value that nobody can change (None, a
bool, a number, a string, bytes, or a tuple of such) is kept here as it is
instead: a read of a cached page no longer copies its bytes, four reads a view.
Any other value is pickled as LocMemCache does.

`pages()` is that cache, for what reads it on every view: Django's `caches[...]`
looks its cache up in a context-local store each time, about as long as a read
of the cache itself.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from threading import Lock
from typing import TYPE_CHECKING, Any

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.signals import setting_changed
from django.dispatch import receiver

_IMMUTABLE = frozenset({type(None), bool, int, float, str, bytes})


def _immutable(value: Any) -> bool:
    kind = type(value)
    if kind in _IMMUTABLE:
        return True
    return kind is tuple and all(_immutable(item) for item in value)


class _Kept:
    """A value stored as it is (every other stored value is its pickle, bytes)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _stored(value: Any, protocol: int) -> Any:
    return _Kept(value) if _immutable(value) else pickle.dumps(value, protocol)


def _value(stored: Any) -> Any:
    return stored.value if type(stored) is _Kept else pickle.loads(stored)  # noqa: S301


class PageCache(LocMemCache):
    if TYPE_CHECKING:  # LocMemCache's own, which its stubs leave out
        _cache: OrderedDict[str, Any]
        _lock: Lock

        def _has_expired(self, key: str) -> bool: ...
        def _set(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT) -> None: ...
        def _delete(self, key: str) -> bool: ...

    def validate_key(self, key: str) -> None:
        return None

    def make_and_validate_key(self, key: Any, version: int | None = None) -> str:
        return self.make_key(key, version=version)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key = self.make_key(key, version=version)
        stored = _stored(value, self.pickle_protocol)
        with self._lock:
            if self._has_expired(key):
                self._set(key, stored, timeout)
                return True
            return False

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        key = self.make_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._delete(key)
                return default
            stored = self._cache[key]
            self._cache.move_to_end(key, last=False)
        return _value(stored)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        key = self.make_key(key, version=version)
        stored = _stored(value, self.pickle_protocol)
        with self._lock:
            self._set(key, stored, timeout)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> Any:
        key = self.make_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._delete(key)
                raise ValueError(f"Key '{key}' not found")
            new_value = _value(self._cache[key]) + delta
            self._cache[key] = _stored(new_value, self.pickle_protocol)
            self._cache.move_to_end(key, last=False)
        return new_value


_pages: BaseCache | None = None


def pages() -> BaseCache:
    """`caches["pages"]`, looked up once until the CACHES setting changes (as tests
    change it). One instance serves every thread: a LocMemCache keeps its entries
    and its lock per location, not per instance, and changes nothing else after it
    is made."""
    global _pages
    cache = _pages
    if cache is None:
        cache = _pages = caches["pages"]
    return cache


@receiver(setting_changed, dispatch_uid="helium3_site.pagecache.forget")
def _forget(*, setting: str, **kwargs: Any) -> None:
    global _pages
    if setting == "CACHES":
        _pages = None
