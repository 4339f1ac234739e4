"""The guests' sign-up page: allauth's own sign-up, shown to a signed-in guest."""

from __future__ import annotations

from typing import Any

from allauth.account.mixins import RedirectAuthenticatedUserMixin
from allauth.account.views import SignupView
from allauth.decorators import rate_limit
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from games.guests.selectors import is_guest


class GuestSignupView(SignupView):  # type: ignore[misc]  # allauth is untyped
    template_name = "guests/signup.html"

    @method_decorator(rate_limit(action="signup"))
    @method_decorator(sensitive_post_parameters("password", "password1", "password2"))
    @method_decorator(never_cache)
    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not is_guest(request.user):
            return redirect("account_signup")
        # Past RedirectAuthenticatedUserMixin, which sends every signed-in user
        # away: a guest is signed in, and signing up is what it came here for.
        response: HttpResponseBase = super(RedirectAuthenticatedUserMixin, self).dispatch(
            request, *args, **kwargs
        )
        return response


guest_signup = GuestSignupView.as_view()
