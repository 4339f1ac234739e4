"""The migrations that give a seat its game's counts: the values of Helium 3's old
columns (mined, robots_destroyed, robots_lost) move into Seat.counts under each
game's own keys, every finished seat's score under its game's name for it, and back
again when the migrations are reversed."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0008_match_rated")]
AFTER = [("games", "0010_seat_helium3_columns_removed")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def test_the_old_columns_move_into_each_games_counts_and_back():
    try:
        old = _migrate(BEFORE)
        Match = old.get_model("games", "Match")
        Seat = old.get_model("games", "Seat")
        made = {}
        for ruleset in ("helium3", "helium3-remake", "halite", "skyport", "arena", "rps"):
            match = Match.objects.create(
                ruleset=ruleset,
                seat_count=2,
                status="finished",
                seed=1,
                state={"ruleset": ruleset, "over": True},
                finished_at=timezone.now(),
            )
            made[ruleset] = match
        helium = {"mined": 1500, "robots_destroyed": 2, "robots_lost": 3}
        Seat.objects.create(match=made["helium3"], number=1, won=True, final_money=900, **helium)
        Seat.objects.create(
            match=made["helium3"], number=2, won=False, final_money=100, mined=0,
            robots_destroyed=None, robots_lost=5,
        )  # fmt: skip
        Seat.objects.create(
            match=made["helium3-remake"], number=1, won=True, final_money=400, **helium
        )
        Seat.objects.create(match=made["halite"], number=1, won=True, final_money=37)
        Seat.objects.create(match=made["skyport"], number=1, won=False, final_money=-5)
        Seat.objects.create(match=made["arena"], number=1, won=True, final_money=6)
        Seat.objects.create(match=made["rps"], number=1, won=True, final_money=2)
        open_match = Match.objects.create(ruleset="helium3", seat_count=2, status="open")
        Seat.objects.create(match=open_match, number=1)

        new = _migrate(AFTER)
        Seat = new.get_model("games", "Seat")
        counts = {(s.match_id, s.number): s.counts for s in Seat.objects.all()}
        assert counts[(made["helium3"].pk, 1)] == {
            "money": 900,
            "mined": 1500,
            "robots_destroyed": 2,
            "robots_lost": 3,
        }
        # A column never filled is left out, not made zero.
        assert counts[(made["helium3"].pk, 2)] == {"money": 100, "mined": 0, "robots_lost": 5}
        assert counts[(made["helium3-remake"].pk, 1)] == {
            "money": 400,
            "mined": 1500,
            "vehicles_destroyed": 2,
            "vehicles_lost": 3,
        }
        assert counts[(made["halite"].pk, 1)] == {"territory": 37}
        assert counts[(made["skyport"].pk, 1)] == {"points": -5}
        assert counts[(made["arena"].pk, 1)] == {"health": 6}
        assert counts[(made["rps"].pk, 1)] == {}  # a game without counts of its own
        assert counts[(open_match.pk, 1)] is None  # not finished: no record yet
        assert {f.name for f in Seat._meta.get_fields()} >= {"counts", "won", "final_money"}
        assert not {"mined", "robots_destroyed", "robots_lost"} & {
            f.name for f in Seat._meta.get_fields()
        }

        back = _migrate(BEFORE)
        Seat = back.get_model("games", "Seat")
        columns = {
            (s.match_id, s.number): (s.mined, s.robots_destroyed, s.robots_lost)
            for s in Seat.objects.all()
        }
        assert columns[(made["helium3"].pk, 1)] == (1500, 2, 3)
        assert columns[(made["helium3"].pk, 2)] == (0, None, 5)
        assert columns[(made["helium3-remake"].pk, 1)] == (1500, 2, 3)
        assert columns[(made["halite"].pk, 1)] == (None, None, None)
    finally:
        _migrate(_latest())
