"""Persistence for matches. Rows hold the engine's JSON exactly as the engine gave it.

Constraints, not hope: one orders row per (match, turn, seat, step), one
resolution per (match, turn, step), one deadline row per (match, turn), one
notification per (user, match, kind, turn), one seat per user per match.

A turn's shape comes from the ruleset: one seat at a time (the Turn row names
the seat), every awaited seat at once (Turn.seat is AT_ONCE; each seat's orders
are a row of their own, hidden from the others until the turn resolves), or a
turn of several steps (one orders row and one resolution per step).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.words import bot_label

# The turn times a person may choose (the forms and the API check them).
TURN_SECONDS_MIN = 60
TURN_SECONDS_MAX = 3 * 24 * 3600
# The shortest turn the database takes: the platform makes shorter turns than a
# person may choose where bots play each other (the ladder's LADDER_TURN_SECONDS).
TURN_SECONDS_FLOOR = 1


TITLE_MAX = 80
# The seats a match may have: the most any game here takes (Skyport seats eight).
SEATS_MIN = 2
SEATS_MAX = 8


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        RUNNING = "running", "Running"
        PAUSED = "paused", "Paused"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    seat_count = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField(default=24 * 3600)
    length_ms = models.PositiveIntegerField(default=600_000)
    ruleset = models.CharField(max_length=32, default="helium3")
    # The ruleset's options for the new game (engine.Ruleset.resolve_options): every
    # option's value, defaults filled in; {} for matches made before options existed.
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    initial_state = models.JSONField(null=True, blank=True)
    # The current full state, exactly the engine's JSON. Pages never render it
    # directly: they go through engine.view for the viewer's seat.
    state = models.JSONField(null=True, blank=True)
    # Copies of state["turn"] / state["to_move"] so lobby queries need no JSON.
    turn_number = models.PositiveIntegerField(default=0)
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    winners = models.JSONField(default=list, blank=True)
    final_money = models.JSONField(null=True, blank=True)
    # The replay file: {"initial", "turns": [{"orders", "events"}], "final"}.
    record = models.JSONField(null=True, blank=True)
    # Public: anyone may watch it live (the spectator's view) and find it in the
    # archive. Private: only its players and staff see it once it has started.
    public = models.BooleanField(default=True)
    # The creator's name for it (optional, one line: services.match_title_clean).
    title = models.CharField(max_length=TITLE_MAX, blank=True, default="")
    # Rated: its end changes its seats' ratings (games/compete); casual: it does not.
    rated = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "matches"
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=SEATS_MIN, seat_count__lte=SEATS_MAX),
                name="match_seat_count_in_range",
            ),
            models.CheckConstraint(
                condition=Q(
                    turn_seconds__gte=TURN_SECONDS_FLOOR, turn_seconds__lte=TURN_SECONDS_MAX
                ),
                name="match_turn_seconds_in_range",
            ),
            models.CheckConstraint(condition=Q(length_ms__gt=0), name="match_length_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["open", "aborted"])
                | Q(seed__isnull=False, state__isnull=False),
                name="match_started_has_seed_and_state",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            models.Index(fields=["status", "-finished_at"]),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.get_status_display()})"

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.RUNNING, self.Status.PAUSED)


class Seat(models.Model):
    """One engine seat. A person (user), a built-in bot (bot), or free.

    standin_bot is the bot that plays for a person who missed too many turns in
    a row, until that person comes back.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    bot = models.CharField(max_length=32, blank=True, default="")
    standin_bot = models.CharField(max_length=32, blank=True, default="")
    missed_in_row = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(null=True, blank=True)
    # When the seat's player last opened the match (its page or its poll): a
    # "Your turn" email goes only to a player not seen since the turn began.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # Driven through the bot API: taken with a token, or its last orders came with
    # one. Such a seat gets no email (a program reads none); its deadlines are the
    # same as everybody's.
    api = models.BooleanField(default=False)
    # The seat's record, stored when the match finishes (null before): the
    # archive and the player pages add these up instead of replaying events. `won`
    # and the score (final_money) are every game's; `counts` holds what the match's
    # game counts besides, {key: whole number}, the keys its presentation's
    # `record_fields` declare (games/records.py).
    won = models.BooleanField(null=True, blank=True)
    final_money = models.IntegerField(null=True, blank=True)
    counts = models.JSONField(
        null=True, blank=True, help_text="What the match's game counts for this seat."
    )

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user_per_match",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(bot=""), name="seat_user_or_bot_not_both"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=SEATS_MAX), name="seat_number_in_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Seat {self.number} of match {self.match_id}: {self.label}"

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.bot

    @property
    def driver_bot(self) -> str:
        """The bot that moves for this seat now, or "" when a person does."""
        return self.bot or self.standin_bot

    @property
    def label(self) -> str:
        if self.bot:
            return bot_label(self.bot)
        if self.user_id is None:
            return "(free)"
        name = self.user.get_username() if self.user else "?"
        return f"{name} (played by {bot_label(self.standin_bot)})" if self.standin_bot else name


AT_ONCE = 0


