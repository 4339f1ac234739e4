"""The frame every page shares and the forms for people: the "your move" badge and tab
title, the navigation (play, watch, archive, bots and the user menu), and the new
match form's battle length in minutes, its bot choices and its errors beside the
field they are about."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from site_support import client_for, drain

import engine
from games import services
from games.forms import LENGTH_PRESETS, MatchCreateForm
from games.models import Match, Seat

HTMX = {"HTTP_HX_REQUEST": "true"}


def _badge(html: str) -> re.Match[str] | None:
    return re.search(r'<span id="move-badge" class="badge" data-count="(\d+)"([^>]*)>', html)


@pytest.fixture
def two_waiting_one_not(player: Any, opponent: Any, spectator: Any) -> list[Match]:
    """Two running matches with the player's seat to move; one where the opponent
    moves; one open; one finished; one where a stand-in bot plays the player's seat."""
    waiting = [
        services.match_create(creator=player, seat_count=2, bots=["random"]) for _ in range(2)
    ]
    theirs = services.match_create(creator=opponent, seat_count=2)
    services.seat_join(match_id=theirs.pk, user=player)
    services.match_create(creator=player, seat_count=2)  # open: nobody moves yet
    done = services.match_create(
        creator=player, seat_count=2, length_ms=2_000, bots=["random"], turn_seconds=3600
    )
    services.orders_submit(match_id=done.pk, user=player, turn=0, actions=[])
    drain(done, emails=False)
    stood_in = services.match_create(creator=player, seat_count=2, bots=["random"])
    Seat.objects.filter(match=stood_in, user=player).update(standin_bot="random")
    for match in waiting:
        assert match.status == Match.Status.RUNNING and match.to_move == 1
    assert Match.objects.get(pk=theirs.pk).to_move == 1  # seat 1 is the opponent's
    assert Match.objects.get(pk=done.pk).status == Match.Status.FINISHED
    return waiting


def test_the_badge_and_the_tab_title_count_the_matches_waiting_for_your_move(
    two_waiting_one_not, player
):
    client = client_for(player)
    for name in ("games:lobby", "games:archive", "games:watch", "games:bots"):
        html = client.get(reverse(name)).content.decode()
        badge = _badge(html)
        assert badge and badge.group(1) == "2" and "hidden" not in badge.group(2), name
        assert re.search(r"<title>\(2\) [^<]*Robot Turns</title>", html), name
        assert "2 matches waiting for your orders" in html


def test_after_playing_its_move_the_badge_counts_one_less(two_waiting_one_not, player):
    first = two_waiting_one_not[0]
    services.orders_submit(match_id=first.pk, user=player, turn=0, actions=[])
    drain(first, emails=False)  # the bot moves; the player's turn comes round again
    services.orders_submit(match_id=first.pk, user=player, turn=2, actions=[])
    html = client_for(player).get(reverse("games:lobby")).content.decode()
    # Orders in and not yet resolved: still the player's seat to move in the row, but
    # no longer waiting for their orders (as in a game played at once): the badge
    # counts it again only if the resolved turn comes back to them.
    assert _badge(html).group(1) == "1" and "<title>(1) Lobby · Robot Turns</title>" in html
    drain(first, emails=False)
    Match.objects.filter(pk=first.pk).update(status=Match.Status.PAUSED)
    html = client_for(player).get(reverse("games:lobby")).content.decode()
    assert _badge(html).group(1) == "1" and "<title>(1) Lobby · Robot Turns</title>" in html


def test_nobody_waiting_shows_no_count_and_a_visitor_no_badge(player, db):
    html = client_for(player).get(reverse("games:archive")).content.decode()
    badge = _badge(html)
    assert badge and badge.group(1) == "0" and "hidden" in badge.group(2)
    assert "<title>Archive · Robot Turns</title>" in html
    visitor = Client().get(reverse("games:archive")).content.decode()
    assert 'id="move-badge"' not in visitor and "<title>Archive · Robot Turns</title>" in visitor


