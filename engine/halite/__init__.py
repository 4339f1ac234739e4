"""Halite (seeds/002, the 2016 season): every seat moves all its pieces at once on a
wrapping grid, takes cells by strength, and ranks by territory."""

from engine.core import Option, Ruleset, Shape
from engine.halite import api, bots
from engine.halite.state import MAX_SIZE, MIN_SIZE, SEAT_COUNTS

# The map is cut into one tile per seat (mapgen.LAYOUTS), so the size asked is rounded
# down to whole tiles: a player sees that before the match, not only on the rules page.
_TILED = (
    "board %s in cells, rounded down to a whole number of tiles, one a seat "
    "(50 x 50 with six seats is 48 x 50 or 50 x 48)"
)

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
    seats_bot_orders=bots.seats_bot_orders,
    bot_description=bots.description,
    seats=SEAT_COUNTS,
    default_seats=2,
    shape=Shape(simultaneous=True),  # every seat in play moves at once
    apply_checks_orders=True,  # api.apply reads each seat's orders as check does
    options=(
        Option("width", "int", api.DEFAULT_SIZE, MIN_SIZE, MAX_SIZE, help=_TILED % "width"),
        Option("height", "int", api.DEFAULT_SIZE, MIN_SIZE, MAX_SIZE, help=_TILED % "height"),
    ),
)
