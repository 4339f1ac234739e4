"""A seat passed by the clock, and handed to a stand-in bot after its misses, keeps
its place in a rated match: its person is rated at that place, a loss that counts
(docs/compete.md, "Ratings")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from game_factories import UserFactory
from openskill.models import PlackettLuce
from site_support import current_turn, drain

from games import services
from games.compete.models import Rating, RatingChange
from games.models import Match, Orders, Seat

pytestmark = pytest.mark.django_db


def test_a_seat_the_clock_passed_to_a_stand_in_is_rated_at_its_place(player, opponent):
    carol = UserFactory(username="carol")
    rounds = settings.MISSED_TURNS_BEFORE_BOT
    match = services.match_create(
        creator=player, seat_count=3, ruleset="rps", options={"rounds": rounds}, turn_seconds=600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    services.seat_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    assert match.rated and match.status == Match.Status.RUNNING
    for _ in range(rounds):
        # Paper beats rock; the opponent never moves, and the clock passes its turn.
        for user, throw in ((player, "paper"), (carol, "rock")):
            services.orders_submit(
                match_id=match.pk, user=user, turn=match.turn_number, orders={"throw": throw}
            )
        late = current_turn(match).deadline_at + timedelta(seconds=1)
        assert services.clock_sweep(now=late).passed == 1
        drain(match)
    assert match.status == Match.Status.FINISHED
    seat = Seat.objects.get(match=match, user=opponent)
    passed = Orders.objects.filter(match=match, seat=seat.number, source=Orders.Source.CLOCK)
    assert passed.count() == rounds
    assert seat.standin_bot  # handed over after its misses: still the opponent's seat

    changes = {c.rating.user_id: c for c in RatingChange.objects.select_related("rating")}
    places = [changes[u.pk].place for u in (player, carol, opponent)]
    assert places == [1, 2, 2]
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=places)
    for user, [after] in zip((player, carol, opponent), expected, strict=True):
        rating = Rating.objects.get(game="rps", user=user)
        assert (rating.mu, rating.sigma, rating.matches) == (after.mu, after.sigma, 1)
    assert changes[opponent.pk].delta < 0 < changes[player.pk].delta
