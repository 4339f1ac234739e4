"""The bot ladder: who is on it, the matchmaker's claims, the matches it made.

An API bot (a User that plays through tokens) is on a game's ladder while its
`LadderEntry` is `on`; built-in bots are on every ladder and have no row. The
matchmaker claims a round of a game (`LadderGame`: a conditional update of its
`claimed_at`) before it makes anything, and each match it makes takes one of
LADDER_MATCHES_PER_BOT slots of every bot in it (`LadderSlot`, unique per bot and
number): two beat processes, or a task run twice, never make two matches for one
slot. docs/compete.md, "The bot ladder".
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LadderEntry(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ladder_entries"
    )
    game = models.CharField(max_length=32)
    on = models.BooleanField(default=True)
    # When it was last put on the ladder: its first five ladder matches count from here.
    joined_at = models.DateTimeField()
    # It played its turns in one of its first five ladder matches: never checked again.
    settled = models.BooleanField(default=False)
    # Taken off by the matchmaker (it missed its turns in each of its first five ladder
    # matches), why, and when its owner was emailed.
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_reason = models.CharField(max_length=200, blank=True, default="")
    told_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "ladder entries"
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="ladder_entry_once_per_game"),
        ]
        indexes = [models.Index(fields=["game", "on"])]

    def __str__(self) -> str:
        state = "on" if self.on else "off"
        return f"{self.user_id} {state} the {self.game} ladder"


class LadderGame(models.Model):
    """The matchmaker's claim on one game: a round runs only after a conditional
    update moved `claimed_at` forward (by at least half an interval) and counted
    `round` on, so that two beats at once, or a repeated task, make one round."""

    game = models.CharField(max_length=32, primary_key=True)
    claimed_at = models.DateTimeField()
    round = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"Ladder of {self.game}, round {self.round}"


class LadderMatch(models.Model):
    """A match the matchmaker made: the `index`-th of its game's round `round`."""

    match = models.OneToOneField(
        "games.Match", on_delete=models.CASCADE, primary_key=True, related_name="ladder"
    )
    game = models.CharField(max_length=32)
    round = models.PositiveBigIntegerField()
    index = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "ladder matches"
        constraints = [
            models.UniqueConstraint(
                fields=["game", "round", "index"], name="ladder_match_once_per_slot"
            ),
        ]
        indexes = [models.Index(fields=["game", "-created_at"])]

    def __str__(self) -> str:
        return f"Ladder match {self.match_id} of {self.game}"


class LadderSlot(models.Model):
    """One of a bot's running ladder matches. `player` is "user:<id>" or "bot:<name>";
    `number` is below LADDER_MATCHES_PER_BOT. Freed when the match is over."""

    game = models.CharField(max_length=32)
    player = models.CharField(max_length=48)
    number = models.PositiveSmallIntegerField()
    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player", "number"], name="ladder_slot_once_per_bot"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}'s slot {self.number} in {self.game}: match {self.match_id}"
