"""A rematch of every game is the same match once more: its ruleset, its options (a
10 x 10 Halite map stays 10 x 10, a Skyport or arena match keeps its rounds), its
seat count, its bots in their seats and its time per turn; only the seed is new."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from site_support import client_for, play_out

import engine
from games import services
from games.models import Match

# Options other than each game's defaults, and a bot of its own.
GAMES: dict[str, tuple[dict[str, Any], str]] = {
    "helium3": ({"length_ms": 2_000}, "miner"),
    "helium3-remake": ({"rounds": 5}, "prospector"),
    "halite": ({"width": 10, "height": 10}, "grower"),
    "skyport": ({"rounds": 5}, "prospector"),
    "arena": ({"rounds": 10}, "hunter"),
}


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_a_rematch_keeps_the_ruleset_options_seats_bots_and_time_per_turn(player, ruleset):
    options, bot = GAMES[ruleset]
    old = services.match_create(
        creator=player,
        seat_count=3 if ruleset != "halite" else 2,
        bots=[bot, "random"] if ruleset != "halite" else [bot],
        turn_seconds=900,
        ruleset=ruleset,
        options=options,
        **({"length_ms": options["length_ms"]} if "length_ms" in options else {}),
    )
    assert {k: old.options[k] for k in options} == options
    play_out(old)

    response = client_for(player).post(reverse("games:match-rematch", args=[old.pk]))
    new = Match.objects.exclude(pk=old.pk).get()
    assert response.status_code == 302
    assert (new.ruleset, new.options, new.seat_count, new.turn_seconds, new.length_ms) == (
        old.ruleset,
        old.options,
        old.seat_count,
        old.turn_seconds,
        old.length_ms,
    )
    seats = {s.number: (s.user_id, s.bot) for s in new.seats.all()}
    assert seats == {s.number: (s.user_id, s.bot) for s in old.seats.all()}
    # It started (bots in every other seat) from the options, with a seed of its own.
    assert new.status == Match.Status.RUNNING and new.state is not None
    fresh = engine.new_game(
        seed=new.seed, seats=new.seat_count, ruleset=ruleset, options=old.options
    )
    assert new.initial_state == fresh

    # Asked again, by the same player: the same rematch, not a third match.
    client_for(player).post(reverse("games:match-rematch", args=[old.pk]))
    assert Match.objects.count() == 2
