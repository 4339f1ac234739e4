"""The first-five rule: a bot that misses its turns in each of its first five ladder
matches since it joined comes off the ladder, and its owner is told (an email and
the tokens page); one that plays its turns in one of them stays; putting it back
starts a fresh count."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from api_support import token_for
from django.core import mail
from django.utils import timezone
from site_support import client_for

from games import services as game_services
from games.ladder import services
from games.ladder.models import LadderEntry, LadderGame
from games.models import Match, Orders, Seat, Turn

GAME = "rps"


def play_out(match: Match, *, now: Any, player_plays: Any = None) -> None:
    """Play a ladder match to its end: the bots' orders are in, the clock passes the
    API bot's turns (or `player_plays(match, seat, turn)` sends its orders), and each
    accepted turn is resolved here (the worker's job)."""
    for _ in range(40):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            return
        turn = Turn.objects.get(match=match, number=match.turn_number)
        if turn.status == Turn.Status.WAITING:
            if player_plays is not None:
                for seat in Seat.objects.filter(match=match, user__isnull=False):
                    if not seat.driver_bot:
                        player_plays(match, seat, turn)
            turn.refresh_from_db()
            if turn.status == Turn.Status.WAITING:
                game_services.clock_sweep(now=now())
        game_services.turn_resolve(match_id=match.pk, number=turn.number)
    raise AssertionError(f"match {match.pk} did not end")


def rounds_until(entry_user: Any, matches: int, **play: Any) -> list[Match]:
    """Ladder rounds, each played out, until the user has had `matches` ladder matches."""
    # Each round half an interval or more after the last one claimed.
    last = LadderGame.objects.filter(game=GAME).values_list("claimed_at", flat=True).first()
    clock = [max(timezone.now(), last or timezone.now())]

    def now() -> Any:
        clock[0] += timedelta(seconds=11)
        return clock[0]

    played: list[Match] = []
    for _ in range(20):
        made = services.ladder_round(game=GAME, now=now() + timedelta(seconds=20))
        for match in made:
            if Seat.objects.filter(match=match, user=entry_user).exists():
                played.append(match)
            play_out(match, now=now, **play)
        services.slots_release()
        if len(played) >= matches:
            return played
    raise AssertionError("not enough ladder matches")


@pytest.mark.django_db
def test_a_bot_that_misses_its_turns_in_its_first_five_matches_comes_off_and_is_told(
    player: Any, django_capture_on_commit_callbacks: Any
) -> None:
    token_for(player)
    services.ladder_set(user=player, game=GAME, on=True)
    played = rounds_until(player, 4)
    assert services.ladder_first_matches() == []  # four: not yet
    played += rounds_until(player, 1)
    assert len(played) >= 5
    for match in played[:5]:
        seat = Seat.objects.get(match=match, user=player)
        assert Orders.objects.filter(
            match=match, seat=seat.number, source=Orders.Source.CLOCK
        ).exists()
    with django_capture_on_commit_callbacks() as queued:
        removed = services.ladder_first_matches()
    assert [e.user_id for e in removed] == [player.pk]
    assert len(queued) == 1  # the email's task, queued once the removal is committed
    entry = LadderEntry.objects.get(user=player, game=GAME)
    assert not entry.on and entry.removed_at is not None
    assert "first 5 ladder matches" in entry.removed_reason
    # Run again: nothing more.
    assert services.ladder_first_matches() == []
    # No new ladder match for it.
    assert services.ladder_round(game=GAME, now=timezone.now() + timedelta(hours=1)) == []
    # The email, once (its task runs the service).
    assert services.ladder_removal_tell(entry_id=entry.pk)
    assert not services.ladder_removal_tell(entry_id=entry.pk)
    assert len(mail.outbox) == 1
    email = mail.outbox[0]
    assert email.to == [player.email]
    assert "off the" in email.subject and "ladder" in email.subject
    assert "missed its turns in each of its first 5 ladder matches" in email.body
    # The tokens page says so.
    page = client_for(player).get("/settings/tokens/")
    assert page.status_code == 200
    assert "Taken off on" in page.content.decode()
    assert "missed its turns in each of its first 5" in page.content.decode()
    # Putting it back starts a fresh count: one more missed match does not remove it.
    # (The rounds above ran on a clock ahead of the real one: back on after them.)
    back = LadderGame.objects.get(game=GAME).claimed_at + timedelta(seconds=1)
    services.ladder_set(user=player, game=GAME, on=True, now=back)
    entry.refresh_from_db()
    assert entry.on and entry.removed_at is None and not entry.settled
    assert "Taken off" not in client_for(player).get("/settings/tokens/").content.decode()
    rounds_until(player, 1)
    assert services.ladder_first_matches() == []
    assert LadderEntry.objects.get(pk=entry.pk).on


@pytest.mark.django_db
def test_a_bot_that_plays_its_turns_in_one_of_its_first_five_stays_on(
    player: Any, opponent: Any
) -> None:
    token_for(player)
    services.ladder_set(user=player, game=GAME, on=True)

    def plays(match: Match, seat: Seat, turn: Turn) -> None:
        if seat.user_id == player.pk and match.state is not None:
            game_services.orders_submit(
                match_id=match.pk,
                user=player,
                turn=turn.number,
                orders={"seat": seat.number, "turn": turn.number, "throw": "rock"},
                api=True,
            )

    rounds_until(player, 1, player_plays=plays)
    assert services.ladder_first_matches() == []
    entry = LadderEntry.objects.get(user=player, game=GAME)
    assert entry.settled and entry.on
    # Settled: later missed matches never take it off.
    rounds_until(player, 6)
    assert services.ladder_first_matches() == []
    assert LadderEntry.objects.get(pk=entry.pk).on
