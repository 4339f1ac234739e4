"""No game's words on another game's pages: the battle clock only on a match of a game
timed by it, "no shields are shown" only for a game with shields, a footer and a lobby
that name the site of every game, and a legend given the match's own seats."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from site_support import client_for

from games import catalog, services
from games.models import Match

SMALL: dict[str, dict[str, Any]] = {
    "helium3": {},
    "helium3-remake": {"rounds": 5},
    "halite": {"width": 10, "height": 10},
    "skyport": {"rounds": 5},
    "arena": {"rounds": 10},
}
SHIELDS = {"helium3", "helium3-remake"}
TIMED = {"helium3"}  # the games with a battle clock (the option length_ms)


def _header(html: str) -> str:
    """The line under the match's title: who you are, seats, time per turn, length."""
    found = re.search(r"</h1>\s*<p>(.*?)</p>", html, re.S)
    assert found, "no header line"
    return " ".join(re.sub(r"<[^>]+>|\{#.*?#\}", "", found.group(1)).split())


def _match(player: Any, ruleset: str, *, bots: list[str]) -> Match:
    return services.match_create(
        creator=player, seat_count=2, bots=bots, ruleset=ruleset, options=SMALL[ruleset]
    )


@pytest.mark.parametrize("ruleset", list(SMALL))
def test_an_open_matchs_header_says_a_battle_clock_only_for_a_game_timed_by_one(
    player, spectator, ruleset
):
    match = _match(player, ruleset, bots=[])
    html = client_for(spectator).get(reverse("games:match-detail", args=[match.pk])).text
    header = _header(html)
    assert header.startswith("You are watching")
    assert ("battle of 10:00" in header) == (ruleset in TIMED), header
    assert "2 seats · 1 day per turn" in header


@pytest.mark.parametrize("ruleset", list(SMALL))
def test_a_spectator_is_told_of_hidden_shields_only_in_a_game_with_shields(
    player, spectator, ruleset
):
    match = _match(player, ruleset, bots=["random"])
    assert match.status == Match.Status.RUNNING
    html = client_for(spectator).get(reverse("games:match-detail", args=[match.pk])).text
    header = _header(html)
    if ruleset in SHIELDS:
        assert header.startswith("You are watching (spectator view: no shields are shown).")
    else:
        assert header.startswith("You are watching (spectator view).")
        assert "shield" not in header
    # A player is told its seat, whatever the game.
    mine = _header(client_for(player).get(reverse("games:match-detail", args=[match.pk])).text)
    assert mine.startswith("You play seat 1.")


@pytest.mark.parametrize(
    ("ruleset", "seats"),
    [
        ("helium3", [1, 3]),
        ("helium3-remake", [1, 3]),
        ("halite", [1, 2]),
        ("skyport", [1, 2]),
        ("arena", [1, 2]),
    ],
)
def test_the_legend_lists_only_the_seats_of_the_match(player, ruleset, seats):
    match = _match(player, ruleset, bots=["random"])
    response = client_for(player).get(reverse("games:match-detail", args=[match.pk]))
    assert response.context["legend_seats"] == seats
    legend = re.search(r'<details class="legend[^"]*">.*?</details>', response.text, re.S)
    assert legend, "no legend"
    listed = [int(n) for n in re.findall(r"Seat (\d):", legend.group(0))]
    assert listed == seats


@pytest.mark.parametrize("ruleset", ["helium3", "halite", "skyport"])
def test_a_legend_without_a_match_lists_every_seat_of_the_game(ruleset):
    from django.template.loader import render_to_string

    from games import presentation

    html = render_to_string(presentation.get(ruleset).legend_template, {})
    listed = [int(n) for n in re.findall(r"Seat (\d):", html)]
    assert listed == list(range(1, len(listed) + 1)) and len(listed) >= 4


def test_the_footer_names_the_site_and_every_game_it_hosts(player):
    html = client_for(player).get(reverse("games:lobby")).text
    footer = re.search(r'<footer class="site-footer">(.*?)</footer>', html, re.S)
    assert footer
    text = " ".join(re.sub(r"<[^>]+>", "", footer.group(1)).split())
    assert "mine the Moon" not in text
    assert text.startswith("Robot Turns, a site of turn-based robot games:")
    for name in catalog.names():
        assert catalog.title(name) in text


def test_the_lobby_speaks_of_every_game_not_of_the_moon(player):
    html = client_for(player).get(reverse("games:lobby")).text
    lead = re.search(r'<p class="lead">(.*?)</p>', html, re.S)
    assert lead and "moon" not in lead.group(1).lower() and "helium" not in lead.group(1).lower()
