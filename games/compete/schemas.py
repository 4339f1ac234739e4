"""The rating change a seat of a finished rated match shows in the bot API's match
body (games/api/schemas.py SeatOut)."""

from __future__ import annotations

from typing import Any

from ninja import Schema

from games.compete.models import RatingChange


class RatingChangeOut(Schema):
    mu_before: float
    mu_after: float
    sigma_before: float
    sigma_after: float
    rating_before: int
    rating_after: int


def rating_change_out(change: RatingChange | None) -> dict[str, Any] | None:
    """A seat's rating_change in the match body (None: the match changed no rating)."""
    if change is None:
        return None
    return {
        "mu_before": change.mu_before,
        "mu_after": change.mu_after,
        "sigma_before": change.sigma_before,
        "sigma_after": change.sigma_after,
        "rating_before": change.rating_before,
        "rating_after": change.rating_after,
    }
