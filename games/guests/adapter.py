"""allauth's account adapter: a guest who signs up becomes the new account.

The sign-up form's user is the guest's own User, so its seats, orders and
records stay where they are; the guest flag goes. Then the guest is logged out,
as anybody who signs up is until the email address is confirmed (mandatory
verification): no email goes to an address nobody has confirmed.
"""

from __future__ import annotations

import re
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import logout
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.urls import reverse

from games.guests.selectors import is_guest
from games.guests.services import guest_claim

# Names the site gives out itself: guests' and the showcase's house bots'.
RESERVED_NAMES = re.compile(r"^(guest-|[a-z]+-bot-\d+$)", re.IGNORECASE)


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
            logout(request)
        return user

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