def test_the_count_costs_one_query_however_often_the_page_shows_it(two_waiting_one_not, player):
    client = client_for(player)
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("games:bots"))
    counting = [q for q in queries if "standin_bot" in q["sql"] and "COUNT(" in q["sql"]]
    assert len(counting) == 1


def test_the_match_poll_brings_the_new_count_for_the_badge(running_match, player, opponent):
    client = client_for(opponent)  # seat 3: the player (seat 1) moves first
    page = client.get(reverse("games:match-detail", args=[running_match.pk])).content.decode()
    assert _badge(page).group(1) == "0"
    poll = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    drain(running_match, emails=False)
    fragment = client.get(poll, **HTMX).content.decode()
    badge = re.search(
        r'<span id="move-badge"[^>]*data-count="(\d+)"[^>]*hx-swap-oob="true"', fragment
    )
    assert badge and badge.group(1) == "1"


def test_the_navigation_offers_play_watch_archive_bots_and_the_user_menu(player):
    html = client_for(player).get(reverse("games:archive")).content.decode()
    nav = html[html.index('<nav class="primary"') : html.index("</nav>")]
    for label, url in (
        ("Play", reverse("games:lobby")),
        ("Watch", reverse("games:watch")),
        ("Archive", reverse("games:archive")),
        ("Bots", reverse("games:bots")),
        ("Games", reverse("games:games")),
    ):
        assert re.search(rf'<a href="{re.escape(url)}"[^>]*>{label}\b', nav), label
    assert re.search(r'href="/archive/" aria-current="page">Archive', nav)
    menu = html[html.index('<details class="menu user-menu">') : html.index("</details>")]
    for item in ("Settings", "API tokens", "Email", "Password", "My record", "Log out alice"):
        assert item in menu, item
    assert 'method="post" action="/accounts/logout/"' in menu


def test_watch_lists_public_matches_being_played_and_nothing_else(player, opponent, spectator):
    live = services.match_create(creator=player, seat_count=2, bots=["random"], title="Live one")
    hidden = services.match_create(creator=opponent, seat_count=2, bots=["random"], public=False)
    waiting = services.match_create(creator=spectator, seat_count=2, title="Still open")
    for viewer in (Client(), client_for(spectator)):
        response = viewer.get(reverse("games:watch"))
        assert response.status_code == 200
        html = response.content.decode()
        assert f'href="/matches/{live.pk}/"' in html and "Live one" in html
        assert f'href="/matches/{hidden.pk}/"' not in html
        assert f'href="/matches/{waiting.pk}/"' not in html


def test_the_bots_page_describes_every_built_in_bot_of_every_game_and_links_the_api(db):
    from games import catalog

    html = Client().get(reverse("games:bots")).content.decode()
    assert len(catalog.names()) >= 2
    for game in catalog.names():
        section = html.split(f'id="builtin-{game}-h"')[1].split("</section>")[0]
        assert catalog.title(game) in section
        assert f'name="game" value="{game}"' in section
        for name in engine.bot_names(game):
            strength, _, play = engine.bot_description(name, game).partition("; ")
            if strength:
                assert f'<h3>{name} <span class="pill">{strength}</span></h3>' in section
            else:
                assert f"<h3>{name}</h3>" in section
            assert f"<p>{play.capitalize() or 'A built-in bot'}.</p>" in section
    assert reverse("api:openapi-view") in html


def test_error_pages_wear_the_site_and_say_what_to_do(player, opponent, spectator):
    missing = client_for(player).get("/matches/999999/")
    assert missing.status_code == 404
    html = missing.content.decode()
    assert "Nothing here" in html and '<nav class="primary"' in html and 'id="move-badge"' in html
    private = services.match_create(creator=player, seat_count=2, bots=["random"], public=False)
    refused = client_for(spectator).get(reverse("games:match-detail", args=[private.pk]))
    assert refused.status_code == 403
    assert "This match is private to its players." in refused.content.decode()
    # The server error page needs no request (the error may be in it).
    broken = render_to_string("500.html")
    assert "Something broke" in broken and "/static/games/site.css" in broken


