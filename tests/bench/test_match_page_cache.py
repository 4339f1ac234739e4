"""The match page's cache (games/views/match.py, selectors.match_page_version): what the
board benchmark's figures rest on. A view of an unchanged page is served from the
cache in one query (the viewer remembered for the session: games/viewers.py); anything that changes the page changes the key; a viewer
never gets another's page; a CSRF token is always the request's own. Each holds for
Helium 3 and for its remake.

Here rather than in tests/games/ because it belongs with the benchmark that drove it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import selectors, services, viewers
from games.models import Match, Turn

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def empty_cache() -> Any:
    caches["pages"].clear()
    yield
    caches["pages"].clear()


@pytest.fixture
def people(db: None) -> dict[str, User]:
    return {
        name: User.objects.create_user(name, f"{name}@example.org", "pw-" + name * 3)
        for name in ("alice", "bob", "carol")
    }


# Every test runs for Helium 3 and for its remake: the page cache is the platform's,
# and each game's page must stay as cheap (the board benchmark's `--ruleset`). Each
# game's page links its own rules page, which tells that the page served is that game's.
RULES_LINK = {"helium3": 'href="/rules/"', "helium3-remake": 'href="/games/helium3-remake/"'}
RULESETS = tuple(RULES_LINK)


@pytest.fixture(params=RULESETS)
def match(request: pytest.FixtureRequest, people: dict[str, User]) -> Match:
    """Alice (seat 1, to move) against Bob (seat 3), public."""
    match = services.match_create(
        creator=people["alice"], seat_count=2, turn_seconds=3600, ruleset=request.param
    )
    services.seat_join(match_id=match.pk, user=people["bob"])
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.ruleset == request.param
    return match


def client_for(user: User, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def url(match: Match) -> str:
    return reverse("games:match-detail", args=[match.pk])


def without_csrf(html: str) -> str:
    return CSRF.sub("", html)


def test_a_second_view_of_an_unchanged_page_is_the_same_page_in_one_query(
    match, people, django_assert_num_queries
):
    client = client_for(people["alice"])
    first = client.get(url(match))
    with django_assert_num_queries(1):  # the version; the viewer is remembered
        second = client.get(url(match))
    assert second.status_code == 200
    assert without_csrf(second.content.decode()) == without_csrf(first.content.decode())
    assert 'name="turn"' in second.content.decode()
    assert RULES_LINK[match.ruleset] in second.content.decode()


def test_a_cached_page_carries_a_fresh_token_that_the_orders_post_accepts(match, people):
    client = client_for(people["alice"], enforce_csrf_checks=True)
    first = client.get(url(match)).content.decode()
    second = client.get(url(match)).content.decode()
    tokens = set(CSRF.findall(second))
    assert tokens and tokens.isdisjoint(CSRF.findall(first))
    posted = client.post(
        reverse("games:match-orders", args=[match.pk]),
        {"turn": 0, "actions_json": "[]", "csrfmiddlewaretoken": tokens.pop()},
    )
    assert posted.status_code == 302


def test_each_viewer_gets_their_own_page(match, people):
    pages = {}
    for name in ("alice", "bob", "carol"):
        client = client_for(people[name])
        client.get(url(match))
        pages[name] = client.get(url(match)).content.decode()
    assert 'name="turn"' in pages["alice"]
    assert 'name="turn"' not in pages["bob"] and 'name="turn"' not in pages["carol"]
    assert "Log out alice" in pages["alice"] and "Log out carol" in pages["carol"]
    assert "You play seat 3" in pages["bob"] and "spectator view" in pages["carol"]


def test_orders_accepted_and_a_resolved_turn_each_change_the_page(match, people):
    alice, bob = client_for(people["alice"]), client_for(people["bob"])
    bob.get(url(match))
    services.orders_submit(match_id=match.pk, user=people["alice"], turn=0, actions=[])
    page = bob.get(url(match)).content.decode()
    assert "Orders are in" in page
    services.turn_resolve(match_id=match.pk, number=0)
    page = bob.get(url(match)).content.decode()
    assert 'name="turn"' in page and "Orders are in" not in page
    assert 'name="turn"' not in alice.get(url(match)).content.decode()


def test_a_flash_message_is_shown_once_and_never_stored(match, people):
    client = client_for(people["alice"])
    client.get(url(match))
    posted = client.post(
        reverse("games:match-orders", args=[match.pk]), {"turn": 0, "actions_json": "[]"}
    )
    assert posted.status_code == 302
    assert "Orders accepted" in client.get(url(match)).content.decode()
    assert "Orders accepted" not in client.get(url(match)).content.decode()


def test_a_private_match_stays_private_to_a_cached_page(match, people):
    Match.objects.filter(pk=match.pk).update(public=False)
    client_for(people["alice"]).get(url(match))
    assert client_for(people["carol"]).get(url(match)).status_code == 403
    assert Client().get(url(match)).status_code == 302  # to the login page


def test_a_paused_match_shows_no_deadline_from_the_cache(match, people):
    client = client_for(people["bob"])
    assert "Deadline" in client.get(url(match)).content.decode()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.PAUSED)
    Turn.objects.filter(match=match).update(deadline_at=None)
    assert "The match is paused" in client.get(url(match)).content.decode()


class DownCache:
    def get(self, *args: Any, **kwargs: Any) -> None:
        raise ConnectionError("the cache is down")

    set = get


def test_a_page_cache_that_fails_serves_the_page_all_the_same(match, people, monkeypatch):
    monkeypatch.setattr("games.views.match._page_cache", DownCache)
    client = client_for(people["alice"])
    assert client.get(url(match)).status_code == 200
    assert client.get(url(match)).status_code == 200


def test_the_viewer_is_remembered_per_session_and_forgotten_at_logout(match, people):
    alice = client_for(people["alice"])
    alice.get(url(match))
    # Another browser of the same person is another session, looked up afresh.
    other = client_for(people["alice"])
    with CaptureQueriesContext(connection) as queries:
        other.get(url(match))
    assert len(queries) > 1
    # A logout forgets the session: the same cookie is now nobody's.
    cookie = alice.cookies["sessionid"].value
    alice.post(reverse("account_logout"))
    stolen = Client()
    stolen.cookies["sessionid"] = cookie
    page = stolen.get(url(match)).content.decode()
    assert 'name="turn"' not in page


def test_a_made_up_session_cookie_is_nobody_and_is_not_remembered(match, people):
    stranger = Client()
    for _ in range(2):
        stranger.cookies["sessionid"] = "not-a-session"  # the answer deletes it
        with CaptureQueriesContext(connection) as queries:
            page = stranger.get(url(match))
        assert page.status_code == 200 and 'name="turn"' not in page.content.decode()
        assert any("django_session" in q["sql"] for q in queries)  # looked up every time


def test_the_viewer_memo_stands_for_at_most_its_seconds(match, people, monkeypatch):
    """A user made inactive elsewhere keeps their match page for VIEWER_SECONDS at
    most (the documented cost of not reading the session on every view)."""
    alice = client_for(people["alice"])
    assert 'name="turn"' in alice.get(url(match)).content.decode()
    User.objects.filter(pk=people["alice"].pk).update(is_active=False)
    assert 'name="turn"' in alice.get(url(match)).content.decode()  # remembered
    caches["pages"].clear()  # what VIEWER_SECONDS passing does
    assert 'name="turn"' not in alice.get(url(match)).content.decode()
    assert viewers.VIEWER_SECONDS <= 30


# One page for every spectator of a turn, each seat's page its own (games/frame.py).


def _header(html: str) -> str:
    return html.split('<header class="site-header">', 1)[1].split("</header>", 1)[0]


def test_a_spectator_never_gets_a_seats_page_nor_a_seat_the_spectators(match, people):
    bob, carol = client_for(people["bob"]), client_for(people["carol"])
    bob.get(url(match))
    watched = carol.get(url(match)).content.decode()
    assert "spectator view" in watched and "You play seat" not in watched
    assert 'data-viewer=""' in watched and "(you)" not in watched
    # The other way round: the spectators' page is in the cache, a seat still gets its own.
    caches["pages"].clear()
    carol.get(url(match))
    for name, seat in (("alice", 1), ("bob", 3)):
        played = client_for(people[name]).get(url(match)).content.decode()
        assert f"You play seat {seat}." in played and f'data-viewer="{seat}"' in played
        assert "spectator view" not in played
    assert 'name="turn"' in client_for(people["alice"]).get(url(match)).content.decode()


def test_a_second_spectator_is_served_the_cached_page_with_their_own_frame(match, people):
    dave = User.objects.create_user("dave", "dave@example.org", "pw-davedavedave")
    carol = client_for(people["carol"], enforce_csrf_checks=True)
    first = carol.get(url(match)).content.decode()
    other = client_for(dave, enforce_csrf_checks=True)
    # Dave's session and user (looked up once, then remembered) and the version: the
    # page itself comes from the cache, no match, seat or history read.
    with CaptureQueriesContext(connection) as queries:
        second = other.get(url(match)).content.decode()
    said = [q["sql"] for q in queries]
    # The version query (on PostgreSQL a statement prepared on the connection).
    assert len(said) == 3 and said[2].startswith(("SELECT m.status", "EXECUTE h3_version")), said
    assert "django_session" in said[0] and "auth_user" in said[1]
    assert "Log out dave" in _header(second) and "carol" not in second
    assert "Log out carol" in _header(first) and "dave" not in first
    assert _header(second).replace("dave", "carol").replace(">D<", ">C<") == _header(first).replace(
        CSRF.search(first).group(1), CSRF.search(second).group(1)
    )
    body = second.split("</header>", 1)[1]
    assert without_csrf(body) == without_csrf(first.split("</header>", 1)[1])
    # Dave's token is his own, and his logout form takes it.
    token = CSRF.search(second).group(1)
    assert token not in first
    assert other.post(reverse("account_logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    # A visitor without a session is served the same page, with the visitor's header.
    visitor = Client().get(url(match)).content.decode()
    assert "Log in" in _header(visitor) and "Log out" not in visitor
    assert without_csrf(visitor.split("</header>", 1)[1]) == without_csrf(body)


def test_the_frame_counts_are_fresh_on_a_cached_page(match, people, django_assert_num_queries):
    from games.compete import challenges

    bob = client_for(people["bob"])
    bob.get(url(match))
    bob.get(url(match))
    page = bob.get(url(match)).content.decode()
    assert 'id="move-badge" class="badge" data-count="0"' in page
    assert "<title>Match" in page
    # A match elsewhere starts with Bob to move, and Alice challenges him: the same
    # page of this match (served from the cache) shows both at once.
    services.match_create(creator=people["bob"], seat_count=2, bots=["random"])
    challenges.challenge_create(challenger=people["alice"], to="bob", ruleset="helium3")
    with django_assert_num_queries(1):  # the version, which reads both counts
        page = bob.get(url(match)).content.decode()
    assert 'id="move-badge" class="badge" data-count="1"' in page
    assert "<title>(1) Match" in page
    assert re.search(r'id="challenge-badge" class="badge" data-count="1"', page)


def test_a_first_view_after_a_resolved_turn_makes_few_queries(match, people):
    """The queries of the first view after a turn, the viewer remembered: the version
    (with the frame's counts and the match's row), the player's "seen" write, the
    seats and the history (on PostgreSQL one round trip, two statements); a
    spectator's the same but the write."""
    alice, bob, carol = (client_for(people[n]) for n in ("alice", "bob", "carol"))
    for client in (alice, bob, carol):
        client.get(url(match))
    services.orders_submit(match_id=match.pk, user=people["alice"], turn=0, actions=[])
    services.turn_resolve(match_id=match.pk, number=0)
    counts = {}
    for name, client in (("bob", bob), ("carol", carol)):
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url(match))
        assert page.status_code == 200
        counts[name] = len(queries)
    together = connection.vendor == "postgresql"
    assert counts == ({"bob": 3, "carol": 2} if together else {"bob": 4, "carol": 3}), counts
    # Any other spectator of the new turn (here a visitor): the version only.
    with CaptureQueriesContext(connection) as queries:
        Client().get(url(match))
    assert len(queries) == 1


