"""Ratings: openskill's Plackett-Luce numbers exactly, once per rated match, in the
transaction that finishes it; casual, guests' and aborted matches change nothing;
built-in bots are rated accounts; recompute_ratings gives the same numbers."""

from __future__ import annotations

from typing import Any

import pytest
from compete_support import rps_match
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from game_factories import UserFactory
from openskill.models import PlackettLuce
from site_support import drain

from games import services
from games.compete.models import Kind, Rating, RatingChange
from games.compete.rating import shown_rating, shown_text
from games.errors import ServiceError
from games.guests.models import Guest
from games.models import Match
from games.services.turns import match_finish

pytestmark = pytest.mark.django_db


def _numbers(user: Any, game: str = "rps") -> tuple[float, float]:
    rating = Rating.objects.get(game=game, user=user)
    return rating.mu, rating.sigma


def test_a_two_seat_result_gives_exactly_the_librarys_numbers(player, opponent):
    rps_match([player, opponent], ["paper", "rock"])
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert _numbers(player) == (won.mu, won.sigma)
    assert _numbers(opponent) == (lost.mu, lost.sigma)
    assert shown_rating(won.mu) == 1605 and shown_rating(lost.mu) == 1395


def test_a_four_seat_result_with_a_tie_gives_exactly_the_librarys_numbers(player, opponent):
    users = [player, opponent, UserFactory(username="dora"), UserFactory(username="eve")]
    # Both papers beat the rock: 1, 1, 0, 0 points, places 1, 1, 3, 3.
    rps_match([users[1], users[0], users[2], users[3]], ["paper", "paper", "rock", None])
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 1, 3, 3])
    got = [_numbers(u) for u in (users[1], users[0], users[2], users[3])]
    assert got == [(team[0].mu, team[0].sigma) for team in expected]
    assert got[0] == got[1] and got[2] == got[3]
    places = sorted(RatingChange.objects.values_list("place", flat=True))
    assert places == [1, 1, 3, 3]


def test_a_second_match_starts_from_the_first_ones_ratings(player, opponent):
    rps_match([player, opponent], ["paper", "rock"])
    rps_match([player, opponent], ["rock", "paper"])
    model = PlackettLuce()
    [[a], [b]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    [[a], [b]] = model.rate([[a], [b]], ranks=[2, 1])
    assert _numbers(player) == (a.mu, a.sigma) and _numbers(opponent) == (b.mu, b.sigma)
    assert Rating.objects.get(user=player).matches == 2


def test_each_seat_gets_its_own_rating_whatever_order_the_rows_were_made_in(player, opponent):
    carol = UserFactory(username="carol3")
    rps_match([carol, opponent], ["paper", "rock"])  # carol's and bob's rows first
    rps_match([player, opponent, carol], ["scissors", "paper", "paper"])
    model = PlackettLuce()
    [[c], [b]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    # The scissors beat both papers: places 1, 2, 2.
    [[a2], [b2], [c2]] = model.rate([[model.rating()], [b], [c]], ranks=[1, 2, 2])
    assert _numbers(player) == (a2.mu, a2.sigma)
    assert _numbers(opponent) == (b2.mu, b2.sigma)
    assert _numbers(carol) == (c2.mu, c2.sigma)


def test_running_the_finish_twice_rates_once(player, opponent):
    match = rps_match([player, opponent], ["paper", "rock"])
    before = (_numbers(player), _numbers(opponent), RatingChange.objects.count())
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        match_finish(match=locked, now=timezone.now())
    assert (_numbers(player), _numbers(opponent), RatingChange.objects.count()) == before
    assert before[2] == 2


def test_every_change_is_kept_with_before_and_after(player, opponent):
    match = rps_match([player, opponent], ["paper", "rock"])
    change = RatingChange.objects.get(match=match, rating__user=player)
    assert (change.mu_before, change.sigma_before) == (25.0, 25 / 3)
    assert (change.mu_after, change.sigma_after) == _numbers(player)
    assert change.seat == 1 and change.place == 1 and change.created_at == match.finished_at
    assert change.delta == change.rating_after - 1500 > 0


def test_a_casual_match_changes_no_rating(player, opponent):
    rps_match([player, opponent], ["paper", "rock"], rated=False)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_built_in_bots_are_rated_accounts_on_the_same_scale(player):
    match = rps_match([player], ["paper"], bots=["rock"], rated=True)
    bot = Rating.objects.get(game="rps", bot="rock")
    assert bot.kind == Kind.BUILTIN_BOT and bot.player_name == "bot:rock" and bot.matches == 1
    assert Rating.objects.get(game="rps", user=player).kind == Kind.PERSON
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_seat_played_through_the_api_is_an_api_bots(player, opponent):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", options={"rounds": 1}, api=True
    )
    services.seat_join(match_id=match.pk, user=opponent)
    for user in (player, opponent):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"throw": "rock"},
                               api=user == player)  # fmt: skip
    drain(match)
    assert Rating.objects.get(user=player).kind == Kind.API_BOT
    assert Rating.objects.get(user=opponent).kind == Kind.PERSON
    # Equal throws: a tie, both moved the same.
    assert _numbers(player) == _numbers(opponent)


