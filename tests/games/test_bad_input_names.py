"""Hostile names (markup, script, CRLF, already-escaped text): refused at sign-up,
and where one got past validation anyway (an old row, a raw import) escaped on every
page and in every email that shows it, and never in an email header. Match titles
with the same payloads are stored on one line and escaped the same way."""

from __future__ import annotations

import pytest
from django.urls import reverse
from site_support import client_for, drain

from games import services
from games.errors import ServiceError
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
        drain(match)  # your turn (turn 2; the creator started the match: no "Match started")
    assert len(mailoutbox) == Notification.objects.filter(status="sent").count() >= len(users)
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
        services.notification_send(notification_id=row.pk, now=row.send_after)
    assert mailoutbox == []
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.sent_at is None


HOSTILE_TITLES = [
    '<script>alert("title")</script>',
    '"><img src=x onerror=alert(1)>',
    "Moon\r\nBcc: victim@example.org",
    "&lt;b&gt;already escaped",
]


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Moon\r\nBcc: victim@example.org", "Moon Bcc: victim@example.org"),
        ("  tabs\tand\nbreaks\r\n ", "tabs and breaks"),
        ("bell\x07 and nul\x00", "bell and nul"),
        ('<script>alert("t")</script>', '<script>alert("t")</script>'),  # escaped when shown
    ],
)
def test_a_match_title_is_stored_on_one_line_without_control_characters(raw, stored):
    assert services.match_title_clean(raw) == stored


def test_a_too_long_title_is_refused_by_the_form_and_creates_nothing(player):
    client = client_for(player)
    data = {"seat_count": 2, "turn_seconds": 3600, "length_minutes": 10, "title": "x" * 81}
    response = client.post(reverse("games:match-create"), data)
    assert response.status_code == 400 and "at most 80 characters" in response.content.decode()
    assert not Match.objects.exists()
    with pytest.raises(ServiceError):
        services.match_create(creator=player, seat_count=2, title="y" * 81)


def test_hostile_match_titles_render_escaped_in_pages_and_emails_and_never_in_a_header(
    player, mailoutbox
):
    from email import message_from_bytes

    from django.utils.html import escape

    client = client_for(player)
    matches = []
    for title in HOSTILE_TITLES:
        data = {"seat_count": 2, "turn_seconds": 3600, "length_minutes": "0.04", "title": title}
        data["seat_2"] = "random"
        assert client.post(reverse("games:match-create"), data).status_code == 302
        matches.append(Match.objects.get(title=services.match_title_clean(title)))
    titles = [m.title for m in matches]
    assert "\r" not in "".join(titles) and "\n" not in "".join(titles)
    pages = {"lobby": client.get(reverse("games:lobby")).content.decode()}
    for match in matches:
        pages[f"match {match.pk}"] = client.get(f"/matches/{match.pk}/").content.decode()
        assert_escaped(pages[f"match {match.pk}"], [match.title], f"match {match.pk}")
    assert_escaped(pages["lobby"], titles, "lobby")
    # Played to the end: the archive, the replay page and the match-over emails.
    for match in matches:
        for _ in range(20):
            match.refresh_from_db()
            if match.status == Match.Status.FINISHED:
                break
            services.orders_submit(
                match_id=match.pk, user=player, turn=match.turn_number, actions=[]
            )
            drain(match)
        assert match.status == Match.Status.FINISHED
        replay = client.get(reverse("games:match-replay-page", args=[match.pk])).content.decode()
        assert_escaped(replay, [match.title], f"replay {match.pk}")
    archive = client.get(reverse("games:archive")).content.decode()
    assert_escaped(archive, titles, "archive")
    drain()
    assert mailoutbox
    for message in mailoutbox:
        match = next(m for m in matches if f"match {m.pk}" in message.subject.lower())
        parsed = message_from_bytes(message.message().as_bytes())
        assert set(parsed.keys()) <= EMAIL_HEADERS, set(parsed.keys()) - EMAIL_HEADERS
        assert "Bcc" not in parsed and parsed.get_all("To") == [player.email]
        assert "\r" not in message.subject and "\n" not in message.subject
        assert match.title in message.subject  # one line, as stored
        html = message.alternatives[0][0]
        assert escape(match.title) in html
        assert match.title not in html or match.title == escape(match.title)
        assert f'"{match.title}"' in message.body  # plain text: as it is
