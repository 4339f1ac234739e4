"""The leak crawler: no page, API answer, error page or email tells a seat a shield
(or deflect, or the seed) it may not know before the match ends.

Every URL pattern the resolver knows is requested as each player, a spectator
(signed in, not playing) and an anonymous visitor, with the session cookie and
the user's API bearer token. Two checks:

- Differential: each viewer crawls the planted world, then a second world in which
  every fact that viewer may not know is different (the engine replays the turns
  with other deflects, some shields played as plain moves, another seed). Both
  crawls must answer byte for byte the same (CSRF tokens aside), and so must the
  emails the site sends that viewer. A difference is a page that depends on a
  hidden fact, whether it shows it as JSON, SVG, text or a header.
- Direct: no JSON (an API answer or a page's JSON script) carries a shield or
  deflect key on another seat's robot, another seat's `shielded` event or shield
  order, or a running match's seed.

After the end everyone crawls again: no 5xx, and the shields are public.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import pytest
import time_machine
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.db import transaction
from django.test import Client
from leak_crawl import Crawl, Request, cache_space, crawl, differences
from leak_urls import SKIP, build_path, kwarg_values, url_patterns
from leak_world import (
    REWRITTEN,
    Planted,
    play_to_the_end,
    rewrite_hidden,
    secrets_in,
    stored_secrets,
)

import engine
from games import services
from games.compete.invitations import invitation_token
from games.models import ApiToken, Match, Notification, NotificationKind

MISSING_ID = 999_999
JSON = "application/json"


# --- what each kwarg of a URL pattern is filled with -----------------------------------


def kwargs_table(world: Planted, viewer: Any) -> dict[str, Callable[[], list[Any]]]:
    """Values per URL kwarg name, as the viewer would follow them: real objects of the
    planted world (so the page shows a planted match), and one that does not exist
    (so error pages are crawled too). A new kwarg name fails the test until it has
    a line here."""
    someone = viewer or world.users["alice"]
    running = world.running

    def turns() -> list[int]:
        played = int(running.turn_number)
        return [0, played - 1, played]

    def confirmation_keys() -> list[str]:
        address = EmailAddress.objects.get(user=world.newcomer)
        return [
            EmailConfirmationHMAC(address).key,
            default_token_generator.make_token(someone),
            "no-such-key",
        ]

    return {
        # games: every planted match, and a match that does not exist
        "match_id": lambda: [
            running.pk,
            world.private.pk,
            world.finished.pk,
            world.open.pk,
            MISSING_ID,
        ],
        "number": turns,  # a turn: the first, the last played, the current one (not played)
        # challenges: none is planted, so one that does not exist (or is not the viewer's)
        "challenge_id": lambda: [MISSING_ID],
        "token": lambda: [  # an email's one-click unsubscribe link, and a forged one
            services.unsubscribe_token(user=someone, kind="your_turn"),
            "forged-token",
            # an invitation link: to the open match, and to the running private one
            invitation_token(world.open),
            invitation_token(world.private),
        ],
        # the API token settings: the viewer's own token, another user's, none
        "token_id": lambda: [
            *ApiToken.objects.filter(user=someone).values_list("pk", flat=True)[:1],
            *ApiToken.objects.exclude(user=someone).values_list("pk", flat=True)[:1],
            MISSING_ID,
        ],
        # a player's page: the players of the planted matches, and nobody
        "username": lambda: [*world.users, "nobody-of-that-name"],
        # a game's pages: every ruleset the engine knows, and one it does not
        "name": lambda: [*engine.ruleset_names(), "no-such-game"],
        # the API's leaderboards: every ruleset's, and one it does not know
        "game": lambda: [*engine.ruleset_names(), "no-such-game"],
        # allauth: an email confirmation key, a password reset key and its user
        "key": confirmation_keys,
        "uidb36": lambda: [user_pk_to_url_str(someone)],
        # the admin: the running match (only staff get past the login)
        "object_id": lambda: [str(running.pk)],
        "content_type_id": lambda: [str(ContentType.objects.get_for_model(Match).pk)],
        "id": lambda: [str(someone.pk)],
        "app_label": lambda: ["games"],
        "url": lambda: ["leak-crawler-probe/"],  # the admin's catch-all
    }


def _robot_cells(match: Match) -> dict[str, list[int]]:
    assert match.state is not None
    return {r["id"]: [r["x"], r["y"]] for r in match.state["robots"] if r["alive"]}


def query_variants(names: tuple[str, ...]) -> list[str]:
    """Query strings worth crawling on top of the bare URL, by pattern name."""
    table = {
        "match-detail": ["history=2"],
        "match-poll": ["since=0", "since=7"],
        "match-history": ["page=2"],
        "match-hints": [urlencode({"first": json.dumps({"robot": "1-2", "type": "mine"})})],
        "match_history": ["since=0", "since=5"],  # the bot API's history
        "create_match": ["status=running"],  # the bot API's list of matches
        "archive": ["player=alice", "bots=no", "page=2", "since=2000-01-01&until=2100-01-01"],
    }
    return [query for name in names for query in table.get(name, [])]


def bad_orders(match: Match, seat: int | None) -> list[Any]:
    """Orders the engine refuses, each touching what the fog hides: a move onto an
    opponent's (shielded) robot, an order for an opponent's robot, a missile at a
    shielded robot, a stale turn, and bodies that are not orders at all."""
    if match.state is None:
        return [{"turn": 0, "actions": []}, "{not json"]
    mine = seat or 1
    cells = _robot_cells(match)
    # A finished match may have lost every robot of a side: fall back to plain ids.
    own = next((rid for rid in cells if rid.startswith(f"{mine}-")), f"{mine}-1")
    other = next((rid for rid in cells if not rid.startswith(f"{mine}-")), f"{mine % 4 + 1}-1")
    there = cells.get(other, [10, 10])
    turn = int(match.state["turn"])
    return [
        {"turn": turn, "actions": [{"robot": own, "type": "move", "to": there}]},
        {"turn": turn, "actions": [{"robot": other, "type": "move", "to": [10, 10]}]},
        {"turn": turn, "actions": [{"robot": own, "type": "fire_missile", "target": there}]},
        {"turn": max(0, turn - 1), "actions": []},
        "{not json",
    ]


def build_requests(world: Planted, viewer: Any) -> tuple[list[Request], set[str]]:
    """Every request of one viewer's crawl, and every pattern key it must reach."""
    table = kwargs_table(world, viewer)
    requests: list[Request] = []
    keys: set[str] = set()
    by_id = {m.pk: m for m in (world.running, world.private, world.finished, world.open)}
    for pattern in url_patterns():
        if pattern.key in SKIP:
            continue
        keys.add(pattern.key)
        api = pattern.key.startswith("api") or pattern.route.startswith("api/")
        for values in kwarg_values(pattern, table):
            path = build_path(pattern, values)
            if path is None:
                continue  # reported as a pattern not reached
            match = by_id.get(values.get("match_id", -1))
            base = dict(key=pattern.key, match=match)
            requests.append(Request(f"GET {path}", "GET", path, **base))
            # The variants only for matches with a board (the others answer as the
            # bare URL does), and the bad orders only where orders could be taken.
            if "match_id" not in values or (match is not None and match.state is not None):
                for query in query_variants(pattern.names):
                    url = f"{path}?{query}"
                    requests.append(Request(f"GET {url}", "GET", url, **base))
            if not api and match in (world.running, world.finished):  # htmx's fragments
                htmx = (("HX-Request", "true"),)
                requests.append(Request(f"GET {path} [htmx]", "GET", path, headers=htmx, **base))
            if any("orders" in name for name in pattern.names) and match in world.live:
                seat = world.seat_of(viewer, match)
                for i, body in enumerate(bad_orders(match, seat)):
                    label = f"POST {path} [bad orders {i}]"
                    raw = body if isinstance(body, str) else json.dumps(body)
                    if api:  # a bot posts JSON
                        requests.append(
                            Request(label, "POST", path, data=raw, content_type=JSON, **base)
                        )
                    else:  # the order form, its actions as JSON
                        turn = body["turn"] if isinstance(body, dict) else 0
                        actions = json.dumps(body["actions"]) if isinstance(body, dict) else raw
                        form = {"turn": turn, "actions_json": actions}
                        requests.append(Request(label, "POST", path, data=form, **base))
    return requests, keys


