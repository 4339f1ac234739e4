"""Count the records of finished matches again, as their games count them today."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import engine
from games.services.records import records_rebuild


class Command(BaseCommand):
    help = (
        "Count every finished match's seat records again (won, score and the game's own "
        "counts) from its stored final state and turns; of GAME only if given."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", nargs="?", default="", help="a ruleset, such as halite")

    def handle(self, *args: Any, **options: Any) -> None:
        game = options["game"]
        if game and game not in engine.ruleset_names():
            known = ", ".join(engine.ruleset_names())
            raise CommandError(f"There is no game {game!r}; known: {known}.")
        counted = records_rebuild(ruleset=game)
        if options["verbosity"]:
            self.stdout.write(f"{game or 'every game'}: {counted} finished matches counted.")
