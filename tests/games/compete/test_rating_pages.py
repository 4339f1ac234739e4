"""Where players see ratings: each seat's change beside its place at the end of a
rated match, the leaderboard of a game (filters, the viewer's own row, an indexed
query) and the profiles (a person's player page, a built-in bot's page)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from compete_support import rps_match
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from game_factories import UserFactory
from site_support import client_for

from games import services
from games.compete import selectors, views
from games.compete.models import Kind, Rating, RatingChange

pytestmark = pytest.mark.django_db


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_the_end_screen_shows_each_seats_rating_change_beside_its_place(player, opponent):
    match = rps_match([player, opponent], ["paper", "rock"])
    won = RatingChange.objects.get(match=match, seat=1)
    lost = RatingChange.objects.get(match=match, seat=2)
    assert won.delta > 0 > lost.delta
    html = _page(client_for(opponent), reverse("games:match-detail", args=[match.pk]))
    row = re.search(r'<tr[^>]*data-seat="1".*?</tr>', html, re.S)
    assert row is not None and 'class="rating-change up"' in row.group(0)
    assert f'<span class="vh">rating </span>+{won.delta}</small>' in row.group(0)
    assert f"Rating 1500 → {won.rating_after}" in row.group(0)
    other = re.search(r'<tr[^>]*data-seat="2".*?</tr>', html, re.S)
    assert other is not None and f">{lost.delta}</small>" in other.group(0)


def test_a_casual_match_end_shows_no_change(player, opponent):
    match = rps_match([player, opponent], ["paper", "rock"], rated=False)
    html = _page(client_for(player), reverse("games:match-detail", args=[match.pk]))
    assert "rating-change" not in html and "You won" in html


def _rating(game: str, name: str, mu: float, sigma: float = 2.0, **kw: Any) -> Rating:
    fields: dict[str, Any] = {"kind": Kind.PERSON, "matches": 7,
                              "last_played_at": timezone.now(), **kw}  # fmt: skip
    if name.startswith("bot:"):
        fields.update(bot=name[4:], kind=Kind.BUILTIN_BOT)
    else:
        fields["user"] = UserFactory(username=name)
    return Rating.objects.create(
        game=game, mu=mu, sigma=sigma, conservative=mu - 3 * sigma, **fields
    )


def _board_names(html: str) -> list[str]:
    return re.findall(r'<tr[^>]*data-player="([^"]+)"', html)


def test_the_leaderboard_ranks_people_and_bots_with_filters(player):
    _rating("helium3", "ann", 35.0)
    _rating("helium3", "bot:miner", 33.0)
    _rating("helium3", "robo", 31.0, kind=Kind.API_BOT)
    _rating("helium3", "newbie", 45.0, sigma=6.0)  # provisional
    _rating("helium3", "away", 45.0, last_played_at=timezone.now() - timedelta(days=100))
    _rating("halite", "elsewhere", 45.0)
    url = reverse("compete:leaderboard", args=["helium3"])
    html = _page(Client(), url)
    assert _board_names(html) == ["ann", "bot:miner", "robo"]
    assert "built-in bot" in html and "API bot" in html
    assert "1900" in html  # ann: 1500 + 40 * 10
    assert _board_names(_page(Client(), url + "?show=people")) == ["ann"]
    assert _board_names(_page(Client(), url + "?show=bots")) == ["bot:miner"]
    assert _board_names(_page(Client(), url + "?show=api-bots")) == ["robo"]


def test_the_viewers_own_row_is_shown_even_off_the_page(player, monkeypatch):
    monkeypatch.setattr(views, "PER_PAGE", 2)
    for i in range(3):
        _rating("helium3", f"top{i}", 40.0 - i)
    Rating.objects.create(game="helium3", user=player, kind=Kind.PERSON, mu=30.0, sigma=2.0,
                          conservative=24.0, matches=3, last_played_at=timezone.now())  # fmt: skip
    html = _page(client_for(player), reverse("compete:leaderboard", args=["helium3"]))
    assert _board_names(html) == ["top0", "top1", "alice"]
    mine = re.search(r'<tr class="me" data-player="alice">.*?</tr>', html, re.S)
    assert (
        mine is not None and '<td class="num">4</td>' in mine.group(0) and "(you)" in mine.group(0)
    )
    # On the people's filter too, with the rank among people; not among the bots.
    url = reverse("compete:leaderboard", args=["helium3"])
    people = _page(client_for(player), url + "?show=people")
    assert _board_names(people) == ["top0", "top1", "alice"] and "(you)" in people
    assert "alice" not in _board_names(_page(client_for(player), url + "?show=api-bots"))
    # Provisional: still shown to its player, without a rank.
    Rating.objects.filter(user=player).update(sigma=7.0)
    html = _page(client_for(player), reverse("compete:leaderboard", args=["helium3"]))
    assert _board_names(html)[-1] == "alice" and "1700?" in html


@pytest.mark.parametrize("url", ["/games/chess/leaderboard/", "/games/helium3/leaderboard/?show=x"])
def test_a_leaderboard_that_does_not_exist_is_a_404(url):
    assert Client().get(url).status_code == 404


@pytest.mark.parametrize(
    ("kind", "index"), [("", "rating_board"), (Kind.PERSON, "rating_board_kind")]
)
def test_the_leaderboard_is_read_through_its_index_in_rank_order(kind, index):
    board = selectors.leaderboard("helium3", kind)[:50]
    sql, params = board.query.sql_with_params()
    used = re.compile(rf"\b{index}\b(?!_)")
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = " ".join(str(row) for row in cursor.fetchall())
            assert used.search(plan) and "TEMP B-TREE" not in plan, plan
        else:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + sql, params)
            plan = " ".join(row[0] for row in cursor.fetchall())
            assert used.search(plan) and "Sort" not in plan, plan


def test_a_rank_is_the_place_on_the_leaderboard_with_ties_by_the_older_rating(player):
    # Equal scores (mu - 3 sigma) rank by id: the older rating first.
    for i, mu in enumerate([36.0, 34.0, 34.0, 34.0, 30.0, 29.0]):
        _rating("helium3", f"p{i}", mu, kind=Kind.API_BOT if i % 2 else Kind.PERSON)
    _rating("helium3", "bot:miner", 34.0)
    off = _rating("helium3", "newbie", 45.0, sigma=6.0)
    for kind in ("", Kind.PERSON, Kind.API_BOT, Kind.BUILTIN_BOT):
        board = list(selectors.leaderboard("helium3", kind))
        assert [selectors.leaderboard_rank(r, kind) for r in board] == list(
            range(1, len(board) + 1)
        )
    names = [r.user.username if r.user else r.bot for r in selectors.leaderboard("helium3")]
    assert names == ["p0", "p1", "p2", "p3", "miner", "p4", "p5"]
    assert selectors.leaderboard_rank(off) is None
    first = Rating.objects.get(bot="miner")
    assert (
        selectors.leaderboard_rank(first) == 5
        and selectors.leaderboard_rank(first, Kind.PERSON) is None
    )


@pytest.mark.parametrize(
    ("kind", "index"), [("", "rating_board"), (Kind.PERSON, "rating_board_kind")]
)
def test_a_rank_counts_the_ratings_ahead_in_one_range_of_the_leaderboard_index(kind, index):
    rating = _rating("helium3", "ann", 30.0)
    board = selectors.leaderboard("helium3", kind).filter(selectors._ahead_of(rating))
    sql, params = board.values("pk").query.sql_with_params()
    sql = f"SELECT COUNT(*) FROM ({sql}) ahead"
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = " ".join(str(row) for row in cursor.fetchall())
            assert re.search(rf"\b{index}\b(?!_)", plan), plan
        else:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + sql, params)
            plan = " ".join(row[0] for row in cursor.fetchall())
            # One range of the index, bounded by the score: no OR of two bitmap scans.
            assert re.search(rf"using {index}\b(?!_)", plan, re.I), plan
            assert "BitmapOr" not in plan and "conservative >=" in plan, plan


def test_the_player_page_shows_each_games_rating_its_chart_and_last_rated_matches(player, opponent):
    first = rps_match([player, opponent], ["paper", "rock"])
    second = rps_match([player, opponent], ["rock", "paper"])
    html = _page(Client(), reverse("games:player", args=["alice"]))
    rating = Rating.objects.get(user=player)
    assert rating.text in html and "2 rated matches" in html
    assert '<svg class="rating-chart"' in html and "<polyline" in html
    chart = re.search(r'<svg class="rating-chart".*?</svg>', html, re.S)
    assert chart is not None and chart.group(0).count("<circle") == 3  # before, 1st, 2nd
    rows = re.findall(r'<tr data-match="(\d+)">', html)
    assert rows == [str(second.pk), str(first.pk)]
    change = RatingChange.objects.get(match=second, seat=1)
    assert f">{change.delta}</small>" in html


def test_a_player_without_rated_matches_says_so(player):
    assert "No rated match yet." in _page(Client(), reverse("games:player", args=["alice"]))


def test_a_built_in_bot_has_a_profile(player):
    match = rps_match([player], ["paper"], bots=["rock"], rated=True)
    html = _page(Client(), reverse("compete:bot", args=["rock"]))
    assert "<h1>bot:rock</h1>" in html and '<svg class="rating-chart"' in html
    assert f'data-match="{match.pk}"' in html
    assert Client().get("/players/bot:skynet/").status_code == 404


def test_a_page_without_a_match_shows_no_change():
    from django.template import Context, Template

    page = Template(
        "{% load compete %}{% match_rating_changes match as c %}[{% rating_delta c 1 %}]"
    )
    assert page.render(Context({})) == "[]"


def test_the_running_match_page_asks_nothing_of_the_ratings(
    player, opponent, django_assert_num_queries
):
    match = services.match_create(creator=player, seat_count=2, ruleset="rps")
    services.seat_join(match_id=match.pk, user=opponent)
    client = client_for(player)
    url = reverse("games:match-detail", args=[match.pk])
    client.get(url)
    from django.db import connection as conn
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(conn) as queries:
        assert client.get(url).status_code == 200
    # The frame's count of challenges comes with the page's version; no rating is read.
    ratings = ("compete_rating", "compete_ratingchange")
    assert not any(table in q["sql"] for q in queries.captured_queries for table in ratings), (
        queries.captured_queries
    )


def test_a_leaderboard_page_takes_the_same_queries_for_few_rows_or_many(
    player, django_assert_max_num_queries
):
    url = reverse("compete:leaderboard", args=["helium3"])
    client = client_for(player)
    Rating.objects.create(game="helium3", user=player, kind=Kind.PERSON, mu=20.0, sigma=2.0,
                          conservative=14.0, matches=3, last_played_at=timezone.now())  # fmt: skip
    for i in range(30):
        _rating("helium3", f"p{i}", 40.0 - i / 10)
    # Session and user, the page's count and rows, the viewer's rating and rank.
    with django_assert_max_num_queries(8):
        html = _page(client, url)
    assert len(_board_names(html)) == 31


def test_the_admin_lists_ratings_and_changes_read_only(player, opponent):
    rps_match([player, opponent], ["paper", "rock"])
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = client_for(staff)
    for name in ("rating", "ratingchange"):
        listing = client.get(reverse(f"admin:compete_{name}_changelist"))
        assert listing.status_code == 200 and "alice" in listing.content.decode()
        assert client.get(reverse(f"admin:compete_{name}_add")).status_code == 403


def _seat_ratings(html: str) -> list[str]:
    return re.findall(r'<small class="seat-rating" title="Rating">([^<]+)</small>', html)


def test_lobby_and_watch_cards_show_ratings_next_to_names(player, opponent):
    rps_match([player, opponent], ["paper", "rock"])
    alice, bob = Rating.objects.get(user=player), Rating.objects.get(user=opponent)
    running = services.match_create(creator=player, seat_count=2, ruleset="rps")
    services.seat_join(match_id=running.pk, user=opponent)
    lobby = _page(client_for(player), reverse("games:lobby"))
    # The running match and the finished one: alice's and bob's ratings on each.
    assert sorted(_seat_ratings(lobby)) == sorted([alice.text, bob.text] * 2)
    assert "· rated" in lobby
    watch = _page(Client(), reverse("games:watch"))
    assert _seat_ratings(watch) == [alice.text, bob.text]


def test_the_cards_ratings_take_one_query_however_many_cards(player, opponent):
    def count() -> int:
        from django.test.utils import CaptureQueriesContext

        client = client_for(player)
        with CaptureQueriesContext(connection) as queries:
            _page(client, reverse("games:lobby"))
        return sum(1 for q in queries.captured_queries if "compete_rating" in q["sql"])

    rps_match([player, opponent], ["paper", "rock"])
    assert count() == 1
    for _ in range(3):
        rps_match([player, opponent], ["rock", "paper"])
        services.match_create(creator=opponent, seat_count=2, ruleset="rps")
    assert count() == 1
