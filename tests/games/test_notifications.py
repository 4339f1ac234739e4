"""Emails: plain and HTML, at most once per event, never to bots, never when
switched off, each with an unsubscribe link (a page with one button) and the
RFC 8058 one-click header."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from site_support import drain

from games import services
from games.models import Match, Notification, NotificationKind, NotificationSettings, Seat


def _sent(kind_subject: str) -> list[mail.EmailMultiAlternatives]:
    return [m for m in mail.outbox if kind_subject in m.subject]


def test_match_started_and_your_turn_emails_carry_the_deadline_a_link_and_both_formats(
    running_match, player, opponent, mailoutbox
):
    drain(running_match)
    # The opponent's join started it: they are on its page, and only the player hears.
    started = _sent("has started")
    assert [m.to[0] for m in started] == [player.email]
    [your_turn] = _sent("Your turn")
    assert your_turn.to == [player.email]
    html = your_turn.alternatives[0][0]
    assert your_turn.alternatives[0][1] == "text/html"
    link = f"{settings.SITE_URL}/matches/{running_match.pk}/"
    assert link in your_turn.body and link in html
    assert "before" in your_turn.body  # the deadline
    assert "/unsubscribe/" in your_turn.body and "/unsubscribe/" in html
    assert your_turn.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_the_same_event_is_never_emailed_twice(running_match, player, mailoutbox):
    row = services.notify(
        user=player, match=running_match, kind=NotificationKind.YOUR_TURN, turn_number=0
    )
    again = services.notify(
        user=player, match=running_match, kind=NotificationKind.YOUR_TURN, turn_number=0
    )
    assert row.pk == again.pk
    assert Notification.objects.filter(user=player, kind="your_turn", turn_number=0).count() == 1
    assert services.notification_send(notification_id=row.pk, now=row.send_after) is True
    assert services.notification_send(notification_id=row.pk, now=row.send_after) is False
    assert len(_sent("Your turn")) == 1


def test_bots_get_no_email(player, mailoutbox):
    match = services.match_create(creator=player, seat_count=4, bots=["random"] * 3)
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    drain(match)
    assert set(Notification.objects.values_list("user", flat=True)) == {player.pk}
    assert {m.to[0] for m in mailoutbox} == {player.email}
    assert Seat.objects.filter(match=match, user__isnull=True).count() == 3


def test_a_kind_switched_off_is_not_sent(running_match, player, opponent, mailoutbox):
    services.notification_settings_update(user=opponent, your_turn=False)
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    drain(running_match)
    assert not Notification.objects.filter(user=opponent, kind="your_turn").exists()
    assert not [m for m in _sent("Your turn") if opponent.email in m.to]


def test_a_kind_switched_off_after_the_row_was_made_is_skipped(running_match, player, mailoutbox):
    row = Notification.objects.get(user=player, kind="your_turn", turn_number=0)
    services.notification_settings_update(user=player, your_turn=False)
    assert services.notification_send(notification_id=row.pk, now=row.send_after) is False
    row.refresh_from_db()
    assert row.status == Notification.Status.SKIPPED
    assert not _sent("Your turn")


def test_the_match_over_email_tells_the_result(player, mailoutbox):
    match = services.match_create(creator=player, seat_count=2, length_ms=3_000, bots=["random"])
    for _ in range(100):
        drain(match)
        if match.status == Match.Status.FINISHED:
            break
        services.orders_submit(match_id=match.pk, user=player, turn=match.turn_number, actions=[])
    [over] = _sent("is over")
    assert "seat 1 (alice, you)" in over.body and "seat 3 (bot random)" in over.body
    assert "(you)" in over.alternatives[0][0]


def _unsubscribe_path(message: mail.EmailMessage) -> str:
    site = re.escape(settings.SITE_URL)
    return re.search(site + r"(/unsubscribe/\S+/)", message.body).group(1)


def test_opening_the_unsubscribe_link_asks_with_one_button_and_changes_nothing(
    running_match, player, mailoutbox
):
    drain(running_match)
    [your_turn] = _sent("Your turn")
    path = _unsubscribe_path(your_turn)
    assert path in your_turn.alternatives[0][0]
    # A mail filter that follows every link in a message, as often as it likes.
    for _ in range(2):
        response = Client().get(path)
        assert response.status_code == 200
        page = response.content.decode()
        assert "“Your turn” emails" in page
        # One button, in a form that posts back to the link itself.
        assert page.count('<form method="post">') == 1
        assert page.count("Stop “Your turn” emails</button>") == 1
    assert not NotificationSettings.objects.filter(user=player).exists()
    [header] = re.findall(r"<(\S+)>", your_turn.extra_headers["List-Unsubscribe"])
    assert header.endswith(path)


def test_the_button_switches_only_that_kind_off(running_match, player, mailoutbox):
    drain(running_match)
    [your_turn] = _sent("Your turn")
    response = Client(enforce_csrf_checks=True).post(_unsubscribe_path(your_turn))
    assert response.status_code == 200
    assert "will no longer get “Your turn” emails" in response.content.decode()
    prefs = NotificationSettings.objects.get(user=player)
    assert prefs.your_turn is False
    assert prefs.match_over is True  # only that kind


def test_mail_clients_can_unsubscribe_with_one_post_and_no_csrf_token(
    running_match, player, mailoutbox
):
    drain(running_match)
    [your_turn] = _sent("Your turn")
    assert your_turn.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    client = Client(enforce_csrf_checks=True)
    # RFC 8058: the body is exactly what List-Unsubscribe-Post says.
    response = client.post(
        _unsubscribe_path(your_turn),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert NotificationSettings.objects.get(user=player).your_turn is False


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("token", ["garbage", "eyJ1IjoxLCJrIjoieW91cl90dXJuIn0:forged:sig"])
def test_a_forged_unsubscribe_link_is_refused_and_changes_nothing(db, token, method):
    response = getattr(Client(), method)(reverse("games:unsubscribe", args=[token]))
    assert response.status_code == 400
    assert "This unsubscribe link is not valid." in response.content.decode()
    assert not NotificationSettings.objects.exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_token_for_an_unknown_kind_is_refused(player, method):
    from django.core import signing

    token = signing.dumps({"u": player.pk, "k": "spam"}, salt="games.unsubscribe")
    response = getattr(Client(), method)(reverse("games:unsubscribe", args=[token]))
    assert response.status_code == 400
    assert not NotificationSettings.objects.exists()
