"""The challenge sweep claims its work as the clock sweep does: two sweeps at once
expire each challenge once and send each email once."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from django.utils import timezone
from game_factories import UserFactory

from games.compete import challenges
from games.compete.models import Challenge

pytestmark = pytest.mark.django_db(transaction=True)


def _at_once(work: Any, times: int = 2) -> list[Any]:
    """Run `work` in `times` threads started together; their results."""
    start = threading.Barrier(times)
    results: list[Any] = [None] * times

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_sweeps_at_once_expire_each_challenge_once_and_email_it_once(settings):
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 0
    alice = UserFactory(username="alice")
    others = [UserFactory(username=f"p{i}") for i in range(6)]
    for user in others:
        challenges.challenge_create(challenger=alice, to=user.username, ruleset="rps",
                                    seats=2, options={"rounds": 1})  # fmt: skip
    # Half are over their time, half are due for their email.
    over = list(Challenge.objects.order_by("pk"))[:3]
    Challenge.objects.filter(pk__in=[c.pk for c in over]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    reports = _at_once(lambda: challenges.challenges_sweep(now=timezone.now()))
    assert sum(r.expired for r in reports) == 3
    assert sum(r.emailed for r in reports) == 3
    assert len(mail.outbox) == 3
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in others[3:])
    assert Challenge.objects.filter(status="expired").count() == 3
    # Run again: nothing left to do.
    again = challenges.challenges_sweep(now=timezone.now())
    assert (again.expired, again.emailed) == (0, 0)
