"""The board page and its endpoints: what each viewer gets, the cheap poll, the
history pages, click hints, past-turn movies, the replay page, and their cost."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from site_support import client_for, drain

from games import services
from games.models import Match

HTMX = {"HTTP_HX_REQUEST": "true"}


def _url(name: str, match: Match, *args: Any) -> str:
    return reverse(f"games:{name}", args=[match.pk, *args])


def _pass(match: Match, user: Any, turn: int) -> None:
    services.orders_submit(match_id=match.pk, user=user, turn=turn, actions=[])
    drain(match, emails=False)


def _play_turns(match: Match, player: Any, opponent: Any, count: int) -> None:
    """Both people pass, `count` turns in all (the player moves first)."""
    for turn in range(count):
        _pass(match, player if turn % 2 == 0 else opponent, turn)


@pytest.fixture
def shield_up(running_match: Match, player: Any, opponent: Any) -> Match:
    """Turn 0 passed; the opponent (seat 3) raised 3-1's shield deflecting N at turn 1."""
    _pass(running_match, player, 0)
    services.orders_submit(
        match_id=running_match.pk,
        user=opponent,
        turn=1,
        actions=[{"robot": "3-1", "type": "shield", "deflect": "N"}],
    )
    drain(running_match, emails=False)
    return running_match


def test_the_player_on_the_move_gets_the_board_the_panel_the_orders_and_the_hints(
    running_match, player
):
    response = client_for(player).get(_url("match-detail", running_match))
    html = response.content.decode()
    assert response.status_code == 200
    assert '<svg class="board"' in html and '<table class="board"' not in html
    assert "your move" in html and 'id="orders-form"' in html
    hints = json.loads(
        re.search(r'<script id="hints" type="application/json">(.*?)</script>', html).group(1)
    )
    assert set(hints["robots"]) == {"1-1", "1-2", "1-3", "1-4", "1-5"}
    assert 'hx-get="/matches/' in html and 'hx-trigger="every 3s"' in html
    assert "Battle clock" in html and "0:00 of 10:00" in html
    assert 'src="/static/games/vendor/htmx-2.0.10.min.js"' in html


def test_a_spectator_sees_no_shield_and_gets_no_hints(shield_up, spectator, opponent):
    spectator_html = client_for(spectator).get(_url("match-detail", shield_up)).content.decode()
    assert 'id="hints"' not in spectator_html and 'id="orders-form"' not in spectator_html
    robot = re.search(r'<g id="rb-3-1"[^>]*>', spectator_html).group(0)
    assert " sd" not in robot and "shield" not in robot
    owner_html = client_for(opponent).get(_url("match-detail", shield_up)).content.decode()
    assert " sd dd" in re.search(r'<g id="rb-3-1"[^>]*>', owner_html).group(0)
    assert "Robot 3-1 raised its shield, set to deflect north." in owner_html
    assert "Seat 3 passed." in spectator_html


@pytest.fixture(params=["helium3", "helium3-remake"])
def either_match(request: pytest.FixtureRequest, player: Any, opponent: Any) -> Match:
    """Helium 3's or its remake's match between two people, made as the site makes
    it: the player (seat 1, to move first) and the opponent (seat 3). The page's
    cost holds for both games (the board benchmark measures both)."""
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=request.param
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.ruleset == request.param
    return match


def test_the_match_page_costs_the_same_few_queries_however_many_turns_were_played(
    either_match, player, opponent
):
    client = client_for(player)
    url = _url("match-detail", either_match)

    def first_view_queries() -> tuple[int, str]:
        # A first view: neither the page, the viewer nor the board's parts cached.
        caches["pages"].clear()
        caches["default"].clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        return len(queries), response.content.decode()

    at_start, _ = first_view_queries()
    _play_turns(either_match, player, opponent, 20)
    after_20, html = first_view_queries()
    assert "Turn 19 · seat 3" in html and 'name="turn"' in html
    # 9: session, user, the page's version, match, seats, resolutions, the count of
    # the player's matches waiting for their move (the navigation's badge), the count
    # of challenges waiting for their answer (the navigation's other badge; kept a
    # minute in the cache, cleared here) and the write that records the player's look
    # (at most once a turn).
    assert at_start == after_20 <= 9, (at_start, after_20)


