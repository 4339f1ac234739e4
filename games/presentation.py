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
    shown.seat_records(final, turns)          # {seat: {"won", "final_money", ...}} at the end
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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

Event = dict[str, Any]
# A finished match's record per seat: the Seat row's fields (won, final_money, and
# the counts the game keeps: mined, robots_destroyed, robots_lost).
SeatCounts = dict[int, dict[str, Any]]

# One line per game: the ruleset's name (engine/rulesets.py) -> its presentation package.
_PACKAGES: dict[str, str] = {
    "helium3": "games.play.helium3",
    "helium3-remake": "games.play.remake",
    "halite": "games.play.halite",
    "skyport": "games.play.skyport",
    "arena": "games.play.arena",
}
_CACHE: dict[str, Presentation] = {}


def _no_hints(view: dict[str, Any]) -> dict[str, Any] | None:
    return None


def _no_hints_after(view: dict[str, Any], planned: list[Any]) -> dict[str, Any]:
    return {"error": {"code": "no_planner", "message": "This game has no board planner."}}


def _nothing_lost(view: dict[str, Any]) -> list[dict[str, Any]]:
    return []


def _nothing_initial(orders: dict[str, Any]) -> dict[str, Any]:
    return {}


def _no_progress(view: dict[str, Any]) -> str:
    return ""


def _no_details(view: dict[str, Any]) -> SafeString:
    return SafeString("")


def _no_figures(match: Any, view: dict[str, Any], *, replay: bool = False) -> SafeString:
    return SafeString("")


def _scored(final: dict[str, Any], turns: Iterable[tuple[int, list[Event]]]) -> SeatCounts:
    from games import records

    return records.scored_seats(final, turns)


def _final_scores(final: dict[str, Any]) -> dict[int, int | float]:
    from games import records

    return records.final_scores(final)


def _no_pieces(final: dict[str, Any]) -> dict[int, int] | None:
    return None


def _who_won(final: dict[str, Any], names: dict[int, str]) -> str:
    from games import records

    return f"{records.winner_phrase(final, names)}."


@dataclass(frozen=True, kw_only=True)
class Presentation:
    """How the site shows one ruleset; see the module's docstring for each part.

    - `board(view, caption=str) -> SafeString`: built from the viewer's view only.
    - `hints(view)`: the planner's hints when the view is its viewer's turn, else
      None; may raise engine.EngineError (the page is then drawn without hints).
    - `hints_after(view, planned)`: hints on the board the planned actions (protocol
      JSON, in order) leave, or the engine's error as `{"error": {...}}`.
    - `sentences(events)`: a viewer's copy of one turn's events (engine.events_view)
      as sentences, for the history, the movie and emails.
    - `orders_form(data, view=)`: a Django form (see the module docstring).
    """

    name: str
    title: str
    blurb: str
    board: Callable[..., SafeString]
    sentences: Callable[[list[Event]], list[str]]
    orders_form: Callable[..., Any]
    rules_template: str
    rules_context: Callable[[], dict[str, Any]]
    picture: Callable[[], SafeString]
    hints: Callable[[dict[str, Any]], dict[str, Any] | None] = _no_hints
    hints_after: Callable[[dict[str, Any], list[Any]], dict[str, Any]] = _no_hints_after
    lost: Callable[[dict[str, Any]], list[dict[str, Any]]] = _nothing_lost
    # decided(final view, {seat: name}) -> the sentence of what decided the match.
    decided: Callable[[dict[str, Any], dict[int, str]], str] = _who_won
    # seat_records(full final state, [(mover seat, full events), ...]) -> SeatCounts:
    # what each seat's row stores when the match finishes (by default its win and score).
    seat_records: Callable[[dict[str, Any], Iterable[tuple[int, list[Event]]]], SeatCounts] = (
        _scored
    )
    # final_scores(final view) -> {seat: score}: what the places rank by.
    final_scores: Callable[[dict[str, Any]], dict[int, int | float]] = _final_scores
    # pieces_left(final view) -> {seat: pieces left}, None in a game without pieces: a
    # seat with none left ranks after every seat with some.
    pieces_left: Callable[[dict[str, Any]], dict[int, int] | None] = _no_pieces
    # progress(view) -> how far the match has come, for a game not timed by the
    # battle clock ("Round 3 of 20"); "" shows the battle clock.
    progress: Callable[[dict[str, Any]], str] = _no_progress
    # seat_details(view) -> the panel's table of what each seat holds beyond its score
    # (health, resources, weapons), from the viewer's view only ("" none).
    seat_details: Callable[[dict[str, Any]], SafeString] = _no_details
    # figures(match, view, replay=) -> the panel's figures of each seat over the turns up
    # to the view's (charts), read by the game from the match's stored turns as the
    # viewer may see them, in a constant number of queries ("" none). `replay`: the
    # replay page's, which follows its scrubber.
    figures: Callable[..., SafeString] = _no_figures
    orders_note: str = ""
    # orders_initial(orders sent) -> the plain form's initial values showing them, so a
    # seat of a turn at once sees, and may change, what it sent ({}: a fresh form).
    orders_initial: Callable[[dict[str, Any]], dict[str, Any]] = _nothing_initial
    # The board's key beside it ("" none): what the shapes, colours and marks mean.
    legend_template: str = ""
    planner_script: str = ""
    # The board's own stylesheet, loaded after the platform's board.css ("" none).
    stylesheet: str = ""
    max_actions: int = 0
    timing: Mapping[str, int] = field(default_factory=dict)
    # The orders' own properties (JSON Schema) besides turn, seat and step_no, for the
    # bot API's description of the default game's orders ({}: unsaid).
    orders_schema: Mapping[str, Any] = field(default_factory=dict)
    # What the board is called in its caption ("The moon at turn 4, as seat 1 sees it").
    place: str = "The board"
    # What the game calls a player's piece where the platform's pages name one ("Your
    # robots", "choose a second robot"): the remake's rules say "vehicle".
    piece: str = "robot"
    # How long a match usually lasts, for the lobby's card ("" unsaid).
    length: str = ""
    # What a spectator is not shown, said beside "You are watching (spectator view: ...)"
    # ("no shields are shown"; "" for a game that hides nothing from spectators).
    spectator_note: str = ""


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
            from games.play.generic import generic

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