def test_a_match_against_built_in_bots_only_is_casual_by_default(player):
    match = rps_match([player], ["paper"], bots=["rock"])
    assert match.rated is False and not Rating.objects.exists()


def test_a_match_between_people_is_rated_by_default(player, opponent):
    assert rps_match([player, opponent], ["paper", "rock"]).rated is True


def test_a_guests_match_is_never_rated(player):
    Guest.objects.create(user=player)
    match = rps_match([player], ["paper"], bots=["rock"])
    assert match.rated is False and not Rating.objects.exists()
    with pytest.raises(ServiceError) as refused:
        services.match_create(
            creator=player, seat_count=2, ruleset="rps", bots=["rock"], rated=True
        )
    assert refused.value.code == "guests_play_casual"


def test_a_guest_found_at_the_finish_makes_the_match_unrated(player, opponent):
    match = services.match_create(creator=player, seat_count=2, ruleset="rps",
                                  options={"rounds": 1})  # fmt: skip
    services.seat_join(match_id=match.pk, user=opponent)
    Guest.objects.create(user=opponent)  # as if a guest had got the seat anyhow
    for user in (player, opponent):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"throw": "rock"})
    drain(match)
    assert match.status == Match.Status.FINISHED and not RatingChange.objects.exists()


def test_an_aborted_match_changes_no_rating(player, opponent):
    match = services.match_create(creator=player, seat_count=2, ruleset="rps")
    services.seat_join(match_id=match.pk, user=opponent)
    staff = UserFactory(username="staff", is_staff=True)
    services.match_abort(match_id=match.pk, admin=staff)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED
    assert not RatingChange.objects.exists()


def test_the_shown_rating_is_an_integer_with_a_question_mark_while_provisional():
    assert shown_rating(25.0) == 1500 and shown_rating(27.6353) == 1605
    assert shown_text(25.0, 25 / 3) == "1500?" and shown_text(30.0, 4.0) == "1700"


def test_recompute_ratings_gives_the_same_numbers(player, opponent):
    carol = UserFactory(username="carol2")
    rps_match([player, opponent], ["paper", "rock"])
    rps_match([opponent, carol], ["scissors", "scissors"])
    rps_match([carol, player, opponent], ["rock", "scissors", "paper"])
    rps_match([player], ["paper"], bots=["rock"], rated=True)
    rps_match([player, opponent], ["paper", "rock"], rated=False)

    def table() -> list[tuple[Any, ...]]:
        rows = Rating.objects.order_by("user__username", "bot")
        return [(r.player_name, r.kind, r.mu, r.sigma, r.conservative, r.matches,
                 r.last_played_at) for r in rows]  # fmt: skip

    def changes() -> list[tuple[Any, ...]]:
        rows = RatingChange.objects.order_by("match", "seat")
        return [(c.match_id, c.seat, c.place, c.mu_before, c.sigma_before, c.mu_after,
                 c.sigma_after) for c in rows]  # fmt: skip

    before, history = table(), changes()
    assert len(before) == 4 and len(history) == 9
    Rating.objects.filter(user=player).update(mu=40.0, sigma=1.0, matches=99)
    RatingChange.objects.filter(seat=1).delete()
    call_command("recompute_ratings", "rps", verbosity=0)
    assert table() == before and changes() == history


def test_recompute_ratings_refuses_an_unknown_game():
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="no game"):
        call_command("recompute_ratings", "chess", verbosity=0)
