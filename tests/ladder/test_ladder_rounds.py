"""The matchmaker's rounds (games/ladder/services.py): the matches it makes, at most
LADDER_MATCHES_PER_BOT running per bot, and its claims: a round run twice, in a row
or at once in two threads (two beats), makes the matches of one round."""

from __future__ import annotations

import random
import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from api_support import token_for
from django.db import connection
from django.utils import timezone

from games.ladder import services
from games.ladder.models import LadderGame, LadderMatch, LadderSlot
from games.models import Match, Seat

GAME = "rps"  # a test ruleset: 2-4 seats at once, built-in bots random and rock


def on_ladder(user: Any) -> None:
    token_for(user)
    services.ladder_set(user=user, game=GAME, on=True)


def running_per_bot(game: str = GAME) -> Counter[str]:
    counts: Counter[str] = Counter()
    for seat in Seat.objects.filter(
        match__ladder__game=game, match__status__in=[Match.Status.RUNNING, Match.Status.OPEN]
    ):
        counts[f"user:{seat.user_id}" if seat.user_id else f"bot:{seat.bot}"] += 1
    return counts


@pytest.mark.django_db
def test_a_round_makes_rated_public_ladder_matches_of_bots_on_the_ladder(
    player: Any, opponent: Any, spectator: Any, settings: Any
) -> None:
    on_ladder(player)
    on_ladder(opponent)
    token_for(spectator)  # has a token, not on the ladder
    made = services.ladder_round(game=GAME, rng=random.Random(7))
    assert made
    for match in made:
        match.refresh_from_db()
        assert match.rated and match.public and match.ruleset == GAME
        assert match.status == Match.Status.RUNNING
        seats = list(Seat.objects.filter(match=match))
        assert 2 <= len(seats) <= 4 and len(seats) == match.seat_count
        users = {s.user_id for s in seats if s.user_id}
        assert users <= {player.pk, opponent.pk} and users  # an API bot seeds every match
        assert all(s.api for s in seats if s.user_id)
        assert {s.bot for s in seats if s.bot} <= {"random", "rock"}
        assert LadderMatch.objects.filter(match=match, game=GAME).exists()
    # At most two running per bot, and every slot row belongs to a running match.
    assert max(running_per_bot().values()) <= settings.LADDER_MATCHES_PER_BOT == 2
    assert running_per_bot() == Counter(LadderSlot.objects.values_list("player", flat=True))
    # The ladder fills up: both API bots play two each.
    assert running_per_bot()[f"user:{player.pk}"] == 2
    assert running_per_bot()[f"user:{opponent.pk}"] == 2


@pytest.mark.django_db
def test_a_round_run_twice_in_a_row_makes_nothing_the_second_time(
    player: Any, opponent: Any
) -> None:
    on_ladder(player)
    on_ladder(opponent)
    now = timezone.now()
    first = services.ladder_round(game=GAME, now=now, rng=random.Random(1))
    # Free every slot, so that only the claim can stop the second run.
    Match.objects.filter(pk__in=[m.pk for m in first]).update(status=Match.Status.FINISHED)
    services.slots_release()
    assert not LadderSlot.objects.exists()
    assert services.ladder_round(game=GAME, now=now, rng=random.Random(1)) == []
    later = now + timedelta(seconds=10)  # within half of the 30 s interval
    assert services.ladder_round(game=GAME, now=later, rng=random.Random(1)) == []
    assert LadderGame.objects.get(game=GAME).round == 1
    # The next interval is a new round.
    again = now + timedelta(seconds=31)
    assert services.ladder_round(game=GAME, now=again, rng=random.Random(1))
    assert LadderGame.objects.get(game=GAME).round == 2


@pytest.mark.django_db
def test_no_bot_ever_runs_more_than_its_slots_whatever_the_rounds(
    player: Any, opponent: Any, spectator: Any
) -> None:
    for user in (player, opponent, spectator):
        on_ladder(user)
    now = timezone.now()
    for i in range(6):
        services.ladder_round(game=GAME, now=now + timedelta(seconds=31 * i), rng=random.Random(i))
        assert max(running_per_bot().values()) <= 2
    # Finishing a match frees its bots' slots at the next round.
    match = Match.objects.filter(ladder__isnull=False).first()
    assert match is not None
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert services.slots_release() == match.seat_count


@pytest.mark.django_db(transaction=True)
def test_two_beats_running_the_round_at_once_make_one_rounds_matches(
    player: Any, opponent: Any
) -> None:
    """Two threads, each with its own database connection, run the same round at the
    same moment, as two beat processes would: one claims it, the other makes nothing.
    (On SQLite the transactions take the write lock at their start and so run one
    after the other; on PostgreSQL, with DATABASE_URL, they overlap for real and the
    conditional update and the unique slots decide.)"""
    on_ladder(player)
    on_ladder(opponent)
    now = timezone.now()
    barrier = threading.Barrier(2)
    results: list[list[Match]] = []
    errors: list[BaseException] = []

    def beat(seed: int) -> None:
        try:
            barrier.wait()
            results.append(services.ladder_round(game=GAME, now=now, rng=random.Random(seed)))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=beat, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    made = sorted(len(r) for r in results)
    assert made[0] == 0 and made[1] > 0
    assert LadderMatch.objects.count() == made[1]
    assert LadderGame.objects.get(game=GAME).round == 1
    assert max(running_per_bot().values()) <= 2


@pytest.mark.django_db(transaction=True)
def test_two_fills_at_once_never_give_a_bot_more_than_its_slots(
    player: Any, opponent: Any, spectator: Any
) -> None:
    """Were two rounds ever both claimed (a late beat and the next one), their matches
    made at the same moment: the unique slots decide, and no bot ever has a third
    running match. (On PostgreSQL the two fills overlap; a fill whose slot insert
    loses stops its round.)"""
    for user in (player, opponent, spectator):
        on_ladder(user)
    now = timezone.now()
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def fill(number: int) -> None:
        try:
            barrier.wait()
            services.ladder_fill(game=GAME, number=number, now=now, rng=random.Random(number))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=fill, args=(number,)) for number in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    counts = running_per_bot()
    assert counts and max(counts.values()) <= 2
    assert counts == Counter(LadderSlot.objects.values_list("player", flat=True))
    assert LadderMatch.objects.filter(round__in=[1, 2]).count() >= 2
