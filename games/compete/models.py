"""A rating per account per game, and every change to it.

An account is a person or an API bot (a User: `user`), or a built-in bot of a game
(`bot`, its name, shown as "bot:<name>"): one row per (game, account), all on one
scale. `kind` says which for the leaderboard's filters; a User's row is an API
bot's while its last rated match was played through the API.

A RatingChange is one seat's change in one rated match: the rows are the history
a profile draws and what `recompute_ratings` replays. One per (match, seat), so
a match is rated once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.compete.rating import MU, PROVISIONAL_SIGMA, SIGMA, Skill, shown_rating, shown_text

BOT_PREFIX = "bot:"


class Kind(models.TextChoices):
    PERSON = "person", "Person"
    API_BOT = "api_bot", "API bot"
    BUILTIN_BOT = "builtin_bot", "Built-in bot"


class Rating(models.Model):
    game = models.CharField(max_length=32)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ratings",
    )
    bot = models.CharField(max_length=32, blank=True, default="")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    mu = models.FloatField(default=MU)
    sigma = models.FloatField(default=SIGMA)
    # mu - 3 sigma, stored so that the leaderboard is an index scan.
    conservative = models.FloatField(default=MU - 3 * SIGMA)
    matches = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user"], condition=Q(user__isnull=False), name="rating_one_per_user"
            ),
            models.UniqueConstraint(
                fields=["game", "bot"], condition=~Q(bot=""), name="rating_one_per_bot"
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=True) & ~Q(bot="")) | (Q(user__isnull=False) & Q(bot="")),
                name="rating_user_or_bot",
            ),
        ]
        # The leaderboards: only settled ratings, best first (all kinds, or one kind),
        # ties by id as the leaderboard orders them, so that no sort is needed. The
        # last game played comes last: PostgreSQL then leaves out the inactive in the
        # index, and counts a leaderboard (its pages) by an index-only scan, which it
        # answered with a scan of the whole table at 100,000 ratings (bench/ratings.py).
        indexes = [
            models.Index(
                fields=["game", "-conservative", "id", "last_played_at"],
                condition=Q(sigma__lte=PROVISIONAL_SIGMA),
                name="rating_board",
            ),
            models.Index(
                fields=["game", "kind", "-conservative", "id", "last_played_at"],
                condition=Q(sigma__lte=PROVISIONAL_SIGMA),
                name="rating_board_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_name} in {self.game}: {self.text}"

    @property
    def player_name(self) -> str:
        if self.bot:
            return BOT_PREFIX + self.bot
        return self.user.get_username() if self.user is not None else "?"

    @property
    def skill(self) -> Skill:
        return Skill(mu=self.mu, sigma=self.sigma)

    @property
    def shown(self) -> int:
        return shown_rating(self.mu)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    @property
    def text(self) -> str:
        return shown_text(self.mu, self.sigma)


class RatingChange(models.Model):
    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    # The match's end: the history's time axis.
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="rating_change_once_per_seat"),
        ]
        indexes = [models.Index(fields=["rating", "created_at"])]

    def __str__(self) -> str:
        return f"{self.delta:+d} for seat {self.seat} of match {self.match_id}"

    @property
    def rating_before(self) -> int:
        return shown_rating(self.mu_before)

    @property
    def rating_after(self) -> int:
        return shown_rating(self.mu_after)

    @property
    def delta(self) -> int:
        """The change people read: "+12", "-7" (of the shown ratings)."""
        return self.rating_after - self.rating_before


# --- challenges (games/compete/challenges.py) ----------------------------------------


class Challenge(models.Model):
    """One account asks another to play a match it describes: the game, its options,
    the seats (the challenger first, the challenged second, the rest open or built-in
    bots), rated or casual. Pending until answered (accepted: the match is made),
    declined, cancelled by the challenger, or expired (CHALLENGE_EXPIRE_SECONDS)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        CANCELLED = "cancelled", "Cancelled"
        EXPIRED = "expired", "Expired"

    class Email(models.TextChoices):
        WAITING = "waiting", "Waiting to see whether the player is away"
        SENDING = "sending", "Being sent"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Not sent (seen, answered, or not wanted)"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    ruleset = models.CharField(max_length=32)
    # Every option's value, defaults filled in (as Match.options).
    options = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField()
    # The seats after the two players': a built-in bot's name, or "" (open).
    bots = models.JSONField(default=list, blank=True)
    rated = models.BooleanField()
    turn_seconds = models.PositiveIntegerField()
    public = models.BooleanField(default=True)
    # Made through the bot API: the challenger's seat is driven by a program.
    api = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    match = models.ForeignKey(
        "games.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When the challenged account first saw it (its challenges page, the API's list
    # or the event stream): a player who has seen it gets no email.
    seen_at = models.DateTimeField(null=True, blank=True)
    email = models.CharField(max_length=16, choices=Email.choices, default=Email.WAITING)
    email_after = models.DateTimeField()
    email_claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["challenged", "status"], name="challenge_incoming"),
            models.Index(fields=["challenger", "status"], name="challenge_outgoing"),
            models.Index(fields=["status", "expires_at"], name="challenge_expiry"),
            models.Index(fields=["email", "email_after"], name="challenge_email_due"),
            models.Index(fields=["answered_at"], name="challenge_answered"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_not_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk}: {self.challenger_id} to {self.challenged_id} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status == self.Status.PENDING


class ChallengePolicy(models.Model):
    """Who may challenge a player, and whether a challenge is emailed. A missing row
    means everybody may, and emails go (to a player who is away)."""

    class From(models.TextChoices):
        EVERYONE = "everyone", "Anyone"
        PLAYED = "played", "Only players I have played"
        NOBODY = "nobody", "Nobody (challenges off)"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="challenge_policy",
    )
    accept_from = models.CharField(max_length=16, choices=From.choices, default=From.EVERYONE)
    email = models.BooleanField("Email me a challenge when I am away", default=True)

    class Meta:
        verbose_name_plural = "challenge policies"

    def __str__(self) -> str:
        return f"Challenge policy of {self.user_id}: {self.accept_from}"
