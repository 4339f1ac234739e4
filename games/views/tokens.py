"""The API tokens page: create (the token is shown once), name, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from games.errors import ServiceError
from games.forms import ApiTokenForm
from games.models import ApiToken
from games.services.tokens import token_create, token_revoke


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


@login_required
@require_http_methods(["GET", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST or None)
    new_token = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created, new_token = token_create(
                    user=_user(request), name=form.cleaned_data["name"]
                )
            except ServiceError as error:
                form.add_error("name", error.message)
                status = 400
            else:
                # Shown in this response and never again: not redirected, not stored
                # in the session, so the page that shows it is the only copy.
                form = ApiTokenForm()
                messages.success(request, f"Token “{created.name}” created.")
        else:
            status = 400
    tokens = ApiToken.objects.filter(user=_user(request), revoked_at__isnull=True)
    response = render(
        request,
        "games/tokens.html",
        {"form": form, "tokens": tokens, "new_token": new_token},
        status=status,
    )
    if new_token is not None:
        response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(user=_user(request), token_id=token_id)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.info(request, f"Token “{token.name}” is revoked; requests with it now get 401.")
    return redirect("games:tokens")
