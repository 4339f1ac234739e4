"""Turns: accepted orders in, resolution out, the next turn begun.

A turn moves WAITING -> ACCEPTED (orders stored, resolution queued after commit)
-> RESOLVED. Each step is a conditional update on the turn row, so whoever gets
there second (a redelivered task, the sweeper, a double click) changes nothing.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from games.errors import Conflict, NotAPlayer, ServiceError, from_engine_error
from games.faults import fault_point, fault_point_on_commit
from games.models import (
    Match,
    NotificationKind,
    Orders,
    Resolution,
    Seat,
    Turn,
    pass_orders,
)
from games.services.notifications import notify
from games.services.records import match_records_store

log = logging.getLogger(__name__)


def queue_resolution(match_id: int, number: int) -> None:
    """Queue the worker's resolution of a turn once the current transaction commits.

    robust: the orders are committed by then, so a broker that is down must not
    turn "accepted" into a 500; the clock sweep queues the turn again (the
    database, not the queue, says what is pending).
    """
    from games.tasks import turn_resolve_task

    transaction.on_commit(lambda: turn_resolve_task.delay(match_id, number), robust=True)


def orders_accept(
    *,
    match: Match,
    number: int,
    seat: int,
    orders: dict[str, Any],
    source: str,
    user: User | None,
    now: datetime,
) -> Orders:
    """Claim a waiting turn for these orders, store them and queue the resolution.

    The caller holds the match row lock and has validated the orders.
    """
    claimed = Turn.objects.filter(match=match, number=number, status=Turn.Status.WAITING).update(
        status=Turn.Status.ACCEPTED,
        accepted_at=now,
        missed=source == Orders.Source.CLOCK,
    )
    if claimed != 1:
        raise Conflict("already_submitted", "Orders for this turn were already accepted.")
    row = Orders.objects.create(
        match=match,
        turn_number=number,
        seat=seat,
        orders=orders,
        source=source,
        submitted_by=user,
    )
    queue_resolution(match.pk, number)
    return row


def orders_submit(
    *, match_id: int, user: User, turn: int, actions: list[dict[str, Any]], api: bool = False
) -> Orders:
    """A player's orders: validated by the engine, stored, resolution queued.

    Illegal orders raise (nothing is stored). The same orders for the same turn
    again return the row stored the first time; other orders for a turn whose
    orders were accepted are a conflict, legal or not. `api`: they came through
    the bot API, so the seat is API-driven (no emails) until orders come otherwise.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().defer("initial_state", "record").get(pk=match_id)
        fault_point("submit_locked")
        # By pk, not the models' ordering (match, then number), which joins the match.
        seat = Seat.objects.filter(match=match, user=user).order_by("pk").first()
        if seat is None:
            raise NotAPlayer("not_a_player", "You do not play in this match.")
        orders = {"seat": seat.number, "turn": turn, "actions": actions}
        refusal = _refusal(match, orders)
        if refusal is None:
            try:
                row = orders_accept(
                    match=match,
                    number=turn,
                    seat=seat.number,
                    orders=orders,
                    source=Orders.Source.PLAYER,
                    user=user,
                    now=timezone.now(),
                )
            except Conflict as taken:
                refusal = taken
            else:
                # A player who submits is back: the clock's count restarts, a stand-in
                # leaves. (The seat was read under the match lock: nothing changed it.)
                if seat.missed_in_row or seat.standin_bot or seat.api != api:
                    Seat.objects.filter(pk=seat.pk).update(missed_in_row=0, standin_bot="", api=api)
                return row
        # Refused, unless this turn's orders were accepted already: the same post
        # again answers as the first one did; other orders from this seat conflict.
        # (Looked up only here: a turn that was claimed just now has no orders yet.)
        existing = Orders.objects.filter(match=match, turn_number=turn).order_by("pk").first()
        if existing is not None and existing.seat == seat.number:
            if existing.submitted_by_id == user.pk and existing.orders == orders:
                return existing  # the clock's or a bot's pass is never "the same post"
            raise Conflict(
                "already_submitted", "Different orders for this turn were already accepted."
            )
        raise refusal


def _refusal(match: Match, orders: dict[str, Any]) -> ServiceError | None:
    """Why these orders cannot be accepted now (the match's status, then the
    engine's verdict on them), or None."""
    if match.status == Match.Status.OPEN:
        return Conflict("not_started", "The match has not started yet.")
    if match.status == Match.Status.PAUSED:
        return Conflict("match_paused", "The match is paused; send your orders when it resumes.")
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        return Conflict("match_over", "The match is over.")
    try:
        engine.validate(match.state, orders)
    except engine.EngineError as error:
        refused = from_engine_error(error)
        refused.__cause__ = error
        return refused
    return None


