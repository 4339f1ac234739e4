"""The lobby: create a match, play now against bots, join and leave, the lists."""

from __future__ import annotations

import pytest
from django.urls import reverse
from game_factories import UserFactory
from site_support import client_for

import engine
from games import services
from games.errors import Conflict, ServiceError
from games.forms import DEADLINE_PRESETS
from games.models import Match, Seat


def test_the_create_form_offers_deadline_presets_from_a_minute_to_three_days(player):
    response = client_for(player).get(reverse("games:match-create"))
    form = response.context["form"]
    assert response.status_code == 200
    seconds = [value for value, _label in DEADLINE_PRESETS]
    assert seconds[0] == 60 and seconds[-1] == 3 * 24 * 3600
    assert form["turn_seconds"].initial == 24 * 3600
    assert form["length_minutes"].initial == 10
    assert form["seat_count"].initial == 4


def test_creating_a_match_with_open_seats_waits_for_players(player):
    response = client_for(player).post(
        reverse("games:match-create"),
        {"seat_count": 3, "turn_seconds": 3600, "length_minutes": 5, "seat_2": "random"},
    )
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/matches/{match.pk}/")
    assert (match.status, match.seat_count, match.turn_seconds, match.length_ms) == (
        Match.Status.OPEN,
        3,
        3600,
        300_000,
    )
    seats = list(match.seats.order_by("number"))
    assert [(s.number, s.user, s.bot) for s in seats] == [
        (1, player, ""),
        (2, None, "random"),
        (3, None, ""),
    ]
    assert match.seed is None and match.state is None


@pytest.mark.parametrize(
    "data",
    [
        {"seat_count": 5, "turn_seconds": 3600, "length_minutes": 10},
        {"seat_count": 1, "turn_seconds": 3600, "length_minutes": 10},
        {"seat_count": 2, "turn_seconds": 30, "length_minutes": 10},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": -5},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": "0.01"},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": "60.5"},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": "Infinity"},
        {"seat_count": 2, "turn_seconds": 3600},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": 10, "seat_2": "skynet"},
        {"seat_count": 2, "turn_seconds": 3600, "length_minutes": 10, "seat_1": "random"},
        {"seat_count": "four", "turn_seconds": "soon", "length_minutes": "long"},
    ],
)
def test_bad_create_input_is_shown_on_the_form_and_creates_nothing(player, data):
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400
    assert response.context["form"].errors
    assert not Match.objects.exists()


def test_a_two_seat_match_uses_the_engines_seats_one_and_three(player):
    match = services.match_create(creator=player, seat_count=2)
    assert sorted(match.seats.values_list("number", flat=True)) == services.seat_numbers(2)
    assert services.seat_numbers(2) == [
        p["seat"] for p in engine.new_game(seed=1, seats=2)["players"]
    ]


def test_play_now_starts_a_match_against_three_bots_in_one_click(player):
    response = client_for(player).post(reverse("games:match-play-now"))
    match = Match.objects.get()
    assert response.status_code == 302
    assert match.status == Match.Status.RUNNING and match.seed is not None
    seats = list(match.seats.order_by("number"))
    assert seats[0].user == player
    assert all(s.bot in engine.bot_names() for s in seats[1:])
    assert match.to_move == 1  # the player moves first; the bots follow at once


def test_services_refuse_bad_arguments(player):
    with pytest.raises(ServiceError):
        services.match_create(creator=player, seat_count=7)
    with pytest.raises(ServiceError):
        services.match_create(creator=player, turn_seconds=10)
    with pytest.raises(ServiceError):
        services.match_create(creator=player, bots=["nope"])
    with pytest.raises(ServiceError):
        services.match_create(creator=player, seat_count=2, bots=["random", ""])
    assert not Match.objects.exists()


def test_joining_takes_the_lowest_free_seat_and_the_last_join_starts_the_match(
    player, opponent, spectator, mailoutbox
):
    match = services.match_create(creator=player, seat_count=3)
    assert services.seat_join(match_id=match.pk, user=opponent).number == 2
    match.refresh_from_db()
    assert match.status == Match.Status.OPEN
    assert services.seat_join(match_id=match.pk, user=spectator).number == 3
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.initial_state == engine.new_game(seed=match.seed, seats=3)
    with pytest.raises(Conflict):
        services.seat_join(match_id=match.pk, user=UserFactory())


