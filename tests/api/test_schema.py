"""Schemathesis drives every operation of /api/v1/openapi.json with generated
input, valid and invalid, through the real WSGI application: no answer is a 5xx,
and every answer (status, content type, headers, body) is the one the schema
describes. Each example is sent as generated and again aimed at real matches (one
where the token's user moves, one where it waits, a finished private one), so the
bodies reach the engine and not only the 404 of a made-up id.

Hypothesis drives schemathesis' strategies directly (the pytest plugin's lazy
loader does not support this pytest). Bounded: a fixed number of examples per
operation and mode, no deadline per example; the file runs in about a minute.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
import schemathesis
from api_support import token_for
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import positive_data_acceptance
from site_support import drain

import engine
from games import services
from games.models import Match

EXAMPLES = 40
OPERATIONS = [
    ("POST", "/api/v1/matches/"),
    ("GET", "/api/v1/matches/"),
    ("GET", "/api/v1/matches/{match_id}/"),
    ("POST", "/api/v1/matches/{match_id}/join/"),
    ("POST", "/api/v1/matches/{match_id}/reclaim/"),
    ("POST", "/api/v1/matches/{match_id}/orders/"),
    ("GET", "/api/v1/matches/{match_id}/history/"),
    ("GET", "/api/v1/matches/{match_id}/replay/"),
    ("GET", "/api/v1/ratings/{game}/"),
    ("GET", "/api/v1/players/{username}/"),
    ("POST", "/api/v1/challenges/"),
    ("GET", "/api/v1/challenges/"),
    ("GET", "/api/v1/challenges/{challenge_id}/"),
    ("POST", "/api/v1/challenges/{challenge_id}/accept/"),
    ("POST", "/api/v1/challenges/{challenge_id}/decline/"),
    ("POST", "/api/v1/challenges/{challenge_id}/cancel/"),
    ("GET", "/api/v1/ladder/{game}/"),
    ("PUT", "/api/v1/ladder/{game}/"),
]


@cache
def _schema() -> Any:
    """The schema the site serves, loaded once a process: it is built when games.api
    is first imported and never changes after, and each load (fetch, parse) was a
    tenth of a second of CPU for each of the tests."""
    from helium3_site.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)


@pytest.fixture
def world(player: Any, opponent: Any, settings: Any) -> dict[str, Any]:
    """A token, a running match where its user moves, one where it waits, a finished one."""
    settings.API_RATE_LIMIT = 1_000_000  # the limit has its own tests
    to_move = services.match_create(creator=player, seat_count=2, bots=["random"])
    waiting = services.match_create(creator=opponent, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=waiting.pk, user=player)
    finished = services.match_create(
        creator=player, seat_count=2, bots=["random"], length_ms=1000, public=False, rated=True
    )
    for _ in range(100):
        drain(finished, emails=False)
        if finished.status == Match.Status.FINISHED:
            break
        services.orders_submit(
            match_id=finished.pk, user=player, turn=finished.turn_number, actions=[]
        )
    assert finished.status == Match.Status.FINISHED
    return {
        "headers": {"Authorization": f"Bearer {token_for(player)}"},
        "matches": [to_move.pk, waiting.pk, finished.pk],
    }


# The schema is fetched through the WSGI handler, whose request signal looks at the
# process's database connection (another test may have opened it).
@pytest.mark.django_db
def test_the_list_of_operations_here_is_every_operation_of_the_schema():
    listed = {(op.method.upper(), op.path) for op in _operations(_schema())}
    assert listed == set(OPERATIONS)


def _operations(schema: Any) -> list[Any]:
    return [result.ok() for result in schema.get_all_operations()]


def _bots_fit_seats(case: Any) -> bool:
    """The rules of a create body that span fields: a bot per seat after the caller's
    (or one in every seat, to watch), the game's own seat counts, bots and options."""
    body = case.body if isinstance(case.body, dict) else {}
    rules = engine.ruleset(body.get("ruleset", "helium3"))
    seats = body.get("seats") or max(rules.seats)
    bots = body.get("bots", [])
    try:
        rules.resolve_options(body.get("options", {}))
    except engine.OptionError:
        return False
    return (
        seats in rules.seats
        and all(not bot or bot in rules.bot_names() for bot in bots)
        and (len(bots) < seats or (len(bots) == seats and all(bots)))
    )


# Committed rows: the WSGI handler closes the connection after each request.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_operation_answers_as_its_schema_says_and_never_5xx(world, method, path):
    operation = _schema()[path][method]
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        _fuzz(operation, mode, world)


def _fuzz(operation: Any, mode: GenerationMode, world: dict[str, Any]) -> None:
    """Send EXAMPLES generated cases of one mode, each also aimed at the real matches."""
    # Orders of the right shape are still mostly illegal (a made-up robot, a cell
    # out of range): the protocol answers those 400, so "valid shape, so accepted"
    # does not hold there. Every other check does.
    # So are challenges of the right shape to a made-up player, or with seats the
    # game does not have (bad_seats: the spec's code, not a schema bound).
    refusable = operation.path.endswith("/orders/") or operation.path == "/api/v1/challenges/"
    excluded = [positive_data_acceptance] if refusable else []
    strategy = operation.as_strategy(generation_mode=mode)
    if mode == GenerationMode.POSITIVE and operation.label == "POST /api/v1/matches/":
        # Some rules span fields and JSON Schema cannot say them: a bot per seat
        # after the caller's (or one in every seat, to watch), and the chosen game's
        # bots and options. Keep to them when the data is meant to be valid; the
        # negative mode still sends any.
        strategy = strategy.filter(_bots_fit_seats)

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def check(case: Any) -> None:
        # A case made invalid in its headers is sent as generated (no token, or a
        # mangled one); any other carries the token, or it would only test the 401.
        headers = None if case.meta.is_negative_at(ParameterLocation.HEADER) else world["headers"]
        case.call_and_validate(headers=headers, excluded_checks=excluded)
        if "match_id" in (case.path_parameters or {}) and not case.meta.is_negative_at(
            ParameterLocation.PATH
        ):
            for match_id in world["matches"]:
                case.path_parameters = {**case.path_parameters, "match_id": match_id}
                case.call_and_validate(headers=headers, excluded_checks=excluded)
        # Real names too: a game with ratings, a player and a built-in bot with one.
        for name, real in (("game", ["helium3"]), ("username", ["alice", "bot:random"])):
            if name in (case.path_parameters or {}) and not case.meta.is_negative_at(
                ParameterLocation.PATH
            ):
                for value in real:
                    case.path_parameters = {**case.path_parameters, name: value}
                    case.call_and_validate(headers=headers, excluded_checks=excluded)

    check()
