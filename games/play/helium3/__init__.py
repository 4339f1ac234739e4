"""Helium 3 on the site: the moon's board, the planner's hints, the history's
sentences, the plain order form and the rules page."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.safestring import SafeString

import engine
from engine.errors import OrdersError
from engine.helium3 import orders, timing
from games import records
from games.play.helium3 import board, hints, record, rules, schema, sentences
from games.play.helium3.forms import OrdersForm
from games.play.helium3.tally import final_money, robots_left
from games.presentation import Presentation

# The engine's constants the board script needs to split an event into its phases
# (a missile's flight and blast, a kamikaze's blast); the timing itself is always
# the event's own t_ms and duration_ms.
TIMING = {
    "MISSILE_CELL_MS": timing.MISSILE_CELL_MS,
    "BLAST_MS": timing.BLAST_MS,
    "LASER_CELL_MS": timing.LASER_CELL_MS,
    "KAMIKAZE_MS": timing.KAMIKAZE_MS,
    "MIN_TURN_MS": timing.MIN_TURN_MS,
}


def planner_hints(view: dict[str, Any]) -> dict[str, Any] | None:
    """The click hints of the viewer's own turn; None on any other view."""
    return hints.hints_for(view) if hints.hints_due(view) else None


def planner_hints_after(view: dict[str, Any], planned: list[Any]) -> dict[str, Any]:
    """The hints for the second action, after the first (a turn has two at most)."""
    if len(planned) != 1:
        refused = OrdersError(
            "too_many_actions", f"A turn has at most {orders.MAX_ACTIONS} actions: plan one first."
        )
        return refused.to_json()
    return hints.hints_after(view, planned[0])


@cache
def picture() -> SafeString:
    """The board of a sample match (seed 1, four seats) at its start."""
    view = engine.view(engine.new_game(seed=1, seats=4), None)
    return board.render_picture(view, label="The moon of Helium 3: helium deposits, four squads")


PRESENTATION = Presentation(
    name="helium3",
    title="Helium 3",
    spectator_note="no shields are shown",
    blurb="Command a squad of mining robots on the moon and be the richest when the "
    "battle clock runs out. Two actions a turn: mine, arm, shield in secret, fire.",
    board=board.render_board,
    lost=board.destroyed_robots,
    decided=records.decided_by,
    seat_records=record.seat_records,
    record_fields=record.FIELDS,
    final_scores=final_money,
    pieces_left=robots_left,
    orders_schema=schema.ORDERS_PROPERTIES,
    hints=planner_hints,
    hints_after=planner_hints_after,
    sentences=sentences.describe_events,
    orders_form=OrdersForm,
    orders_note="At most two robots, one action each, in order: the second acts on the "
    "board the first leaves. Send with nothing chosen to pass.",
    rules_template="play/helium3/rules.html",
    rules_context=rules.rules_context,
    picture=picture,
    legend_template="play/helium3/_legend.html",
    planner_script="games/board.js",
    max_actions=orders.MAX_ACTIONS,
    timing=TIMING,
    place="The moon",
    length="A 10-minute battle clock: about 20 turns each",
)
