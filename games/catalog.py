"""The games a player can choose here: every ruleset of the engine (engine/rulesets.py)
that the site presents (games/presentation.py), in the presentation registry's order.

The lobby's cards, the create form, the rules pages and the archive's filter ask
this module; none of them names a game.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.safestring import SafeString

import engine
from games import presentation
from games.models import SEATS_MAX, SEATS_MIN

# The seat counts the site hosts (services.match_create refuses others); each game
# offers those of its own counts that are among them.
SITE_SEATS = range(SEATS_MIN, SEATS_MAX + 1)


def names() -> list[str]:
    """The games offered: registered in the engine and with a presentation of their own."""
    known = set(engine.ruleset_names())
    return [name for name in presentation.names() if name in known]


def default() -> str:
    """The game a form or a button means when it names none."""
    offered = names()
    return engine.rulesets.DEFAULT if engine.rulesets.DEFAULT in offered else offered[0]


def title(name: str) -> str:
    """The name players read for ruleset `name` ("Helium 3 remake")."""
    return presentation.get(name).title


def seat_counts(name: str) -> list[int]:
    """The numbers of seats a match of `name` may have on this site."""
    return [n for n in engine.ruleset(name).seats if n in SITE_SEATS]


def seats_said(counts: list[int]) -> str:
    """[2, 3, 4] -> "2 to 4 players"; [2, 4] -> "2 or 4 players"; [2] -> "2 players"."""
    if not counts:
        return "no seats here"
    if len(counts) == 1:
        return f"{counts[0]} players"
    if counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
        return f"{counts[0]} to {counts[-1]} players"
    return ", ".join(str(n) for n in counts[:-1]) + f" or {counts[-1]} players"


def play_now_seats(name: str) -> int:
    """The seats of a "Play now" match of `name` (services.match_play_now): the game's
    usual number when the site hosts it, else its largest."""
    counts = seat_counts(name)
    usual = engine.ruleset(name).default_seats
    return usual if usual in counts else max(counts, default=0)


_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven")


def _bots_words(count: int) -> str:
    said = _NUMBER_WORDS[count] if 0 <= count < len(_NUMBER_WORDS) else str(count)
    return f"{said} bot" if count == 1 else f"{said} bots"


@dataclass(frozen=True)
class GameCard:
    """One game as the lobby and the games page show it."""

    name: str
    title: str
    blurb: str
    picture: SafeString
    seats: str
    length: str
    rules_url: str
    create_url: str
    bots_words: str  # "three bots": how many "Play now" seats against the player


def card(name: str) -> GameCard:
    shown = presentation.get(name)
    return GameCard(
        name=name,
        title=shown.title,
        blurb=shown.blurb,
        picture=shown.picture(),
        seats=seats_said(seat_counts(name)),
        length=shown.length,
        rules_url=reverse("games:game-rules", args=[name]),
        create_url=f"{reverse('games:match-create')}?{urlencode({'game': name})}",
        bots_words=_bots_words(play_now_seats(name) - 1),
    )


def cards() -> list[GameCard]:
    return [card(name) for name in names()]
