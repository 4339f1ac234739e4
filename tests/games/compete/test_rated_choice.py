"""Rated or casual is chosen on the create form: by default as the seats say, or
either on purpose; a bad choice is the form's error."""

from __future__ import annotations

import pytest
from django.urls import reverse
from site_support import client_for

from games.models import Match

pytestmark = pytest.mark.django_db

FORM = {"game": "helium3", "seat_count": 2, "turn_seconds": 3600, "length_minutes": 5}


@pytest.mark.parametrize(
    ("seat_2", "rated", "expected"),
    [
        ("", "", True),
        ("random", "", False),
        ("random", "rated", True),
        ("", "casual", False),
    ],
)
def test_the_create_form_makes_rated_or_casual_matches(player, seat_2, rated, expected):
    response = client_for(player).post(
        reverse("games:match-create"), {**FORM, "seat_2": seat_2, "rated": rated}
    )
    assert response.status_code == 302, response.context["form"].errors
    assert Match.objects.get().rated is expected


def test_the_create_form_offers_the_choice_and_refuses_another(player):
    page = client_for(player).get(reverse("games:match-create") + "?game=helium3")
    assert 'name="rated"' in page.content.decode()
    response = client_for(player).post(reverse("games:match-create"), {**FORM, "rated": "yes"})
    assert response.status_code == 400 and "rated" in response.context["form"].errors
    assert not Match.objects.exists()
