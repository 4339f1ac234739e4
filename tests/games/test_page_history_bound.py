"""The match page's history tells the turns of the state its board draws: a turn the
worker commits between the page's read of the match and its read of the history is
told on the next view, beside the board that shows it, never before."""

from __future__ import annotations

from typing import Any

from site_support import drain

from games import selectors, services
from games.models import Match, Resolution, Seat


def test_the_history_tells_no_turn_the_board_does_not_show_yet(
    running_match: Match, player: Any
) -> None:
    read_before = Match.objects.get(pk=running_match.pk)  # the page's read of the match
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    drain(running_match, emails=False)  # the worker commits turn 0 meanwhile
    assert Resolution.objects.filter(match=running_match, turn_number=0).exists()
    seat = Seat.objects.get(match=running_match, user=player)

    page = selectors.match_page(read_before, seat)
    assert page.view is not None and page.view["turn"] == 0
    assert page.recent_turns == [] and page.last_turn is None

    now = Match.objects.get(pk=running_match.pk)
    page = selectors.match_page(now, seat)
    assert [t["number"] for t in page.recent_turns] == [0] and page.last_turn == 0


def test_a_finished_matchs_history_tells_its_last_turn(player: Any) -> None:
    match = services.match_create(
        creator=player, seat_count=2, length_ms=2_000, bots=["random"], turn_seconds=3600
    )
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    drain(match, emails=False)
    match = Match.objects.get(pk=match.pk)
    assert match.status == Match.Status.FINISHED
    last = Resolution.objects.filter(match=match).order_by("-turn_number").first()
    assert last is not None
    seat = Seat.objects.get(match=match, user=player)
    page = selectors.match_page(match, seat)
    assert page.last_turn == last.turn_number
