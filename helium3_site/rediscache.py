"""The shared cache on Redis ("default" in settings.CACHES when CACHE_URL names
Redis): Django's backend with two costs of every call left out.

Django's client makes a new redis-py client object for every get, set or delete
(redis.Redis() fills its table of response callbacks anew each time, about as long
as the round trip's own work in Python); a redis-py client is safe to share between
threads, so one is kept per connection pool (a pool notices a fork and opens its
connections anew). And as helium3_site/pagecache.py, memcached's key check is left
out: Redis takes any key, and the check only ever warns.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class KeptClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own parts of its client (the stubs do not list them).
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._kept.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._kept[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClient

    def validate_key(self, key: str) -> None:
        return None