# --- the new match form -------------------------------------------------------------


def test_the_battle_length_is_asked_in_minutes_with_presets(player):
    html = client_for(player).get(reverse("games:match-create")).content.decode()
    assert [minutes for minutes, _short, _what in LENGTH_PRESETS] == [1, 5, 10, 30]
    assert re.search(r'<label for="id_length_minutes">Battle length \(minutes\):</label>', html)
    assert re.search(r'<input type="number" name="length_minutes" value="10"', html)
    for minutes, short, _what in LENGTH_PRESETS:
        assert f'data-value="{minutes}"' in html and f">{short}</button>" in html
        assert f'<option value="{minutes}">' in html  # the datalist, without the script


@pytest.mark.parametrize(
    ("minutes", "ms"), [("1", 60_000), ("5", 300_000), ("30", 1_800_000), ("1.5", 90_000)]
)
def test_a_length_in_minutes_is_stored_in_milliseconds(player, minutes, ms):
    data = {"seat_count": 2, "turn_seconds": 3600, "length_minutes": minutes, "seat_2": "random"}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 302
    assert Match.objects.get().length_ms == ms


def _field_block(html: str, name: str) -> str:
    """The HTML of the form field that holds input or select `name`."""
    for block in re.split(r'(?=<div class="form-field[ "])', html):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name}")


@pytest.mark.parametrize(
    ("minutes", "message"),
    [
        ("0.01", "A battle lasts at least one second (0.02 minutes)."),
        ("61", "A battle lasts at most 60 minutes."),
        ("ten", "Enter a number."),
    ],
)
def test_a_bad_length_is_explained_beside_its_field_and_creates_nothing(player, minutes, message):
    data = {"seat_count": 2, "turn_seconds": 3600, "length_minutes": minutes}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    html = response.content.decode()
    block = _field_block(html, "length_minutes")
    assert 'class="form-field invalid"' in block and message in block
    assert f'value="{minutes}"' in block  # what was typed stays, to be corrected
    assert 'class="form-errors"' not in html


def test_a_bot_match_with_a_seat_left_open_names_that_seat(player):
    data = {"seat_count": 3, "turn_seconds": 3600, "length_minutes": 10}
    data |= {"seat_1": "random", "seat_2": "miner"}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    html = response.content.decode()
    assert "Give this seat a bot too" in _field_block(html, "seat_3")
    assert "Give this seat a bot too" not in _field_block(html, "seat_2")


def test_the_seat_choices_name_each_bot_with_its_strength():
    form = MatchCreateForm()
    labels = dict(form.fields["seat_2"].choices)
    assert labels[""] == "Open for a player" and dict(form.fields["seat_1"].choices)[""] == "You"
    for name in engine.bot_names():
        assert labels[name] == f"Bot: {name} — {engine.bot_description(name)}"
    assert labels["fighter"].startswith("Bot: fighter — strongest")
    assert labels["random"].startswith("Bot: random — weakest")


def test_every_field_of_the_form_has_help_beside_it_or_says_enough_itself(player):
    html = client_for(player).get(reverse("games:match-create")).content.decode()
    for name in ("title", "seat_count", "turn_seconds", "length_minutes", "public", "seat_1"):
        assert '<small class="help" id="id_' + name + '_helptext">' in _field_block(html, name)
    assert Decimal(MatchCreateForm().fields["length_minutes"].initial) == 10


def test_the_badges_written_once_count_agrees_with_the_seats_it_counts(
    two_waiting_one_not, player, opponent, spectator
):
    from games import selectors

    counts = {
        user.username: (selectors.your_move_count(user.pk), selectors.your_move_seats(user.pk))
        for user in (player, opponent, spectator)
    }
    assert {name: n for name, (n, _) in counts.items()} == {"alice": 2, "bob": 1, "carol": 0}
    for n, seats in counts.values():
        assert n == seats.count()
