"""A visitor's first minute: the home page with its live match between bots, and
the showcase match that keeps it playing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import IntegrityError
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from site_support import client_for

from games import catalog, presentation, services
from games.guests.models import Showcase
from games.guests.showcase import (
    PLAYED_MS,
    WATCH_WINDOW,
    house_bot,
    showcase_current,
    showcase_step,
)
from games.models import Match, Orders, Resolution, Seat, Turn
from games.views import home as views_home
from games.views.home import WATCH_CACHE_KEY

pytestmark = pytest.mark.django_db


def _pitch(html: str) -> str:
    return re.search(r'<p class="lead" id="pitch">(.*?)</p>', html, re.S).group(1)


def test_a_visitor_gets_the_home_page_with_a_two_sentence_pitch_play_now_and_sign_up():
    response = Client().get(reverse("games:lobby"))
    assert response.status_code == 200
    assert "games/home.html" in [t.name for t in response.templates]
    html = response.content.decode()
    sentences = re.findall(r"[^.!?]+[.!?]", _pitch(html))
    assert len(sentences) == 2, sentences
    # The site, not one of its games: every game is named in the first sentence.
    assert sentences[0].startswith("Robot Turns is a site of turn-based robot games")
    assert all(catalog.title(name) in sentences[0] for name in catalog.names())
    assert "moon" not in _pitch(html).lower()
    play = re.search(
        r'<form method="post" action="([^"]+)"[^>]*>.*?<button[^>]*>Play now</button>', html, re.S
    )
    assert play and play.group(1) == reverse("games:match-play-now")
    assert re.search(rf'<a href="{reverse("account_signup")}"[^>]*>Sign up</a>', html)
    assert f'href="{reverse("games:rules")}"' in html


def test_the_site_is_named_for_all_its_games_in_the_title_the_header_and_the_footer():
    html = Client().get("/").content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    assert title.startswith("Robot Turns ·") and "moon" not in title
    brand = re.search(r'<a class="brand"[^>]*aria-label="([^"]+)"[^>]*>(.*?)</a>', html, re.S)
    assert brand.group(1) == "Robot Turns, the lobby" and "<span>Robot Turns</span>" in brand.group(
        2
    )
    footer = re.search(r'<footer class="site-footer">(.*?)</footer>', html, re.S).group(1)
    assert "Robot Turns, a site of turn-based robot games" in footer
    assert "Helium 3" not in title + brand.group(0)


def _cards(html: str) -> dict[str, str]:
    return dict(
        re.findall(
            r'<article class="game-card"[^>]*data-game="([^"]+)">(.*?)</article>', html, re.S
        )
    )


def _watch_of(cards: dict[str, str], name: str) -> str:
    return re.search(r'<p class="game-watch">(.*?)</p>', cards[name], re.S).group(1)


def test_the_home_page_shows_every_game_with_its_picture_play_now_and_its_live_showcase():
    html = Client().get("/").content.decode()
    cards = _cards(html)
    assert list(cards) == catalog.names() and len(cards) == 5
    live = {row.ruleset: row.match for row in Showcase.objects.filter(live=True)}
    assert set(live) == set(catalog.names())
    for name, card in cards.items():
        assert "<svg" in card, name  # its picture
        assert f'<input type="hidden" name="game" value="{name}">' in card, name
        assert "Play now" in card, name
        watch = _watch_of(cards, name)
        match = live[name]
        assert match.ruleset == name and match.status == Match.Status.RUNNING and match.public
        assert "Watch live" in watch and f"Match {match.pk}, turn " in watch, name
        url = re.search(r'href="([^"]+)"', watch).group(1)
        assert url == reverse("games:match-detail", args=[match.pk])
        # It opens as its spectators see it, its panel telling no deadline.
        page = Client().get(url)
        assert page.status_code == 200, name
        panel = re.search(r'<aside id="panel".*?</aside>', page.content.decode(), re.S).group(0)
        assert "The bots move every few seconds." in panel and "Deadline" not in panel, name


def test_without_showcases_each_card_offers_its_games_latest_public_match(
    player, opponent, monkeypatch
):
    # A finished public match of Halite, a running one of Skyport (and an older
    # finished one, which the running one goes before), and a private one, never shown.
    halite = services.match_play_now(user=player, ruleset="halite")
    Match.objects.filter(pk=halite.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )
    old_skyport = services.match_play_now(user=player, ruleset="skyport")
    Match.objects.filter(pk=old_skyport.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )
    skyport = services.match_play_now(user=opponent, ruleset="skyport")
    secret = services.match_play_now(user=player, ruleset="arena")
    Match.objects.filter(pk=secret.pk).update(public=False)

    def broken(**kwargs):
        raise RuntimeError("no showcase today")

    monkeypatch.setattr(views_home, "showcases_current", broken)
    cache.delete(WATCH_CACHE_KEY)  # read a few seconds ago by another test's visit
    response = Client().get("/")
    assert response.status_code == 200 and 'id="board-wrap"' not in response.content.decode()
    cards = _cards(response.content.decode())
    assert list(cards) == catalog.names()
    assert reverse("games:match-detail", args=[skyport.pk]) in _watch_of(cards, "skyport")
    assert f"Match {skyport.pk}, turn {skyport.turn_number}" in _watch_of(cards, "skyport")
    assert reverse("games:match-detail", args=[halite.pk]) in _watch_of(cards, "halite")
    assert "Watch the latest" in _watch_of(cards, "halite")
    assert f"Match {halite.pk}, finished" in _watch_of(cards, "halite")
    arena = _watch_of(cards, "arena")
    assert str(secret.pk) not in arena and "No match to watch yet" in arena
    for name in ("halite", "skyport"):
        url = re.search(r'href="([^"]+)"', _watch_of(cards, name)).group(1)
        assert Client().get(url).status_code == 200, name


def test_the_showcase_panel_says_the_bots_move_every_few_seconds_not_a_deadline():
    html = Client().get("/").content.decode()
    panel = re.search(r'<aside id="panel".*?</aside>', html, re.S).group(0)
    assert "The bots move every few seconds." in panel
    assert "Deadline" not in panel and 'class="countdown"' not in panel
    # Its poll's panel says the same once a turn has passed.
    match = Showcase.objects.get(live=True, ruleset="helium3").match
    assert showcase_step(now=timezone.now())
    services.turn_resolve(match_id=match.pk, number=0)
    poll = Client().get(reverse("games:match-poll", args=[match.pk]) + "?since=0").content.decode()
    assert "The bots move every few seconds." in poll and "Deadline" not in poll


def test_a_persons_match_titled_like_the_showcase_still_shows_its_deadline(player, opponent):
    match = services.match_play_now(user=player, ruleset="helium3")
    Match.objects.filter(pk=match.pk).update(title="Showcase: four bots at play")
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    panel = re.search(r'<aside id="panel".*?</aside>', html, re.S).group(0)
    assert "The bots move every few seconds." not in panel


def test_a_signed_in_player_gets_the_lobby_not_the_home_page(player):
    response = client_for(player).get(reverse("games:lobby"))
    assert response.status_code == 200
    names = [t.name for t in response.templates]
    assert "games/lobby.html" in names and "games/home.html" not in names
    assert "Your matches" in response.content.decode()
    assert not Showcase.objects.exists()  # only a visitor's home page starts one


def test_the_home_page_shows_a_live_match_of_bots_as_a_spectator_sees_it():
    html = Client().get("/").content.decode()
    showcase = Showcase.objects.get(live=True, ruleset=catalog.default())
    match = showcase.match
    assert match.status == Match.Status.RUNNING and match.public
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    assert len(seats) == 4 and all(house_bot(s.user, "helium3") for s in seats)
    assert all(s.api and not s.user.has_usable_password() and not s.user.email for s in seats)
    # The spectator's board, animated by board.js through the match's own poll.
    assert f'data-match="{match.pk}" data-viewer=""' in html
    assert 'class="board' in html and "games/board.js" in html
    assert reverse("games:match-poll", args=[match.pk]) in html
    assert "no shields are shown" in html
    # A second visitor watches the same matches: exactly one showcase a game.
    Client().get("/")
    assert Showcase.objects.count() == len(catalog.names())
    assert sorted(Showcase.objects.values_list("ruleset", flat=True)) == sorted(catalog.names())


def test_a_new_showcase_starts_when_the_last_one_has_ended():
    first = showcase_current()
    Match.objects.filter(pk=first.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )
    second = showcase_current()
    assert second.pk != first.pk and second.status == Match.Status.RUNNING
    assert list(Showcase.objects.filter(live=True).values_list("match_id", flat=True)) == [
        second.pk
    ]


def test_the_database_keeps_each_games_showcase_to_one_live_match():
    showcase_current()
    other = Showcase.objects.create(
        match=Match.objects.create(seat_count=2, ruleset="halite"), ruleset="halite", live=True
    )
    assert other.live
    with pytest.raises(IntegrityError):
        Showcase.objects.create(match=Match.objects.create(seat_count=2), live=True)


def _waiting(match: Match) -> Turn:
    match.refresh_from_db()
    return Turn.objects.get(match=match, number=match.turn_number)


def test_the_bots_move_once_the_previous_turn_has_played_out_on_the_board():
    match = showcase_current()
    turn = _waiting(match)
    assert turn.number == 0 and turn.status == Turn.Status.WAITING  # nobody moved at once
    # Turn 0 has nothing before it to show: its bot moves at the first step.
    assert showcase_step(now=turn.started_at)
    orders = Orders.objects.get(match=match, turn_number=0)
    seat = Seat.objects.get(match=match, number=orders.seat)
    assert orders.submitted_by_id == seat.user_id
    assert not showcase_step(now=turn.started_at)  # the turn is taken: nothing twice
    services.turn_resolve(match_id=match.pk, number=0)
    shown_ms = Resolution.objects.get(match=match, turn_number=0).turn_ms
    turn = _waiting(match)
    assert turn.number == 1
    # The next bot waits while turn 0 plays on the spectators' boards (as fast as the
    # match page plays it: at most PLAYED_MS), then moves.
    played_ms = min(shown_ms, PLAYED_MS)
    assert not showcase_step(now=turn.started_at + timedelta(milliseconds=played_ms - 1))
    assert showcase_step(now=turn.started_at + timedelta(milliseconds=played_ms))
    assert Orders.objects.filter(match=match, turn_number=1).exists()


def test_the_bots_move_at_the_boards_pace_not_after_a_long_turns_whole_battle_time():
    match = showcase_current()
    assert showcase_step(now=_waiting(match).started_at)
    services.turn_resolve(match_id=match.pk, number=0)
    # A turn of 10 s battle time plays in under 3 s on the board: the bots do not sit
    # still for the rest of it.
    Resolution.objects.filter(match=match, turn_number=0).update(turn_ms=10_000)
    turn = _waiting(match)
    assert PLAYED_MS < 3000
    assert showcase_step(now=turn.started_at + timedelta(milliseconds=3000))


def test_the_bots_rest_while_nobody_watches_the_home_page():
    match = showcase_current()
    turn = _waiting(match)
    late = timezone.now() + WATCH_WINDOW + timedelta(seconds=1)
    assert not showcase_step(now=late)
    assert not Orders.objects.filter(match=match).exists()
    # A visit wakes them up.
    showcase_current(now=late)
    assert showcase_step(now=late)
    assert turn.number == 0


def test_the_showcase_map_follows_from_the_match_number_not_from_chance():
    match = showcase_current()
    assert match.seed == (match.pk * 2_654_435_761) % 2**31


def test_a_persons_account_is_never_lent_to_the_showcase(player):
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(pk=player.pk).update(username="miner-bot-1")
    with pytest.raises(RuntimeError):
        showcase_current()
    assert not Showcase.objects.exists()
    assert house_bot(get_user_model().objects.get(pk=player.pk)) is None
    # The home page still answers, with the other games' showcases: the board shows
    # the next game's, with that game's board script.
    response = Client().get("/")
    html = response.content.decode()
    assert response.status_code == 200 and "Play now" in html
    assert not Showcase.objects.filter(ruleset="helium3").exists()
    shown = Showcase.objects.get(live=True, ruleset=catalog.names()[1]).match
    assert f'data-match="{shown.pk}"' in html
    assert presentation.get(shown.ruleset).planner_script in html


def test_a_showcase_that_ends_while_watched_is_followed_by_the_next_for_the_same_time():
    now = timezone.now()
    first = showcase_current(now=now)
    watched_until = Showcase.objects.get(match=first).watched_until
    Match.objects.filter(pk=first.pk).update(status=Match.Status.FINISHED, finished_at=now)
    later = now + timedelta(minutes=10)
    assert not showcase_step(now=later)
    second = Showcase.objects.get(live=True)
    assert second.match_id != first.pk and second.match.status == Match.Status.RUNNING
    # Not watched any longer than the first was: nobody opened the home page since.
    assert second.watched_until == watched_until
    assert not showcase_step(now=watched_until + timedelta(seconds=1))


@pytest.mark.parametrize("ruleset", catalog.names())
def test_every_games_showcase_is_played_by_its_house_bots_turn_after_turn(ruleset):
    from site_support import drain

    start = timezone.now()
    match = showcase_current(ruleset, now=start)
    assert match.ruleset == ruleset and match.title.startswith("Showcase: ")
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    assert len(seats) == catalog.play_now_seats(ruleset)
    assert all(house_bot(s.user, ruleset) and s.api for s in seats)
    # celery beat's step, every 3 s of the watch window, the worker resolving between.
    for k in range(60):
        showcase_step(now=start + timedelta(seconds=3 * k))
        drain(match, emails=False)
        if match.turn_number >= 6 or not match.is_live:
            break
    assert match.turn_number >= 6 or match.status == Match.Status.FINISHED, match.turn_number
    given = Orders.objects.filter(match=match)
    assert given.exists()
    # Every order came from a seat's own house account, none from the clock's pass.
    house = {s.user_id for s in seats}
    assert {row.submitted_by_id for row in given} <= house
    assert not given.filter(source=Orders.Source.CLOCK).exists()
    assert not Turn.objects.filter(match=match, missed=True).exists()
