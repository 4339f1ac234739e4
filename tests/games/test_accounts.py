"""Accounts: sign-up with a verified email, log in and out, password reset,
notification settings, and axes throttling failed logins (admin included)."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from game_factories import PASSWORD, UserFactory
from site_support import client_for

from games.models import NotificationSettings


@pytest.fixture(autouse=True)
def _fresh_axes(db):
    from axes.models import AccessAttempt

    AccessAttempt.objects.all().delete()


def test_signing_up_asks_to_verify_the_email_before_the_first_login(mailoutbox):
    client = Client()
    response = client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": "a long moon password",
            "password2": "a long moon password",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    user = get_user_model().objects.get(username="dora")
    assert not EmailAddress.objects.get(user=user).verified
    # Not logged in until the address is verified.
    assert not client.get(reverse("games:lobby")).wsgi_request.user.is_authenticated
    login = client.post(
        reverse("account_login"), {"login": "dora", "password": "a long moon password"}
    )
    assert login.status_code == 302 and "confirm-email" in login["Location"]

    link = re.search(r"http://testserver(/accounts/confirm-email/\S+/)", mailoutbox[-1].body).group(
        1
    )
    client.post(link)
    assert EmailAddress.objects.get(user=user).verified
    login = client.post(
        reverse("account_login"), {"login": "dora", "password": "a long moon password"}
    )
    assert login.status_code == 302
    assert client.get(reverse("games:lobby")).wsgi_request.user.is_authenticated


def test_a_verified_user_logs_in_with_name_or_email_and_logs_out(player):
    client = Client()
    response = client.post(reverse("account_login"), {"login": player.email, "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("games:lobby")).wsgi_request.user.is_authenticated
    client.post(reverse("account_logout"))
    assert not client.get(reverse("games:lobby")).wsgi_request.user.is_authenticated


def test_a_forgotten_password_can_be_reset_by_email(player, mailoutbox):
    client = Client()
    client.post(reverse("account_reset_password"), {"email": player.email})
    assert len(mailoutbox) == 1
    link = re.search(
        r"http://testserver(/accounts/password/reset/key/\S+/)", mailoutbox[0].body
    ).group(1)
    form_page = client.get(link, follow=True)
    action = form_page.redirect_chain[-1][0] if form_page.redirect_chain else link
    client.post(action, {"password1": "a brand new password", "password2": "a brand new password"})
    player.refresh_from_db()
    assert player.check_password("a brand new password")


def test_the_email_address_and_password_pages_are_there_for_a_signed_in_user(player):
    client = client_for(player)
    assert client.get(reverse("account_email")).status_code == 200
    assert client.get(reverse("account_change_password")).status_code == 200


def test_a_player_changes_their_email_address_through_a_verified_new_one(player, mailoutbox):
    client = client_for(player)
    client.post(reverse("account_email"), {"action_add": "", "email": "new@example.org"})
    new = EmailAddress.objects.get(user=player, email="new@example.org")
    assert not new.verified and mailoutbox[-1].to == ["new@example.org"]
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+/)", mailoutbox[-1].body)
    client.post(link.group(1))
    client.post(reverse("account_email"), {"action_primary": "", "email": "new@example.org"})
    player.refresh_from_db()
    assert player.email == "new@example.org"  # where the game's emails go from now on
    assert EmailAddress.objects.get(user=player, primary=True).email == "new@example.org"


def test_a_player_changes_their_password_and_logs_in_with_the_new_one(player):
    client = client_for(player)
    client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": "moon dust 2026!", "password2": "moon dust 2026!"},
    )
    player.refresh_from_db()
    assert player.check_password("moon dust 2026!")
    fresh = Client()
    login = fresh.post(reverse("account_login"), {"login": player.username, "password": PASSWORD})
    assert login.status_code == 200  # the old one is refused: the form again
    login = fresh.post(
        reverse("account_login"), {"login": player.username, "password": "moon dust 2026!"}
    )
    assert login.status_code == 302


def test_notification_settings_switch_kinds_on_and_off(player):
    client = client_for(player)
    page = client.get(reverse("games:notification-settings"))
    assert page.status_code == 200
    assert all(page.context["form"][k].initial for k in ("your_turn", "match_over"))
    response = client.post(
        reverse("games:notification-settings"),
        {"your_turn": "on", "match_started": "on", "match_over": "on"},
    )
    assert response.status_code == 302
    prefs = NotificationSettings.objects.get(user=player)
    assert prefs.your_turn and prefs.match_started and prefs.match_over
    assert not prefs.deadline_warning and not prefs.seat_to_bot


def _fail_logins(client: Client, url: str, field: str, username: str, times: int) -> None:
    for _ in range(times):
        client.post(url, {field: username, "password": "wrong password"})


def test_axes_locks_out_a_client_after_too_many_failed_logins(player, settings):
    settings.ACCOUNT_RATE_LIMITS = False  # allauth's own limiter would answer first
    client = Client()
    _fail_logins(
        client, reverse("account_login"), "login", player.username, settings.AXES_FAILURE_LIMIT
    )
    response = client.post(
        reverse("account_login"), {"login": player.username, "password": PASSWORD}
    )
    assert response.status_code == 429
    assert not client.get(reverse("games:lobby")).wsgi_request.user.is_authenticated


def test_axes_also_guards_the_admin_login(settings):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    url = reverse("admin:login")
    _fail_logins(client, url, "username", admin.username, settings.AXES_FAILURE_LIMIT)
    response = client.post(url, {"username": admin.username, "password": PASSWORD})
    assert response.status_code == 429
    assert client.get(reverse("admin:index")).status_code == 302
