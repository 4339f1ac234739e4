"""The orders POST reads the match and the seat once, under the match's lock, and
builds its form from those rows: no second read of either in the service."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from site_support import client_for

from games.models import Match, Orders, Turn


def _selects(queries: CaptureQueriesContext, table: str) -> int:
    return sum(
        q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
        for q in queries.captured_queries
    )


def test_an_accepted_post_reads_the_match_and_the_seat_once(running_match, player):
    client = client_for(player)
    url = reverse("games:match-orders", args=[running_match.pk])
    client.get(reverse("games:match-detail", args=[running_match.pk]))  # the session, read
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, {"turn": 0, "actions_json": "[]"})
    assert response.status_code == 302
    assert _selects(queries, "games_match") == 1
    assert _selects(queries, "games_seat") == 1
    # Session, user, lock, seat, claim, orders (and the test's savepoint pair).
    assert len(queries.captured_queries) <= 8, [q["sql"][:80] for q in queries]
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.ACCEPTED
    assert Orders.objects.get(match=running_match).submitted_by == player


def test_a_refused_post_stores_nothing_and_says_why(running_match, player, opponent):
    # Seat 1 moves first: the opponent's orders are out of turn (a conflict), and
    # once seat 1 has sent, seat 1's second, different orders conflict too.
    refused = client_for(opponent).post(
        reverse("games:match-orders", args=[running_match.pk]), {"turn": 0, "actions_json": "[]"}
    )
    assert refused.status_code in (403, 409)
    assert not Orders.objects.exists()
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.WAITING


def test_a_post_to_no_match_or_without_a_seat_is_a_4xx(running_match, spectator):
    missing = client_for(spectator).post(
        reverse("games:match-orders", args=[running_match.pk + 1000]), {"turn": 0}
    )
    assert missing.status_code == 404
    outsider = client_for(spectator).post(
        reverse("games:match-orders", args=[running_match.pk]), {"turn": 0, "actions_json": "[]"}
    )
    assert outsider.status_code == 403
    assert not Orders.objects.exists()
    assert Match.objects.get(pk=running_match.pk).turn_number == 0
