"""The robot arena (seeds/003, restfight's game rules): each seat builds a robot from
parts within a capacity of 10, then robots take turns of steps (scan, move, shoot,
end) on a 10 x 10 grid they see only through their radar."""

from __future__ import annotations

from typing import Any

from engine.arena import rules
from engine.core import Option, Ruleset, Shape


# The bots package imports the rules; it is loaded when a bot is first asked for.
def _bot_names() -> list[str]:
    from engine.arena import bots

    return bots.names()


def _bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    from engine.arena import bots

    return bots.bot_orders(name, state, seat)


def _bot_description(name: str) -> str:
    from engine.arena import bots

    return bots.description(name)


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
    bot_names=_bot_names,
    bot_orders=_bot_orders,
    bot_description=_bot_description,
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
