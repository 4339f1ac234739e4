"""The showcase in templates: `{% load showcase %}`, `{{ match|bots_at_play }}`."""

from __future__ import annotations

from django import template

from games.guests.showcase import is_showcase
from games.models import Match

register = template.Library()


@register.filter
def bots_at_play(match: object) -> bool:
    """True for the home page's showcase match: its bots move every few seconds, so
    the panel says that rather than a deadline no turn ever reaches."""
    return isinstance(match, Match) and is_showcase(match)
