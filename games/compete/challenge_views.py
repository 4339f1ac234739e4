"""The challenge pages: the player's challenges (incoming to answer, outgoing to
cancel, who may challenge them), the challenge form, and invitation links. Thin:
parse, call one service, redirect (post/redirect/get)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from games import catalog
from games.compete import challenges, invitations
from games.compete.challenge_emails import challenge_terms
from games.compete.challenge_forms import ChallengeForm, ChallengePolicyForm
from games.compete.models import Challenge
from games.errors import ServiceError
from games.views.access import refused, signed_in_user

RECENT = 10


def _lists(user: Any) -> dict[str, Any]:
    now = timezone.now()
    pending = Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__gt=now)
    related = ("challenger", "challenged")
    incoming = list(pending.filter(challenged=user).select_related(*related))
    outgoing = list(pending.filter(challenger=user).select_related(*related))
    recent = list(
        Challenge.objects.filter(Q(challenger=user) | Q(challenged=user))
        .exclude(pk__in=[c.pk for c in incoming + outgoing])
        .select_related(*related)[:RECENT]
    )
    for c in incoming + outgoing + recent:
        c.terms = challenge_terms(c)  # type: ignore[attr-defined]
    return {"incoming": incoming, "outgoing": outgoing, "recent": recent}


@login_required
@require_http_methods(["GET", "POST"])
def challenge_list(request: HttpRequest) -> HttpResponse:
    """The player's challenges; its form sets who may challenge them (POST)."""
    user = signed_in_user(request)
    policy = challenges.policy_of(user)
    form = ChallengePolicyForm(
        request.POST or None, initial={"accept_from": policy.accept_from, "email": policy.email}
    )
    if request.method == "POST":
        if form.is_valid():
            challenges.policy_update(
                user=user,
                accept_from=form.cleaned_data["accept_from"],
                email=form.cleaned_data["email"],
            )
            messages.success(request, "Saved: who may challenge you.")
            return redirect("compete:challenges")
    else:
        challenges.challenges_seen(user=user)
    context = {**_lists(user), "policy_form": form}
    return render(request, "compete/challenges.html", context, status=400 if form.errors else 200)


def _form_context(form: ChallengeForm, to: str) -> dict[str, Any]:
    return {
        "form": form,
        "to": to,
        "games": [(name, catalog.title(name)) for name in catalog.names()],
    }


@login_required
@require_http_methods(["GET", "POST"])
def challenge_new(request: HttpRequest) -> HttpResponse:
    """The challenge form: ?to= the player, ?game= the game (a link per game, so no
    script is needed; the dialog on a player's page loads `?part=1`, the form alone)."""
    source = request.POST if request.method == "POST" else request.GET
    to = source.get("to", "")[:150]
    form = ChallengeForm(request.POST or None, game=source.get("game") or None, initial={"to": to})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            challenge = challenges.challenge_create(
                challenger=signed_in_user(request),
                to=data["to"],
                ruleset=form.ruleset,
                options=data["options"],
                seats=data["seat_count"],
                bots=form.bots(),
                rated=form.rated_choice(),
                turn_seconds=data["turn_seconds"],
                public=data["public"],
            )
        except ServiceError as error:
            form.add_error(
                "to"
                if error.code in ("unknown_player", "bad_player", "challenges_closed")
                else None,
                error.message,
            )
        else:
            messages.success(
                request,
                f"Challenge sent to {challenge.challenged.get_username()}: "
                f"{challenge_terms(challenge)}.",
            )
            return redirect("compete:challenges")
    template = (
        "compete/_challenge_form.html" if source.get("part") else "compete/challenge_new.html"
    )
    status = 400 if request.method == "POST" else 200
    return render(request, template, _form_context(form, to), status=status)


def _answered(request: HttpRequest, error: ServiceError) -> HttpResponse:
    if error.status == 409:  # answered, cancelled or expired: say so on the list
        messages.error(request, error.message)
        return redirect("compete:challenges")
    return refused(request, error)


@login_required
@require_POST
def challenge_accept(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        match = challenges.challenge_accept(challenge_id=challenge_id, user=signed_in_user(request))
    except ServiceError as error:
        return _answered(request, error)
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def challenge_decline(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = challenges.challenge_decline(
            challenge_id=challenge_id, user=signed_in_user(request)
        )
    except ServiceError as error:
        return _answered(request, error)
    messages.info(request, f"Declined the challenge of {challenge.challenger.get_username()}.")
    return redirect("compete:challenges")


@login_required
@require_POST
def challenge_cancel(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = challenges.challenge_cancel(
            challenge_id=challenge_id, user=signed_in_user(request)
        )
    except ServiceError as error:
        return _answered(request, error)
    messages.info(request, f"Cancelled your challenge to {challenge.challenged.get_username()}.")
    return redirect("compete:challenges")


@login_required
@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: the match and a button to take its next open seat (a GET
    changes nothing: a link preview must not take a seat); a clear page when the link
    is unknown, used or expired."""
    try:
        match = invitations.invitation_match(token)
    except ServiceError as error:
        return render(request, "compete/invitation.html", {"error": error}, status=error.status)
    user = signed_in_user(request)
    if match.seats.filter(user=user).exists():
        return redirect("games:match-detail", match.pk)
    closed: ServiceError | None = invitations.invitation_closed(match)
    if closed is None and request.method == "POST":
        try:
            invitations.invitation_accept(token=token, user=user)
        except ServiceError as error:
            closed = error
        else:
            return redirect("games:match-detail", match.pk)
    context = {
        "match": match,
        "error": closed,
        "seats": list(match.seats.select_related("user")),
        "creator": match.created_by,
    }
    return render(
        request, "compete/invitation.html", context, status=closed.status if closed else 200
    )