class Turn(models.Model):
    """The deadline row of one turn: who moves, since when, until when.

    The sweeper reads these rows; nothing is scheduled ahead in the broker. `seat`
    is AT_ONCE (0) for a turn where several seats give orders at once (a
    simultaneous turn, a setup phase): it waits until every awaited seat has
    orders stored, then is accepted as a whole.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for orders"
        ACCEPTED = "accepted", "Orders accepted, not resolved yet"
        RESOLVED = "resolved", "Resolved"
        VOID = "void", "Void (match aborted)"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    started_at = models.DateTimeField()
    # Null while the match is paused; paused_remaining then keeps the time left.
    deadline_at = models.DateTimeField(null=True, blank=True)
    warn_at = models.DateTimeField(null=True, blank=True)
    paused_remaining = models.DurationField(null=True, blank=True)
    warned_at = models.DateTimeField(null=True, blank=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    missed = models.BooleanField(default=False, help_text="Passed by the clock.")

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="turn_unique_per_match"),
        ]
        indexes = [
            models.Index(fields=["status", "deadline_at"]),
            models.Index(fields=["status", "warn_at"]),
            models.Index(fields=["status", "accepted_at"]),
        ]

    def __str__(self) -> str:
        return f"Turn {self.number} of match {self.match_id} (seat {self.seat}, {self.status})"


class Orders(models.Model):
    """The accepted orders of one seat for one turn (or one step of it), exactly as
    given, with who and when. In a turn at once a seat may replace its row until
    the turn resolves."""

    class Source(models.TextChoices):
        PLAYER = "player", "Player"
        BOT = "bot", "Built-in bot"
        STANDIN = "standin", "Stand-in bot"
        CLOCK = "clock", "Deadline passed"
        ADMIN = "admin", "Admin"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="orders")
    turn_number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    # The step within the turn (turns made of steps); 0 for every other turn.
    step = models.PositiveIntegerField(default=0)
    orders = models.JSONField()
    source = models.CharField(max_length=16, choices=Source.choices)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "turn_number", "step", "seat"]
        verbose_name_plural = "orders"
        constraints = [
            models.UniqueConstraint(
                fields=["match", "turn_number", "seat", "step"],
                name="orders_one_per_seat_turn_step",
            ),
        ]

    def __str__(self) -> str:
        return f"Orders for turn {self.turn_number} of match {self.match_id}"


class Resolution(models.Model):
    """A resolved turn (or step): the orders applied, the full events and the resulting
    state. One per engine.apply: `seat` is AT_ONCE and `orders` the list of every
    seat's orders for a turn at once."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="resolutions")
    turn_number = models.PositiveIntegerField()
    step = models.PositiveIntegerField(default=0)
    seat = models.PositiveSmallIntegerField()
    orders = models.JSONField()
    events = models.JSONField()
    state = models.JSONField()
    turn_ms = models.PositiveIntegerField()
    # Set when the accepted orders could not be applied and a pass was used instead.
    fallback_error = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "turn_number", "step"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "turn_number", "step"], name="resolution_one_per_turn_step"
            ),
        ]

    def __str__(self) -> str:
        return f"Resolution of turn {self.turn_number} of match {self.match_id}"


class NotificationKind(models.TextChoices):
    YOUR_TURN = "your_turn", "Your turn"
    DEADLINE_WARNING = "deadline_warning", "Deadline warning"
    SEAT_TO_BOT = "seat_to_bot", "Seat handed to a bot"
    MATCH_STARTED = "match_started", "Match started"
    MATCH_OVER = "match_over", "Match over"


class Notification(models.Model):
    """One email about one event. The unique row is what makes it 'never twice'.

    Its life: pending (due at send_after) -> sending (claimed_at: a worker took it)
    -> sent once the mail server took it; or skipped (switched off, or no longer
    wanted: the player came back, the turn moved on); or failed after too many
    attempts. A claim that went stale (the worker died) goes back to pending.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Skipped (switched off or no longer wanted)"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=32, choices=NotificationKind.choices)
    turn_number = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    context = models.JSONField(default=dict, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Not sent before this time ("Your turn" waits to see whether the player is there).
    send_after = models.DateTimeField(default=timezone.now)
    # When a send task was last queued for it: the sweep queues again after a grace.
    queued_at = models.DateTimeField(null=True, blank=True)
    # When a worker claimed it (status sending): a stale claim is sent again.
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "match", "kind", "turn_number"], name="notification_once"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "send_after"]),
            models.Index(fields=["status", "claimed_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id} about match {self.match_id} turn {self.turn_number}"


class NotificationSettings(models.Model):
    """Which kinds of email a user wants. A missing row means 'all of them'."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="notification_settings",
    )
    your_turn = models.BooleanField("Your turn", default=True)
    deadline_warning = models.BooleanField("Deadline warning", default=True)
    seat_to_bot = models.BooleanField("Seat handed to a bot", default=True)
    match_started = models.BooleanField("Match started", default=True)
    match_over = models.BooleanField("Match over", default=True)

    class Meta:
        verbose_name = "notification settings"
        verbose_name_plural = "notification settings"

    def __str__(self) -> str:
        return f"Notification settings of {self.user_id}"

    def wants(self, kind: str) -> bool:
        return bool(getattr(self, kind))


class AdminAction(models.Model):
    """Every admin action on a match, who did it and what it changed."""

    admin = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="admin_actions")
    action = models.CharField(max_length=32)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.action} on match {self.match_id} by {self.admin_id}"


class ApiToken(models.Model):
    """A bot's key to the API. Only a digest is stored: the token is shown once.

    The token is "h3_<prefix>_<secret>"; the prefix finds the row, the SHA-256
    of the whole token must then match. The secret has 256 bits of entropy, so a
    plain hash (not a slow password hash) is enough and every request stays cheap.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=64)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"API token {self.prefix} ({self.name}) of {self.user_id}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


def pass_orders(seat: int, turn: int) -> dict[str, Any]:
    """The protocol's pass: orders with no actions."""
    return {"seat": seat, "turn": turn, "actions": []}
