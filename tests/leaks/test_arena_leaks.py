"""The leak crawler for the robot arena: before the end, no page, poll, history,
movie, API answer (JSON or stream-free), email or replay shows a seat or a spectator
anything the seat's own scans did not, nor how another seat spends its turn.

An arena match of alice (seat 1) and bob (seat 2), sam only watching. Both build;
alice moves, scans and ends her turn; bob is to move and has scanned nothing. Two
worlds differ in everything bob may not know: alice's parts (so her health and
radar), where she moved, what her scan showed. Every URL pattern of a match is
crawled as bob, with his session cookie and bearer token, in both worlds, and every
answer and email must be the same byte for byte (CSRF tokens aside). So must the
crawls of sam and of an anonymous visitor: while the match runs a spectator knows
only the public facts (a player could otherwise watch their own match from a
private window). Alice's own crawls differ: the check can fail.

The step twins: worlds that differ only in how alice spends her turn (a scan; a walk
of two cells, a shot at an empty cell and a scan; a shot and a walk of six cells)
give bob, sam and a visitor the same answers while she plays it and once it ended:
another seat's steps, their number, kinds and timing, are her own.
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


@pytest.mark.parametrize("name", ["sam", None])
def test_a_spectator_is_shown_nothing_of_either_seat_while_the_match_runs(
    world: dict[str, Any], frozen_clock: None, name: str | None
) -> None:
    first, first_mail = crawl_as(world, name, "first")
    second, second_mail = crawl_as(world, name, "second")
    assert not first.errors and not second.errors, first.errors + second.errors
    assert len(first.answers) > 10 and any(a.status == 200 for a in first.answers.values())
    leaks = differences(first, second)
    leaks += list(crawler.email_differences(first_mail, second_mail))
    assert not leaks, f"answers to {name} that depend on alice's build:\n\n" + "\n\n".join(leaks)


def test_alice_herself_is_shown_what_differs(world: dict[str, Any], frozen_clock: None) -> None:
    first, _ = crawl_as(world, "alice", "first")
    second, _ = crawl_as(world, "alice", "second")
    assert not first.errors and not second.errors, first.errors + second.errors
    assert differences(first, second), "alice is shown nothing of her own robot"


# --- the step twins ---------------------------------------------------------------------

TWIN_BUILD = ["engine3", "radar1", "gun"]  # six steps of moves, a scan and a shot


def _walk(state: dict[str, Any], start: tuple[int, int], cells: int) -> list[str]:
    """A path of `cells` steps from `start` around the obstacles (breadth first)."""
    blocked = {tuple(c) for c in state["obstacles"]} | {(9, 9)}
    moves = {"right": (1, 0), "down": (0, 1), "left": (-1, 0), "up": (0, -1)}
    paths: dict[tuple[int, int], list[str]] = {start: []}
    todo = [start]
    while todo:
        at = todo.pop(0)
        if len(paths[at]) == cells:
            return paths[at]
        for name, (dx, dy) in moves.items():
            cell = (at[0] + dx, at[1] + dy)
            if 0 <= cell[0] < 10 and 0 <= cell[1] < 10 and cell not in blocked | set(paths):
                paths[cell] = [*paths[at], name]
                todo.append(cell)
    raise AssertionError(f"no walk of {cells} cells from {start}")


def _end_of(start: tuple[int, int], path: list[str]) -> tuple[int, int]:
    moves = {"right": (1, 0), "down": (0, 1), "left": (-1, 0), "up": (0, -1)}
    x, y = start
    for name in path:
        x, y = x + moves[name][0], y + moves[name][1]
    return x, y


def _plan(state: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Alice's steps before her `end`, from her corner (0, 0); every shot misses."""
    if name == "scan":
        return [{"type": "scan"}]
    if name == "walk-shoot-scan":
        path = _walk(state, (0, 0), 2)
        x, y = _end_of((0, 0), path)
        target = [x + 2, y] if x + 2 < 9 else [x - 2, y]
        return [{"type": "move", "path": path}, {"type": "shoot", "target": target},
                {"type": "scan"}]  # fmt: skip
    assert name == "shoot-walk"
    return [{"type": "shoot", "target": [2, 2]}, {"type": "move", "path": _walk(state, (0, 0), 6)}]


TWIN_PLANS = ("scan", "walk-shoot-scan", "shoot-walk")


def crawl_twin(
    world: dict[str, Any], name: str | None, plan: str
) -> tuple[Crawl, Crawl, list[str]]:
    """One viewer's crawls while alice plays `plan` (before her `end`) and once her
    turn ended, and the viewer's emails then."""
    match: Match = world["match"]
    alice, bob = world["users"]["alice"], world["users"]["bob"]
    viewer = world["users"].get(name) if name else None
    with crawler.rolled_back():
        services.orders_submit(match_id=match.pk, user=alice, turn=0, orders={"build": TWIN_BUILD})
        services.orders_submit(match_id=match.pk, user=bob, turn=0, orders={"build": BOB_BUILD})
        drain(match)
        assert match.state is not None and engine.awaiting(match.state) == [1]

        def take(step: dict[str, Any]) -> None:
            match.refresh_from_db()
            assert match.state is not None
            services.orders_submit(
                match_id=match.pk, user=alice, turn=match.turn_number,
                orders={"step_no": match.state["step"], "step": step},
            )  # fmt: skip

        for step in _plan(match.state, plan):
            take(step)
        match.refresh_from_db()
        assert match.state is not None and match.state["step"] == len(_plan(match.state, plan))
        headers = {"authorization": f"Bearer {world['tokens'][name]}"} if name else None
        client = Client(headers=headers)
        if viewer is not None:
            client.force_login(viewer)
        sign_in = crawler.sign_in_again(viewer)
        with cache_space(f"leak-arena-twin-{name}-{plan}-mid"):
            during = crawl(client, requests_for(match), sign_in=sign_in)
        take({"type": "end"})
        drain(match)
        assert match.state is not None and engine.awaiting(match.state) == [2]
        with cache_space(f"leak-arena-twin-{name}-{plan}-after"):
            emails = crawler.emails_of(viewer)
            after = crawl(client, requests_for(match), sign_in=sign_in)
    match.refresh_from_db()
    return during, after, emails


@pytest.mark.parametrize("name", ["bob", "sam", None])
def test_how_alice_spends_her_turn_shows_to_no_other_viewer(
    world: dict[str, Any], frozen_clock: None, name: str | None
) -> None:
    crawls = {plan: crawl_twin(world, name, plan) for plan in TWIN_PLANS}
    base_during, base_after, base_mail = crawls[TWIN_PLANS[0]]
    assert any(a.status == 200 for a in base_during.answers.values())
    for plan in TWIN_PLANS[1:]:
        during, after, mail = crawls[plan]
        assert not during.errors and not after.errors, during.errors + after.errors
        leaks = differences(base_during, during) + differences(base_after, after)
        leaks += list(crawler.email_differences(base_mail, mail))
        assert not leaks, f"{name} can tell {plan!r} from a scan:\n\n" + "\n\n".join(leaks)


def test_alice_sees_each_of_her_steps_so_the_twins_can_differ(
    world: dict[str, Any], frozen_clock: None
) -> None:
    first_during, first_after, _ = crawl_twin(world, "alice", "scan")
    second_during, second_after, _ = crawl_twin(world, "alice", "shoot-walk")
    assert differences(first_during, second_during)
    assert differences(first_after, second_after)