def test_a_turns_board_is_drawn_once_a_process_and_kept_in_its_memory(
    running_match, player, monkeypatch
):
    from dataclasses import replace

    from games import presentation

    shown = presentation.get(running_match.ruleset)
    drawn: list[int] = []

    def board(view: dict[str, Any], **kwargs: Any) -> Any:
        drawn.append(view["turn"])
        return shown.board(view, **kwargs)

    monkeypatch.setitem(presentation._CACHE, running_match.ruleset, replace(shown, board=board))
    caches["pages"].clear()
    caches["default"].clear()
    client = client_for(player)
    url = _url("match-detail", running_match)
    for query in ("", "?history=2"):  # two pages of the same turn, each rendered
        assert client.get(url + query).status_code == 200
    assert drawn == [0]
    # In this process's memory, not the shared cache: no round trip to draw a page.
    kept = [key.split(":", 2)[2] for key in caches["pages"]._cache if ":h3:board:" in key]
    assert len(kept) == 1 and caches["default"].get(kept[0]) is None


def test_the_poll_answers_304_with_one_query_while_nothing_changed(
    either_match, player, django_assert_num_queries
):
    client = client_for(player)
    page = client.get(_url("match-detail", either_match)).content.decode()
    poll = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    with django_assert_num_queries(1):  # the version; the viewer is remembered
        response = client.get(poll, **HTMX)
    assert response.status_code == 304 and response.content == b""


def test_a_view_of_the_unchanged_page_is_one_query_at_any_turn(
    either_match, player, opponent, django_assert_num_queries
):
    client = client_for(player)
    url = _url("match-detail", either_match)
    for turns in (0, 20):
        _play_turns(either_match, player, opponent, turns)
        client.get(url)
        with django_assert_num_queries(1):  # the version; page and viewer are cached
            response = client.get(url)
        assert response.status_code == 200 and 'name="turn"' in response.content.decode()
    assert either_match.turn_number == 20


def test_after_a_turn_the_poll_brings_the_panel_history_and_a_movie_of_the_viewers_copy(
    running_match, player, opponent
):
    client = client_for(player)
    page = client.get(_url("match-detail", running_match)).content.decode()
    poll = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    _pass(running_match, player, 0)
    services.orders_submit(
        match_id=running_match.pk,
        user=opponent,
        turn=1,
        actions=[{"robot": "3-1", "type": "shield", "to": [17, 16], "deflect": "N"}],
    )
    drain(running_match, emails=False)
    response = client.get(poll, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    for part in ('id="panel"', 'id="history"', 'id="orders"', 'id="movie"'):
        assert part in html and "hx-swap-oob" in html
    movie = json.loads(
        re.search(r'<script type="application/json">(.*?)</script>', html, re.S).group(1)
    )
    assert [t["number"] for t in movie["turns"]] == [0, 1]
    types = [e["type"] for e in movie["turns"][1]["events"]]
    assert "moved" in types and "shielded" not in types
    assert "deflect" not in json.dumps(movie)
    assert "your move" in html and 'id="hints"' in html


def test_the_poll_of_a_private_match_refuses_an_outsider(db, player, spectator):
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, bots=["random"], public=False
    )
    url = _url("match-poll", match) + "?v=x&since=0"
    assert client_for(spectator).get(url).status_code == 403
    assert Client().get(url).status_code == 403
    assert client_for(player).get(url, **HTMX).status_code == 200


def test_anyone_may_follow_a_public_match(db, player):
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    response = Client().get(_url("match-poll", match) + "?since=0", **HTMX)
    assert response.status_code == 200 and 'id="panel"' in response.content.decode()


@pytest.mark.parametrize("query", ["?since=abc&v=", "?since=-5", "?since=99999999999", ""])
def test_bad_poll_parameters_are_not_an_error(running_match, player, query):
    assert client_for(player).get(_url("match-poll", running_match) + query).status_code == 200


def test_older_turns_are_paged(running_match, player, opponent):
    _play_turns(running_match, player, opponent, 11)
    client = client_for(player)
    first = client.get(_url("match-detail", running_match)).content.decode()
    assert "Turn 10 · seat 1" in first and "Turn 2 · seat 1" not in first
    assert "Older turns" in first
    older = client.get(_url("match-history", running_match) + "?page=2", **HTMX).content.decode()
    assert "Turn 2 · seat 1" in older and "Turn 0 · seat 1" in older and "Turn 10" not in older
    assert "Newer turns" in older
    plain = client.get(_url("match-history", running_match) + "?page=2")
    assert plain.status_code == 302 and plain["Location"].endswith("?history=2#history")
    full = client.get(_url("match-detail", running_match) + "?history=2").content.decode()
    assert "Turn 2 · seat 1" in full
    assert client.get(_url("match-detail", running_match) + "?history=x").status_code == 200


