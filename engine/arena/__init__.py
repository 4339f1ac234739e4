"""The robot arena (seeds/003, restfight's game rules): each seat builds a robot from
parts within a capacity of 10, then robots take turns of steps (scan, move, shoot,
end) on a 10 x 10 grid they see only through their radar."""

from __future__ import annotations

from engine.arena import bots, rules
from engine.core import Option, Ruleset, Shape

RULESET = Ruleset(
    name="arena",
    title="Robot arena",
    new_game=rules.new_game,
    apply=rules.apply,
    check=rules.check,
    default_orders=rules.default_orders,
    awaiting=rules.awaiting,
    scores=rules.scores,
    view=rules.view,
    events_view=rules.events_view,
    bot_names=bots.names,
    bot_orders=bots.bot_orders,
    bot_description=bots.description,
    seats=rules.SEAT_COUNTS,
    default_seats=2,
    shape=Shape(setup=True, steps=True),  # every build at once, then turns of steps
    options=(
        Option(
            "rounds",
            "int",
            rules.DEFAULT_ROUNDS,
            rules.MIN_ROUNDS,
            rules.MAX_ROUNDS,
            help="rounds in a match (every robot's turn once)",
        ),
    ),
)
