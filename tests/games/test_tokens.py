"""API tokens on the settings page and from `manage.py issue_token`: created and
shown once, stored only as a digest, named, revoked; each acts for its user."""

from __future__ import annotations

import hashlib
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from site_support import client_for

from games.models import ApiToken
from games.services.tokens import MAX_ACTIVE_TOKENS, token_authenticate, token_create

PAGE = "games:tokens"


def _create(client: Client, name: str = "my bot") -> str:
    response = client.post(reverse(PAGE), {"name": name})
    assert response.status_code == 200
    token = response.context["new_token"]
    assert token and token in response.content.decode()
    return token


def _api(token: str) -> int:
    return Client(headers={"Authorization": f"Bearer {token}"}).get("/api/v1/matches/").status_code


def test_a_new_token_is_shown_once_and_only_its_digest_is_stored(player):
    client = client_for(player)
    token = _create(client)
    row = ApiToken.objects.get(user=player)
    assert row.name == "my bot"
    assert row.digest == hashlib.sha256(token.encode()).hexdigest()
    assert token.startswith(f"h3_{row.prefix}_") and len(token) >= 50
    stored = [str(v) for v in ApiToken.objects.filter(pk=row.pk).values().get().values()]
    assert not any(token in value for value in stored)
    again = client.get(reverse(PAGE))
    assert token not in again.content.decode() and row.prefix in again.content.decode()
    assert _api(token) == 200


def test_two_tokens_are_different_and_both_work(player):
    client = client_for(player)
    first, second = _create(client, "a"), _create(client, "b")
    assert first != second
    assert (_api(first), _api(second)) == (200, 200)


def test_revoking_a_token_on_the_page_ends_its_access(player):
    client = client_for(player)
    token = _create(client)
    row = ApiToken.objects.get(user=player)
    response = client.post(reverse("games:token-revoke", args=[row.pk]))
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.revoked_at is not None
    assert _api(token) == 401
    assert row.prefix not in client.get(reverse(PAGE)).content.decode()


def test_nobody_revokes_another_users_token(player, opponent):
    token = _create(client_for(player))
    row = ApiToken.objects.get(user=player)
    client_for(opponent).post(reverse("games:token-revoke", args=[row.pk]))
    row.refresh_from_db()
    assert row.revoked_at is None and _api(token) == 200


def test_the_page_lists_only_the_users_own_tokens(player, opponent):
    token_create(user=opponent, name="bobs secret bot")
    page = client_for(player).get(reverse(PAGE)).content.decode()
    assert "bobs secret bot" not in page


@pytest.mark.parametrize("name", ["", "   ", "x" * 65])
def test_a_token_needs_a_short_name(player, name):
    response = client_for(player).post(reverse(PAGE), {"name": name})
    assert response.status_code == 400 and response.context["new_token"] is None
    assert not ApiToken.objects.exists()


def test_a_user_has_a_bounded_number_of_active_tokens(player):
    for i in range(MAX_ACTIVE_TOKENS):
        token_create(user=player, name=f"t{i}")
    response = client_for(player).post(reverse(PAGE), {"name": "one more"})
    assert response.status_code == 400
    assert ApiToken.objects.filter(user=player).count() == MAX_ACTIVE_TOKENS


def test_the_token_pages_need_a_login_and_a_csrf_token(player):
    outsider = Client()
    for response in (
        outsider.get(reverse(PAGE)),
        outsider.post(reverse(PAGE), {"name": "x"}),
        outsider.post(reverse("games:token-revoke", args=[1])),
    ):
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    strict = client_for(player, enforce_csrf_checks=True)
    assert strict.post(reverse(PAGE), {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_a_token_of_the_right_shape_but_unknown_authenticates_nobody(player):
    token, raw = token_create(user=player, name="t")
    forged = f"h3_{token.prefix}_" + "A" * 43
    assert token_authenticate(forged) is None
    assert token_authenticate(raw) == token
    assert token_authenticate(raw + "\n") is None


def test_issue_token_creates_the_user_and_prints_a_working_token(db):
    out, err = io.StringIO(), io.StringIO()
    call_command("issue_token", "robo", stdout=out, stderr=err)
    token = out.getvalue().strip()
    user = get_user_model().objects.get(username="robo")
    assert not user.has_usable_password()
    assert "Created user" in err.getvalue()
    assert token_authenticate(token).user == user
    assert _api(token) == 200


def test_issue_token_for_an_existing_user_keeps_the_user(player):
    out = io.StringIO()
    call_command("issue_token", "alice", "--name", "cli", stdout=out)
    token = out.getvalue().strip()
    assert token_authenticate(token).user == player
    assert ApiToken.objects.get(user=player).name == "cli"
    assert player.has_usable_password()


@pytest.mark.parametrize("username", ["", "two words", "x" * 151, "bad/slash"])
def test_issue_token_refuses_a_bad_username(db, username):
    with pytest.raises(CommandError):
        call_command("issue_token", username, stdout=io.StringIO())
    assert not get_user_model().objects.exists()
