"""A player's own settings reached from the user menu and from every email:
notification settings and the unsubscribe link."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from games import selectors, services
from games.errors import ServiceError
from games.forms import NotificationSettingsForm
from games.models import NotificationKind
from games.views.access import refused, signed_in_user

log = logging.getLogger(__name__)


@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request: HttpRequest) -> HttpResponse:
    prefs = selectors.notification_settings_for(signed_in_user(request))
    initial = {kind: prefs.wants(kind) for kind in NotificationKind.values}
    form = NotificationSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.notification_settings_update(user=signed_in_user(request), **form.cleaned_data)
        messages.success(request, "Your notification settings are saved.")
        return redirect("games:notification-settings")
    return render(request, "games/notification_settings.html", {"form": form})


# The token in the URL is the authentication; a mail client's RFC 8058 one-click
# POST carries no CSRF token and no session.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every email. Opening it (GET) changes nothing, as link-checking
    mail filters open links too: the page says what would be switched off and asks
    with one button. The button's POST, or a mail client's RFC 8058 one-click POST
    (List-Unsubscribe-Post), switches that kind of email off at once; that is
    idempotent and undone on the settings page. A bad token: a 400 page."""
    try:
        if request.method == "POST":
            user, kind = services.notification_unsubscribe(token=token)
        else:
            user, kind = services.unsubscribe_token_read(token=token)
    except ServiceError as error:
        return refused(request, error)
    context = {"kind_label": NotificationKind(kind).label, "unsubscribed_user": user}
    if request.method == "POST":
        return render(request, "games/unsubscribed.html", context)
    return render(request, "games/unsubscribe_confirm.html", context)
