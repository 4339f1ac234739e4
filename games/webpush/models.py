"""Web Push rows: the site's VAPID keys, the browsers that opted in, and one row per
"your turn" to tell (sent at most once, as the email's)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Match


class VapidKey(models.Model):
    """A key pair the site signs its pushes with (RFC 8292). The newest row is the
    one new subscriptions are made with; each subscription keeps the key it was made
    with, as the push service accepts only that one for it. Rotating adds a row;
    deleting a row ends the subscriptions made with it (keys.py, docs/webpush.md)."""

    # The private key as PEM (PKCS#8); the public one as browsers take it: the
    # uncompressed P-256 point, base64url without padding.
    private_pem = models.TextField()
    public_key = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "VAPID key"

    def __str__(self) -> str:
        return f"VAPID key {self.public_key[:12]}… ({self.created_at:%Y-%m-%d})"


class PushSubscription(models.Model):
    """One browser of a player that opted in: where to send (the push service's
    endpoint) and the keys to encrypt for it (RFC 8291)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # One browser has one endpoint: a second player signing in on it takes it over.
    endpoint = models.URLField(max_length=1024, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=32)
    vapid_key = models.ForeignKey(VapidKey, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    last_success_at = models.DateTimeField(null=True, blank=True)
    # Sends refused in a row (not 404/410, which end it at once); reset by a success.
    failures = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"push to {self.user_id} via {self.endpoint[:40]}…"


class PushNotice(models.Model):
    """One "your turn" to push to a player, to all their browsers: due a while after
    the turn began (as the email), sent only if they are still away then. Its life
    is the email's (games.models.Notification): pending -> sending -> sent, or
    skipped, or failed; a stale claim goes back to pending."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Skipped (no longer wanted)"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_notices"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="push_notices")
    turn_number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    send_after = models.DateTimeField()
    queued_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "match", "turn_number"], name="push_notice_once"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "send_after"]),
            models.Index(fields=["status", "claimed_at"]),
        ]

    def __str__(self) -> str:
        return f"push to {self.user_id} about match {self.match_id} turn {self.turn_number}"
