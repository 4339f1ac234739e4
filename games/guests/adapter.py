"""allauth's account adapter: a guest who signs up becomes the new account.

The sign-up form's user is the guest's own User, so its seats, orders and
records stay where they are; the guest flag goes. The browser stays signed in
as the new account while the email waits to be confirmed (the guest was playing
a match: it keeps playing it), and both the sign-up and the confirmation bring it
back to the page it signed up from (its match), not to the lobby.
"""

from __future__ import annotations

import re
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from games.guests.selectors import SESSION_FLAG, is_guest
from games.guests.services import guest_claim
from games.models import Match, Seat

# Names the site gives out itself: guests' and the showcase's house bots'.
RESERVED_NAMES = re.compile(r"^(guest-|[a-z]+-bot-\d+$)", re.IGNORECASE)
# The session key that holds where a guest who signed up goes back to (its match).
RETURN_KEY = "guest_signup_return"


def return_url(request: HttpRequest, user: Any) -> str:
    """Where a guest who signs up goes back to: the page it came from (`next`, a
    path on this site), else its latest match still being played, else the lobby."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if wanted.startswith("/") and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    seat = (
        Seat.objects.filter(
            user=user, match__status__in=[Match.Status.RUNNING, Match.Status.PAUSED]
        )
        .order_by("-match_id")
        .first()
    )
    if seat is not None:
        return reverse("games:match-detail", args=[seat.match_id])
    return reverse("games:lobby")


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]  # allauth is untyped
    def new_user(self, request: HttpRequest) -> Any:
        guest = request.user
        if is_guest(guest) and guest.pk is not None:
            return User.objects.get(pk=guest.pk)
        return super().new_user(request)

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        claiming = is_guest(user)
        # The form's name, email and password replace the guest's made-up name.
        user = super().save_user(request, user, form, commit=commit)
        if claiming and commit:
            guest_claim(user=user)
            # The password changed: this browser stays signed in as the account.
            update_session_auth_hash(request, user)
            request.session.pop(SESSION_FLAG, None)
            request.session[RETURN_KEY] = return_url(request, user)
        return user

    def respond_email_verification_sent(self, request: HttpRequest, user: Any) -> HttpResponse:
        # A guest who just signed up goes back to its match, told about the email.
        back = request.session.get(RETURN_KEY)
        if back and request.user.is_authenticated and request.user.pk == user.pk:
            messages.info(
                request,
                f"Welcome, {user.get_username()}: your matches and your record are yours. "
                "Open the link in that email to confirm the address.",
            )
            return redirect(back)
        response: HttpResponse = super().respond_email_verification_sent(request, user)
        return response

    def get_email_verification_redirect_url(self, email_address: Any) -> str:
        # Confirmed in the browser that signed up: back to the match it came from.
        back = self.request.session.pop(RETURN_KEY, None)
        if back and self.request.user.is_authenticated:
            return str(back)
        url: str = super().get_email_verification_redirect_url(email_address)
        return url

    def clean_username(self, username: str, shallow: bool = False) -> str:
        if RESERVED_NAMES.match(username):
            raise ValidationError(
                "This name is kept for the site's guests and bots; choose another."
            )
        cleaned: str = super().clean_username(username, shallow=shallow)
        return cleaned

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        # A signed-in guest who opens the sign-up page lands on the guests' own form.
        match = request.resolver_match
        if match is not None and match.url_name == "account_signup" and is_guest(request.user):
            return reverse("games:guest-signup")
        url: str = super().get_login_redirect_url(request)
        return url
