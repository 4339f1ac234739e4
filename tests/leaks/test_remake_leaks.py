"""The leak crawler for the Helium 3 remake: before the end, no page, poll, history,
movie, planner hint, API answer or email tells another seat, a spectator or an
anonymous visitor a shield or deflect that a seat hid, nor the seed.

The remake's matches (conftest.plant_remake): alice hides shields (raised in
place and after a move) and points them with `deflect` actions in a public match
of three seats, and in a private one of two where her last `deflect` is accepted
and not yet resolved; the others armed lasers, so their planner aims beams at her
vehicles. A finished match shows its shields to everyone.

Every URL pattern the resolver knows (test_leak_crawler.build_requests, plus the
planner's answers to lasers planned in every direction) is crawled as each viewer
in two worlds played through the services: in the second, alice's deflects point
elsewhere, one of her shields is a plain move to the same cell, one is not raised
at all, and the running matches have another seed. Both crawls, and the emails the
viewer is sent, must agree byte for byte (CSRF tokens aside), and no JSON sent may
carry one of alice's shields, deflects or orders for them. Alice's own crawl is the
check's control: her hidden play reaches her, and both checks see it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import pytest
import test_leak_crawler as crawler
import time_machine
from django.urls import reverse
from leak_crawl import Crawl, Request, cache_space, crawl, differences
from leak_world import (
    DIRECTIONS,
    REWRITTEN,
    Planted,
    hide_in_remake,
    public_record,
    reseed,
    secrets_in,
    stored_secrets,
)

ALICE = 1  # alice's seat in every remake match
OTHERS = ["bob", "carol", "dave", "sam", None]


def play(world: Planted, *, rewritten: bool) -> None:
    """Alice's hidden play in the two running matches, in the world asked for."""
    hide_in_remake(world.running, ALICE, rewritten=rewritten, pending=False)
    hide_in_remake(world.private, ALICE, rewritten=rewritten, pending=True)
    if rewritten:
        # Only the seed is rewritten in place: no other column may hold a hidden fact
        # the services did not write afresh in this world.
        outside = stored_secrets(world.live) - REWRITTEN
        assert not outside, f"{sorted(outside)} hold hidden facts: rewrite them too"
        for match in world.live:
            assert match.seed is not None
            reseed(match, match.seed + 7919)


def planner_requests(world: Planted, viewer: Any) -> list[Request]:
    """The planner's answer to a laser fired first by each of the viewer's vehicles in
    each direction: the engine fires it on the board the viewer believes in."""
    requests = []
    for match in world.live:
        seat = world.seat_of(viewer, match)
        if seat is None or match.state is None:
            continue
        path = reverse("games:match-hints", args=[match.pk])
        for robot in (r for r in match.state["robots"] if r["seat"] == seat and r["alive"]):
            for direction in DIRECTIONS:
                fire = {"robot": robot["id"], "type": "fire_laser", "direction": direction}
                url = f"{path}?{urlencode({'first': json.dumps([fire])})}"
                requests.append(Request(f"GET {url}", "GET", url, key="games:", match=match))
    return requests


@dataclass
class World:
    """One viewer's crawl of one world, and what the engine tells each seat there."""

    crawl: Crawl
    emails: list[str]
    requests: list[Request]
    keys: set[str]  # the URL patterns the crawl should reach
    own: int  # how often the viewer was sent its own shields, deflects and orders
    finished: int  # how often a shield of the finished match was sent (public)
    public: dict[tuple[int, int | None], list[Any]]  # (match, seat): engine.public_record


def crawl_world(
    world: Planted, viewer: Any, *, rewritten: bool, like: World | None = None
) -> World:
    """One viewer's crawl and emails in one world; `like`: the same requests as that
    crawl (built in the first world: the tokens they carry are the viewer's as it was
    before the crawl signed it in)."""
    direct = crawler.DirectCheck(world, viewer)
    finished = [0]

    def check(request: Request, document: Any) -> Iterator[str]:
        if request.match is not None and request.match.pk == world.finished.pk:
            finished[0] += sum(1 for _ in secrets_in(document, set()))
        yield from direct(request, document)

    with crawler.rolled_back(), cache_space(f"leak-remake-{viewer}-{rewritten}"):
        play(world, rewritten=rewritten)
        public = {
            (m.pk, seat): public_record(m, seat)
            for m in world.live
            for seat in [*m.seats.values_list("number", flat=True), None]
        }
        if like is None:
            requests, keys = crawler.build_requests(world, viewer)
            requests += planner_requests(world, viewer)
        else:
            requests, keys = like.requests, like.keys
        emails = crawler.emails_of(viewer)  # first: the crawl follows an unsubscribe link
        result = crawl(
            crawler.client_of(world, viewer),
            requests,
            check=check,
            sign_in=crawler.sign_in_again(viewer),
        )
    for match in world.live:
        match.refresh_from_db()
    return World(result, emails, requests, keys, direct.seen_own, finished[0], public)


