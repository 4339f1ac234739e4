"""Halite on the site: the wrapping map drawn server-side, its pieces by colour and
shape, the moves as a plain textarea (the board script writes it), the events as
short sentences and the rules page. Halite hides nothing, so every view is the
state; there is no server planner (hints are None): the board script plans alone."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.safestring import SafeString

import engine
from engine.halite import resolve, state
from games import records
from games.play.halite import board, record, rules, sentences, stats
from games.play.halite.forms import OrdersForm, moves_text
from games.presentation import Presentation

NAME = "halite"
# The lobby's picture: a 20 x 20 map of four seats after this many turns of the
# planned bot, so it shows territory rather than four lone cells.
PICTURE_TURNS = 30


@cache
def picture() -> SafeString:
    """A sample match (seed 1, four seats, 20 x 20) a few turns in."""
    current = engine.new_game(seed=1, seats=4, ruleset=NAME, options={"width": 20, "height": 20})
    for _ in range(PICTURE_TURNS):
        orders = [engine.bot_orders("grower", current, s) for s in engine.awaiting(current)]
        current = engine.apply(current, orders).state
    return board.picture_of(
        engine.view(current, None), label="Halite: four players' territories on a wrapping map"
    )


def territory(view: dict[str, Any]) -> dict[int, int]:
    """Cells each seat holds, counted on the view's map."""
    counts = dict.fromkeys(range(1, int(view.get("seats", 0)) + 1), 0)
    for row in view["owner"]:
        for owner in row:
            if owner:
                counts[owner] = counts.get(owner, 0) + 1
    return counts


def orders_initial(orders: dict[str, Any]) -> dict[str, Any]:
    """The moves already sent for this turn, as the textarea shows them."""
    moves = orders.get("moves")
    return {"moves": moves_text(moves)} if isinstance(moves, list) else {}


def final_scores(final: dict[str, Any]) -> dict[int, int | float]:
    """Places rank by territory: the cells held at the end."""
    return dict(territory(final))


def progress(view: dict[str, Any]) -> str:
    """Halite is counted in turns, on a map whose size is the tiles' (a map is cut into a
    tile per seat, so 50 x 50 asked with six seats is 48 x 50): "Turn 12 of 489 on a 48 ×
    50 map"."""
    return (
        f"Turn {view.get('turn')} of {view.get('max_turns')} on a "
        f"{view.get('width')} × {view.get('height')} map"
    )


def decided(final: dict[str, Any], names: dict[int, str]) -> str:
    """What decided a Halite match: the last seat on the map, or territory at the end."""
    cells = territory(final)
    total = int(final["width"]) * int(final["height"])
    winners = [int(s) for s in final.get("winners", [])]
    if not winners:
        return "Nobody won."
    who = records.seat_names(winners, names)
    held = cells.get(winners[0], 0)
    turn = final.get("turn")
    on_map = [s for s, n in cells.items() if n > 0]
    if len(on_map) <= 1:
        return (
            f"{who} won as the last seat on the map, with {held} of {total} cells, at turn {turn}."
        )
    ranking = [int(s) for s in final.get("ranking", [])]
    runner = next((s for s in ranking if s not in winners), None)
    verb = "won" if len(winners) == 1 else "shared the win"
    sentence = f"{who} {verb} on territory after the last turn ({turn}): {held} of {total} cells"
    if runner is not None:
        sentence += f" to seat {runner}'s {cells.get(runner, 0)}"
        if cells.get(runner, 0) == held and len(winners) == 1:
            sentence += ", the tie broken by territory over the whole match"
    return sentence + "."


def figures(match: Any, view: dict[str, Any], *, replay: bool = False) -> SafeString:
    """Each seat's territory, strength and production, and their charts over the turns."""
    return stats.panel(match, view, with_data=replay)


def length() -> str:
    ruleset = engine.ruleset(NAME)
    options = {o.name: o for o in ruleset.options}
    width, height = int(options["width"].default), int(options["height"].default)
    return (
        f"{state.max_turns_for(width, height)} turns on a {width} × {height} map, all seats at once"
    )


PRESENTATION = Presentation(
    name=NAME,
    title=engine.ruleset(NAME).title,
    blurb="Every player moves all of their pieces at once on a map that wraps at every edge. "
    "Grow where the ground produces most, take the neutral land and each other's cells: the "
    "most territory at the end wins.",
    board=board.board,
    sentences=sentences.sentences,
    orders_form=OrdersForm,
    orders_note="One move a line, “x y direction” (n, e, s, w or 0 to 4), or plan on the board. "
    "Pieces you do not name stay still and grow; send nothing to pass. You can change your "
    "moves until every player has sent.",
    rules_template="play/halite/rules.html",
    rules_context=rules.rules_context,
    picture=picture,
    legend_template="play/halite/_legend.html",
    planner_script="play/halite/planner.js",
    stylesheet="play/halite/board.css",
    decided=decided,
    seat_records=record.seat_records,
    record_fields=record.FIELDS,
    final_scores=final_scores,
    orders_initial=orders_initial,
    progress=progress,
    figures=figures,
    timing={"TURN_MS": resolve.TURN_MS},
    orders_schema={
        "moves": {
            "type": "array",
            "description": "[x, y, direction] per moving piece; direction 0 still, 1 north, "
            "2 east, 3 south, 4 west. Pieces not named stay still.",
            "items": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 3,
                "maxItems": 3,
            },
        }
    },
    place="The map",
    length=length(),
)
