"""Hostile names (markup, script, CRLF, already-escaped text): refused at sign-up,
and where one got past validation anyway (an old row, a raw import) escaped on every
page and in every email that shows it, and never in an email header. Usernames are
the names here: matches have no title."""

from __future__ import annotations

import pytest
from django.urls import reverse
from site_support import client_for, drain

from games import services
from games.models import Match

# Without "/": a username with one cannot be put in a /players/NAME/ link (sign-up and
# issue_token refuse both kinds, see below), and pages link to players.
HOSTILE_NAMES = [
    '<script>alert("name")',
    '"><img src=x onerror=alert(1)>',
    "evil\r\nBcc: victim@example.org",
    "&lt;b&gt;already escaped",
]


@pytest.mark.parametrize("name", [*HOSTILE_NAMES, "<script>alert(1)</script>", "a/b"])
def test_sign_up_and_issue_token_refuse_a_name_with_markup_or_a_line_break(db, name):
    from django.contrib.auth import get_user_model
    from django.core.management import CommandError, call_command
    from django.test import Client

    response = Client().post(
        reverse("account_signup"),
        {
            "email": "new@example.com",
            "username": name,
            "password1": "x9!long-enough-pw",
            "password2": "x9!long-enough-pw",
        },  # fmt: skip
    )
    assert response.status_code == 200  # the form again, with the error
    with pytest.raises(CommandError):
        call_command("issue_token", name)
    assert not get_user_model().objects.filter(username=name).exists()


def hostile_users() -> list:
    """Users whose names got past validation anyway (an old row, a raw import)."""
    from game_factories import UserFactory

    return [UserFactory(username=name, email=f"u{i}@example.com") for i, name in
            enumerate(HOSTILE_NAMES)]  # fmt: skip


def assert_escaped(html: str, names: list[str], where: str) -> None:
    from django.utils.html import escape

    for name in names:
        assert name not in html or name == escape(name), f"{where}: {name!r} raw"
        assert escape(name) in html, f"{where}: {name!r} not shown escaped"


def test_hostile_names_render_escaped_on_every_page_that_shows_them(player):
    from games.services.tokens import token_create

    script, image, crlf, escaped = users = hostile_users()
    # A running match (the script-named player and a bot), an open match, a finished one.
    running = services.match_create(creator=script, seat_count=2, bots=["random"])
    open_match = services.match_create(creator=crlf, seat_count=3)
    services.seat_join(match_id=open_match.pk, user=escaped)
    finished = services.match_create(
        creator=image, seat_count=4, length_ms=1_000, bots=["random", "random", "random"]
    )
    drain(finished)
    while Match.objects.get(pk=finished.pk).status != Match.Status.FINISHED:
        services.turn_pass_now(match_id=finished.pk, admin=None)
        drain(finished)
    token_create(user=script, name=script.username)

    watcher = client_for(player)
    own = client_for(script)
    pages = {
        "lobby": (watcher.get(reverse("games:lobby")), [crlf, escaped]),
        "match page": (watcher.get(f"/matches/{running.pk}/"), [script]),
        "open match page": (watcher.get(f"/matches/{open_match.pk}/"), [crlf, escaped]),
        "finished match page": (watcher.get(f"/matches/{finished.pk}/"), [image]),
        "archive": (watcher.get(reverse("games:archive")), [image]),
        "player page": (watcher.get(reverse("games:player", args=[image.username])), [image]),
        "own lobby": (own.get(reverse("games:lobby")), [script]),
        "tokens page": (own.get(reverse("games:tokens")), [script]),
    }
    for where, (response, shown) in pages.items():
        assert response.status_code == 200, where
        assert_escaped(response.content.decode(), [u.username for u in shown], where)
    assert len(users) == 4


EMAIL_HEADERS = {
    "Content-Type", "MIME-Version", "Subject", "From", "To", "Date", "Message-ID",
    "List-Unsubscribe", "List-Unsubscribe-Post",
}  # fmt: skip


def test_hostile_names_are_escaped_in_emails_and_never_reach_a_header(db, mailoutbox):
    from email import message_from_bytes

    from django.utils.html import escape

    from games.models import Notification

    users = hostile_users()
    for user in users:
        match = services.match_create(creator=user, seat_count=2, bots=["random"])
        services.orders_submit(match_id=match.pk, user=user, turn=0, actions=[])
        drain(match)  # match started, your turn (0 and 2): each email sent
    assert len(mailoutbox) == Notification.objects.filter(status="sent").count() > len(users)
    for message in mailoutbox:
        user = next(u for u in users if message.to == [u.email])
        parsed = message_from_bytes(message.message().as_bytes())
        assert set(parsed.keys()) <= EMAIL_HEADERS, set(parsed.keys()) - EMAIL_HEADERS
        assert parsed.get_all("To") == [user.email] and "Bcc" not in parsed
        assert "\r" not in message.subject and "\n" not in message.subject
        assert user.username not in message.subject
        html = message.alternatives[0][0]
        assert escape(user.username) in html
        assert user.username not in html or user.username == escape(user.username)
        assert message.body.startswith(f"Hello {user.username},")  # plain text: as it is


def test_an_email_address_with_a_line_break_never_becomes_a_header(db, mailoutbox):
    from django.core.mail import BadHeaderError

    from games.models import Notification

    (user,) = hostile_users()[:1]
    user.email = "bob@example.com\r\nBcc: victim@example.org"
    user.save(update_fields=["email"])
    services.match_create(creator=user, seat_count=2, bots=["random"])
    row = Notification.objects.filter(user=user).first()
    assert row is not None
    with pytest.raises((BadHeaderError, ValueError)):
        services.notification_send(notification_id=row.pk)
    assert mailoutbox == []
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.sent_at is None
