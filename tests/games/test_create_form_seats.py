"""The create form's seats: as many seat choices shown as seats chosen, a bot in a
seat past the count refused beside it (not dropped without a word, leaving the match
waiting for players), and a bot of another game named with its game and this game's
bots, on the site's form and through the API."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from site_support import client_for

from games.models import Match

HALITE_TEN = {"game": "halite", "turn_seconds": 3600, "option_width": 10, "option_height": 10}


def _seat_rows(html: str) -> dict[int, bool]:
    """Each seat choice on the page and whether it is shown."""
    rows = re.findall(r'<div class="form-field[^"]*" data-seat="(\d+)"( hidden)?>', html)
    return {int(n): not hidden for n, hidden in rows}


@pytest.mark.parametrize(("game", "usual", "most"), [("halite", 2, 6), ("skyport", 2, 8)])
def test_the_form_shows_as_many_seat_choices_as_the_games_usual_seats(player, game, usual, most):
    html = client_for(player).get(reverse("games:match-create"), {"game": game}).content.decode()
    rows = _seat_rows(html)
    assert sorted(rows) == list(range(1, most + 1))
    assert [n for n, shown in rows.items() if shown] == list(range(1, usual + 1))


def test_a_posted_form_shows_the_seats_chosen(player):
    data = {**HALITE_TEN, "seat_count": 4, "option_width": 7}  # a width refused
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400
    rows = _seat_rows(response.content.decode())
    assert [n for n, shown in rows.items() if shown] == [1, 2, 3, 4]


@pytest.mark.parametrize("seat", [3, 5, 6])
def test_a_bot_past_the_seat_count_is_refused_beside_its_seat(player, seat):
    data = {**HALITE_TEN, "seat_count": 2, "seat_2": "grower", f"seat_{seat}": "random"}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [f"seat_{seat}"]
    assert "The match has 2 seats" in form.errors[f"seat_{seat}"][0]
    # In sight, beside its error, though past the count.
    assert _seat_rows(response.content.decode())[seat] is True
    assert not Match.objects.exists()


def test_bots_within_the_seat_count_make_the_match(player):
    data = {**HALITE_TEN, "seat_count": 3, "seat_2": "grower", "seat_3": "random"}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 302
    match = Match.objects.get()
    assert sorted(match.seats.values_list("bot", flat=True)) == ["", "grower", "random"]
    assert match.status == Match.Status.RUNNING


def test_another_games_bot_on_the_form_names_its_game_and_this_games_bots(player):
    data = {**HALITE_TEN, "seat_count": 2, "seat_2": "hunter"}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400
    assert response.context["form"].errors["seat_2"] == [
        "hunter is a robot arena bot; Halite's bots are random and grower."
    ]
    assert not Match.objects.exists()
