"""A ruleset's name as players read it: {{ match.ruleset|game_title }} -> "Helium 3 remake"."""

from __future__ import annotations

from django import template

from games import catalog

register = template.Library()


@register.filter
def game_title(name: str) -> str:
    return catalog.title(name)


@register.filter
def spectator_note(name: str) -> str:
    """What a spectator of a match of `name` is not shown ("" nothing): {{
    match.ruleset|spectator_note }} -> "no shields are shown"."""
    from games import presentation

    return presentation.get(name).spectator_note if name in catalog.names() else ""


@register.simple_tag
def games_said() -> str:
    """Every game here, as a sentence says them: "Helium 3, Halite and Skyport"."""
    titles = [catalog.title(n) for n in catalog.names()]
    if len(titles) <= 1:
        return "".join(titles)
    return ", ".join(titles[:-1]) + f" and {titles[-1]}"


@register.filter
def piece_word(name: str) -> str:
    """What a match of `name` calls a player's piece: {{ match.ruleset|piece_word }} ->
    "robot" (Helium 3), "vehicle" (the remake); "" for a name that is not a game here."""
    from games import presentation

    return presentation.get(name).piece if name in catalog.names() else ""