def test_nobody_takes_two_seats_in_one_match(open_match, player):
    with pytest.raises(Conflict) as refused:
        services.seat_join(match_id=open_match.pk, user=player)
    assert refused.value.code == "already_seated"
    assert Seat.objects.filter(match=open_match, user=player).count() == 1


def test_leaving_before_the_start_frees_the_seat(player, opponent):
    match = services.match_create(creator=player, seat_count=3)
    services.seat_join(match_id=match.pk, user=opponent)
    services.seat_leave(match_id=match.pk, user=opponent)
    assert not Seat.objects.filter(match=match, user=opponent).exists()
    assert Match.objects.get(pk=match.pk).status == Match.Status.OPEN


def test_a_match_everybody_left_is_aborted(open_match, player):
    services.seat_leave(match_id=open_match.pk, user=player)
    assert Match.objects.get(pk=open_match.pk).status == Match.Status.ABORTED


def test_nobody_leaves_a_started_match(running_match, opponent):
    with pytest.raises(Conflict):
        services.seat_leave(match_id=running_match.pk, user=opponent)
    assert Seat.objects.filter(match=running_match, user=opponent).exists()


def test_the_lobby_lists_open_matches_yours_with_your_move_first_and_finished_ones(
    player, opponent, spectator
):
    waiting_for_you = services.match_create(creator=player, seat_count=2, bots=["random"])
    assert waiting_for_you.to_move == 1
    theirs_to_move = services.match_create(creator=opponent, seat_count=2)
    services.seat_join(match_id=theirs_to_move.pk, user=player)  # player in seat 3
    open_one = services.match_create(creator=spectator, seat_count=2)
    done = services.match_create(
        creator=spectator, seat_count=2, length_ms=3_000, bots=["random", "random"]
    )
    from site_support import drain

    drain(done, emails=False)
    assert done.status == Match.Status.FINISHED

    response = client_for(player).get(reverse("games:lobby"))
    assert response.status_code == 200
    mine = list(response.context["my_matches"])
    assert mine[0] == waiting_for_you and mine[0].my_move
    assert theirs_to_move in mine and not next(m for m in mine if m == theirs_to_move).my_move
    assert open_one in list(response.context["open_matches"])
    assert theirs_to_move not in list(response.context["open_matches"])
    assert done in list(response.context["finished_matches"])
    assert "Play now against three bots" in response.content.decode()


def test_the_lobby_shows_the_matches_waiting_for_your_move_above_the_game_cards(player, opponent):
    waiting = services.match_create(creator=player, seat_count=2, bots=["random"])
    theirs = services.match_create(creator=opponent, seat_count=2)
    services.seat_join(match_id=theirs.pk, user=player)  # the opponent moves first

    page = client_for(player).get(reverse("games:lobby")).content.decode()

    your_move = page.index('id="your-move-h"')
    assert your_move < page.index('id="games-h"') < page.index('id="mine-h"')
    first_list = page[your_move : page.index('id="games-h"')]
    assert f"Match {waiting.pk}<" in first_list and f"Match {theirs.pk}<" not in first_list
    assert f"Match {theirs.pk}<" in page[page.index('id="mine-h"') :]


def test_the_lobby_has_no_your_move_list_when_nothing_waits_for_you(player, opponent):
    theirs = services.match_create(creator=opponent, seat_count=2)
    services.seat_join(match_id=theirs.pk, user=player)
    page = client_for(player).get(reverse("games:lobby")).content.decode()
    assert 'id="your-move-h"' not in page
    assert f"Match {theirs.pk}<" in page[page.index('id="mine-h"') :]


def test_the_watch_page_lists_the_longest_running_match_first_as_it_says(player):
    from datetime import timedelta

    from django.utils import timezone

    older = services.match_create(creator=player, seat_count=2, bots=["random", "random"])
    newer = services.match_create(creator=player, seat_count=2, bots=["random", "random"])
    # The older match has played fewer turns (slower players): the order is by age.
    Match.objects.filter(pk=older.pk).update(
        started_at=timezone.now() - timedelta(days=2), turn_number=3
    )
    Match.objects.filter(pk=newer.pk).update(
        started_at=timezone.now() - timedelta(hours=1), turn_number=40
    )

    response = client_for(player).get(reverse("games:watch"))

    assert "the longest-running first" in response.content.decode()
    assert list(response.context["matches"]) == [older, newer]
