"""People and bots in one match: an API-driven seat gets no email, and the same
deadlines, misses and stand-in bot as anybody's seat."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from api_support import ApiClient, assert_error
from django.conf import settings
from django.urls import reverse
from site_support import client_for, current_turn, drain

from games import services
from games.models import Match, Notification, Orders, Seat


def _mixed(api: ApiClient, opponent: Any) -> Match:
    """The player's bot creates (seat 1, API-driven); a person joins on the site (seat 3)."""
    created = api.post_json("/matches/", {"seats": 2, "turn_seconds": 3600}).json()
    client_for(opponent).post(reverse("games:match-join", args=[created["id"]]))
    match = Match.objects.get(pk=created["id"])
    assert match.status == Match.Status.RUNNING
    return match


def test_the_api_seat_gets_no_email_and_the_persons_seat_does(api, player, opponent, mailoutbox):
    match = _mixed(api, opponent)
    assert api.post_json(f"/matches/{match.pk}/orders/", {"turn": 0, "actions": []}).status_code
    drain(match)  # resolves seat 1's turn and sends the emails
    kinds = {
        user.username: set(Notification.objects.filter(user=user).values_list("kind", flat=True))
        for user in (player, opponent)
    }
    assert kinds["alice"] == set()
    # Bob's join started the match, on its page: no "Match started" for him.
    assert kinds["bob"] == {"your_turn"}
    assert {m.to[0] for m in mailoutbox} == {"bob@example.com"}


def test_a_seat_played_through_the_site_again_gets_email_again(api, player, opponent):
    match = _mixed(api, opponent)
    client_for(player).post(reverse("games:match-orders", args=[match.pk]), {"turn": 0})
    assert not Seat.objects.get(match=match, number=1).api
    drain(match, emails=False)
    services.orders_submit(match_id=match.pk, user=opponent, turn=1, actions=[])
    drain(match, emails=False)
    assert Notification.objects.filter(user=player, kind="your_turn", turn_number=2).exists()


def test_an_api_seat_has_the_same_deadline_and_is_passed_when_it_misses_it(api, opponent):
    match = _mixed(api, opponent)
    body = api.get_json(f"/matches/{match.pk}/").json()
    turn = current_turn(match)
    assert body["deadline"] is not None
    assert turn.deadline_at - turn.started_at == timedelta(seconds=3600)
    report = services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))
    assert report.passed == 1
    assert Orders.objects.get(match=match, turn_number=0).source == Orders.Source.CLOCK
    drain(match, emails=False)
    # The clock's pass is not the bot's: the same (empty) orders now are too late.
    assert_error(
        api.post_json(f"/matches/{match.pk}/orders/", {"turn": 0, "actions": []}),
        409,
        "already_submitted",
    )


def test_an_api_seat_that_misses_too_often_is_played_by_a_bot_until_it_reclaims(api, opponent):
    match = _mixed(api, opponent)
    assert_error(api.post_json(f"/matches/{match.pk}/reclaim/"), 409, "not_handed_over")
    for _ in range(settings.MISSED_TURNS_BEFORE_BOT):
        services.clock_sweep(now=current_turn(match).deadline_at + timedelta(seconds=1))
        drain(match, emails=False)
        services.orders_submit(match_id=match.pk, user=opponent, turn=match.turn_number, actions=[])
        drain(match, emails=False)
    seat = Seat.objects.get(match=match, number=1)
    assert seat.standin_bot == settings.STANDIN_BOT
    body = api.get_json(f"/matches/{match.pk}/").json()
    assert body["seats"][0]["bot"] == settings.STANDIN_BOT and not body["your_turn"]
    reclaimed = api.post_json(f"/matches/{match.pk}/reclaim/")
    assert reclaimed.status_code == 200
    assert Seat.objects.get(match=match, number=1).standin_bot == ""
