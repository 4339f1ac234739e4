"""The clock: deadlines are rows, the sweeper passes expired turns exactly once,
warns at a quarter left, hands a seat to a bot after three misses, and pause keeps
the remaining time."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone
from site_support import client_for, current_turn, drain

from games import services
from games.models import AdminAction, Match, Notification, Orders, Resolution, Seat, Turn


def after_deadline(match: Match, extra: float = 1.0) -> timezone.datetime:
    return current_turn(match).deadline_at + timedelta(seconds=extra)


def test_the_beat_schedule_sweeps_every_30_seconds_or_less():
    sweep = django_settings.CELERY_BEAT_SCHEDULE["clock-sweep"]
    assert sweep["task"] == "games.tasks.clock_sweep_task"
    assert 0 < float(sweep["schedule"]) <= 30


def test_a_sweep_before_the_deadline_changes_nothing(running_match):
    turn = current_turn(running_match)
    report = services.clock_sweep(now=turn.deadline_at - timedelta(seconds=1))
    assert report.passed == 0
    assert current_turn(running_match).status == Turn.Status.WAITING
    assert not Orders.objects.exists()


def test_a_missed_deadline_passes_the_turn_exactly_once(running_match):
    now = after_deadline(running_match)
    first = services.clock_sweep(now=now)
    second = services.clock_sweep(now=now)
    assert (first.passed, second.passed) == (1, 0)
    row = Orders.objects.get(match=running_match, turn_number=0)
    assert row.source == Orders.Source.CLOCK
    assert row.orders == {"seat": 1, "turn": 0, "actions": []}
    assert current_turn(running_match).missed is True
    # Also exactly once when the pass for the same turn is attempted directly again.
    assert not services.turn_pass_on_deadline(match_id=running_match.pk, number=0, now=now)
    drain(running_match)
    assert Resolution.objects.filter(match=running_match, turn_number=0).count() == 1
    assert running_match.to_move == 3
    assert Seat.objects.get(match=running_match, number=1).missed_in_row == 1


def _miss_turns_of_seat_1(match: Match, count: int) -> None:
    for _ in range(count):
        services.clock_sweep(now=after_deadline(match))  # seat 1 misses
        drain(match)
        services.orders_submit(
            match_id=match.pk,
            user=Seat.objects.get(match=match, number=3).user,
            turn=match.turn_number,
            actions=[],
        )
        drain(match)


def test_three_missed_turns_in_a_row_hand_the_seat_to_a_bot_and_tell_the_player(
    running_match, player, mailoutbox
):
    _miss_turns_of_seat_1(running_match, 2)
    seat = Seat.objects.get(match=running_match, number=1)
    assert (seat.missed_in_row, seat.standin_bot) == (2, "")

    services.clock_sweep(now=after_deadline(running_match))
    seat.refresh_from_db()
    assert seat.missed_in_row == 3
    assert seat.standin_bot == django_settings.STANDIN_BOT
    drain(running_match)
    told = [m for m in mailoutbox if "bot now plays your seat" in m.subject]
    assert len(told) == 1 and told[0].to == [player.email]

    # The opponent moves; seat 1's next turn is played by the stand-in at once.
    services.orders_submit(
        match_id=running_match.pk,
        user=Seat.objects.get(match=running_match, number=3).user,
        turn=running_match.turn_number,
        actions=[],
    )
    drain(running_match)
    standin_turn = Orders.objects.filter(match=running_match, seat=1).order_by("-turn_number")[0]
    assert standin_turn.source == Orders.Source.STANDIN
    assert running_match.to_move == 3


def test_a_player_who_comes_back_plays_the_seat_again(running_match, player):
    _miss_turns_of_seat_1(running_match, 2)
    services.clock_sweep(now=after_deadline(running_match))
    drain(running_match)
    response = client_for(player).post(reverse("games:match-reclaim", args=[running_match.pk]))
    assert response.status_code == 302
    seat = Seat.objects.get(match=running_match, number=1)
    assert (seat.standin_bot, seat.missed_in_row) == ("", 0)
    # Seat 1's next turn waits for the player again.
    services.orders_submit(
        match_id=running_match.pk,
        user=Seat.objects.get(match=running_match, number=3).user,
        turn=running_match.turn_number,
        actions=[],
    )
    drain(running_match)
    assert running_match.to_move == 1
    assert current_turn(running_match).status == Turn.Status.WAITING


def test_submitting_orders_resets_the_missed_count(running_match, player):
    _miss_turns_of_seat_1(running_match, 2)
    services.orders_submit(
        match_id=running_match.pk, user=player, turn=running_match.turn_number, actions=[]
    )
    assert Seat.objects.get(match=running_match, number=1).missed_in_row == 0


def test_the_deadline_warning_goes_out_once_when_a_quarter_is_left(
    running_match, player, mailoutbox
):
    turn = current_turn(running_match)
    quarter = timedelta(seconds=running_match.turn_seconds / 4)
    assert services.clock_sweep(now=turn.deadline_at - quarter - timedelta(seconds=1)).warned == 0
    assert services.clock_sweep(now=turn.deadline_at - quarter + timedelta(seconds=1)).warned == 1
    assert services.clock_sweep(now=turn.deadline_at - timedelta(seconds=1)).warned == 0
    drain(running_match)
    warnings = [m for m in mailoutbox if "quarter of your time" in m.subject]
    assert len(warnings) == 1 and warnings[0].to == [player.email]
    assert Notification.objects.filter(kind="deadline_warning").count() == 1


def test_pause_keeps_the_remaining_time_and_stops_the_clock(running_match, admin_user):
    turn = current_turn(running_match)
    before = turn.deadline_at - timezone.now()
    services.match_pause(match_id=running_match.pk, admin=admin_user)
    turn.refresh_from_db()
    assert turn.deadline_at is None
    assert abs((turn.paused_remaining - before).total_seconds()) < 2

    # Long after the old deadline the paused turn is still waiting.
    much_later = timezone.now() + timedelta(days=10)
    assert services.clock_sweep(now=much_later).passed == 0
    assert current_turn(running_match).status == Turn.Status.WAITING

    services.match_resume(match_id=running_match.pk, admin=admin_user)
    turn.refresh_from_db()
    remaining = turn.deadline_at - timezone.now()
    assert abs((remaining - before).total_seconds()) < 2
    assert turn.paused_remaining is None
    assert list(
        AdminAction.objects.filter(match=running_match)
        .order_by("created_at")
        .values_list("action", flat=True)
    ) == ["pause", "resume"]


def test_orders_are_refused_while_the_match_is_paused(running_match, player, admin_user):
    services.match_pause(match_id=running_match.pk, admin=admin_user)
    response = client_for(player).post(
        reverse("games:match-orders", args=[running_match.pk]), {"turn": 0}
    )
    assert response.status_code == 409
    assert "paused" in response.content.decode()
    assert not Orders.objects.exists()
