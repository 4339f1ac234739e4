"""A person's turn and the bots' turns after it: one resolution, one transaction.

When the turns begun after a resolved turn are all bots' (accepted as they begin),
turn_resolve plays them in the same transaction instead of queueing a task per
turn. Every turn keeps its own rows (turn, orders, resolution), events and history
as if each had been its own task, a second delivery of any of them does nothing,
and what the chain leaves over is queued and swept as before.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from site_support import drain, statements_sent

import engine
from games import selectors, services
from games.models import Match, Notification, NotificationKind, Orders, Resolution, Turn
from games.services import resolution as resolution_service
from games.services.turns import turns_chained


def four_seats(player, bots=("random", "miner", "fighter")) -> Match:
    return services.match_create(creator=player, seat_count=4, turn_seconds=3600, bots=list(bots))


def test_one_resolution_plays_the_bots_turns_after_the_persons(player):
    match = four_seats(player)
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])

    first = services.turn_resolve(match_id=match.pk, number=0)

    assert first is not None and first.turn_number == 0
    match.refresh_from_db()
    # Seats 2, 3 and 4 played in the same call; it is the person's turn again.
    assert (match.turn_number, match.to_move) == (4, 1)
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    assert [(t.number, t.seat, t.status) for t in turns] == [
        (0, 1, Turn.Status.RESOLVED),
        (1, 2, Turn.Status.RESOLVED),
        (2, 3, Turn.Status.RESOLVED),
        (3, 4, Turn.Status.RESOLVED),
        (4, 1, Turn.Status.WAITING),
    ]
    assert all(t.accepted_at and t.resolved_at for t in turns[:4])
    # A second delivery of any of them (the bots' turns were queued once) does nothing.
    for number in range(4):
        assert services.turn_resolve(match_id=match.pk, number=number) is None
    assert Resolution.objects.filter(match=match).count() == 4


def test_the_chained_turns_are_the_rows_the_engine_and_the_bots_give(player):
    """Each turn's orders are the bot's for the state before it, and its resolution
    the engine's apply of them: what a task per turn stores."""
    match = four_seats(player)
    state = match.initial_state
    for _ in range(5):
        match.refresh_from_db()
        services.orders_submit(match_id=match.pk, user=player, turn=match.turn_number, actions=[])
        services.turn_resolve(match_id=match.pk, number=match.turn_number)
    match.refresh_from_db()
    seats = {s.number: s for s in match.seats.all()}
    rows = list(Resolution.objects.filter(match=match).order_by("turn_number", "step"))
    assert [r.turn_number for r in rows] == list(range(match.turn_number))
    for row in rows:
        orders = Orders.objects.get(match=match, turn_number=row.turn_number)
        seat = seats[orders.seat]
        if seat.bot:
            assert orders.source == Orders.Source.BOT
            assert orders.orders == engine.bot_orders(seat.bot, state, seat.number)
        else:
            assert orders.source == Orders.Source.PLAYER
        applied = engine.apply(state, orders.orders)
        assert (row.orders, row.events, row.state) == (orders.orders, applied.events, applied.state)
        state = applied.state
    assert state == match.state


def test_what_a_spectator_and_a_player_read_is_per_turn(player):
    """The history has one entry per turn, the bots' included, each through the
    viewer's own copy of the events (engine.events_view)."""
    match = four_seats(player)
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    services.turn_resolve(match_id=match.pk, number=0)
    match.refresh_from_db()
    for viewer in (None, 1):
        entries = selectors.match_history(match, viewer)
        assert [e["turn"] for e in entries] == [0, 1, 2, 3]
        for entry in entries:
            row = Resolution.objects.get(match=match, turn_number=entry["turn"])
            assert entry["events"] == engine.events_view(row.events, viewer)


