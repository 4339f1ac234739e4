"""The doorbell rings where the settings say at the moment of the ring: a process that
rang one Redis and is then pointed at another rings the new one."""

from __future__ import annotations

import time
from typing import Any

import redis
from push_client import free_port, redis_server

from games.push import bell


def test_a_ring_follows_the_redis_the_settings_name_now(settings: Any) -> None:
    # First a Redis where nothing listens: the ring fails quietly, as it must.
    settings.PUSH_REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    bell.ring(1)
    port, server = redis_server()
    try:
        url = f"redis://127.0.0.1:{port}/0"
        listener = redis.Redis.from_url(url).pubsub()
        listener.subscribe(bell.channel(url))
        assert listener.get_message(timeout=5)["type"] == "subscribe"
        settings.PUSH_REDIS_URL = url
        bell.ring(7)
        deadline = time.monotonic() + 5
        heard = None
        while heard is None and time.monotonic() < deadline:
            heard = listener.get_message(ignore_subscribe_messages=True, timeout=0.5)
        assert heard is not None, "the ring went to the Redis named before"
        assert heard["data"] == b"7"
        listener.close()
    finally:
        server.terminate()
        server.wait(10)
