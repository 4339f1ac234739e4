"""The planted world for the leak crawler, built through the services."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import transaction
from django.test import override_settings
from leak_world import (
    REMAKE,
    Planted,
    fire_at_a_shield,
    hand_seat_to_bot,
    hide_in_remake,
    plant_shields,
    play_to_the_end,
    warn_of_the_deadline,
)

from games import services
from games.guests.showcase import showcases_current

PEOPLE = ["alice", "bob", "carol", "dave", "sam"]


# PBKDF2's deliberate slowness is half a second per user; a crawl sends thousands
# of API requests per token, far past the bots' rate limit.
FAST_SITE = {
    "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
    "API_RATE_LIMIT": 1_000_000,
}


@pytest.fixture(autouse=True)
def fast_site(settings: Any) -> None:
    for name, value in FAST_SITE.items():
        setattr(settings, name, value)


# The site's VAPID key belongs to the site, not to a world: every world crawled uses
# this one (made on first use, it would differ between worlds built afresh).
_VAPID_KEY = (
    ec.generate_private_key(ec.SECP256R1())
    .private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    .decode()
)


@pytest.fixture(autouse=True)
def one_vapid_key(settings: Any) -> None:
    settings.WEBPUSH_VAPID_PRIVATE_KEY = _VAPID_KEY


def _user(username: str, *, verified: bool = True, staff: bool = False) -> Any:
    user = get_user_model().objects.create_user(
        username=username,
        email=f"{username}@example.com",
        password="correct horse battery staple",
        is_staff=staff,
        is_superuser=staff,
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=verified, primary=True)
    return user


def _api_tokens(users: dict[str, Any]) -> dict[str, str]:
    """A bearer token per user once the bot API can make them (games.services.tokens)."""
    try:
        from games.services.tokens import token_create
    except ImportError:
        return {}
    return {name: token_create(user=user, name="leak crawler")[1] for name, user in users.items()}


def plant() -> Planted:
    """alice, bob, carol and dave play; sam only watches.

    running: alice, bob, carol, dave in seats 1-4, every robot shielded; alice's laser
    was deflected by one of the shields, which was then raised again; alice to move
    (and warned that her time runs out).
    private: alice (seat 1) and bob (seat 3), not public, every robot shielded; bob
    missed his turns and a stand-in bot plays his seat from his next turn.
    finished: alice (seat 1) and dave (seat 3), shields planted, then played out.
    open: bob waits for two more players.
    """
    for cache in caches.all():  # nothing cached by earlier tests
        cache.clear()
    users = {name: _user(name) for name in PEOPLE}
    alice, bob, carol, dave = (users[n] for n in ("alice", "bob", "carol", "dave"))

    running = services.match_create(creator=alice, seat_count=4, length_ms=200_000)
    for user in (bob, carol, dave):
        services.seat_join(match_id=running.pk, user=user)
    running.refresh_from_db()
    plant_shields(running)
    fire_at_a_shield(running)

    warn_of_the_deadline(running)

    private = services.match_create(creator=alice, seat_count=2, public=False, length_ms=200_000)
    services.seat_join(match_id=private.pk, user=bob)
    private.refresh_from_db()
    plant_shields(private)
    hand_seat_to_bot(private, 3)

    finished = services.match_create(creator=alice, seat_count=2, length_ms=50_000)
    services.seat_join(match_id=finished.pk, user=dave)
    finished.refresh_from_db()
    plant_shields(finished)
    play_to_the_end(finished)

    open_match = services.match_create(creator=bob, seat_count=3)
    # The home page's live bot matches (one a game), started before the two worlds
    # part: started inside each crawl, the two would get different ids (a PostgreSQL
    # sequence is not rolled back) and so different maps.
    showcases_current()
    return Planted(
        users=users,
        running=running,
        private=private,
        finished=finished,
        open=open_match,
        newcomer=_user("newcomer", verified=False),
        staff=_user("root", staff=True),
        tokens=_api_tokens(users),
    )


def plant_remake() -> Planted:
    """The same people in helium3-remake matches of five rounds, a day a turn. Alice
    hides shields and deflects in the two running matches inside each test, once in
    each of its worlds (leak_world.hide_in_remake); here nothing is played in them.

    running: alice, bob and carol in seats 1-3, public.
    private: alice (seat 1) and bob (seat 3), not public.
    finished: alice (seat 1) and dave (seat 3); alice hid shields and deflects, then
    the rounds ran out, so they are public.
    open: bob waits for a second player.
    """
    for cache in caches.all():  # nothing cached by earlier tests
        cache.clear()
    users = {name: _user(name) for name in PEOPLE}
    alice, bob, carol, dave = (users[n] for n in ("alice", "bob", "carol", "dave"))

    def remake(creator: Any, *others: Any, public: bool = True) -> Any:
        match = services.match_create(
            creator=creator, seat_count=max(2, 1 + len(others)), ruleset=REMAKE,
            options={"rounds": 5}, public=public, turn_seconds=24 * 3600,
        )  # fmt: skip
        for user in others:
            services.seat_join(match_id=match.pk, user=user)
        match.refresh_from_db()
        return match

    running = remake(alice, bob, carol)
    private = remake(alice, bob, public=False)
    finished = remake(alice, dave)
    hide_in_remake(finished, 1, rewritten=False, pending=False)
    play_to_the_end(finished)
    open_match = remake(bob)
    showcases_current()  # as in `planted`: started before the two worlds part
    return Planted(
        users=users,
        running=running,
        private=private,
        finished=finished,
        open=open_match,
        newcomer=_user("newcomer", verified=False),
        staff=_user("root", staff=True),
        tokens=_api_tokens(users),
    )


@pytest.fixture
def planted(db: None) -> Planted:
    """The planted world (`plant`), built for this test alone."""
    return plant()


# --- one world for a whole test module --------------------------------------------------


@contextmanager
def _built_for_the_module(blocker: Any, build: Callable[[], Planted]) -> Iterator[Planted]:
    """A world built once, inside a transaction of its own that is rolled back when the
    module is done. Each test's own transaction (pytest-django's) is a savepoint inside
    it, so whatever a test writes is undone before the next test sees the world. The
    same settings hold for the build as for a test (this module's autouse fixtures)."""
    atomic = transaction.atomic()
    with blocker.unblock(), override_settings(**FAST_SITE, WEBPUSH_VAPID_PRIVATE_KEY=_VAPID_KEY):
        atomic.__enter__()
        try:
            world = build()
        except BaseException as error:
            atomic.__exit__(type(error), error, error.__traceback__)
            raise
    try:
        yield world
    finally:
        with blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


def _as_built(world: Planted) -> Planted:
    """The module's world as a test gets it: the database as it was built (every earlier
    test's writes rolled back), no cache (the build leaves none), and the objects read
    again, since a test may have changed them in Python (a match refreshed in a
    rewritten world, a user's last login set by signing in)."""
    for cache in caches.all():
        cache.clear()
    for user in [*world.users.values(), world.newcomer, world.staff]:
        user.refresh_from_db()
    for match in (world.running, world.private, world.finished, world.open):
        match.refresh_from_db()
    return world


@pytest.fixture(scope="module")
def planted_for_the_module(django_db_setup: None, django_db_blocker: Any) -> Iterator[Planted]:
    with _built_for_the_module(django_db_blocker, plant) as world:
        yield world


@pytest.fixture
def planted_once(planted_for_the_module: Planted, db: None) -> Planted:
    """The planted world (`plant`) as built, built once for the test module: for tests
    that are not transactional (their writes are rolled back)."""
    return _as_built(planted_for_the_module)


@pytest.fixture(scope="module")
def remake_for_the_module(django_db_setup: None, django_db_blocker: Any) -> Iterator[Planted]:
    with _built_for_the_module(django_db_blocker, plant_remake) as world:
        yield world


@pytest.fixture
def remake_planted_once(remake_for_the_module: Planted, db: None) -> Planted:
    """The remake's world (`plant_remake`) as built, built once for the test module."""
    return _as_built(remake_for_the_module)
