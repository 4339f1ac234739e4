"""Web Push by the real path: the turn's commit, the sweep once it is due, the send
task through the broker to a real Celery worker, and the push service on 127.0.0.1
(tests/games/test_webpush.py) that checks and decrypts what it gets. These tests
commit (transaction=True) so that the worker thread sees the rows."""

from __future__ import annotations

import pytest
from django.utils import timezone
from site_support import client_for, wait_for
from test_webpush import PushService, opt_in, started_match

from games.webpush.keys import vapid_current
from games.webpush.models import PushNotice
from games.webpush.services import webpush_sweep

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_worker_pushes_a_due_your_turn_once(celery_worker, settings, player, opponent):
    settings.WEBPUSH_ENDPOINT_HOSTS = ["127.0.0.1"]
    with PushService() as push_service:
        browser, endpoint = push_service.browser("alice")
        subscription = browser.subscription(endpoint, vapid_current().public_key)
        assert opt_in(client_for(player), subscription).status_code == 201
        match = started_match(player, opponent)
        notice = PushNotice.objects.filter(user=player, match=match)
        assert notice.get().status == PushNotice.Status.PENDING
        assert notice.get().send_after > timezone.now()  # not before the email's delay
        notice.update(send_after=timezone.now())  # the minutes have passed
        assert webpush_sweep()["queued"] == 1
        wait_for(lambda: push_service.received, what="the push service to get the push")
        wait_for(lambda: notice.get().status == PushNotice.Status.SENT, what="the row sent")
        assert webpush_sweep()["queued"] == 0
        [received] = push_service.received
        assert received.payload["match"] == match.pk and push_service.refused == []
