"""A ladder match's turns last LADDER_TURN_SECONDS from their start, in the row, the
API's `deadline` and the match page alike, and the site's clock keeps them as it
keeps any match's: the clock sweep passes a late turn, and a task queued for a short
turn's deadline passes it on time without waiting for the next sweep."""

from __future__ import annotations

import random
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from api_support import ApiClient, token_for
from django.urls import reverse
from site_support import client_for

from games import services as game_services
from games.ladder import services
from games.models import TURN_SECONDS_MIN, Match, Orders, Turn
from games.services import turns

GAME = "rps"  # a test ruleset: every seat at once; its built-in bots move at once


def on_ladder(user: Any) -> None:
    token_for(user)
    services.ladder_set(user=user, game=GAME, on=True)


def ladder_match(*users: Any, seed: int = 3) -> Match:
    for user in users:
        on_ladder(user)
    made = services.ladder_round(game=GAME, rng=random.Random(seed))
    assert made
    return made[0]


def waiting_turn(match: Match) -> Turn:
    return Turn.objects.get(match=match, status=Turn.Status.WAITING)


@pytest.mark.django_db
def test_a_ladder_match_says_ten_seconds_a_turn_in_its_row_its_api_and_its_page(
    player: Any, opponent: Any, settings: Any
) -> None:
    assert settings.LADDER_TURN_SECONDS == 10
    match = ladder_match(player, opponent)
    assert match.turn_seconds == 10 < TURN_SECONDS_MIN
    turn = waiting_turn(match)
    assert turn.started_at is not None
    ten = turn.started_at + timedelta(seconds=10)
    assert turn.deadline_at == ten

    body = ApiClient(token_for(player)).get_json(f"/matches/{match.pk}/").json()
    assert body["turn_seconds"] == 10
    # The API's times are to the millisecond.
    deadline = datetime.fromisoformat(body["deadline"].replace("Z", "+00:00"))
    assert abs(deadline - ten) < timedelta(milliseconds=1)

    page = client_for(player).get(reverse("games:match-detail", args=[match.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "10 seconds per turn" in html
    assert "1 minute per turn" not in html
    shown = re.search(r'<time class="countdown" datetime="([^"]+)"', html)
    assert shown is not None, html
    assert datetime.fromisoformat(shown.group(1)) == ten


@pytest.mark.django_db
def test_the_clock_sweep_passes_a_late_ladder_turn_and_not_one_on_time(
    player: Any, opponent: Any
) -> None:
    match = ladder_match(player, opponent)
    turn = waiting_turn(match)
    game_services.clock_sweep(now=turn.started_at + timedelta(seconds=9))
    turn.refresh_from_db()
    assert turn.status == Turn.Status.WAITING
    report = game_services.clock_sweep(now=turn.started_at + timedelta(seconds=10, milliseconds=1))
    assert report.passed >= 1
    turn.refresh_from_db()
    assert turn.status != Turn.Status.WAITING and turn.missed
    api_seats = match.seats.filter(user__isnull=False).values_list("number", flat=True)
    passed = Orders.objects.filter(match=match, turn_number=turn.number, seat__in=api_seats)
    assert passed.exists()
    assert all(o.source == Orders.Source.CLOCK for o in passed)


@pytest.mark.django_db
def test_only_a_turn_shorter_than_four_sweeps_gets_a_task_for_its_deadline(
    player: Any, opponent: Any, settings: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:  # fmt: skip
    settings.CLOCK_SWEEP_SECONDS = 15.0
    assert turns.deadline_task_wanted(10) and turns.deadline_task_wanted(59)
    assert not turns.deadline_task_wanted(60) and not turns.deadline_task_wanted(24 * 3600)
    queued: list[tuple[int, int, datetime]] = []
    monkeypatch.setattr(turns, "turn_deadline_queue", lambda *args: queued.append(args))
    for user in (player, opponent):
        on_ladder(user)
    with django_capture_on_commit_callbacks(execute=True):
        made = services.ladder_round(game=GAME, rng=random.Random(3))
    assert made
    waiting = [waiting_turn(m) for m in made]
    assert sorted(queued) == sorted((t.match_id, t.number, t.deadline_at) for t in waiting)
    # A person's match of the shortest turn a person may choose is the sweep's alone.
    queued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game_services.match_create(
            creator=player, seat_count=2, bots=["rock"], ruleset=GAME, turn_seconds=60
        )
    assert queued == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_worker_passes_short_turns_at_their_deadline_with_no_sweep(
    celery_worker: Any, player: Any, opponent: Any, settings: Any
) -> None:
    """No beat runs here: only the deadline tasks queued as each turn begins. The API
    bots never play, so each turn is passed by its task, within a second and a half
    of its deadline, and the next turn (begun by the worker's resolution) too."""
    settings.LADDER_TURN_SECONDS = 2
    match = ladder_match(player, opponent)
    assert match.turn_seconds == 2
    until = time.monotonic() + 30
    while time.monotonic() < until:
        if Turn.objects.filter(match=match, missed=True).count() >= 2:
            break
        time.sleep(0.2)
    passed = list(Turn.objects.filter(match=match, missed=True).order_by("number"))
    assert len(passed) >= 2, list(Turn.objects.filter(match=match).values())
    for turn in passed:
        assert turn.accepted_at is not None and turn.deadline_at is not None
        late = (turn.accepted_at - turn.deadline_at).total_seconds()
        assert 0 <= late < 1.5, (turn.number, late)


@pytest.mark.django_db
def test_a_short_turn_resumed_after_a_pause_gets_a_task_for_its_new_deadline(
    player: Any, opponent: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match = ladder_match(player, opponent)
    queued: list[tuple[int, int, datetime]] = []
    monkeypatch.setattr(turns, "turn_deadline_queue", lambda *args: queued.append(args))
    game_services.match_pause(match_id=match.pk, admin=None)
    assert waiting_turn(match).deadline_at is None
    with django_capture_on_commit_callbacks(execute=True):
        game_services.match_resume(match_id=match.pk, admin=None)
    turn = waiting_turn(match)
    assert turn.deadline_at is not None
    assert queued == [(match.pk, turn.number, turn.deadline_at)]


@pytest.mark.django_db
def test_a_deadline_task_for_a_match_gone_since_does_nothing(player: Any, opponent: Any) -> None:
    match = ladder_match(player, opponent)
    number = waiting_turn(match).number
    match_id = match.pk
    match.delete()
    assert (
        game_services.turn_deadline_pass(
            match_id=match_id, number=number, now=datetime.now(tz=UTC) + timedelta(hours=1)
        )
        is False
    )