def _version_fields(version: Any) -> str:
    """Everything a version holds, its instances' values and types included."""
    if version is None:
        return "None"

    def values(instance: Any) -> Any:
        if instance is None:
            return None
        return sorted((k, repr(v)) for k, v in vars(instance).items() if k != "_state")

    return repr(
        (
            values(version.match),
            values(version.turn),
            values(version.seat),
            version.steps,
            version.turn_seat,
            version.moves,
            version.challenges,
            values(version.page_match()),
        )
    )


def _viewer(user: User) -> viewers.Viewer:
    return viewers.Viewer(user.pk, user.is_staff, user.get_username())


def _through_the_cursor(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    return execute(sql, params, many, context)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="libpq's own path is PostgreSQL's")
def test_the_version_read_straight_from_libpq_is_what_the_cursor_reads(match, people):
    """Once its statement is prepared, the version query runs on libpq itself
    (selectors._prepared_fast; an execute wrapper sends it through Django's cursor)."""
    viewers_ = [_viewer(people[n]) for n in ("alice", "carol")]
    Match.objects.filter(pk=match.pk).update(public=False)
    for paused in (False, True):
        if paused:
            Match.objects.filter(pk=match.pk).update(status=Match.Status.PAUSED)
            Turn.objects.filter(match=match).update(deadline_at=None)
        for viewer in [*viewers_, viewers.ANONYMOUS]:
            for match_id in (match.pk, match.pk + 1000):
                selectors.match_page_version(match_id, viewer)  # prepared, if it was not
                fast = selectors.match_page_version(match_id, viewer)
                with connection.execute_wrapper(_through_the_cursor):
                    slow = selectors.match_page_version(match_id, viewer)
                if match_id == match.pk:
                    assert fast is not None and slow is not None
                    assert fast.rest is not None and slow.rest is None
                assert _version_fields(fast) == _version_fields(slow)
    # Each is one query to Django's count, logged as the statement it runs.
    with CaptureQueriesContext(connection) as queries:
        selectors.match_page_version(match.pk, viewers_[0])
    assert [q["sql"][:17] for q in queries] == ["EXECUTE h3_versio"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="libpq's own path is PostgreSQL's")
def test_a_version_statement_gone_is_djangos_error_then_prepared_again(match, people):
    viewer = _viewer(people["alice"])
    selectors.match_page_version(match.pk, viewer)
    expected = _version_fields(selectors.match_page_version(match.pk, viewer))
    try:
        with pytest.raises(DatabaseError), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("DEALLOCATE ALL")
            selectors.match_page_version(match.pk, viewer)
        # A DEALLOCATE outlives the savepoint's rollback: the next view prepares anew.
        assert _version_fields(selectors.match_page_version(match.pk, viewer)) == expected
        assert _version_fields(selectors.match_page_version(match.pk, viewer)) == expected
    finally:
        # The other kinds of viewer's statements went too: the tests after this one,
        # on the same connection, have theirs prepared again.
        connection._h3_prepared.names.clear()
