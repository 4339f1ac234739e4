"""Helium 3 remake (seeds/001): five vehicles a turn, shields that deflect, rounds."""

from engine.core import Option, Ruleset, Shape
from engine.remake import api, bots
from engine.remake.state import DEFAULT_ROUNDS, MAX_ROUNDS, MIN_ROUNDS

RULESET = Ruleset(
    name="helium3-remake",
    title="Helium 3 remake",
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
    seats=(2, 3, 4),
    shape=Shape(),  # one seat at a time, no setup, no steps: a turn is one apply
    default_seats=4,
    options=(
        Option(
            "rounds",
            "int",
            DEFAULT_ROUNDS,
            MIN_ROUNDS,
            MAX_ROUNDS,
            help="full rounds of turns before the match ends",
        ),
    ),
)
