"""Halite's turns on the site, every seat at once: the deadline passes a missing
seat (its pieces stay still and grow), the stand-in plays a seat that missed three
turns with Halite's own bot, a paused match does not move, and the admin's actions
(pass now, a bot for a seat) act on the seats that have not sent."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from halite_support import halite_match, owned_cells
from site_support import drain

import engine
from games import services
from games.errors import Conflict
from games.models import Match, Orders, Resolution, Seat, Turn

pytestmark = pytest.mark.django_db


def _expire(match: Match) -> None:
    Turn.objects.filter(match=match, number=match.turn_number).update(
        deadline_at=timezone.now() - timedelta(seconds=1)
    )


def _start(match: Match, seat: int) -> tuple[int, int]:
    ((x, y),) = [xy for xy, (owner, _s) in owned_cells(match.state).items() if owner == seat]
    return x, y


def _send(match: Match, user: Any, moves: list[list[int]]) -> None:
    services.orders_submit(
        match_id=match.pk, user=user, turn=match.turn_number, orders={"moves": moves}
    )


def test_the_deadline_resolves_the_turn_and_the_missing_seat_stays_still_and_grows(
    player, opponent
):
    match = halite_match(player, opponent=opponent, size=20)
    x, y = _start(match, 1)
    ox, oy = _start(match, 2)
    before = match.state
    _send(match, player, [[x, y, 2]])
    _expire(match)
    assert services.clock_sweep().passed == 1
    drain(match)
    assert match.turn_number == 1
    orders = Resolution.objects.get(match=match, turn_number=0).orders
    assert orders[1] == {"seat": 2, "turn": 0, "moves": []}
    production = before["production"][oy][ox]
    assert match.state["strength"][oy][ox] == min(255, before["strength"][oy][ox] + production)
    assert Seat.objects.get(match=match, number=2).missed_in_row == 1
    assert Seat.objects.get(match=match, number=1).missed_in_row == 0


def test_three_missed_turns_hand_the_seat_to_halites_own_bot_which_moves_its_pieces(
    player, opponent, settings
):
    settings.STANDIN_BOT = "grower"
    match = halite_match(player, opponent=opponent, size=20)
    for _ in range(settings.MISSED_TURNS_BEFORE_BOT):
        _send(match, player, [])
        _expire(match)
        assert services.clock_sweep().passed == 1
        drain(match)
    seat = Seat.objects.get(match=match, number=2)
    assert (seat.missed_in_row, seat.standin_bot) == (settings.MISSED_TURNS_BEFORE_BOT, "grower")
    # The stand-in's orders are there as the turn begins: the player's complete it.
    number = match.turn_number
    standin = Orders.objects.get(match=match, turn_number=number, seat=2)
    assert standin.source == Orders.Source.STANDIN
    assert standin.orders == engine.bot_orders("grower", match.state, 2)
    _send(match, player, [])
    drain(match)
    assert match.turn_number == number + 1
    assert Resolution.objects.get(match=match, turn_number=number).orders[1] == standin.orders


def test_a_paused_halite_match_waits_for_its_resume(player, opponent):
    match = halite_match(player, opponent=opponent, size=20)
    services.match_pause(match_id=match.pk, admin=None)
    _expire(match)
    services.clock_sweep()
    drain(match)
    match.refresh_from_db()
    assert (match.status, match.turn_number) == (Match.Status.PAUSED, 0)
    with pytest.raises(Conflict):
        _send(match, player, [])
    services.match_resume(match_id=match.pk, admin=None)
    _send(match, player, [])
    _send(match, opponent, [])
    drain(match)
    assert (match.status, match.turn_number) == (Match.Status.RUNNING, 1)


def test_an_admin_pass_passes_only_the_seats_that_have_not_sent(player, opponent):
    match = halite_match(player, opponent=opponent, size=20)
    x, y = _start(match, 2)
    _send(match, opponent, [[x, y, 3]])
    services.turn_pass_now(match_id=match.pk, admin=None)
    drain(match)
    orders = Resolution.objects.get(match=match, turn_number=0).orders
    assert orders == [
        {"seat": 1, "turn": 0, "moves": []},
        {"seat": 2, "turn": 0, "moves": [[x, y, 3]]},
    ]
    assert Orders.objects.get(match=match, seat=1, turn_number=0).source == Orders.Source.ADMIN
    assert Seat.objects.get(match=match, number=1).missed_in_row == 0


def test_a_seat_an_admin_gives_to_a_bot_moves_in_the_turn_now_open(player, opponent):
    match = halite_match(player, opponent=opponent, size=20)
    _send(match, player, [])
    services.seat_replace_with_bot(match_id=match.pk, seat_number=2, bot="grower", admin=None)
    drain(match)
    assert match.turn_number == 1
    row = Orders.objects.get(match=match, seat=2, turn_number=0)
    assert row.source == Orders.Source.BOT
    assert row.orders["moves"], "the grower moves or grows; its orders name its piece"
