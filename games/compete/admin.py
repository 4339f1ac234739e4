"""Ratings and challenges in the admin, read only: they change through rated matches and
`manage.py recompute_ratings`, never by hand (a hand edit would not survive a
recompute)."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ReadOnlyAdmin
from games.compete.models import Challenge, Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("game", "__str__", "kind", "mu", "sigma", "matches", "last_played_at")
    list_filter = ("game", "kind")
    list_select_related = ("user",)
    search_fields = ("user__username", "bot")


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "match", "seat", "place", "rating", "mu_before", "mu_after")
    list_select_related = ("rating", "rating__user")
    list_filter = ("rating__game",)


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdmin):
    """Challenges, read only: they change through their players' answers and the sweep."""

    list_display = ("created_at", "challenger", "challenged", "ruleset", "status", "match")
    list_filter = ("status", "ruleset")
    list_select_related = ("challenger", "challenged")
    search_fields = ("challenger__username", "challenged__username")