def turn_resolve(*, match_id: int, number: int) -> Resolution | None:
    """Resolve an accepted turn with the engine and begin the next one.

    Returns None when there is nothing to do: the turn was resolved already (a
    second delivery), is not accepted yet, or the match is not running.
    """
    with transaction.atomic():
        # Without the replay columns: as big as the state, and nothing here reads them.
        match = (
            Match.objects.select_for_update()
            .defer("initial_state", "record")
            .filter(pk=match_id)
            .first()
        )
        if match is None or match.status != Match.Status.RUNNING:
            return None
        fault_point("resolve_locked")
        now = timezone.now()
        claimed = Turn.objects.filter(
            match=match, number=number, status=Turn.Status.ACCEPTED
        ).update(status=Turn.Status.RESOLVED, resolved_at=now)
        if claimed != 1:
            log.info("turn %s of match %s: another delivery got there first", number, match_id)
            return None
        fault_point("resolve_claimed")
        # Registered before turn_begin's callbacks, so it runs first after the commit.
        fault_point_on_commit("resolve_committed")
        row = Orders.objects.get(match=match, turn_number=number)
        state = match.state
        fallback: dict[str, Any] | None = None
        orders = row.orders
        try:
            applied = engine.apply(state, orders)
        except engine.EngineError as error:
            # Validated orders cannot fail against an unchanged state; if they do
            # (an engine upgrade mid-match), the seat passes rather than the match
            # stalling, and the reason is kept on the resolution.
            log.error("match %s turn %s: stored orders rejected: %s", match_id, number, error)
            fallback = error.to_json()
            orders = pass_orders(row.seat, number)
            applied = engine.apply(state, orders)
        resolution = Resolution.objects.create(
            match=match,
            turn_number=number,
            seat=row.seat,
            orders=orders,
            events=applied.events,
            state=applied.state,
            turn_ms=applied.turn_ms,
            fallback_error=fallback,
        )
        match.state = applied.state
        fault_point("resolve_applied")
        turn_begin(match=match, now=now, also_save=["state"])
        fault_point("resolve_next_turn")
    fault_point("resolve_done")
    return resolution


def turn_begin(*, match: Match, now: datetime, also_save: list[str] | None = None) -> Turn | None:
    """Start the turn the state says comes next (or finish the match).

    A bot-driven seat moves at once: its orders are accepted in this transaction
    and the worker resolves them, without waiting for anybody. `also_save`: fields
    of the match the caller changed, saved in the same UPDATE as the new turn's.
    """
    state = match.state
    assert state is not None  # a started match always has one (a DB constraint)
    if state["over"]:
        match_finish(match=match, now=now, also_save=also_save)
        return None
    number = int(state["turn"])
    seat_number = int(state["to_move"])
    deadline = now + timedelta(seconds=match.turn_seconds)
    turn = Turn.objects.create(
        match=match,
        number=number,
        seat=seat_number,
        started_at=now,
        deadline_at=deadline,
        warn_at=deadline - timedelta(seconds=match.turn_seconds / 4),
    )
    match.turn_number = number
    match.to_move = seat_number
    match.save(update_fields=["turn_number", "to_move", *(also_save or [])])
    seat = Seat.objects.select_related("user", "user__notification_settings").get(
        match=match, number=seat_number
    )
    if seat.driver_bot or seat.user is None:
        bot_move(match=match, seat=seat, number=number, now=now)
    else:
        notify(
            user=seat.user,
            match=match,
            kind=NotificationKind.YOUR_TURN,
            turn_number=number,
            context={"deadline": deadline.isoformat()},
            seat=seat,
        )
    return turn


def bot_move(*, match: Match, seat: Seat, number: int, now: datetime) -> Orders:
    """Accept the built-in bot's orders for a bot-driven seat's waiting turn."""
    name = seat.driver_bot or settings.STANDIN_BOT
    source = Orders.Source.BOT if seat.bot else Orders.Source.STANDIN
    try:
        orders = engine.bot_orders(name, match.state, seat.number)
        engine.validate(match.state, orders)
    except Exception:
        # A bot's bug must not stall a match: it passes, and the log says why.
        log.exception("bot %r failed for match %s turn %s; passing", name, match.pk, number)
        orders = pass_orders(seat.number, number)
    return orders_accept(
        match=match,
        number=number,
        seat=seat.number,
        orders=orders,
        source=source,
        user=None,
        now=now,
    )


def match_finish(*, match: Match, now: datetime, also_save: list[str] | None = None) -> None:
    """Store the result the engine gave: winners, final money and the full record."""
    from games.selectors import match_record

    state = match.state
    assert state is not None
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winners = list(state.get("winners", []))
    match.final_money = {str(p["seat"]): p["money"] for p in state["players"]}
    match.turn_number = int(state["turn"])
    match.to_move = None
    match.record = match_record(match)
    match.save(
        update_fields=[
            "status",
            "finished_at",
            "winners",
            "final_money",
            "turn_number",
            "to_move",
            "record",
            *(also_save or []),
        ]
    )
    match_records_store(match=match)
    seats = Seat.objects.filter(match=match, user__isnull=False)
    for seat in seats.select_related("user", "user__notification_settings"):
        notify(
            user=seat.user,
            match=match,
            kind=NotificationKind.MATCH_OVER,
            turn_number=match.turn_number,
            context={"winners": match.winners, "money": match.final_money, "seat": seat.number},
            seat=seat,
        )