# --- viewers, worlds and emails ----------------------------------------------------------


def client_of(world: Planted, viewer: Any) -> Client:
    """The viewer's browser and bot at once: session cookie and bearer token."""
    if viewer is None:
        return Client()
    token = world.tokens.get(viewer.username)
    client = Client(headers={"authorization": f"Bearer {token}"} if token else None)
    client.force_login(viewer)
    return client


def sign_in_again(viewer: Any) -> Callable[[Client], None] | None:
    return None if viewer is None else (lambda client: client.force_login(viewer))


class DirectCheck:
    """What a JSON document sent to `viewer` may not contain; it also counts what
    the viewer may see of its own (shield keys on its robots, its shielded events),
    to show that the check recognises the planted shields where they are sent."""

    def __init__(self, world: Planted, viewer: Any) -> None:
        self.own = {m.pk: world.seat_of(viewer, m) for m in world.live}
        self.everywhere = {seat for seat in self.own.values() if seat is not None}
        self.seen_own = 0

    def __call__(self, request: Request, document: Any) -> Iterator[str]:
        if request.match is not None and request.match.status == Match.Status.FINISHED:
            return  # the whole record is public after the end
        if request.match is not None:
            seat = self.own.get(request.match.pk)
            allowed = {seat} if seat is not None else set()
        else:
            allowed = self.everywhere
        self.seen_own += sum(1 for _ in secrets_in(document, set())) if allowed else 0
        yield from secrets_in(document, allowed)


