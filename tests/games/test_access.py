"""Who may do what: a player, an opponent, a spectator and an outsider against
every match URL and method, with CSRF checks enforced; and who of them sees a seat's
secret in each shape of turn (at once, a setup phase, steps, the remake's hidden
shields) before and after its turn resolves."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain, play_out

import engine
from games import services
from games.models import Match, Orders, Seat

ROLES = ["player", "opponent", "spectator", "outsider"]
LOGIN = "/accounts/login/"


def _client(role: str, users: dict[str, Any]) -> Client:
    return client_for(users.get(role), enforce_csrf_checks=True)


def _csrf(client: Client) -> str:
    """A CSRF token the way a browser gets one: from a page with a form."""
    for page in ("games:lobby", "account_login"):
        client.get(reverse(page))
        if "csrftoken" in client.cookies:
            return client.cookies["csrftoken"].value
    raise AssertionError("no page gave a CSRF token")


def _request(client: Client, method: str, url: str, data: dict[str, Any] | None = None) -> Any:
    if method == "GET":
        return client.get(url)
    payload = {"csrfmiddlewaretoken": _csrf(client), **(data or {})}
    return client.post(url, payload)


@pytest.fixture
def users(player, opponent, spectator) -> dict[str, Any]:
    return {"player": player, "opponent": opponent, "spectator": spectator}


@pytest.fixture
def started(player, opponent) -> Match:
    """Running, two people: the player (seat 1, to move) and the opponent (seat 3)."""
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.fixture
def waiting(player, opponent) -> Match:
    """Open, three seats: the player and the opponent seated, one seat free."""
    match = services.match_create(creator=player, seat_count=3, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.fixture
def finished(player, opponent) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, length_ms=5_000, bots=["random"], turn_seconds=60
    )
    for _ in range(200):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            break
        services.orders_submit(match_id=match.pk, user=player, turn=match.turn_number, actions=[])
    assert match.status == Match.Status.FINISHED
    return match


# (url name, method, expected status per role) on a running match.
RUNNING_CASES = [
    # A public match: anyone watches it, signed in or not.
    ("match-detail", "GET", {"player": 200, "opponent": 200, "spectator": 200, "outsider": 200}),
    ("match-detail", "POST", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 405}),
    ("match-orders", "POST", {"player": 302, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-orders", "GET", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 302}),
    ("match-join", "POST", {"player": 409, "opponent": 409, "spectator": 409, "outsider": 302}),
    ("match-join", "GET", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 302}),
    ("match-leave", "POST", {"player": 409, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-leave", "GET", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 302}),
    ("match-reclaim", "POST", {"player": 409, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-reclaim", "GET", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 302}),
    ("match-replay", "GET", {"player": 404, "opponent": 404, "spectator": 404, "outsider": 404}),
    ("match-replay", "POST", {"player": 405, "opponent": 405, "spectator": 405, "outsider": 405}),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "method", "expected"), RUNNING_CASES)
def test_every_url_and_method_of_a_running_match_answers_each_role_as_it_should(
    started, users, role, name, method, expected
):
    client = _client(role, users)
    state_before = Match.objects.get(pk=started.pk).state
    response = _request(client, method, reverse(f"games:{name}", args=[started.pk]), {"turn": 0})
    assert response.status_code == expected[role]
    if response.status_code == 302 and role == "outsider":
        assert response["Location"].startswith(LOGIN)
    accepted = Orders.objects.filter(match=started).exists()
    # Only the player's own orders for its own turn change anything.
    assert accepted == (name == "match-orders" and method == "POST" and role == "player")
    assert Match.objects.get(pk=started.pk).state == state_before


# The live-watching URLs of a running public match (movie: turn 0, played).
WATCHING_CASES = [
    ("match-poll", [], {"player": 200, "opponent": 200, "spectator": 200, "outsider": 200}),
    ("match-history", [], {"player": 302, "opponent": 302, "spectator": 302, "outsider": 302}),
    ("match-turn-movie", [0], {"player": 200, "opponent": 200, "spectator": 200, "outsider": 200}),
    # Hints are for the player on the move (409 for the other, 403 for the rest).
    ("match-hints", [], {"player": 200, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-replay-page", [], {"player": 404, "opponent": 404, "spectator": 404, "outsider": 404}),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "extra", "expected"), WATCHING_CASES)
def test_every_watching_url_of_a_running_match_answers_each_role_as_it_should(
    started, users, player, opponent, role, name, extra, expected
):
    match = _played_one_turn(started, player, opponent)  # seat 1 to move again
    assert match.to_move == 1
    state_before = match.state
    for method in ("GET", "POST"):
        response = _request(
            _client(role, users), method, reverse(f"games:{name}", args=[match.pk, *extra])
        )
        if method == "POST":  # read-only URLs: a POST is refused (or sent to log in)
            assert response.status_code in (302, 403, 405), response.status_code
            continue
        assert response.status_code == expected[role]
        if response.status_code == 302 and role == "outsider" and name == "match-hints":
            assert response["Location"].startswith(LOGIN)
    assert Match.objects.get(pk=match.pk).state == state_before


WAITING_CASES = [
    ("match-detail", "GET", {"player": 200, "opponent": 200, "spectator": 200, "outsider": 200}),
    ("match-orders", "POST", {"player": 409, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-join", "POST", {"player": 409, "opponent": 409, "spectator": 302, "outsider": 302}),
    ("match-leave", "POST", {"player": 302, "opponent": 302, "spectator": 403, "outsider": 302}),
    ("match-reclaim", "POST", {"player": 409, "opponent": 409, "spectator": 403, "outsider": 302}),
    ("match-replay", "GET", {"player": 404, "opponent": 404, "spectator": 404, "outsider": 404}),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "method", "expected"), WAITING_CASES)
def test_every_url_and_method_of_an_open_match_answers_each_role_as_it_should(
    waiting, users, role, name, method, expected
):
    client = _client(role, users)
    seated_before = set(Seat.objects.filter(match=waiting).values_list("user_id", flat=True))
    response = _request(client, method, reverse(f"games:{name}", args=[waiting.pk]), {"turn": 0})
    assert response.status_code == expected[role]
    if response.status_code == 302 and role == "outsider":
        assert response["Location"].startswith(LOGIN)
    seated_after = set(Seat.objects.filter(match=waiting).values_list("user_id", flat=True))
    user = users.get(role)
    if name == "match-join" and role == "spectator":
        assert user.pk in seated_after  # joined, and the full match started
        assert Match.objects.get(pk=waiting.pk).status == Match.Status.RUNNING
    elif name == "match-leave" and role in ("player", "opponent"):
        assert user.pk not in seated_after
    else:
        assert seated_after == seated_before
    assert not Orders.objects.filter(match=waiting).exists()


@pytest.mark.parametrize("role", ROLES)
def test_the_record_of_a_finished_public_match_is_public_to_everyone(finished, users, role):
    response = _client(role, users).get(reverse("games:match-replay", args=[finished.pk]))
    assert response.status_code == 200
    record = response.json()
    assert record["final"] == finished.state and len(record["turns"]) == finished.state["turn"]


def test_an_unknown_match_is_a_404_for_every_url(users):
    client = _client("player", users)
    for name in ("match-detail", "match-replay"):
        assert client.get(reverse(f"games:{name}", args=[999999])).status_code == 404
    for name in ("match-orders", "match-join", "match-leave", "match-reclaim"):
        response = _request(client, "POST", reverse(f"games:{name}", args=[999999]))
        assert response.status_code == 404


@pytest.mark.parametrize(
    ("name", "needs_match"),
    [
        ("match-orders", True),
        ("match-join", True),
        ("match-leave", True),
        ("match-reclaim", True),
        ("match-play-now", False),
        ("match-create", False),
        ("notification-settings", False),
    ],
)
def test_a_post_without_a_csrf_token_is_refused_and_changes_nothing(
    waiting, spectator, name, needs_match
):
    client = client_for(spectator, enforce_csrf_checks=True)
    args = [waiting.pk] if needs_match else []
    matches, seats = Match.objects.count(), Seat.objects.filter(user=spectator).count()
    response = client.post(reverse(f"games:{name}", args=args), {"turn": 0, "seat_count": 2})
    assert response.status_code == 403
    assert Match.objects.count() == matches
    assert Seat.objects.filter(user=spectator).count() == seats


@pytest.mark.parametrize("role", ["player", "opponent", "spectator"])
def test_each_page_is_built_from_that_viewers_engine_view(started, users, role):
    # Give the opponent's robot a secret: a raised shield with a deflect direction.
    state = started.state
    robot = next(r for r in state["robots"] if r["seat"] == 3)
    robot.update(active=True, shield=True, deflect="NW")
    Match.objects.filter(pk=started.pk).update(state=state)
    seat = {"player": 1, "opponent": 3, "spectator": None}[role]

    response = _client(role, users).get(reverse("games:match-detail", args=[started.pk]))
    page = response.context["page"]
    assert page.view == engine.view(state, seat)
    assert "seed" not in page.view
    shown = next(r for r in page.view["robots"] if r["id"] == robot["id"])
    assert ("shield" in shown) == (role == "opponent")
    html = response.content.decode()
    assert ("shield NW" in html) == (role == "opponent")


def test_the_forms_send_an_outsider_to_the_login_page(db):
    # The lobby's address is the visitor's home page and "Play now" makes a guest
    # (tests/games/test_home.py, test_guests.py).
    client = Client()
    for name in ("match-create", "notification-settings"):
        response = client.get(reverse(f"games:{name}"))
        assert response.status_code == 302 and response["Location"].startswith(LOGIN)
    assert not Match.objects.exists()


def test_the_events_on_each_page_are_that_viewers_copy(started, users):
    services.orders_submit(match_id=started.pk, user=users["player"], turn=0, actions=[])
    drain(started, emails=False)
    services.orders_submit(
        match_id=started.pk,
        user=users["opponent"],
        turn=1,
        actions=[{"robot": "3-1", "type": "shield", "deflect": "N"}],
    )
    drain(started, emails=False)
    seen = {}
    for role in ("player", "opponent", "spectator"):
        page = _client(role, users).get(reverse("games:match-detail", args=[started.pk]))
        turns = page.context["page"].recent_turns
        assert [t["number"] for t in turns] == [1, 0]
        seen[role] = [e["type"] for e in turns[0]["events"]]
    assert "shielded" in seen["opponent"]
    assert "shielded" not in seen["player"] and "shielded" not in seen["spectator"]


def _played_one_turn(match: Match, player: Any, opponent: Any) -> Match:
    for user in (player, opponent):
        match.refresh_from_db()
        services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, actions=[])
        drain(match, emails=False)
    match.refresh_from_db()
    assert match.turn_number >= 1
    return match


LIVE_URLS = [
    ("match-detail", {}, {}),
    ("match-poll", {"since": "0", "v": "stale"}, {}),
    ("match-history", {"page": "1"}, {"HTTP_HX_REQUEST": "true"}),
    ("match-turn-movie", {}, {"HTTP_HX_REQUEST": "true"}),
]


@pytest.mark.parametrize(("name", "query", "headers"), LIVE_URLS)
def test_an_anonymous_visitor_follows_a_public_match_live_and_sees_no_shield(
    started, player, opponent, name, query, headers
):
    match = _played_one_turn(started, player, opponent)
    state = match.state
    robot = next(r for r in state["robots"] if r["seat"] == 3)
    robot.update(active=True, shield=True, deflect="NW")
    Match.objects.filter(pk=match.pk).update(state=state)
    args = [match.pk, 0] if name == "match-turn-movie" else [match.pk]

    response = Client().get(reverse(f"games:{name}", args=args), query, **headers)

    assert response.status_code == 200
    body = response.content.decode()
    secrets = ('data-d="NW"', "shield NW", '"deflect": "NW"', '"shield": true')
    assert not [secret for secret in secrets if secret in body]
    if name in ("match-detail", "match-poll"):  # the owner's own page shows it
        own = client_for(opponent).get(reverse(f"games:{name}", args=args), query, **headers)
        assert [secret for secret in secrets if secret in own.content.decode()]


@pytest.mark.parametrize(("name", "query", "headers"), LIVE_URLS)
def test_an_anonymous_visitor_cannot_follow_a_private_match(player, opponent, name, query, headers):
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, public=False)
    services.seat_join(match_id=match.pk, user=opponent)
    match = _played_one_turn(match, player, opponent)
    args = [match.pk, 0] if name == "match-turn-movie" else [match.pk]

    response = Client().get(reverse(f"games:{name}", args=args), query, **headers)

    assert response.status_code in (302, 403)
    if response.status_code == 302:
        assert response["Location"].startswith(LOGIN)
    # Nothing of the match (its robots); the site's name ("Robot Turns") and the
    # footer, which names its games (one of them the robot arena), aside.
    page = response.content.decode().split('<footer class="site-footer">')[0]
    assert "robot" not in page.replace(settings.SITE_NAME, "").lower()


# A turn at once (the test ruleset rps): the player's stored orders are a secret
# from every other viewer, on every live URL, until the turn resolves.
SIMULTANEOUS_URLS = [
    ("match-detail", {}, {}),
    ("match-poll", {"since": "0", "v": "stale"}, {}),
    ("match-history", {"page": "1"}, {"HTTP_HX_REQUEST": "true"}),
]


@pytest.mark.parametrize("role", ["opponent", "spectator", "outsider"])
def test_a_seats_stored_simultaneous_orders_show_to_no_other_viewer_until_the_turn_resolves(
    player, opponent, users, role
):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", options={"rounds": 3}, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    client = _client(role, users)

    def scissors() -> list[int]:
        """How often each answer says "scissors" (the game's name says it too)."""
        shown = []
        for name, query, headers in SIMULTANEOUS_URLS:
            response = client.get(reverse(f"games:{name}", args=[match.pk]), query, **headers)
            assert response.status_code in (200, 302), (name, response.status_code)
            shown.append(response.content.decode().count("scissors"))
        if role != "outsider":
            api = _api_client(users[role])
            for path in ("", "history/"):
                response = api.get(f"/api/v1/matches/{match.pk}/{path}")
                assert response.status_code == 200
                shown.append(response.content.decode().count("scissors"))
        return shown

    before = scissors()
    services.orders_submit(match_id=match.pk, user=player, turn=0, orders={"throw": "scissors"})
    for cache in caches.all():  # the pages drawn afresh, not the ones cached before
        cache.clear()
    assert scissors() == before
    # The player's own orders are the player's: the API gives them back.
    own = _api_client(player).get(f"/api/v1/matches/{match.pk}/").json()
    assert own["your_orders"]["throw"] == "scissors"
    # Resolved, the throws are in the state everyone sees (the check above can fail).
    services.orders_submit(match_id=match.pk, user=opponent, turn=0, orders={"throw": "rock"})
    drain(match, emails=False)
    assert sum(scissors()) > sum(before)


def _api_client(user: Any) -> Client:
    from games.services.tokens import token_create

    return Client(headers={"Authorization": f"Bearer {token_create(user=user, name='bot')[1]}"})


# --- secrets of every turn shape: who sees a seat's secret, before and after -----------

# The live URLs a viewer follows a match by (the movie of the first turn), and, signed
# in, the bot API's state and history: where a secret could show.
SECRET_URLS = [
    ("match-detail", [], {}, {}),
    ("match-poll", [], {"since": "0", "v": "stale"}, {}),
    ("match-history", [], {"page": "1"}, {"HTTP_HX_REQUEST": "true"}),
    ("match-turn-movie", [0], {}, {"HTTP_HX_REQUEST": "true"}),
]


def _times_shown(match: Match, role: str, users: dict[str, Any], secret: re.Pattern[str]) -> int:
    """How often the secret shows in every answer of the live URLs (and the API, for a
    signed-in role) to `role`, each page drawn afresh (no page cached before)."""
    for cache in caches.all():
        cache.clear()
    client = _client(role, users)
    bodies = []
    for name, extra, query, headers in SECRET_URLS:
        url = reverse(f"games:{name}", args=[match.pk, *extra])
        response = client.get(url, query, **headers)
        assert response.status_code in (200, 302, 404), (name, response.status_code)
        bodies.append(response.content.decode())
    if role != "outsider":
        api = _api_client(users[role])
        for path in ("", "history/"):
            response = api.get(f"/api/v1/matches/{match.pk}/{path}")
            assert response.status_code == 200, (path, response.status_code)
            bodies.append(response.content.decode())
    return sum(len(secret.findall(body)) for body in bodies)


def _duel(player: Any, opponent: Any, ruleset: str, **options: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, ruleset=ruleset, options=options, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


# A setup phase at once (the test ruleset race): the player's head start, stored, shows
# to nobody else until every seat's is in and the setup resolves; then to everyone.
# (role, shown once stored, shown once resolved)
SETUP_ROWS = [
    ("player", True, True),
    ("opponent", False, True),
    ("spectator", False, True),
    ("outsider", False, True),
]
HEAD_START = re.compile(r"head.start", re.IGNORECASE)


@pytest.mark.parametrize(("role", "stored", "resolved"), SETUP_ROWS)
def test_a_seats_setup_orders_show_only_to_it_until_the_setup_resolves(
    player, opponent, users, role, stored, resolved
):
    match = _duel(player, opponent, "race")
    assert match.state is not None and match.state["phase"] == "setup"
    assert _times_shown(match, role, users, HEAD_START) == 0
    services.orders_submit(match_id=match.pk, user=player, turn=0, orders={"head_start": 3})
    assert (_times_shown(match, role, users, HEAD_START) > 0) == stored
    services.orders_submit(match_id=match.pk, user=opponent, turn=0, orders={"head_start": 1})
    drain(match, emails=False)
    assert match.state is not None and match.state["phase"] == "race"
    assert (_times_shown(match, role, users, HEAD_START) > 0) == resolved


# A turn of several steps (the test ruleset dig): each step resolves at once. The
# player's step right is public, but another viewer learns of it only once the turn
# has ended (games/history.py); what its scan found is in its view and its copy of
# the events only (the ruleset's view), through the end of its turn, until the match
# is over. (role, the move shown: during the turn, after it; the scan's count shown:
# after the scan step, after the turn, after the end)
STEP_ROWS = [
    ("player", (True, True), (True, True, True)),
    ("opponent", (False, True), (False, False, True)),
    ("spectator", (False, True), (False, False, True)),
    ("outsider", (False, True), (False, False, True)),
]
# The scan event's count, and the player's list of scans ([cell, count]) in a view.
SCAN_FOUND = re.compile(r'\bnear\b|(?:&quot;|")1(?:&quot;|"): \[\[')
# Its fields in the order the database gives them back (PostgreSQL's JSONB reorders keys).
STEP_RIGHT = re.compile(r"Right: (?:seat 1, to 1|to 1, seat 1)\.")


def _step(match: Match, user: Any, action: str) -> None:
    match.refresh_from_db()
    assert match.state is not None
    services.orders_submit(
        match_id=match.pk,
        user=user,
        turn=match.turn_number,
        orders={"step_no": match.state["step"], "action": action},
    )
    drain(match, emails=False)


@pytest.mark.parametrize(("role", "moved", "found"), STEP_ROWS)
def test_a_seats_steps_and_what_they_find_show_as_the_rulesets_view_says(
    player, opponent, users, role, moved, found
):
    match = _duel(player, opponent, "dig")
    assert _times_shown(match, role, users, SCAN_FOUND) == 0
    assert _times_shown(match, role, users, STEP_RIGHT) == 0
    _step(match, player, "right")
    _step(match, player, "scan")
    assert match.state is not None and match.state["to_move"] == 1 and match.state["step"] == 2
    assert match.state["scans"]["1"], "the scan is in the state"
    seen_move = [_times_shown(match, role, users, STEP_RIGHT) > 0]
    shown = [_times_shown(match, role, users, SCAN_FOUND) > 0]
    _step(match, player, "end")
    assert match.state is not None and match.state["to_move"] == 2
    seen_move.append(_times_shown(match, role, users, STEP_RIGHT) > 0)
    assert tuple(seen_move) == moved
    shown.append(_times_shown(match, role, users, SCAN_FOUND) > 0)
    play_out(match)
    assert match.status == Match.Status.FINISHED
    shown.append(_times_shown(match, role, users, SCAN_FOUND) > 0)
    assert tuple(shown) == found


# The remake: the player's shield (raised in place) and its deflect (a later turn's
# action) show to nobody else on the page, poll, history, movie or API, neither while
# the orders wait to be resolved nor after, until the match is over. A turn of one
# seat's shows its orders to nobody, the player included, before it resolves.
# (role, shown: shield accepted, shield resolved, deflect accepted, deflect resolved, over)
REMAKE_ROWS = [
    ("player", (False, True, True, True, True)),
    ("opponent", (False, False, False, False, True)),
    ("spectator", (False, False, False, False, True)),
    ("outsider", (False, False, False, False, True)),
]
SHIELD_OF_1_1 = re.compile(
    r'data-d="W"|shield up \(no deflect\)|shield W \(deflects|raised its shield'
    r'|set its shield to deflect|class="rb [^"]*\bsd\b'
    r'|(?:&quot;|")shield(?:&quot;|"): true'
    r'|(?:&quot;|")type(?:&quot;|"): (?:&quot;|")(?:shield|deflect)(?:&quot;|")'
)


@pytest.mark.parametrize(("role", "expected"), REMAKE_ROWS)
def test_a_remake_seats_shield_and_deflect_show_to_no_other_viewer_before_the_end(
    player, opponent, users, role, expected
):
    match = _duel(player, opponent, "helium3-remake", rounds=5)
    assert _times_shown(match, role, users, SHIELD_OF_1_1) == 0
    shown = []
    for turn, actions in (
        (0, [{"robot": "1-1", "type": "shield"}]),
        (2, [{"robot": "1-1", "type": "deflect", "direction": "W"}]),
    ):
        match.refresh_from_db()
        if match.to_move != 1:  # the opponent passes
            services.orders_submit(
                match_id=match.pk, user=opponent, turn=match.turn_number, actions=[]
            )
            drain(match, emails=False)
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=actions)
        shown.append(_times_shown(match, role, users, SHIELD_OF_1_1) > 0)
        drain(match, emails=False)
        shown.append(_times_shown(match, role, users, SHIELD_OF_1_1) > 0)
    assert match.state is not None
    shielded = next(r for r in match.state["robots"] if r["id"] == "1-1")
    assert (shielded["shield"], shielded["deflect"]) == (True, "W")
    play_out(match)
    assert match.status == Match.Status.FINISHED
    shown.append(_times_shown(match, role, users, SHIELD_OF_1_1) > 0)
    assert tuple(shown) == expected
