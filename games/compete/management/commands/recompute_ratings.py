"""Rebuild a game's ratings from its finished rated matches, in the order they finished."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import engine
from games.compete.services import ratings_recompute


class Command(BaseCommand):
    help = (
        "Recompute every rating of GAME (a ruleset name) by rating its finished rated "
        "matches again from new ratings, in the order they finished."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="the ruleset, such as helium3 or halite")

    def handle(self, *args: Any, **options: Any) -> None:
        game = options["game"]
        if game not in engine.ruleset_names():
            known = ", ".join(engine.ruleset_names())
            raise CommandError(f"There is no game {game!r}; known: {known}.")
        rated = ratings_recompute(game=game)
        if options["verbosity"]:
            self.stdout.write(f"{game}: {rated} rated matches replayed.")
