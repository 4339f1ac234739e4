"""The push hub's reads with many pages on one event loop: a ring's read goes before
the rest of a sweep under way, the sweep reads its matches a part at a time, and
a page closed leaves nothing of it behind."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from game_factories import UserFactory

from games import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_ring_is_read_between_two_parts_of_a_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.push import asgi

    player = UserFactory(username="sweeper")
    matches = [
        services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"]).pk
        for _ in range(4)
    ]
    monkeypatch.setattr(asgi, "SWEEP_CHUNK", 1)
    monkeypatch.setattr(asgi, "SWEEP_SECONDS", 3600.0)  # no sweep but the ones begun here
    heard: dict[int, int] = dict.fromkeys(matches, 0)
    reads: list[tuple[str, Any]] = []

    async def main() -> None:
        gone = asyncio.Event()

        async def page(match_id: int) -> None:
            scope = {
                "type": "http",
                "method": "GET",
                "path": "/push/",
                "query_string": f"match={match_id}".encode(),
                "headers": [(b"host", b"testserver")],
            }

            async def receive() -> dict[str, Any]:
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: Any) -> None:
                if b"event: turn" in (message.get("body") or b""):
                    heard[match_id] += 1

            await asgi.push_app(scope, receive, send)

        pages = [asyncio.create_task(page(m)) for m in matches for _ in range(2)]
        for _ in range(500):
            if all(n == 2 for n in heard.values()):
                break
            await asyncio.sleep(0.02)
        assert heard == dict.fromkeys(matches, 2)  # each page told its match's version
        hub = asgi.Hub.current()
        run = hub.db.run

        async def noted(fn: Any, *args: Any) -> Any:
            reads.append((fn.__name__, args[0]))
            if len(reads) == 1:
                hub.ring_for(matches[-1])  # rings while the sweep's first part is read
            return await run(fn, *args)

        hub.db.run = noted  # type: ignore[method-assign]
        hub.ring_for(None)  # a sweep, as the file bell begins one
        for _ in range(500):
            if len(reads) >= 5 and not hub.sweeping:
                break
            await asyncio.sleep(0.02)
        gone.set()
        await asyncio.gather(*pages)
        assert not hub.listeners and not hub.by_match and not hub.versions
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    asyncio.run(main())

    assert [name for name, _ in reads] == ["read", "read_rung", "read", "read", "read"]
    assert reads[1][1] == {matches[-1]}  # the ring's read: its match alone
    assert [arg for name, arg in reads if name == "read"] == [{m} for m in sorted(matches)]
    assert heard == dict.fromkeys(matches, 2)  # nothing changed: nothing told again
