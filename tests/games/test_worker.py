"""The real path: a submitted form, a real broker, a real Celery worker, a sent email.

These tests commit (transaction=True) so that the worker thread sees the rows.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone
from site_support import client_for, current_turn, wait_for

from games import services
from games.models import Match, Notification, Orders, Resolution, Turn
from games.tasks import turn_resolve_task

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _emails_to(address: str, kind_subject: str) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if address in m.to and kind_subject in m.subject]


def test_a_submitted_form_is_resolved_by_the_worker_and_the_next_player_is_emailed(
    celery_worker, running_match, player, opponent, mailoutbox
):
    client = client_for(player, enforce_csrf_checks=True)
    page = client.get(reverse("games:match-detail", args=[running_match.pk]))
    token = page.cookies["csrftoken"].value
    response = client.post(
        reverse("games:match-orders", args=[running_match.pk]),
        {"turn": 0, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302

    wait_for(
        lambda: Resolution.objects.filter(match=running_match, turn_number=0).exists(),
        what="the worker to resolve turn 0",
    )
    running_match.refresh_from_db()
    assert (running_match.turn_number, running_match.to_move) == (1, 3)
    # Bob has not opened the match: once the email is due the clock sweep queues it,
    # on the email queue, and the worker sends it.
    row = Notification.objects.filter(user=opponent, kind="your_turn", turn_number=1)
    wait_for(row.exists, what="bob's your-turn email row")
    assert row.get().status == "pending" and row.get().send_after > timezone.now()
    row.update(send_after=timezone.now())  # the minutes have passed
    services.clock_sweep()
    wait_for(lambda: _emails_to(opponent.email, "Your turn"), what="bob's your-turn email")
    email = _emails_to(opponent.email, "Your turn")[0]
    assert f"/matches/{running_match.pk}/" in email.body
    assert email.alternatives and "/unsubscribe/" in email.alternatives[0][0]
    # The worker marks the row sent just after the email left: wait for that too.
    wait_for(lambda: row.get().status == "sent", what="the email's row to be marked sent")


def test_a_second_delivery_of_the_same_turn_does_nothing(celery_worker, running_match, player):
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    wait_for(
        lambda: Resolution.objects.filter(match=running_match).count() == 1,
        what="the first resolution",
    )
    turn_resolve_task.delay(running_match.pk, 0)
    turn_resolve_task.delay(running_match.pk, 0)
    # A marker task queued behind the duplicates: once it ran, they ran too.
    services.orders_submit(
        match_id=running_match.pk, user=running_match.seats.get(number=3).user, turn=1, actions=[]
    )
    wait_for(
        lambda: Resolution.objects.filter(match=running_match, turn_number=1).exists(),
        what="the marker turn",
    )
    assert Resolution.objects.filter(match=running_match, turn_number=0).count() == 1
    running_match.refresh_from_db()
    assert running_match.turn_number == 2


def test_the_sweeper_queues_an_accepted_turn_the_worker_never_got(
    celery_worker, running_match, settings
):
    # Orders stored without a queued task, as if the broker had lost the message.
    Orders.objects.create(
        match=running_match,
        turn_number=0,
        seat=1,
        orders={"seat": 1, "turn": 0, "actions": []},
        source=Orders.Source.PLAYER,
    )
    Turn.objects.filter(match=running_match, number=0).update(
        status=Turn.Status.ACCEPTED, accepted_at=timezone.now()
    )
    later = timezone.now() + timezone.timedelta(seconds=settings.RESOLVE_GRACE_SECONDS + 1)
    report = services.clock_sweep(now=later)
    assert report.requeued_turns == 1
    wait_for(lambda: current_turn(running_match).number == 1, what="the re-queued turn to resolve")


def test_a_whole_match_between_four_built_in_bots_runs_to_the_end_through_the_worker(
    celery_worker, player, mailoutbox
):
    match = services.match_create(
        creator=player,
        seat_count=4,
        length_ms=12_000,
        bots=["random", "random", "random", "random"],
    )
    wait_for(
        lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED,
        timeout=90,
        what="the bot match to finish",
    )
    match.refresh_from_db()
    assert match.state["over"] is True
    assert match.winners == match.state["winners"]
    assert Resolution.objects.filter(match=match).count() == match.state["turn"] > 0
    assert len(match.record["turns"]) == match.state["turn"]
    assert not Turn.objects.filter(match=match, status__in=["waiting", "accepted"]).exists()
    # Nobody to email: every seat is a bot.
    assert not Notification.objects.filter(match=match).exists()
