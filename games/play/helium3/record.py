"""What a finished Helium 3 match records per seat (its presentation's
`seat_records` and `record_fields`): won, money, helium mined, robots destroyed and
lost. Pure: it reads the final state and the stored turns' full events.

"Robots destroyed" counts opponents' robots destroyed during the seat's own turns
(every action of a turn is the mover's): a missile, a laser, a kamikaze blast. A
robot a seat blows up of its own (friendly fire, its own kamikaze) is not a win
for it, so it counts only as that seat's loss. "Hits shielded" counts the hits a
seat's raised shields took (absorbed, or turned away by a deflect).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.presentation_shape import RecordField, SeatCounts

Turns = Iterable[tuple[int, list[dict[str, Any]]]]

FIELDS = (
    RecordField("money", "money at the end", score=True),
    RecordField("mined", "helium mined"),
    RecordField("robots_destroyed", "robots destroyed", one="robot destroyed"),
    RecordField("robots_lost", "robots lost", one="robot lost"),
)


def tally(final_state: dict[str, Any], turns: Turns) -> dict[int, dict[str, Any]]:
    """Each seat's won, money, mined, destroyed, lost and shielded (hits its shields
    took), from the final state and (mover seat, full events) per turn in order. The
    remake, whose vehicles are robots in its state, counts the same."""
    owner = {str(r["id"]): int(r["seat"]) for r in final_state["robots"]}
    destroyed = {int(p["seat"]): 0 for p in final_state["players"]}
    shielded = dict.fromkeys(destroyed, 0)
    for mover, events in turns:
        for event in events:
            kind = event.get("type")
            robot = owner.get(str(event.get("robot")))
            if kind == "destroyed":
                if robot is not None and robot != mover and mover in destroyed:
                    destroyed[mover] += 1
            elif kind in ("absorbed", "deflected") and robot in shielded:
                shielded[robot] += 1
    winners = {int(s) for s in final_state.get("winners", [])}
    counts = {}
    for player in final_state["players"]:
        seat = int(player["seat"])
        robots = [r for r in final_state["robots"] if int(r["seat"]) == seat]
        counts[seat] = {
            "won": seat in winners,
            "money": int(player["money"]),
            "mined": sum(int(r.get("mined", 0)) for r in robots),
            "destroyed": destroyed[seat],
            "lost": sum(1 for r in robots if not r["alive"]),
            "shielded": shielded[seat],
        }
    return counts


def seat_records(final_state: dict[str, Any], turns: Turns) -> SeatCounts:
    """Each seat's win, money (its score) and Helium 3's counts."""
    return {
        seat: {
            "won": c["won"],
            "final_money": c["money"],
            "counts": {
                "money": c["money"],
                "mined": c["mined"],
                "robots_destroyed": c["destroyed"],
                "robots_lost": c["lost"],
            },
        }
        for seat, c in tally(final_state, turns).items()
    }
