"""The `Presentation` value: what a game gives the site to be shown, each part with
its default (see games/presentation.py, the registry, for how each is used).

Apart from the registry so that a presentation (games/play/generic.py, each game's
package) is built without importing the registry that finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString

from games import endings

Event = dict[str, Any]
# A finished match's record per seat: {"won", "final_money", "counts": {key: count}},
# the counts' keys those of the game's `record_fields` (stored as Seat.counts).
SeatCounts = dict[int, dict[str, Any]]


@dataclass(frozen=True)
class RecordField:
    """One count a game keeps per seat in a finished match (Seat.counts[key]).

    `label` names a number of it ("helium mined", "robots destroyed"), `one` the
    same for 1 ("robot destroyed"; the label if unsaid). `total` says how a
    player's matches add up on the profile: "sum" (in all) or "max" (their best).
    `score`: the count the places rank by, shown in the results' own column.
    """

    key: str
    label: str
    one: str = ""
    total: str = "sum"
    score: bool = False

    def __post_init__(self) -> None:
        if self.total not in ("sum", "max"):
            raise ValueError(f"A record field's total is 'sum' or 'max', not {self.total!r}.")
        if not self.key.isidentifier():
            raise ValueError(f"A record field's key is a name, not {self.key!r}.")

    def text(self, value: int) -> str:
        """ "340 helium mined", "1 robot destroyed"."""
        return f"{value:,} {(self.one or self.label) if value == 1 else self.label}"

    @property
    def heading(self) -> str:
        """What the profile calls a player's total: "Helium mined", "Territory at the
        end (best)"."""
        name = self.label[:1].upper() + self.label[1:]
        return name if self.total == "sum" else f"{name} (best)"


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
    return endings.scored_seats(final, turns)


def _final_scores(final: dict[str, Any]) -> dict[int, int | float]:
    return endings.final_scores(final)


def _no_pieces(final: dict[str, Any]) -> dict[int, int] | None:
    return None


def _who_won(final: dict[str, Any], names: dict[int, str]) -> str:
    return f"{endings.winner_phrase(final, names)}."


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
    # what each seat's row stores when the match finishes (by default its win and score,
    # and no counts).
    seat_records: Callable[[dict[str, Any], Iterable[tuple[int, list[Event]]]], SeatCounts] = (
        _scored
    )
    # The counts a seat's record keeps (Seat.counts), in the order they are shown: the
    # profile's totals per game, the latest matches and the results' line.
    record_fields: tuple[RecordField, ...] = ()
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
