"""The leak crawler for a turn where every seat gives orders at once: a seat's
stored orders show to no other viewer before the turn resolves.

An rps match (the test ruleset tests/engine/rps_ruleset.py) of alice, bob and
carol, one round played; in the second, alice's orders are stored, the others'
not yet. Every URL pattern of a match is crawled as bob, carol, sam (who only
watches) and an anonymous visitor, with the session cookie and the bearer token,
in that world and in one where alice's stored orders are different; every answer
and every email must be the same, byte for byte (CSRF tokens aside). Alice's own
crawl differs: her stored orders reach her (the check can fail).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import test_leak_crawler as crawler
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from leak_crawl import Request, cache_space, crawl, differences
from leak_urls import SKIP, build_path, kwarg_values, url_patterns
from leak_world import drain

from games import services
from games.models import Match, Orders
from games.services.tokens import token_create

PEOPLE = ("alice", "bob", "carol", "sam")


@pytest.fixture(autouse=True)
def test_rulesets() -> None:
    # Registered for the rest of the session, as tests/games/conftest.py does: other
    # suites in the same process may play these rulesets too.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
    import platform_rulesets

    platform_rulesets.register()


@pytest.fixture
def world(db: None) -> dict[str, Any]:
    users = {}
    for name in PEOPLE:
        user = get_user_model().objects.create_user(name, f"{name}@example.com", password=None)
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        users[name] = user
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    match = services.match_create(
        creator=alice, seat_count=3, ruleset="rps", options={"rounds": 5}, turn_seconds=3600
    )
    for user in (bob, carol):
        services.seat_join(match_id=match.pk, user=user)
    for user, throw in ((alice, "rock"), (bob, "paper"), (carol, "scissors")):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"throw": throw})
    drain(match)
    services.orders_submit(match_id=match.pk, user=alice, turn=1, orders={"throw": "scissors"})
    match.refresh_from_db()
    assert match.turn_number == 1
    tokens = {name: token_create(user=user, name="leak crawler")[1] for name, user in users.items()}
    return {"match": match, "users": users, "tokens": tokens}


def requests_for(match: Match) -> list[Request]:
    """Every URL pattern that takes a match (and a turn), for this match, as GETs."""
    table = {"match_id": lambda: [match.pk], "number": lambda: [0, 1]}
    requests = []
    for pattern in url_patterns():
        if pattern.key in SKIP or "match_id" not in pattern.kwargs:
            continue
        if set(pattern.kwargs) - set(table):
            continue
        for values in kwarg_values(pattern, table):  # type: ignore[arg-type]
            path = build_path(pattern, values)
            if path is None:
                continue
            urls = [path, *(f"{path}?{q}" for q in crawler.query_variants(pattern.names))]
            for url in urls:
                requests.append(Request(f"GET {url}", "GET", url, key=pattern.key, match=match))
            htmx = (("HX-Request", "true"),)
            requests.append(
                Request(f"GET {path} [htmx]", "GET", path, key=pattern.key, match=match,
                        headers=htmx)
            )  # fmt: skip
    return requests


def crawl_as(world: dict[str, Any], name: str | None, throw: str) -> tuple[Any, list[str]]:
    """One viewer's crawl and emails, with alice's stored orders throwing `throw`."""
    match = world["match"]
    viewer = world["users"].get(name) if name else None
    with crawler.rolled_back(), cache_space(f"leak-simultaneous-{name}-{throw}"):
        Orders.objects.filter(match=match, turn_number=1, seat=1).update(
            orders={"seat": 1, "turn": 1, "throw": throw}
        )
        emails = crawler.emails_of(viewer)
        headers = {"authorization": f"Bearer {world['tokens'][name]}"} if name else None
        client = Client(headers=headers)
        if viewer is not None:
            client.force_login(viewer)
        result = crawl(client, requests_for(match), sign_in=crawler.sign_in_again(viewer))
    return result, emails


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    """Both crawls at one instant, so that countdowns and signed links agree."""
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


@pytest.mark.parametrize("name", ["bob", "carol", "sam", None])
def test_no_page_api_answer_or_email_shows_a_seats_stored_orders_to_another(
    world: dict[str, Any], frozen_clock: None, name: str | None
) -> None:
    first, first_mail = crawl_as(world, name, "scissors")
    second, second_mail = crawl_as(world, name, "paper")
    assert not first.errors and not second.errors, first.errors + second.errors
    assert len(first.answers) > 10 and any(a.status == 200 for a in first.answers.values())
    leaks = differences(first, second)
    leaks += list(crawler.email_differences(first_mail, second_mail))
    assert not leaks, "answers that depend on another seat's stored orders:\n\n" + "\n\n".join(
        leaks
    )


def test_the_seat_itself_is_shown_its_stored_orders(
    world: dict[str, Any], frozen_clock: None
) -> None:
    first, _ = crawl_as(world, "alice", "scissors")
    second, _ = crawl_as(world, "alice", "paper")
    assert differences(first, second), "alice's own stored orders reach her nowhere"
