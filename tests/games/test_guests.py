"""Play as a guest: "Play now" without an account, signing up to keep the match,
no email, no seat in other people's matches, and the cleanup after a week."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from site_support import client_for, drain

from games import services
from games.guests.models import Guest, Showcase
from games.guests.selectors import GuestsPlayBotsOnly
from games.guests.services import GUEST_LIFETIME, guest_create, guests_cleanup
from games.guests.showcase import showcase_current
from games.models import Match, Notification, Orders, Seat
from games.services.tokens import token_create
from games.views import home as views_home

pytestmark = pytest.mark.django_db
User = get_user_model()
BANNER = "You are playing as a guest"
PASSWORD = "a long moon password"


def _play_as_guest() -> tuple[Client, Match]:
    client = Client()
    response = client.post(reverse("games:match-play-now"))
    assert response.status_code == 302
    match_id = int(re.search(r"/matches/(\d+)/", response["Location"]).group(1))
    return client, Match.objects.get(pk=match_id)


def _guest_of(match: Match):
    return Seat.objects.get(match=match, user__isnull=False).user


def test_play_now_without_an_account_makes_a_guest_and_a_match_against_three_bots():
    client, match = _play_as_guest()
    guest = _guest_of(match)
    assert Guest.objects.filter(user=guest).exists()
    assert guest.email == "" and not guest.has_usable_password()
    assert int(client.session["_auth_user_id"]) == guest.pk
    seats = list(Seat.objects.filter(match=match).order_by("number"))
    assert [bool(s.bot) for s in seats] == [False, True, True, True]
    assert seats[0].user_id == guest.pk
    assert match.status == Match.Status.RUNNING and match.to_move == seats[0].number
    # It lands on the match page, its move first, the banner above.
    page = client.get(reverse("games:match-detail", args=[match.pk])).content.decode()
    assert "your move" in page and "Send orders" in page
    assert BANNER in page and reverse("games:guest-signup") in page


def test_the_banner_shows_on_every_page_for_a_guest_only(player):
    client, _match = _play_as_guest()
    for name in ("games:lobby", "games:rules", "games:archive"):
        assert BANNER in client.get(reverse(name)).content.decode()
    assert BANNER not in client_for(player).get(reverse("games:lobby")).content.decode()
    assert BANNER not in Client().get(reverse("games:rules")).content.decode()


def test_a_signed_in_guest_playing_now_again_stays_the_same_guest():
    client, first = _play_as_guest()
    response = client.post(reverse("games:match-play-now"))
    second = Match.objects.exclude(pk=first.pk).exclude(showcase__isnull=False).get()
    assert response["Location"] == reverse("games:match-detail", args=[second.pk])
    assert _guest_of(second) == _guest_of(first) and Guest.objects.count() == 1


def test_one_address_makes_only_so_many_guests_an_hour(monkeypatch):
    monkeypatch.setattr(views_home, "GUESTS_PER_HOUR", 2)
    from django.core.cache import cache

    cache.clear()
    codes = [Client().post(reverse("games:match-play-now")).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert Guest.objects.count() == 2


def test_a_guest_gets_no_email(mailoutbox):
    client, match = _play_as_guest()
    guest = _guest_of(match)
    for _ in range(2):  # two rounds: the guest passes, the bots play theirs
        match.refresh_from_db()
        services.orders_submit(match_id=match.pk, user=guest, turn=match.turn_number, actions=[])
        drain(match)
    assert match.turn_number == 8
    assert not Notification.objects.filter(user=guest).exists()
    assert mailoutbox == []


def test_a_guest_who_signs_up_keeps_the_match_its_orders_and_its_record(mailoutbox):
    client, match = _play_as_guest()
    guest = _guest_of(match)
    services.orders_submit(match_id=match.pk, user=guest, turn=0, actions=[])
    drain(match, emails=False)
    # A finished match against bots, with the seat's record stored.
    short = services.match_create(
        creator=guest, seat_count=2, bots=["random"], length_ms=1_000, turn_seconds=3600
    )
    services.orders_submit(match_id=short.pk, user=guest, turn=0, actions=[])
    drain(short, emails=False)
    assert short.status == Match.Status.FINISHED
    record = Seat.objects.get(match=short, user=guest)
    assert record.final_money is not None

    # The sign-up page for everybody sends a guest to its own form (the login page
    # to the lobby, as it sends anybody signed in).
    assert client.get(reverse("account_signup"))["Location"] == reverse("games:guest-signup")
    assert client.get(reverse("account_login"))["Location"] == reverse("games:lobby")
    match_url = reverse("games:match-detail", args=[match.pk])
    # The banner's link carries the page it was on, and the form carries it on.
    banner = client.get(match_url).content.decode()
    signup_url = f"{reverse('games:guest-signup')}?next={match_url}"
    assert signup_url in banner
    form = client.get(signup_url)
    assert form.status_code == 200 and "keep your matches" in form.content.decode()
    assert f'name="next" value="{match_url}"' in form.content.decode()
    response = client.post(
        reverse("games:guest-signup"),
        {
            "username": "luna",
            "email": "luna@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": match_url,
        },
    )
    # Back to the match, still signed in, as the match's seat, told about the email.
    assert response.status_code == 302
    assert response["Location"] == match_url

    account = User.objects.get(pk=guest.pk)  # the same user: every seat stays attached
    assert (account.username, account.email) == ("luna", "luna@example.com")
    assert account.check_password(PASSWORD) and not Guest.objects.filter(user=account).exists()
    assert Seat.objects.filter(user=account).count() == 2
    assert Orders.objects.get(match=match, turn_number=0).submitted_by_id == account.pk
    assert Seat.objects.get(match=short, user=account).final_money == record.final_money
    assert client.session["_auth_user_id"] == str(account.pk)
    assert not EmailAddress.objects.get(user=account).verified
    page = client.get(match_url)
    assert page.status_code == 200 and page.context["user"].pk == account.pk
    text = page.content.decode()
    assert "luna@example.com" in text and "confirm the address" in text
    assert BANNER not in text
    # Confirmed from the mail in the same browser: back to the match, not the lobby.
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+/)", mailoutbox[-1].body)
    confirmed = client.post(link.group(1))
    assert confirmed.status_code == 302 and confirmed["Location"] == match_url
    assert EmailAddress.objects.get(user=account).verified
    assert client.session["_auth_user_id"] == str(account.pk)
    lobby = client.get(reverse("games:lobby")).content.decode()
    # Waiting for their move: the lobby lists it first, above the games.
    mine = lobby.split('id="your-move-h"', 1)[1].split('id="games-h"', 1)[0]
    assert reverse("games:match-detail", args=[match.pk]) in mine
    assert BANNER not in lobby


def test_a_guest_who_signs_up_without_a_page_to_go_back_to_goes_to_its_latest_match(mailoutbox):
    client, match = _play_as_guest()
    response = client.post(
        reverse("games:guest-signup"),
        {
            "username": "sol",
            "email": "sol@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://elsewhere.example/phish",
        },
    )
    assert response["Location"] == reverse("games:match-detail", args=[match.pk])


def test_an_account_that_confirms_an_email_later_goes_where_allauth_sends_it(player, mailoutbox):
    # Only a guest's sign-up remembers a match: anybody else's confirmation is as before.
    EmailAddress.objects.create(user=player, email="second@example.com", verified=False)
    client = client_for(player)
    from allauth.account.models import EmailConfirmationHMAC

    key = EmailConfirmationHMAC(EmailAddress.objects.get(email="second@example.com")).key
    response = client.post(reverse("account_confirm_email", args=[key]))
    assert response.status_code == 302
    assert response["Location"] == reverse(settings.LOGIN_REDIRECT_URL)


def test_the_guest_sign_up_form_is_for_guests_only(player):
    assert Client().get(reverse("games:guest-signup"))["Location"] == reverse("account_signup")
    response = client_for(player).get(reverse("games:guest-signup"))
    assert response["Location"] == reverse("account_signup")
    assert User.objects.filter(username="alice").exists()


def test_a_guest_cannot_take_a_seat_in_another_persons_match(open_match):
    client, _match = _play_as_guest()
    guest = _guest_of(_match)
    response = client.post(reverse("games:match-join", args=[open_match.pk]))
    assert response.status_code == 403
    assert "Guests play against bots only" in response.content.decode()
    assert not Seat.objects.filter(match=open_match, user=guest).exists()
    # Nor through the bot API, with a token of its own.
    _row, token = token_create(user=guest, name="guest bot")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    answer = api.post(f"/api/v1/matches/{open_match.pk}/join/", content_type="application/json")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "guests_play_bots_only"
    assert not Seat.objects.filter(match=open_match, user=guest).exists()


def test_a_guest_cannot_open_a_match_for_other_people_but_may_play_bots():
    guest = guest_create()
    with pytest.raises(GuestsPlayBotsOnly) as refused:
        services.match_create(creator=guest, seat_count=4, bots=["miner", ""])
    assert refused.value.status == 403
    client = client_for(guest)
    response = client.post(
        reverse("games:match-create"),
        {
            "seat_count": 2,
            "turn_seconds": 3600,
            "length_ms": 600_000,
            "length_minutes": 10,
            "public": "on",
        },
    )
    assert response.status_code == 400
    assert "Guests play against bots only" in response.content.decode()
    assert not Match.objects.filter(seats__user=guest).exists()
    services.match_create(creator=guest, seat_count=2, bots=["random"])
    services.match_create(creator=guest, seat_count=2, bots=["random", "miner"])  # only watches
    assert Match.objects.filter(created_by=guest).count() == 2


def test_the_cleanup_deletes_unclaimed_guests_after_a_week_with_their_matches(player, mailoutbox):
    now = timezone.now()
    old_client, old_match = _play_as_guest()
    old = _guest_of(old_match)
    watched = services.match_create(creator=old, seat_count=2, bots=["random", "miner"])
    claimed_client, claimed_match = _play_as_guest()
    claimed = _guest_of(claimed_match)
    claimed_client.post(
        reverse("games:guest-signup"),
        {
            "username": "kept",
            "email": "kept@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    _young_client, young_match = _play_as_guest()
    young = _guest_of(young_match)
    people = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    Guest.objects.filter(user__in=[old]).update(
        created_at=now - GUEST_LIFETIME - timedelta(hours=1)
    )
    Guest.objects.filter(user=young).update(created_at=now - GUEST_LIFETIME + timedelta(hours=1))
    # A claimed guest was created as long ago: it is an account now and stays.
    User.objects.filter(pk=claimed.pk).update(date_joined=now - GUEST_LIFETIME * 2)

    report = guests_cleanup(now=now)

    assert (report.guests, report.matches) == (1, 2)
    assert not User.objects.filter(pk=old.pk).exists()
    assert not Match.objects.filter(pk__in=[old_match.pk, watched.pk]).exists()
    assert User.objects.filter(pk=claimed.pk, username="kept").exists()
    assert Match.objects.filter(pk=claimed_match.pk).exists()
    assert Seat.objects.filter(match=claimed_match, user=claimed).exists()
    assert (
        Guest.objects.filter(user=young).exists()
        and Match.objects.filter(pk=young_match.pk).exists()
    )
    assert Match.objects.filter(pk=people.pk).exists()
    assert guests_cleanup(now=now).guests == 0  # nothing twice


def test_the_cleanup_deletes_showcase_matches_a_day_after_they_ended():
    now = timezone.now()
    ended = showcase_current(now=now)
    Match.objects.filter(pk=ended.pk).update(
        status=Match.Status.FINISHED, finished_at=now - timedelta(days=2)
    )
    live = showcase_current(now=now)
    assert guests_cleanup(now=now).showcases == 1
    assert not Match.objects.filter(pk=ended.pk).exists()
    assert Showcase.objects.get().match_id == live.pk


def test_the_cleanup_runs_from_celery_beat_and_as_a_command(capsys):
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.guests.tasks.guests_cleanup_task" in tasks
    assert "games.guests.tasks.showcase_step_task" in tasks
    old = guest_create()
    Guest.objects.filter(user=old).update(created_at=timezone.now() - GUEST_LIFETIME * 2)
    call_command("guests_cleanup")
    assert "Deleted 1 guests" in capsys.readouterr().out
    assert not User.objects.filter(pk=old.pk).exists()


@pytest.mark.parametrize("name", ["guest-1a2b3c4d", "miner-bot-1", "Fighter-Bot-4"])
def test_nobody_signs_up_with_a_name_the_site_gives_guests_and_its_bots(name):
    response = Client().post(
        reverse("account_signup"),
        {"username": name, "email": "x@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert "kept for the site" in response.content.decode()
    assert not User.objects.filter(username__iexact=name).exists()


def _pass_until_my_turn_again(match: Match, user) -> None:
    match.refresh_from_db()
    services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, actions=[])
    drain(match)
    assert Seat.objects.get(match=match, user=user).number == match.to_move


def test_an_ex_guest_is_sent_nothing_but_the_confirmation_until_it_confirms(mailoutbox):
    client, match = _play_as_guest()
    guest = _guest_of(match)
    client.post(
        reverse("games:guest-signup"),
        {"username": "io", "email": "io@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    account = User.objects.get(pk=guest.pk)
    assert account.email == "io@example.com" and not EmailAddress.objects.get(user=account).verified
    assert [m.subject for m in mailoutbox] == ["[Robot Turns] Please Confirm Your Email Address"]
    # Away while the bots play, its turn comes round: the "Your turn" waits for the
    # confirmation, and so does the result of a match that ends meanwhile.
    _pass_until_my_turn_again(match, account)
    short = services.match_create(
        creator=account, seat_count=2, bots=["random"], length_ms=1_000, turn_seconds=3600
    )
    services.orders_submit(match_id=short.pk, user=account, turn=0, actions=[])
    drain(short)
    assert short.status == Match.Status.FINISHED
    held = Notification.objects.filter(user=account)
    assert {row.kind for row in held} >= {"your_turn", "match_over"}
    assert all(row.status == Notification.Status.SKIPPED for row in held)
    assert len(mailoutbox) == 1
    # Confirmed: its next turn is emailed as anybody's.
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+/)", mailoutbox[0].body)
    assert client.post(link.group(1)).status_code == 302
    _pass_until_my_turn_again(match, account)
    assert [m.to for m in mailoutbox[1:]] == [["io@example.com"]]
    assert "turn" in mailoutbox[1].subject.lower()
    sent = Notification.objects.get(user=account, status=Notification.Status.SENT)
    assert sent.kind == "your_turn" and sent.match_id == match.pk


def test_an_address_allauth_never_saw_is_sent_email_as_a_confirmed_one(player, mailoutbox):
    from games.services.notifications import address_confirmed

    EmailAddress.objects.filter(user=player).delete()  # made in the admin, say
    assert address_confirmed(player)
    EmailAddress.objects.create(user=player, email=player.email.upper(), verified=False)
    assert not address_confirmed(player)
    EmailAddress.objects.filter(user=player).update(verified=True)
    assert address_confirmed(player)
