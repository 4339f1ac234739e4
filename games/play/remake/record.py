"""What a finished remake match records per seat (its presentation's `seat_records`
and `record_fields`): won, money, helium mined, vehicles destroyed and lost, and the
hits its shields took, which in the remake is a shield's whole work (it takes one
hit, or turns a laser back). Counted as Helium 3 counts (the remake's vehicles are
robots in its state): games/play/helium3/record.py."""

from __future__ import annotations

from typing import Any

from games.play.helium3.record import Turns, tally
from games.presentation_shape import RecordField, SeatCounts

FIELDS = (
    RecordField("money", "money at the end", score=True),
    RecordField("mined", "helium mined"),
    RecordField("vehicles_destroyed", "vehicles destroyed", one="vehicle destroyed"),
    RecordField("vehicles_lost", "vehicles lost", one="vehicle lost"),
    RecordField("hits_shielded", "hits taken on shields", one="hit taken on a shield"),
)


def seat_records(final_state: dict[str, Any], turns: Turns) -> SeatCounts:
    """Each seat's win, money (its score) and the remake's counts."""
    return {
        seat: {
            "won": c["won"],
            "final_money": c["money"],
            "counts": {
                "money": c["money"],
                "mined": c["mined"],
                "vehicles_destroyed": c["destroyed"],
                "vehicles_lost": c["lost"],
                "hits_shielded": c["shielded"],
            },
        }
        for seat, c in tally(final_state, turns).items()
    }
