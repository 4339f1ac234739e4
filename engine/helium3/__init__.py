"""Helium 3, the rules as docs/games/helium3.md states them."""

from engine.core import Ruleset, Shape
from engine.helium3 import api, bots

RULESET = Ruleset(
    name="helium3",
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
    title="Helium 3",
    seats=(2, 3, 4),
    default_seats=4,
    options=api.OPTIONS,
    shape=Shape(),
)
