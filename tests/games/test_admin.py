"""The admin: filters, inlines, the full state, and recorded actions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from site_support import current_turn, drain

from games.models import AdminAction, Match, Orders, Seat, Turn
from games.services.tokens import token_authenticate, token_create


@pytest.fixture
def staff(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def _act(staff: Client, match: Match, action: str, **extra: str):
    return staff.post(
        reverse("admin:games_match_changelist"),
        {"action": action, "_selected_action": [match.pk], "index": 0, **extra},
        follow=True,
    )


@pytest.mark.parametrize(
    "query", ["", "?status__exact=running", "?seat_count=2", "?stale=overdue", "?stale=unresolved"]
)
def test_the_match_list_and_its_filters_load(staff, running_match, query):
    response = staff.get(reverse("admin:games_match_changelist") + query)
    assert response.status_code == 200


def test_the_stale_filter_finds_turns_past_their_deadline(staff, running_match, open_match):
    Turn.objects.filter(match=running_match).update(
        deadline_at=timezone.now() - timedelta(minutes=1)
    )
    response = staff.get(reverse("admin:games_match_changelist") + "?stale=overdue")
    assert [m.pk for m in response.context["cl"].result_list] == [running_match.pk]


def test_the_change_page_shows_seats_turns_and_the_full_state_read_only(staff, running_match):
    state = running_match.state
    robot = next(r for r in state["robots"] if r["seat"] == 3)
    robot.update(active=True, shield=True, deflect="SW")
    Match.objects.filter(pk=running_match.pk).update(state=state)
    response = staff.get(reverse("admin:games_match_change", args=[running_match.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "shield SW" in html  # staff see everything
    assert f"&quot;seed&quot;: {running_match.seed}" in html  # the full state, as JSON
    assert "bob" in html and "alice" in html  # seats inline
    assert "Waiting for orders" in html  # turns inline


def test_pause_and_resume_from_the_admin_are_recorded(staff, running_match, admin_user):
    _act(staff, running_match, "pause")
    assert Match.objects.get(pk=running_match.pk).status == Match.Status.PAUSED
    assert current_turn(running_match).paused_remaining is not None
    _act(staff, running_match, "resume")
    assert Match.objects.get(pk=running_match.pk).status == Match.Status.RUNNING
    actions = AdminAction.objects.filter(match=running_match).order_by("created_at")
    assert [(a.action, a.admin) for a in actions] == [("pause", admin_user), ("resume", admin_user)]


def test_resolve_the_current_turn_now_as_a_pass(staff, running_match):
    _act(staff, running_match, "pass_current_turn")
    row = Orders.objects.get(match=running_match, turn_number=0)
    assert row.source == Orders.Source.ADMIN and row.orders["actions"] == []
    drain(running_match)
    assert running_match.turn_number == 1
    assert Seat.objects.get(match=running_match, number=1).missed_in_row == 0
    assert AdminAction.objects.get(match=running_match).action == "pass_turn"


def test_replace_a_seat_with_a_bot_moves_for_it_at_once(staff, running_match):
    _act(staff, running_match, "replace_seat_with_bot", seat="1", bot="random")
    seat = Seat.objects.get(match=running_match, number=1)
    assert (seat.user, seat.bot) == (None, "random")
    assert Orders.objects.get(match=running_match, turn_number=0).source == Orders.Source.BOT
    record = AdminAction.objects.get(match=running_match)
    assert record.action == "replace_seat" and record.details["previous"] == "alice"


def test_replace_with_an_unknown_bot_is_refused_and_changes_nothing(staff, running_match):
    response = _act(staff, running_match, "replace_seat_with_bot", seat="1", bot="terminator")
    assert "no built-in bot" in response.content.decode()
    assert Seat.objects.get(match=running_match, number=1).bot == ""
    assert not AdminAction.objects.exists()


def test_a_bot_of_another_game_is_refused_in_the_sites_words(staff, running_match):
    from django.utils.html import escape

    from games.services.matches import bot_unknown_message

    response = _act(staff, running_match, "replace_seat_with_bot", seat="1", bot="hunter")
    said = bot_unknown_message("hunter", running_match.ruleset)
    assert said.startswith("hunter is a robot arena bot; ")
    assert escape(said) in response.content.decode()
    assert "no built-in bot" not in response.content.decode()
    assert Seat.objects.get(match=running_match, number=1).bot == ""
    assert not AdminAction.objects.exists()


def test_abort_ends_the_match_and_voids_the_open_turn(staff, running_match):
    _act(staff, running_match, "abort")
    assert Match.objects.get(pk=running_match.pk).status == Match.Status.ABORTED
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.VOID
    assert AdminAction.objects.get(match=running_match).action == "abort"
    # Nothing runs on an aborted match, and a second abort is refused without a record.
    _act(staff, running_match, "abort")
    assert AdminAction.objects.filter(match=running_match).count() == 1


def test_the_admin_action_log_is_read_only(staff, running_match):
    _act(staff, running_match, "pause")
    entry = AdminAction.objects.get()
    assert staff.get(reverse("admin:games_adminaction_changelist")).status_code == 200
    response = staff.post(
        reverse("admin:games_adminaction_delete", args=[entry.pk]), {"post": "yes"}
    )
    assert response.status_code == 403
    assert AdminAction.objects.filter(pk=entry.pk).exists()


def test_staff_see_api_tokens_without_their_secret_and_revoke_a_leaked_one(staff, player):
    token, raw = token_create(user=player, name="leaky bot")
    kept, _ = token_create(user=player, name="good bot")
    listing = staff.get(reverse("admin:games_apitoken_changelist"))
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "leaky bot" in body and token.prefix in body
    assert raw not in body and token.digest not in body
    detail = staff.get(reverse("admin:games_apitoken_change", args=[token.pk])).content.decode()
    assert token.digest not in detail and raw not in detail

    response = staff.post(
        reverse("admin:games_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
        follow=True,
    )

    assert "Revoked 1 token(s)." in response.content.decode()
    assert token_authenticate(raw) is None
    token.refresh_from_db()
    kept.refresh_from_db()
    assert token.revoked_at is not None and kept.revoked_at is None
    # No token is made in the admin: its secret could never be shown there.
    assert staff.get(reverse("admin:games_apitoken_add")).status_code == 403
