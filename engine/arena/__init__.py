"""The robot arena (seeds/003, restfight's game rules): each seat builds a robot from
parts within a capacity of 10, then robots take turns of steps (scan, move, shoot,
end) on a 10 x 10 grid they see only through their radar."""

from __future__ import annotations

from engine.arena import api, bots
from engine.arena.state import DEFAULT_ROUNDS, MAX_ROUNDS, MIN_ROUNDS, SEAT_COUNTS
from engine.core import Option, Ruleset, Shape

RULESET = Ruleset(
    name="arena",
    title="Robot arena",
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
    shape=Shape(setup=True, steps=True),  # every build at once, then turns of steps
    options=(
        Option(
            "rounds",
            "int",
            DEFAULT_ROUNDS,
            MIN_ROUNDS,
            MAX_ROUNDS,
            help="rounds in a match (every robot's turn once)",
        ),
    ),
)