def test_a_match_of_bots_is_played_in_chains_of_at_most_chain_max(player, monkeypatch):
    monkeypatch.setattr(resolution_service, "CHAIN_MAX", 3)
    match = services.match_create(
        creator=player, seat_count=2, length_ms=120_000, bots=["random", "random"]
    )
    turn = Turn.objects.get(match=match, status=Turn.Status.ACCEPTED)
    assert turn.number == 0

    services.turn_resolve(match_id=match.pk, number=0)

    # Three turns in the transaction; the fourth was accepted and is left to a task.
    match.refresh_from_db()
    assert match.turn_number == 3
    assert Resolution.objects.filter(match=match).count() == 3
    left = Turn.objects.get(match=match, number=3)
    assert left.status == Turn.Status.ACCEPTED
    calls = drain(match, emails=False)
    assert match.status == Match.Status.FINISHED
    # Each call played three turns (the last one what was left).
    assert calls == -(-(match.state["turn"] - 3) // 3)
    assert Resolution.objects.filter(match=match).count() == match.state["turn"]


def test_the_turn_a_chain_leaves_is_queued_after_the_commit(
    player, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(resolution_service, "CHAIN_MAX", 2)
    match = services.match_create(
        creator=player, seat_count=2, length_ms=120_000, bots=["random", "random"]
    )
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr("games.services.turns.turn_resolve_queue", lambda m, n: sent.append((m, n)))
    with django_capture_on_commit_callbacks(execute=True):
        services.turn_resolve(match_id=match.pk, number=0)
    assert sent == [(match.pk, 2)]


def test_a_chain_collects_only_its_own_match(player):
    match = four_seats(player)
    other = four_seats(player)
    with turns_chained(match.pk) as chain:
        services.orders_submit(match_id=other.pk, user=player, turn=0, actions=[])
        services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    assert chain.accepted == [0]


@pytest.mark.parametrize(
    ("ruleset", "seats", "bots", "options"),
    [
        ("rps", 3, ["random", "rock", "random"], {"rounds": 4}),
        ("dig", 2, ["walker", "walker"], {"steps": 3, "rounds": 2}),
        ("helium3", 2, ["random", "random"], {}),
    ],
)
def test_bots_only_matches_of_every_shape_play_to_their_end(player, ruleset, seats, bots, options):
    match = services.match_create(
        creator=player,
        seat_count=seats,
        ruleset=ruleset,
        options=options or None,
        bots=bots,
        length_ms=15_000,
    )
    drain(match, emails=False)
    assert match.status == Match.Status.FINISHED
    # The record replays to the final state, turn by turn.
    state = match.initial_state
    for turn in match.record["turns"]:
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"]
        state = applied.state
    assert state == match.state
    assert not Turn.objects.filter(match=match).exclude(status=Turn.Status.RESOLVED).exists()


def test_a_chain_costs_less_than_a_task_per_turn(player):
    """A person's turn and three bots' turns in one transaction: one lock and one
    commit for the four, the seats read once, the bots' orders not read back."""
    match = four_seats(player)
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    with CaptureQueriesContext(connection) as queries:
        services.turn_resolve(match_id=match.pk, number=0)
    sql = statements_sent(queries.captured_queries)
    # One read of the match (the lock) and of the seats, not one per turn.
    assert sum(s.startswith("SELECT") and 'FROM "games_match"' in s for s in sql) == 1
    assert sum(s.count('FROM "games_seat"') for s in sql) == 1
    # The match's row is written once, after the chain's last turn (on PostgreSQL in
    # one round trip with the chain's inserts).
    assert sum(s.count('UPDATE "games_match"') for s in sql) == 1
    # Four turns: about six statements each, where four tasks made twelve each.
    assert len(sql) <= 4 * 7 + 6, sql
    if connection.vendor == "postgresql":
        # The transaction (here the test's savepoint); the lock, the claim with the
        # orders and the seats, sent together; the chain's rows (the "Your turn" row
        # among them) and the match's sent together; the commit (here the savepoint's
        # release: outside a test's transaction the COMMIT goes with the writes,
        # tests/games/test_resolution_round_trips.py).
        assert len(sql) == 4, sql
    # The person's "Your turn" row for the turn the chain left them, as a task per
    # turn made it.
    (notice,) = Notification.objects.filter(user=player, match=match, turn_number=4)
    assert (notice.kind, notice.status) == (NotificationKind.YOUR_TURN, Notification.Status.PENDING)
    assert notice.send_after > notice.created_at and notice.queued_at is None
