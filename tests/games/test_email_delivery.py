"""When an email goes: "Your turn" only to a player who is away, due a while after
the turn began; a claim whose worker died is sent again by the clock sweep; emails
on a queue of their own; durations in words; links to the site as it runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone
from site_support import client_for, current_turn, drain

from games import services
from games.models import Match, Notification, NotificationKind, NotificationSettings, Seat
from games.services.emails import duration_words, render_notification
from games.services.notifications import MAX_SEND_ATTEMPTS, seen_memo_key, your_turn_delay
from helium3_site.celery import app


def _your_turn(match: Match, user, number: int = 0) -> Notification:
    return Notification.objects.get(match=match, user=user, kind="your_turn", turn_number=number)


def _your_turn_mail(mailoutbox, user) -> list:
    return [m for m in mailoutbox if "Your turn" in m.subject and m.to == [user.email]]


# --- "Your turn": only to a player who is away ---------------------------------------


@pytest.mark.parametrize(("turn_seconds", "delay"), [(3600, 300), (24 * 3600, 300), (60, 15)])
def test_your_turn_is_due_a_few_minutes_or_a_quarter_of_a_short_turn_after_it_began(
    player, opponent, turn_seconds, delay
):
    match = services.match_create(creator=player, seat_count=2, turn_seconds=turn_seconds)
    services.seat_join(match_id=match.pk, user=opponent)
    row = _your_turn(match, player)
    turn = current_turn(match)
    assert your_turn_delay(turn_seconds) == delay
    assert abs((row.send_after - turn.started_at).total_seconds() - delay) < 2
    assert row.status == Notification.Status.PENDING and row.queued_at is None


def test_the_delay_is_a_setting(settings):
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 60
    settings.YOUR_TURN_EMAIL_TURN_FRACTION = 0.5
    assert your_turn_delay(3600) == 60
    assert your_turn_delay(60) == 30


def test_a_your_turn_email_is_not_sent_before_it_is_due(running_match, player, mailoutbox):
    row = _your_turn(running_match, player)
    early = row.send_after - timedelta(seconds=1)
    assert services.notification_send(notification_id=row.pk, now=early) is False
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.attempts == 0
    # The sweep leaves it for later too; the other emails (match started) it may queue.
    services.clock_sweep(now=early)
    row.refresh_from_db()
    assert row.queued_at is None
    assert not _your_turn_mail(mailoutbox, player)


def test_the_sweep_queues_it_once_when_due_and_an_away_player_gets_it(
    running_match, player, mailoutbox
):
    row = _your_turn(running_match, player)
    due = row.send_after
    assert services.clock_sweep(now=due).requeued_emails >= 1
    row.refresh_from_db()
    assert row.queued_at == due
    # Queued: the next sweeps within the grace period do not queue it again.
    services.clock_sweep(now=due + timedelta(seconds=1))
    row.refresh_from_db()
    assert row.queued_at == due
    # What the queued task does (the worker tests run the real one).
    assert services.notification_send(notification_id=row.pk, now=due) is True
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT and row.claimed_at is not None
    [email] = _your_turn_mail(mailoutbox, player)
    assert re.search(r"Send your orders within \d+ minutes", email.body)


def test_a_player_watching_the_match_page_gets_no_your_turn_email(
    running_match, player, mailoutbox
):
    assert Seat.objects.get(match=running_match, user=player).last_seen_at is None
    page = client_for(player).get(reverse("games:match-detail", args=[running_match.pk]))
    assert page.status_code == 200
    seat = Seat.objects.get(match=running_match, user=player)
    assert seat.last_seen_at >= current_turn(running_match).started_at
    row = _your_turn(running_match, player)
    assert services.notification_send(notification_id=row.pk, now=row.send_after) is False
    row.refresh_from_db()
    assert row.status == Notification.Status.SKIPPED
    assert not _your_turn_mail(mailoutbox, player)


def test_the_poll_counts_as_watching(running_match, player, mailoutbox):
    poll = reverse("games:match-poll", args=[running_match.pk]) + "?v=stale&since=0"
    assert client_for(player).get(poll, HTTP_HX_REQUEST="true").status_code == 200
    drain(running_match)
    assert _your_turn(running_match, player).status == Notification.Status.SKIPPED
    assert not _your_turn_mail(mailoutbox, player)


def test_a_look_is_recorded_even_when_the_page_comes_from_the_cache(
    running_match, player, django_assert_max_num_queries
):
    client = client_for(player)
    url = reverse("games:match-detail", args=[running_match.pk])
    assert client.get(url).status_code == 200
    # The memo that spares the writes runs out (it lasts half a minute); the page
    # is still cached.
    Seat.objects.filter(match=running_match, user=player).update(last_seen_at=None)
    caches["pages"].delete(seen_memo_key(running_match, player.pk))
    with django_assert_max_num_queries(2):  # the version and the look: a cache hit
        assert client.get(url).status_code == 200
    assert Seat.objects.get(match=running_match, user=player).last_seen_at is not None


def test_a_look_before_the_turn_began_does_not_count(running_match, player, opponent, mailoutbox):
    """The player watched turn 0, moved, and left: turn 2 is emailed."""
    client = client_for(player)
    client.get(reverse("games:match-detail", args=[running_match.pk]))
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    drain(running_match)
    services.orders_submit(match_id=running_match.pk, user=opponent, turn=1, actions=[])
    drain(running_match)
    assert running_match.turn_number == 2
    assert _your_turn(running_match, player, 2).status == Notification.Status.SENT
    assert [m.subject for m in _your_turn_mail(mailoutbox, player)] == [
        f"[Helium 3] Your turn in match {running_match.pk} (turn 2)"
    ]


def test_a_spectator_looking_records_nothing(running_match, spectator):
    client_for(spectator).get(reverse("games:match-detail", args=[running_match.pk]))
    assert not Seat.objects.filter(match=running_match, last_seen_at__isnull=False).exists()


def test_no_your_turn_email_once_the_turn_moved_on(running_match, player, mailoutbox):
    row = _your_turn(running_match, player)
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    assert services.notification_send(notification_id=row.pk, now=row.send_after) is False
    row.refresh_from_db()
    assert row.status == Notification.Status.SKIPPED
    # Nor when the turn was passed by the clock, nor when the match is over.
    drain(running_match)
    assert not _your_turn_mail(mailoutbox, player)


def test_the_sweep_skips_a_due_your_turn_notification_whose_turn_moved_on_without_a_task(
    running_match, player, opponent, mailoutbox
):
    moved_on = _your_turn(running_match, player)
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    drain(running_match, emails=False)  # turn 1 is the opponent's: its "Your turn" waits
    waits = _your_turn(running_match, opponent, 1)
    assert moved_on.status == waits.status == Notification.Status.PENDING
    later = max(moved_on.send_after, waits.send_after)
    queued = services.clock_sweep(now=later).requeued_emails
    moved_on.refresh_from_db()
    waits.refresh_from_db()
    # No claim, no task: skipped where it lay.
    assert moved_on.status == Notification.Status.SKIPPED
    assert moved_on.queued_at is None and moved_on.attempts == 0
    # The one whose turn still waits is queued for its send, as before.
    assert waits.status == Notification.Status.PENDING and waits.queued_at == later
    assert queued >= 1
    assert not _your_turn_mail(mailoutbox, player)


def test_the_sweep_leaves_a_your_turn_notification_a_worker_claimed(running_match, player):
    row = _your_turn(running_match, player)
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    Notification.objects.filter(pk=row.pk).update(status=Notification.Status.SENDING)
    services.clock_sweep(now=row.send_after)
    row.refresh_from_db()
    assert row.status == Notification.Status.SENDING


def test_no_your_turn_email_for_an_aborted_match(running_match, player, admin_user, mailoutbox):
    services.match_abort(match_id=running_match.pk, admin=admin_user)
    drain(running_match)
    assert _your_turn(running_match, player).status == Notification.Status.SKIPPED
    assert not _your_turn_mail(mailoutbox, player)


def test_the_deadline_warning_and_the_stand_in_email_go_even_to_a_watching_player(
    running_match, player, mailoutbox
):
    client_for(player).get(reverse("games:match-detail", args=[running_match.pk]))
    turn = current_turn(running_match)
    services.clock_sweep(now=turn.warn_at + timedelta(seconds=1))
    warning = Notification.objects.get(user=player, kind="deadline_warning")
    assert warning.send_after <= timezone.now() and warning.queued_at is not None
    drain(running_match)
    assert [m for m in mailoutbox if "quarter of your time" in m.subject]
    warned = next(m for m in mailoutbox if "quarter of your time" in m.subject)
    assert re.search(r"About \d+ minutes left", warned.body)
    # Three missed turns in a row: the seat goes to a bot, and the player hears of it.
    opponent = Seat.objects.get(match=running_match, number=3).user
    for _ in range(3):
        services.clock_sweep(now=current_turn(running_match).deadline_at + timedelta(seconds=1))
        drain(running_match)
        if Seat.objects.get(match=running_match, user=player).standin_bot:
            break
        services.orders_submit(
            match_id=running_match.pk, user=opponent, turn=running_match.turn_number, actions=[]
        )
        drain(running_match)
    assert [m for m in mailoutbox if "bot now plays your seat" in m.subject]


# --- a claim whose worker died ----------------------------------------------------------


def _claimed(match: Match, user, *, seconds_ago: float, attempts: int = 1) -> Notification:
    row = services.notify(user=user, match=match, kind=NotificationKind.MATCH_OVER, turn_number=9)
    Notification.objects.filter(pk=row.pk).update(
        status=Notification.Status.SENDING,
        claimed_at=timezone.now() - timedelta(seconds=seconds_ago),
        attempts=attempts,
    )
    return row


def test_a_stale_claim_goes_back_to_pending_and_is_sent_once(running_match, player, mailoutbox):
    row = _claimed(running_match, player, seconds_ago=settings.EMAIL_CLAIM_STALE_SECONDS + 1)
    now = timezone.now()
    report = services.clock_sweep(now=now)
    assert report.stale_emails == 1
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.queued_at == now
    assert services.notification_send(notification_id=row.pk) is True
    assert services.notification_send(notification_id=row.pk) is False
    assert services.clock_sweep(now=timezone.now()).stale_emails == 0
    assert len([m for m in mailoutbox if "is over" in m.subject]) == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Notification.Status.SENT, 2)


def test_a_recent_claim_is_left_to_its_worker(running_match, player):
    row = _claimed(running_match, player, seconds_ago=settings.EMAIL_TIMEOUT)
    assert services.clock_sweep(now=timezone.now()).stale_emails == 0
    row.refresh_from_db()
    assert row.status == Notification.Status.SENDING


def test_a_claim_that_went_stale_too_often_is_given_up(running_match, player):
    row = _claimed(
        running_match,
        player,
        seconds_ago=settings.EMAIL_CLAIM_STALE_SECONDS + 1,
        attempts=MAX_SEND_ATTEMPTS,
    )
    assert services.clock_sweep(now=timezone.now()).stale_emails == 0
    row.refresh_from_db()
    assert row.status == Notification.Status.FAILED


def test_a_send_the_mail_server_refused_is_tried_again_after_the_grace(
    running_match, player, settings, mailoutbox
):
    row = services.notify(
        user=player, match=running_match, kind=NotificationKind.MATCH_OVER, turn_number=9
    )
    settings.EMAIL_BACKEND = "tests.games.test_email_delivery.RefusingBackend"
    with pytest.raises(ConnectionRefusedError):
        services.notification_send(notification_id=row.pk)
    row.refresh_from_db()
    assert row.status == Notification.Status.PENDING and row.sent_at is None
    grace = timedelta(seconds=settings.RESOLVE_GRACE_SECONDS)
    failed_at = row.queued_at
    services.clock_sweep(now=failed_at + grace / 2)
    row.refresh_from_db()
    assert row.queued_at == failed_at
    services.clock_sweep(now=failed_at + grace)
    row.refresh_from_db()
    assert row.queued_at == failed_at + grace


class RefusingBackend:
    """A mail server that is down."""

    def __init__(self, **kwargs) -> None:
        pass

    def send_messages(self, messages) -> int:
        raise ConnectionRefusedError("the mail server is down")


# --- a queue of their own ----------------------------------------------------------------


def test_emails_go_on_a_queue_of_their_own():
    route = app.amqp.router.route
    email_queue = route({}, "games.tasks.notification_send_task")["queue"].name
    turn_queue = route({}, "games.tasks.turn_resolve_task")["queue"].name
    assert email_queue != turn_queue
    assert turn_queue == route({}, "games.tasks.clock_sweep_task")["queue"].name
    # Every worker of the site consumes both (here: the test worker's queues).
    assert set(app.conf.task_queues) == {email_queue, turn_queue}


# --- the email's words and links -----------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "0 seconds"),
        (1, "1 second"),
        (45, "45 seconds"),
        (60, "1 minute"),
        (900, "15 minutes"),
        (3600, "1 hour"),
        (9000, "2 hours 30 minutes"),
        (86400, "1 day"),
        (90000, "1 day 1 hour"),
        (3 * 86400 - 1, "2 days 23 hours"),  # rounded down: never longer than it is
        (3 * 86400, "3 days"),
        (59.9, "59 seconds"),
    ],
)
def test_durations_read_in_words(seconds, words):
    assert duration_words(seconds) == words


def test_a_negative_duration_is_an_error():
    with pytest.raises(ValueError):
        duration_words(-1)


def test_the_match_started_email_gives_the_turn_time_in_words(player, opponent, mailoutbox):
    match = services.match_create(creator=player, seat_count=2, turn_seconds=24 * 3600)
    services.seat_join(match_id=match.pk, user=opponent)
    drain(match)
    started = next(m for m in mailoutbox if "has started" in m.subject)
    assert "Each turn lasts 1 day." in started.body
    assert "86400" not in started.body and "86400" not in started.alternatives[0][0]


def test_links_in_emails_point_at_the_site_url(running_match, player, settings):
    settings.SITE_URL = "http://127.0.0.1:8500"
    row = _your_turn(running_match, player)
    message = render_notification(row)
    assert f"http://127.0.0.1:8500/matches/{running_match.pk}/" in message.body
    assert "http://127.0.0.1:8500/unsubscribe/" in message.extra_headers["List-Unsubscribe"]
    assert "8000" not in message.body


def test_the_admin_names_the_settings_model_properly(admin_client):
    assert NotificationSettings._meta.verbose_name_plural == "notification settings"
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Notification settings" in page and "settingss" not in page


def _settings_in_a_fresh_process(tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
    names = ("DEBUG", "SECRET_KEY", "SITE_URL", "HELIUM3_PORT", "DATABASE_URL", "CELERY_BROKER_URL")
    clean = {k: v for k, v in os.environ.items() if k not in names}
    clean |= {"HELIUM3_VAR_DIR": str(tmp_path / "var"), "DJANGO_SETTINGS_MODULE": SETTINGS}
    show = (
        "import django; django.setup(); from django.conf import settings; print(settings.SITE_URL)"
    )
    return subprocess.run(
        [sys.executable, "-c", show], env=clean | env, capture_output=True, text=True, timeout=120
    )


SETTINGS = "helium3_site.settings"


def test_under_make_run_links_follow_helium3_port(tmp_path):
    shown = _settings_in_a_fresh_process(tmp_path, HELIUM3_PORT="8500")
    assert shown.stdout.strip() == "http://127.0.0.1:8500", shown.stderr


def test_an_explicit_site_url_wins(tmp_path):
    shown = _settings_in_a_fresh_process(
        tmp_path, HELIUM3_PORT="8500", SITE_URL="https://helium3.example.org/"
    )
    assert shown.stdout.strip() == "https://helium3.example.org", shown.stderr


@pytest.mark.parametrize(
    ("env", "complaint"),
    [
        ({"DEBUG": "0", "SECRET_KEY": "s" * 50}, "SITE_URL must be set when DEBUG is off"),
        ({"SITE_URL": "helium3.example.org"}, "must start with http:// or https://"),
        ({"HELIUM3_PORT": "80000"}, "HELIUM3_PORT must be a TCP port"),
    ],
)
def test_a_missing_or_bad_site_url_stops_the_process(tmp_path, env, complaint):
    shown = _settings_in_a_fresh_process(tmp_path, **env)
    assert shown.returncode != 0 and complaint in shown.stderr
