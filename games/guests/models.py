"""A guest is a real User with this row beside it: the row is the guest flag.

Signing up turns the guest's User into the account (the row goes), so every seat,
order and record stays attached. The showcases are the live matches between bots on
the home page: at most one of each game is live at a time (a unique partial index
says so).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Guest(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="guest"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"Guest {self.user_id} since {self.created_at:%Y-%m-%d %H:%M}"


class Showcase(models.Model):
    """One match between house bots shown to visitors; `live` while it is its game's."""

    match = models.OneToOneField("games.Match", on_delete=models.CASCADE, related_name="showcase")
    # The match's game (a copy of match.ruleset, for the index below).
    ruleset = models.CharField(max_length=32, default="helium3")
    live = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The bots play only while somebody may be watching: the home page moves this on.
    watched_until = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["ruleset"], condition=Q(live=True), name="showcase_one_live_per_game"
            ),
        ]

    def __str__(self) -> str:
        return f"Showcase of {self.ruleset}, match {self.match_id}{' (live)' if self.live else ''}"
