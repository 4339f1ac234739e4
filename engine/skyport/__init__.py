"""Skyport (seeds/004, the 2013 competition): robots on a hex map choose two weapons,
then take turns of three actions to mine, upgrade and shoot for points."""

from engine.core import Option, Ruleset, Shape
from engine.skyport import api, bots
from engine.skyport.state import DEFAULT_ROUNDS, MAP_CHOICES, MAX_ROUNDS, MIN_ROUNDS, SEAT_COUNTS

RULESET = Ruleset(
    name="skyport",
    title="Skyport",
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
    shape=Shape(setup=True),  # every loadout at once, then one seat at a time
    options=(
        Option("rounds", "int", DEFAULT_ROUNDS, MIN_ROUNDS, MAX_ROUNDS, help="rounds in a match"),
        Option(
            "map",
            "str",
            api.DEFAULT_MAP,
            choices=MAP_CHOICES,
            help="the map: generated from the seed, or a shipped one",
        ),
    ),
)
