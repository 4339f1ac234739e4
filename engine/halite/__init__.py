"""Halite (seeds/002, the 2016 season): every seat moves all its pieces at once on a
wrapping grid, takes cells by strength, and ranks by territory."""

from engine.core import Option, Ruleset, Shape
from engine.halite import api, bots
from engine.halite.state import MAX_SIZE, MIN_SIZE, SEAT_COUNTS

RULESET = Ruleset(
    name="halite",
    title="Halite",
    new_game=api.new_game,
    apply=api.apply,
    check=api.check,
    default_orders=api.default_orders,
    awaiting=api.awaiting,
    scores=api.scores,
    view=api.view,
    events_view=api.events_view,
    bot_names=bots.names,
    bot_orders=bots.bot_orders,
    bot_description=bots.description,
    seats=SEAT_COUNTS,
    default_seats=2,
    shape=Shape(simultaneous=True),  # every seat in play moves at once
    options=(
        Option("width", "int", api.DEFAULT_SIZE, MIN_SIZE, MAX_SIZE, help="board width in cells"),
        Option("height", "int", api.DEFAULT_SIZE, MIN_SIZE, MAX_SIZE, help="board height in cells"),
    ),
)
