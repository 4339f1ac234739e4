"""The push channel's "your move" counts: every listener's in one query, each the
count the badge shows (selectors.your_move_seats), in every state a seat can be in."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from game_factories import UserFactory

from games import selectors, services
from games.models import Match, Seat
from games.push.reads import move_counts

pytestmark = pytest.mark.django_db


def duel(creator: Any, other: Any, ruleset: str, **options: Any) -> Match:
    match = services.match_create(
        creator=creator, seat_count=2, ruleset=ruleset, options=options, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=other)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


def test_every_listeners_count_is_read_in_one_query_and_is_the_badges() -> None:
    alice, bob, carol, dave = (UserFactory(username=n) for n in ("alice", "bob", "carol", "dave"))
    # Alice: two matches waiting for her move; one whose orders are in (accepted, not
    # yet resolved); one where Bob moves; one played by a stand-in bot; one open.
    for _ in range(2):
        services.match_create(creator=alice, seat_count=2, bots=["random"], turn_seconds=3600)
    sent = services.match_create(creator=alice, seat_count=2, bots=["random"], turn_seconds=3600)
    services.orders_submit(match_id=sent.pk, user=alice, turn=0, actions=[])
    theirs = services.match_create(creator=bob, seat_count=2)
    services.seat_join(match_id=theirs.pk, user=alice)
    stood_in = services.match_create(creator=alice, seat_count=2, bots=["random"])
    Seat.objects.filter(match=stood_in, user=alice).update(standin_bot="random")
    services.match_create(creator=alice, seat_count=2)
    # A turn at once: Alice has thrown, Carol has not.
    rps = duel(carol, alice, "rps", rounds=2)
    services.orders_submit(
        match_id=rps.pk, user=alice, turn=rps.turn_number, orders={"throw": "rock"}
    )
    listeners = {alice.pk, bob.pk, carol.pk, dave.pk}

    with CaptureQueriesContext(connection) as queries:
        counts = move_counts(listeners)

    assert len(queries) == 1
    assert counts == {u: selectors.your_move_seats(u).count() for u in listeners}
    assert counts == {alice.pk: 2, bob.pk: 1, carol.pk: 1, dave.pk: 0}
    assert move_counts(set()) == {}


def test_a_ring_reads_only_the_counts_of_the_rung_matchs_players_in_one_query() -> None:
    from games.push.reads import player_counts, read_rung

    alice, bob, carol, dave = (UserFactory(username=n) for n in ("alice", "bob", "carol", "dave"))
    # Alice and Bob play each other (Bob to move) and Alice has a match of bots'
    # waiting for her; Carol plays elsewhere; Dave plays nothing.
    duo = duel(alice, bob, "helium3")
    services.orders_submit(match_id=duo.pk, user=alice, turn=duo.turn_number, actions=[])
    services.match_create(creator=alice, seat_count=2, bots=["random"], turn_seconds=3600)
    elsewhere = services.match_create(creator=carol, seat_count=2, bots=["random"])
    listeners = {alice.pk, bob.pk, carol.pk, dave.pk}

    with CaptureQueriesContext(connection) as queries:
        counts = player_counts({duo.pk})

    assert len(queries) == 1
    # Each a whole count, as move_counts has it (Alice's other match counts too).
    everything = move_counts(listeners)
    assert counts == {alice.pk: everything[alice.pk], bob.pk: everything[bob.pk]}
    assert player_counts(set()) == {}
    # A page just opened (Dave's) has its count read, whatever rang; only the
    # listened matches' versions are read.
    found = read_rung({elsewhere.pk}, {elsewhere.pk, 999_999}, {dave.pk})
    assert found.counts == {carol.pk: everything[carol.pk], dave.pk: 0}
    assert set(found.versions) == {elsewhere.pk}
    assert found.watch is None