@contextmanager
def rolled_back() -> Iterator[None]:
    """Whatever happens inside (a crawl's writes, a rewrite) is undone after it."""
    savepoint = transaction.savepoint()
    try:
        yield
    finally:
        transaction.savepoint_rollback(savepoint)


def emails_of(user: Any) -> list[str]:
    """Every email the site sends `user` about the planted matches, sent again now
    through the site's own sender (rendered from the rows as they are)."""
    if user is None:
        return []
    rows = list(Notification.objects.filter(user=user).order_by("match_id", "kind", "turn_number"))
    Notification.objects.filter(pk__in=[r.pk for r in rows]).update(
        status=Notification.Status.PENDING
    )
    mail.outbox = []
    for row in rows:
        # Also those still waiting for their time ("Your turn" waits a while).
        services.notification_send(notification_id=row.pk, now=row.send_after)
    sent = []
    for message in mail.outbox:
        parts = [message.subject, message.body, *[str(a[0]) for a in message.alternatives]]
        headers = sorted(f"{k}: {v}" for k, v in message.extra_headers.items())
        sent.append("\n".join([*headers, *parts]))
    return sent


def email_differences(first: list[str], second: list[str]) -> Iterator[str]:
    if len(first) != len(second):
        yield f"{len(first)} emails in the planted world, {len(second)} in the rewritten one"
        return
    for one, other in zip(first, second, strict=True):
        if one != other:
            diff = difflib.unified_diff(
                one.splitlines(), other.splitlines(), "planted world", "rewritten world", n=1
            )
            yield "an email differs:\n" + "\n".join(line[:300] for line in list(diff)[:30])


def crawl_world(
    world: Planted, viewer: Any, requests: list[Request], *, rewrite: bool
) -> tuple[Crawl, list[str], int]:
    """One viewer's crawl and emails in the planted world or in the rewritten one,
    and how many of its own shields it was shown."""
    check = DirectCheck(world, viewer)
    space = f"leak-crawler-rewritten-for-{viewer}" if rewrite else "leak-crawler-planted"
    with rolled_back(), cache_space(space):
        if rewrite:
            for match in world.live:
                rewrite_hidden(match, world.seat_of(viewer, match))
        # The emails first: the crawl follows an unsubscribe link.
        emails = emails_of(viewer)
        result = crawl(
            client_of(world, viewer), requests, check=check, sign_in=sign_in_again(viewer)
        )
    return result, emails, check.seen_own


