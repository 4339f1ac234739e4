"""A ruleset's name as players read it: {{ match.ruleset|game_title }} -> "Helium 3 remake"."""

from __future__ import annotations

from django import template

from games import catalog

register = template.Library()


@register.filter
def game_title(name: str) -> str:
    return catalog.title(name)
