"""The bot API's challenges: /api/v1/challenges/ (docs/compete.md, "Challenges")."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Router, Status

from games.api.errors import ApiError
from games.api.matches import _COMMON, _user
from games.api.schemas import ErrorOut
from games.compete import challenges
from games.compete.challenge_schemas import (
    ChallengeIn,
    ChallengeLists,
    ChallengeOut,
    challenge_json,
)
from games.compete.models import Challenge

router = Router(tags=["challenges"])

# An id in the path: 400 when it is no integer, 404 when not one of the caller's.
_ONE: dict[int, Any] = {**_COMMON, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut}


def _no_query(request: HttpRequest) -> None:
    """These operations take no query parameters: one given is a typo (bad_shape)."""
    if request.GET:
        name = sorted(request.GET)[0][:40]
        raise ApiError(400, "bad_shape", f"Unknown query parameter {name!r}.")


def _body(challenge: Challenge) -> dict[str, Any]:
    fresh = Challenge.objects.select_related("challenger", "challenged").get(pk=challenge.pk)
    return challenge_json(fresh)


@router.post(
    "/challenges/",
    response={
        201: ChallengeOut,
        400: ErrorOut,
        403: ErrorOut,
        404: ErrorOut,
        409: ErrorOut,
        **_COMMON,
    },
    summary="Challenge a player",
    description="The challenged account hears it (a `challenge` event on its stream) and "
    "accepts or declines; it expires after CHALLENGE_EXPIRE_SECONDS (a day). Errors: "
    "bad_shape, bad_seats, bad_option, unknown_bot, bad_player (yourself), unknown_player "
    "(404), challenges_closed (403: the player takes none from you), too_many_challenges (409).",
)
def create(request: HttpRequest, payload: ChallengeIn) -> Status[dict]:
    _no_query(request)
    challenge = challenges.challenge_create(
        challenger=_user(request),
        to=payload.to,
        ruleset=payload.ruleset,
        options=payload.options,
        seats=payload.seats,
        bots=payload.bots,
        rated=payload.rated,
        turn_seconds=payload.turn_seconds,
        public=payload.public,
        api=True,
    )
    return Status(201, _body(challenge))


@router.get(
    "/challenges/",
    response={200: ChallengeLists, **_COMMON},
    summary="Your pending challenges",
    description="`incoming`: challenges to you waiting for your answer (listing them counts "
    "as seeing them: no email follows); `outgoing`: yours waiting for theirs.",
)
def lists(request: HttpRequest) -> dict[str, Any]:
    _no_query(request)
    user = _user(request)
    now = timezone.now()
    pending = Challenge.objects.filter(
        status=Challenge.Status.PENDING, expires_at__gt=now
    ).select_related("challenger", "challenged")
    incoming = list(pending.filter(challenged=user))
    challenges.challenges_seen(user=user, now=now)
    return {
        "incoming": [challenge_json(c) for c in incoming],
        "outgoing": [challenge_json(c) for c in pending.filter(challenger=user)],
    }


@router.get(
    "/challenges/{challenge_id}/",
    response={200: ChallengeOut, 400: ErrorOut, 404: ErrorOut, **_COMMON},
    summary="One of your challenges",
    description="A challenge you made or were sent, in any status.",
)
def one(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    _no_query(request)
    user = _user(request)
    found = Challenge.objects.filter(pk=challenge_id).select_related("challenger", "challenged")
    challenge = found.filter(challenger=user).first() or found.filter(challenged=user).first()
    if challenge is None:
        raise challenges.NotFound("not_found", "There is no such challenge of yours.")
    return challenge_json(challenge)


@router.post(
    "/challenges/{challenge_id}/accept/",
    response={201: ChallengeOut, **_ONE},
    summary="Accept a challenge",
    description="Makes the match (`match_id`): the challenger in the first seat, you in the "
    "second, played through this API; it starts when no seat is left open. 409 "
    "challenge_closed when it was answered, cancelled or expired; 403 not_challenged for "
    "the challenger.",
)
def accept(request: HttpRequest, challenge_id: int) -> Status[dict]:
    _no_query(request)
    challenges.challenge_accept(challenge_id=challenge_id, user=_user(request), api=True)
    return Status(201, _body(Challenge(pk=challenge_id)))


@router.post(
    "/challenges/{challenge_id}/decline/",
    response={200: ChallengeOut, **_ONE},
    summary="Decline a challenge",
    description="409 challenge_closed when it was answered, cancelled or expired.",
)
def decline(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    _no_query(request)
    return _body(challenges.challenge_decline(challenge_id=challenge_id, user=_user(request)))


@router.post(
    "/challenges/{challenge_id}/cancel/",
    response={200: ChallengeOut, **_ONE},
    summary="Cancel your challenge",
    description="Only the challenger; 409 challenge_closed when it was answered or expired.",
)
def cancel(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    _no_query(request)
    return _body(challenges.challenge_cancel(challenge_id=challenge_id, user=_user(request)))