def assert_alone_alice_can_tell_the_worlds_apart(first: World, second: World) -> None:
    """The test's own soundness: the engine shows the two worlds alike to every seat
    but alice's and to a spectator, so a difference in a crawl is the site's."""
    assert first.public.keys() == second.public.keys()
    for (match, seat), record in first.public.items():
        same = record == second.public[(match, seat)]
        assert same != (seat == ALICE), f"match {match}, seat {seat}: the worlds differ: {same}"


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    """Both worlds, and the keys and tokens their URLs carry, at one instant."""
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


@pytest.mark.parametrize("name", OTHERS)
def test_no_page_api_answer_or_email_shows_another_viewer_a_hidden_remake_shield_or_deflect(
    remake_planted_once: Planted, frozen_clock: None, name: str | None
) -> None:
    world = remake_planted_once
    viewer = world.users[name] if name else None
    first = crawl_world(world, viewer, rewritten=False)
    second = crawl_world(world, viewer, rewritten=True, like=first)
    assert_alone_alice_can_tell_the_worlds_apart(first, second)
    errors = first.crawl.errors + second.crawl.errors
    assert not errors, "server errors:\n" + "\n".join(errors)
    secrets = first.crawl.secrets + second.crawl.secrets
    assert not secrets, "hidden facts in JSON:\n" + "\n".join(secrets[:20])
    leaks = differences(first.crawl, second.crawl)
    leaks += list(crawler.email_differences(first.emails, second.emails))
    assert not leaks, "answers that depend on alice's hidden play:\n\n" + "\n\n".join(leaks)
    missed = first.keys - first.crawl.reached
    assert not missed, f"URL patterns the crawl never reached: {sorted(missed)}"
    # Not vacuous: the finished match's shields are public, and were sent.
    assert first.finished, "no answer about the finished match shows its shields"
    if name == "bob":
        assert first.emails, f"{name} plays but was sent no email to compare"
    if name == "carol":  # her join started the running match, on its page: no "Match started"
        assert not first.emails, "carol started the match herself and was still told of it"
    if name == "bob":  # to move in the running match: his planner aims at alice's shields
        hints = json.loads(first.crawl.answers[f"GET /matches/{world.running.pk}/hints/"].body)
        beams = [b for r in hints["robots"].values() for b in r.get("laser", {}).values()]
        assert any(any(robot.startswith(f"{ALICE}-") for robot in b["destroys"]) for b in beams), (
            "no laser of bob's planner reaches a vehicle of alice's"
        )


def test_alice_is_shown_her_own_hidden_play_so_both_checks_can_fail(
    remake_planted_once: Planted, frozen_clock: None
) -> None:
    """The control: crawled as the seat that owns them, the same requests carry the
    shields and deflects (the direct check counts them) and the answers differ
    between the worlds, on the board page, its poll, its history and the bot API."""
    world = remake_planted_once
    alice = world.users["alice"]
    first = crawl_world(world, alice, rewritten=False)
    second = crawl_world(world, alice, rewritten=True, like=first)
    assert_alone_alice_can_tell_the_worlds_apart(first, second)
    assert not first.crawl.errors and not second.crawl.errors
    assert first.own and second.own, "the direct check found none of alice's own shields"
    assert not first.crawl.secrets and not second.crawl.secrets
    differing = {
        label
        for label, answer in first.crawl.answers.items()
        if second.crawl.answers.get(label) != answer
    }
    running, private = world.running.pk, world.private.pk
    for path in (
        f"/matches/{running}/",
        f"/matches/{running}/poll/?since=0",
        f"/matches/{running}/history/ [htmx]",
        f"/matches/{running}/turns/0/movie/",
        f"/api/v1/matches/{running}/",
        f"/api/v1/matches/{running}/history/",
        f"/matches/{private}/",
        f"/matches/{private}/poll/?since=0",
        f"/api/v1/matches/{private}/",
        f"/api/v1/matches/{private}/history/",
    ):
        assert f"GET {path}" in differing, f"{path} shows alice nothing of her hidden play"
