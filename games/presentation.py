"""The registry of game presentations: how the site shows each ruleset.

The engine registers rulesets (engine/rulesets.py); the site registers, under the
same name, a `Presentation`: the board drawn from a view, the planner's hints, the
events as sentences, the plain order form, the rules page and a small picture for
the lobby. Generic code (the match page, poll, history, replay, emails, lobby)
asks this registry and never names a game, so a new game adds a package, not
branches in the platform.

Using it::

    from games import presentation

    shown = presentation.get(match.ruleset)   # never fails: a fallback for unknown names
    shown.title, shown.blurb                  # "Helium 3", two sentences for a lobby card
    shown.length                              # how long a match usually lasts ("" unsaid)
    shown.board(view, caption="...")          # SafeString: the server-side SVG (or text)
    shown.lost(view)                          # pieces gone from the board, for the list beside it
    shown.seat_details(view)                  # SafeString: the panel's table of each seat's own figures
    shown.figures(match, view, replay=False)  # SafeString: the panel's figures over the turns
    shown.decided(final_view, names)          # one sentence: what decided a finished match
    shown.seat_records(final, turns)          # {seat: {"won", "final_money", "counts"}} at the end
    shown.record_fields                       # the counts a record keeps: key, label, total
    shown.final_scores(final_view)            # {seat: score} the places rank by
    shown.pieces_left(final_view)             # {seat: pieces left} or None (no pieces)
    shown.hints(view)                         # planner hints on the viewer's turn, else None
    shown.hints_after(view, [action, ...])    # hints after planned actions, or {"error": ...}
    shown.sentences(events)                   # one viewer's copy of a turn's events -> [str]
    form = shown.orders_form(request.POST or None, view=view)   # the plain order form
    form.rows()                               # its controls as HTML (works without JavaScript)
    form.orders()                             # after is_valid(): the orders object, no seat/turn
    form.add_engine_error(message, index)     # the engine's refusal next to its action
    shown.orders_note                         # one line above the form: how a turn is given
    shown.orders_initial(orders)              # the form's initial values showing orders sent
    shown.rules_template, shown.rules_context()  # the rules page, numbers from the engine
    shown.picture()                           # SafeString: a small SVG of a sample board
    shown.legend_template                     # the board's key beside it ("" none)
    shown.planner_script                      # static path of the board's script ("" none)
    shown.stylesheet                          # static path of the board's own styles ("" none)
    shown.max_actions                         # actions a turn takes (0: not a list of actions)
    shown.timing                              # the engine constants the board script needs
    shown.orders_schema                       # JSON Schema of the orders' own fields (the API)
    presentation.names()                      # the registered names, in order

Adding a game: a package `games/play/<game>/` whose `__init__.py` defines
`PRESENTATION = Presentation(...)`, and one line in `_PACKAGES` below. A ruleset
with no presentation (the test rulesets) gets `generic(name)`: its view as a
readable list, its events as plain lines and a JSON orders field, so no page fails.
"""

from __future__ import annotations

import importlib

from django.utils.safestring import SafeString, mark_safe

from games.html_text import escape
from games.play.generic import generic
from games.presentation_shape import Event, Presentation, RecordField, SeatCounts

__all__ = [
    "Event",
    "Presentation",
    "RecordField",
    "SeatCounts",
    "get",
    "lines_html",
    "names",
    "register",
]

# One line per game: the ruleset's name (engine/rulesets.py) -> its presentation package.
_PACKAGES: dict[str, str] = {
    "helium3": "games.play.helium3",
    "helium3-remake": "games.play.remake",
    "halite": "games.play.halite",
    "skyport": "games.play.skyport",
    "arena": "games.play.arena",
}
_CACHE: dict[str, Presentation] = {}


def register(name: str, package: str) -> None:
    """Show ruleset `name` with the presentation of `package` (its `PRESENTATION`)."""
    _PACKAGES[name] = package
    _CACHE.pop(name, None)


def unregister(name: str) -> None:
    _PACKAGES.pop(name, None)
    _CACHE.pop(name, None)


def names() -> list[str]:
    """The games with a presentation of their own, in registry order."""
    return list(_PACKAGES)


def get(name: str) -> Presentation:
    """The presentation of ruleset `name`; the generic one when it has none."""
    shown = _CACHE.get(name)
    if shown is None:
        package = _PACKAGES.get(name)
        if package is None:
            shown = generic(name)
        else:
            shown = importlib.import_module(package).PRESENTATION
            if not isinstance(shown, Presentation) or shown.name != name:
                raise LookupError(f"Package {package} does not present the ruleset {name!r}.")
        _CACHE[name] = shown
    return shown


def lines_html(lines: list[str]) -> SafeString:
    """Sentences as list items, joined here rather than looped in a template."""
    return mark_safe("".join(f"<li>{escape(line)}</li>" for line in lines))  # noqa: S308
