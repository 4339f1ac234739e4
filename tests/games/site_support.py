"""Run the worker's jobs in-process, through the same services the tasks call.

Unit tests use this instead of a broker; the worker tests use the real thing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Match, Notification, Turn
from games.prepared import prepared_state


def drain(match: Match | None = None, *, emails: bool = True, limit: int = 1000) -> int:
    """Resolve accepted turns (bots' turns chain on) and send pending emails.

    Returns the number of turns resolved.
    """
    resolved = 0
    for _ in range(limit):
        turns = Turn.objects.filter(status=Turn.Status.ACCEPTED)
        if match is not None:
            turns = turns.filter(match=match)
        turn = turns.order_by("accepted_at", "pk").first()
        if turn is None:
            break
        if services.turn_resolve(match_id=turn.match_id, number=turn.number) is None:
            break
        resolved += 1
    if emails:
        # Also the emails still waiting for their time ("Your turn" waits a while to
        # see whether the player is there): as if that time had come.
        pending = Notification.objects.filter(status=Notification.Status.PENDING)
        for pk, due in pending.values_list("pk", "send_after"):
            services.notification_send(notification_id=pk, now=max(due, timezone.now()))
    if match is not None:
        match.refresh_from_db()
    return resolved


def play_out(match: Match, *, limit: int = 500) -> Match:
    """Play a match to its end: every person awaited passes (the engine's default
    orders: one seat, every seat of a turn at once, or a step), the bots play."""
    import engine
    from games.models import Seat

    for _ in range(limit):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            return match
        assert match.state is not None
        awaited = engine.awaiting(match.state)
        for seat in Seat.objects.filter(match=match, number__in=awaited, user__isnull=False):
            passing = engine.default_orders(match.state, seat.number)
            services.orders_submit(
                match_id=match.pk,
                user=seat.user,
                turn=match.turn_number,
                orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
            )
    raise AssertionError(f"match {match.pk} did not finish in {limit} rounds of play")


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def client_for(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


def current_turn(match: Match) -> Turn:
    match.refresh_from_db()
    return Turn.objects.get(match=match, number=match.turn_number)


def pending_emails() -> list[Notification]:
    return list(Notification.objects.filter(status=Notification.Status.PENDING))


def statements_sent(queries: list[dict[str, Any]], db: Any = connection) -> list[str]:
    """The SQL of captured queries (CaptureQueriesContext) as the database runs it:
    each EXECUTE of a statement prepared on `db`'s connection (games.prepared) written
    as that statement, each PREPARE left out (it runs nothing)."""
    texts = prepared_state(db).texts
    sent = []
    for query in queries:
        parts = re.split(r"; (?=(?:PREPARE|EXECUTE) h3_)", query["sql"])
        kept = []
        for part in parts:
            if part.startswith("PREPARE h3_"):
                continue
            executed = re.fullmatch(r"EXECUTE (h3_\w+)\(.*\)", part, re.DOTALL)
            kept.append(texts[executed[1]] if executed else part)
        sent.append("; ".join(kept))
    return sent
