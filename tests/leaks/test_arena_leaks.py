"""The leak crawler for the robot arena: before the end, no page, poll, history,
movie, API answer (JSON or stream-free), email or replay shows a seat anything its
own scans did not.

An arena match of alice (seat 1) and bob (seat 2), sam only watching. Both build;
alice moves, scans and ends her turn; bob is to move and has scanned nothing. Two
worlds differ in everything bob may not know: alice's parts (so her health and
radar), where she moved, what her scan showed. Every URL pattern of a match is
crawled as bob, with his session cookie and bearer token, in both worlds, and every
answer and email must be the same byte for byte (CSRF tokens aside). The crawls of
sam (a spectator sees everything) and alice (her own robot) differ: the check can
fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import test_leak_crawler as crawler
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from leak_crawl import Crawl, Request, cache_space, crawl, differences
from leak_urls import SKIP, build_path, kwarg_values, url_patterns
from leak_world import drain

import engine
from games import services
from games.models import Match
from games.services.tokens import token_create

PEOPLE = ("alice", "bob", "sam")
BOB_BUILD = ["engine1", "radar1", "shield3"]
# Alice's two builds: different parts, health and radar, the same number of steps.
ALICE_BUILDS = {"first": ["engine2", "radar2", "gun"], "second": ["engine3", "radar1", "shield1"]}


@pytest.fixture
def world(db: None) -> dict[str, Any]:
    users = {}
    for name in PEOPLE:
        user = get_user_model().objects.create_user(name, f"{name}@example.com", password=None)
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        users[name] = user
    match = services.match_create(
        creator=users["alice"], seat_count=2, ruleset="arena", options={"rounds": 10},
        turn_seconds=3600,
    )  # fmt: skip
    services.seat_join(match_id=match.pk, user=users["bob"])
    match.refresh_from_db()
    assert match.state is not None and match.state["phase"] == "build"
    tokens = {name: token_create(user=user, name="leak crawler")[1] for name, user in users.items()}
    return {"match": match, "users": users, "tokens": tokens}


def _free_directions(state: dict[str, Any]) -> list[str]:
    """The directions alice may step from her corner (0, 0)."""
    blocked = {tuple(c) for c in state["obstacles"]}
    free = [d for d, cell in (("right", (1, 0)), ("down", (0, 1))) if cell not in blocked]
    assert free, "alice is boxed in"
    return free


def play(world: dict[str, Any], variant: str) -> None:
    """Both build; alice moves one cell, scans and ends her turn, as the variant says."""
    match: Match = world["match"]
    alice, bob = world["users"]["alice"], world["users"]["bob"]
    build = ALICE_BUILDS[variant]
    services.orders_submit(match_id=match.pk, user=alice, turn=0, orders={"build": build})
    services.orders_submit(match_id=match.pk, user=bob, turn=0, orders={"build": BOB_BUILD})
    drain(match)
    assert match.state is not None and engine.awaiting(match.state) == [1]
    free = _free_directions(match.state)
    direction = free[0] if variant == "first" else free[-1]
    for step in ({"type": "move", "path": [direction]}, {"type": "scan"}, {"type": "end"}):
        match.refresh_from_db()
        assert match.state is not None
        services.orders_submit(
            match_id=match.pk, user=alice, turn=match.turn_number,
            orders={"step_no": match.state["step"], "step": step},
        )  # fmt: skip
    drain(match)
    assert match.state is not None and engine.awaiting(match.state) == [2]
    assert not match.state["knowledge"]["2"], "bob has scanned nothing"


def requests_for(match: Match) -> list[Request]:
    """Every URL pattern that takes a match (and a turn), for this match, as GETs."""
    table = {"match_id": lambda: [match.pk], "number": lambda: [0, 1, 2]}
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


def crawl_as(world: dict[str, Any], name: str | None, variant: str) -> tuple[Crawl, list[str]]:
    """One viewer's crawl and emails in the world where alice plays `variant`."""
    match = world["match"]
    viewer = world["users"].get(name) if name else None
    with crawler.rolled_back(), cache_space(f"leak-arena-{name}-{variant}"):
        play(world, variant)
        emails = crawler.emails_of(viewer)
        headers = {"authorization": f"Bearer {world['tokens'][name]}"} if name else None
        client = Client(headers=headers)
        if viewer is not None:
            client.force_login(viewer)
        result = crawl(client, requests_for(match), sign_in=crawler.sign_in_again(viewer))
    match.refresh_from_db()
    return result, emails


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    """Both crawls at one instant, so that countdowns and signed links agree."""
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


def test_no_page_api_answer_or_email_shows_bob_what_he_did_not_scan(
    world: dict[str, Any], frozen_clock: None
) -> None:
    first, first_mail = crawl_as(world, "bob", "first")
    second, second_mail = crawl_as(world, "bob", "second")
    assert not first.errors and not second.errors, first.errors + second.errors
    assert len(first.answers) > 10 and any(a.status == 200 for a in first.answers.values())
    assert first_mail, "bob plays but was sent no email to compare"
    leaks = differences(first, second)
    leaks += list(crawler.email_differences(first_mail, second_mail))
    assert not leaks, "answers that depend on what bob did not scan:\n\n" + "\n\n".join(leaks)


@pytest.mark.parametrize("name", ["alice", "sam"])
def test_a_spectator_and_alice_herself_are_shown_what_differs(
    world: dict[str, Any], frozen_clock: None, name: str
) -> None:
    first, _ = crawl_as(world, name, "first")
    second, _ = crawl_as(world, name, "second")
    assert not first.errors and not second.errors, first.errors + second.errors
    assert differences(first, second), f"{name} is shown nothing of alice's robot"
