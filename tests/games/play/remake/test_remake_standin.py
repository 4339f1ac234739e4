"""The stand-in in a remake match: a seat that misses three turns in a row is played
by the remake's own bot (its orders are the remake's random bot's for the state it
was given), the match plays on, and the player takes the seat back."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from site_support import client_for, current_turn, drain

import engine
from engine import rulesets
from games import services
from games.models import Match, Orders, Resolution, Seat

REMAKE = "helium3-remake"

# The remake's random bot gives orders to 0 to 5 vehicles, so with a drawn seed its two
# turns are both empty one time in 36. A fixed seed makes the match, and what the
# stand-in plays, the same on every run.
SEED = 7


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def remake_match(player: Any, opponent: Any) -> tuple[Match, int]:
    """A remake match of two people, five rounds; returns it and the opponent's seat."""
    match = services.match_create(
        creator=player, seat_count=2, ruleset=REMAKE, options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.ruleset == REMAKE
    other = Seat.objects.filter(match=match).exclude(number=1).get()
    assert match.to_move == 1
    return match, other.number


def opponent_passes(match: Match, seat: int) -> None:
    match.refresh_from_db()
    assert match.to_move == seat
    services.orders_submit(
        match_id=match.pk,
        user=Seat.objects.get(match=match, number=seat).user,
        turn=match.turn_number,
        actions=[],
    )
    drain(match)


def seat_1_misses(match: Match) -> None:
    turn = current_turn(match)
    assert turn.seat == 1
    services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))
    drain(match)


def assert_played_by_the_remake_bot(match: Match, number: int, bot: str) -> None:
    """Seat 1's orders for turn `number` came from the stand-in and are exactly the
    remake's bot's orders for the state it was given, legal by the remake's rules."""
    row = Orders.objects.get(match=match, turn_number=number, seat=1)
    assert row.source == Orders.Source.STANDIN
    before = Resolution.objects.filter(match=match, turn_number__lt=number).latest(
        "turn_number", "step"
    )
    assert before.state["ruleset"] == REMAKE
    expected = rulesets.get(REMAKE).bot_orders(bot, before.state, 1)
    assert row.orders == expected
    engine.check(before.state, row.orders)
    assert Resolution.objects.filter(match=match, turn_number=number, seat=1).count() == 1


def test_three_missed_remake_turns_hand_the_seat_to_the_remakes_bot_which_plays_on(
    player: Any, opponent: Any, mailoutbox: Any
) -> None:
    match, other = remake_match(player, opponent)
    for missed in (1, 2):
        seat_1_misses(match)
        assert Seat.objects.get(match=match, number=1).missed_in_row == missed
        opponent_passes(match, other)
    seat_1_misses(match)
    seat = Seat.objects.get(match=match, number=1)
    assert seat.missed_in_row == 3
    assert seat.standin_bot in engine.bot_names(REMAKE)
    assert any("bot now plays your seat" in m.subject for m in mailoutbox)

    # The opponent moves; seat 1's next two turns are played by the stand-in at once.
    played = []
    for _ in range(2):
        opponent_passes(match, other)
        match.refresh_from_db()
        assert match.to_move == other
        played.append(match.turn_number - 1)
    for number in played:
        assert_played_by_the_remake_bot(match, number, seat.standin_bot)
    # It played, rather than passing as a bot of another game (refused) would.
    rows = Orders.objects.filter(match=match, seat=1, turn_number__in=played)
    assert any(row.orders["actions"] for row in rows)


def test_a_remake_player_who_comes_back_plays_the_seat_again(player: Any, opponent: Any) -> None:
    match, other = remake_match(player, opponent)
    for _ in range(2):
        seat_1_misses(match)
        opponent_passes(match, other)
    seat_1_misses(match)
    opponent_passes(match, other)  # the stand-in plays seat 1's next turn
    match.refresh_from_db()
    assert match.to_move == other
    assert_played_by_the_remake_bot(
        match, match.turn_number - 1, Seat.objects.get(match=match, number=1).standin_bot
    )

    response = client_for(player).post(reverse("games:match-reclaim", args=[match.pk]))
    assert response.status_code == 302
    seat = Seat.objects.get(match=match, number=1)
    assert (seat.standin_bot, seat.missed_in_row) == ("", 0)
    # Seat 1's next turn waits for the player again, who plays it.
    opponent_passes(match, other)
    match.refresh_from_db()
    assert match.to_move == 1
    number = match.turn_number
    services.orders_submit(match_id=match.pk, user=player, turn=number, actions=[])
    drain(match)
    row = Orders.objects.get(match=match, turn_number=number, seat=1)
    assert row.source == Orders.Source.PLAYER