def test_hints_for_the_second_action_or_the_engines_refusal(running_match, player, opponent):
    client = client_for(player)
    url = _url("match-hints", running_match)
    first = json.dumps({"robot": "1-3", "type": "move", "to": [0, 5]})
    answer = client.get(url, {"first": first})
    assert answer.status_code == 200 and "1-3" not in answer.json()["robots"]
    refused = client.get(url, {"first": json.dumps({"robot": "1-3", "type": "move", "to": [9, 9]})})
    assert refused.status_code == 400
    assert refused.json()["error"] == {
        "code": "out_of_range",
        "message": "A move moves at most 6 cells; [9, 9] is 9 away.",
        "action": 0,
    }
    for garbage in ("{", "[]", '"x"', "1e999", "[" * 5000, '{"robot": null}'):
        assert client.get(url, {"first": garbage}).status_code == 400
    assert client_for(opponent).get(url).status_code == 409
    assert client.get(url).status_code == 200


def test_hints_are_for_players_only(running_match, spectator):
    assert client_for(spectator).get(_url("match-hints", running_match)).status_code == 403


def test_a_past_turn_is_replayed_from_the_viewers_copy(shield_up, player, opponent):
    url = _url("match-turn-movie", shield_up, 1)
    theirs = client_for(player).get(url).content.decode()
    assert "shielded" not in theirs and '<template class="mv-start">' in theirs
    own = client_for(opponent).get(url).content.decode()
    assert "shielded" in own
    assert client_for(player).get(_url("match-turn-movie", shield_up, 7)).status_code == 404


@pytest.fixture
def finished(db, player) -> Match:
    """A short bot match the player watches, played to its end."""
    match = services.match_create(
        creator=player, seat_count=2, length_ms=20_000, bots=["fighter", "miner"]
    )
    drain(match, emails=False)
    assert match.status == Match.Status.FINISHED
    return match


def test_the_replay_page_plays_a_finished_match_and_offers_its_file(finished, spectator):
    response = client_for(spectator).get(_url("match-replay-page", finished))
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        '<svg class="board"' in html and f'data-record="/matches/{finished.pk}/replay.json"' in html
    )
    turn_ms = json.loads(
        re.search(r'id="replay-turn-ms" type="application/json">(.*?)<', html).group(1)
    )
    record = client_for(spectator).get(_url("match-replay", finished)).json()
    assert len(turn_ms) == len(record["turns"]) and all(ms >= 5000 for ms in turn_ms)
    assert "Download the replay file" in html


def test_the_replay_page_waits_for_the_end(running_match, player):
    assert client_for(player).get(_url("match-replay-page", running_match)).status_code == 404


def test_a_finished_match_shows_the_replay_links_and_every_shield(finished, player):
    html = client_for(player).get(_url("match-detail", finished)).content.decode()
    assert "The match is over." in html and "Watch the replay" in html
    assert 'id="poll"></div>' in html  # nothing left to poll for


def _static_gzip_size(path: str) -> int:
    found = finders.find(path)
    assert found, path
    return len(gzip.compress(Path(found).read_bytes(), 9))


def test_the_match_page_with_its_script_and_styles_weighs_under_100_kb(
    running_match, player, opponent
):
    _play_turns(running_match, player, opponent, 12)
    sent = client_for(player).get(_url("match-detail", running_match), HTTP_ACCEPT_ENCODING="gzip")
    assert sent["Content-Encoding"] == "gzip"
    html = gzip.decompress(sent.content)
    assets = re.findall(rb'(?:src|href)="/static/([^"]+)"', html)
    assert {a.decode() for a in assets} >= {
        "games/board.js",
        "games/board.css",
        "games/vendor/htmx-2.0.10.min.js",
    }
    assert not re.search(rb'(?:src|href)="(?:https?:)?//', html), "everything is served by the site"
    # What goes over the wire: the page gzipped as the site sends it to a browser, the
    # static files gzipped as WhiteNoise serves them.
    total = len(sent.content) + sum(_static_gzip_size(a.decode()) for a in assets)
    assert total < 100_000, total


def test_the_replay_pages_legend_lists_only_the_seats_of_the_match(finished, spectator):
    html = client_for(spectator).get(_url("match-replay-page", finished)).content.decode()
    legends = re.findall(r'<details class="legend[^"]*">.*?</details>', html, re.S)
    assert legends, "no legend"
    for legend in legends:
        assert [int(n) for n in re.findall(r"Seat (\d):", legend)] == [1, 3]