def viewers(world: Planted) -> dict[str, Any]:
    return {**world.users, "anonymous": None}


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    """Every crawl, and the keys and tokens its URLs carry, at one instant, so that
    countdowns and dates agree between the two worlds and the keys are still valid."""
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


# --- the tests ------------------------------------------------------------------------


def test_no_page_api_answer_or_email_tells_a_seat_a_hidden_shield(
    planted_once: Planted, frozen_clock: None
) -> None:
    world = planted_once
    outside = stored_secrets(world.live) - REWRITTEN
    assert not outside, (
        f"{sorted(outside)} store hidden shields, and the crawler's second world does not "
        "change them: teach rewrite_hidden (tests/leaks/leak_world.py) to rewrite them"
    )
    leaks: list[str] = []
    secrets: list[str] = []
    errors: list[str] = []
    reached: set[str] = set()
    wanted: set[str] = set()
    for name, viewer in viewers(world).items():
        requests, keys = build_requests(world, viewer)
        wanted |= keys
        planted_crawl, planted_mail, own = crawl_world(world, viewer, requests, rewrite=False)
        other_crawl, other_mail, _ = crawl_world(world, viewer, requests, rewrite=True)
        reached |= planted_crawl.reached
        errors += [f"as {name}: {e}" for e in planted_crawl.errors + other_crawl.errors]
        secrets += [f"as {name}: {s}" for s in planted_crawl.secrets + other_crawl.secrets]
        leaks += [f"as {name}: {d}" for d in differences(planted_crawl, other_crawl)]
        leaks += [f"as {name}: {d}" for d in email_differences(planted_mail, other_mail)]
        if viewer is not None and world.seat_of(viewer, world.running):
            # Not vacuous: the player's own shields reach it, and so do emails.
            assert own, f"{name} was shown none of its own shields: were they planted?"
            assert planted_mail, f"{name} plays but was sent no email to compare"
    kinds = set(Notification.objects.values_list("kind", flat=True))
    assert kinds == set(NotificationKind.values), f"emails compared: {kinds}"
    assert not errors, "server errors:\n" + "\n".join(errors)
    assert not secrets, "hidden facts in JSON:\n" + "\n".join(secrets[:20])
    assert not leaks, "pages that depend on hidden facts:\n\n" + "\n\n".join(leaks[:20])
    missed = wanted - reached
    assert not missed, f"URL patterns the crawl never reached: {sorted(missed)}"


def test_after_the_end_every_page_answers_and_the_shields_are_public(planted_once: Planted) -> None:
    world = planted_once
    for match in world.live:
        play_to_the_end(match)
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        crawl_everyone_after_the_end(world)


def crawl_everyone_after_the_end(world: Planted) -> None:
    everyone = {**viewers(world), "staff": world.staff}
    reached: set[str] = set()
    wanted: set[str] = set()
    errors: list[str] = []
    shown: dict[int, int] = {}

    def public(request: Request, document: Any) -> Iterator[str]:
        # Everything is public now; count the shields shown about each match, to
        # show that the planted shields are there for the checks to find.
        if request.match is not None:
            count = sum(1 for _ in secrets_in(document, set()))
            shown[request.match.pk] = shown.get(request.match.pk, 0) + count
        return iter(())

    for name, viewer in everyone.items():
        requests, keys = build_requests(world, viewer)
        wanted |= keys
        with rolled_back(), cache_space("leak-crawler-after-the-end"):
            result = crawl(
                client_of(world, viewer), requests, check=public, sign_in=sign_in_again(viewer)
            )
        reached |= result.reached
        errors += [f"as {name}: {e}" for e in result.errors]
    assert not errors, "server errors:\n" + "\n".join(errors)
    missed = wanted - reached
    assert not missed, f"URL patterns the crawl never reached: {sorted(missed)}"
    for match in (world.running, world.private, world.finished):
        assert shown.get(match.pk), f"no answer about match {match.pk} shows its shields"
