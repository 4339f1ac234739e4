"""The web process's memory cache (helium3_site/pagecache.py): values nobody can
change are kept as they are, every other value is pickled as LocMemCache does, so
that no reader can change what the next one reads."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from helium3_site.pagecache import PageCache


@pytest.fixture
def cache() -> Iterator[PageCache]:
    made = PageCache(f"test-pages-{time.monotonic_ns()}", {"TIMEOUT": 60})
    yield made
    made.clear()


def test_an_immutable_value_is_kept_as_it_is(cache: PageCache) -> None:
    page = (b"<html>", b"csrf", b"</html>")
    cache.set("page", page)
    assert cache.get("page") is page  # no copy of the page's bytes on a read
    cache.set("viewer", (7, False, "ann", True))
    assert cache.get("viewer") == (7, False, "ann", True)
    cache.set("seen", 1)
    assert cache.get("seen") == 1


def test_a_mutable_value_is_a_copy_on_every_read(cache: PageCache) -> None:
    parts = {"header": (b"a",)}
    cache.set("parts", parts)
    parts["header"] = (b"changed",)
    first = cache.get("parts")
    assert first == {"header": (b"a",)}
    first["header"] = (b"changed",)
    assert cache.get("parts") == {"header": (b"a",)}
    # A tuple holding something mutable is pickled too.
    holder = ([1],)
    cache.set("holder", holder)
    cache.get("holder")[0].append(2)
    assert cache.get("holder") == ([1],)


def test_bytes_are_not_taken_for_a_pickle(cache: PageCache) -> None:
    import pickle

    cache.set("raw", pickle.dumps("not this"))
    assert cache.get("raw") == pickle.dumps("not this")


def test_add_incr_expiry_and_delete(cache: PageCache) -> None:
    assert cache.add("n", 1)
    assert not cache.add("n", 5)
    assert cache.incr("n", 2) == 3
    assert cache.get("n") == 3
    with pytest.raises(ValueError):
        cache.incr("missing")
    cache.set("gone", (b"x",), timeout=-1)
    assert cache.get("gone", "default") == "default"
    cache.set("kept", (b"x",))
    assert cache.delete("kept")
    assert cache.get("kept") is None
    cache.set_many({"a": (1,), "b": [2]})
    assert cache.get_many(["a", "b"]) == {"a": (1,), "b": [2]}


def test_pages_is_the_pages_cache_and_follows_a_changed_setting() -> None:
    from django.conf import settings
    from django.core.cache import caches
    from django.test import override_settings

    from helium3_site import pagecache

    key = f"pages-{time.monotonic_ns()}"
    assert pagecache.pages() is pagecache.pages()
    pagecache.pages().set(key, 1)
    assert caches["pages"].get(key) == 1
    spaced = {
        alias: {**config, "KEY_PREFIX": f"{config.get('KEY_PREFIX', '')}other:"}
        for alias, config in settings.CACHES.items()
    }
    with override_settings(CACHES=spaced):
        assert pagecache.pages().get(key) is None
        pagecache.pages().set(key, 2)
        assert caches["pages"].get(key) == 2
    assert pagecache.pages().get(key) == 1
    pagecache.pages().delete(key)
