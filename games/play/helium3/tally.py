"""What a finished Helium 3 match records per seat (its presentation's
`seat_records`): won, money, helium mined, robots destroyed and lost; and what
its places rank by (robots left, then money). Pure: it reads the final state and the
stored turns' full events.

"Robots destroyed" counts opponents' robots destroyed during the seat's own turns
(every action of a turn is the mover's): a missile, a laser, a kamikaze blast. A
robot a seat blows up of its own (friendly fire, its own kamikaze) is not a win
for it, so it counts only as that seat's loss.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def seat_records(
    final_state: dict[str, Any], turns: Iterable[tuple[int, list[dict[str, Any]]]]
) -> dict[int, dict[str, Any]]:
    """Each seat's won, final_money, mined, robots_destroyed and robots_lost, from the
    final state and (mover seat, full events) per turn in order."""
    owner = {str(r["id"]): int(r["seat"]) for r in final_state["robots"]}
    destroyed = {int(p["seat"]): 0 for p in final_state["players"]}
    for mover, events in turns:
        for event in events:
            if event.get("type") != "destroyed":
                continue
            victim = owner.get(str(event.get("robot")))
            if victim is not None and victim != mover and mover in destroyed:
                destroyed[mover] += 1
    winners = {int(s) for s in final_state.get("winners", [])}
    records = {}
    for player in final_state["players"]:
        seat = int(player["seat"])
        robots = [r for r in final_state["robots"] if int(r["seat"]) == seat]
        records[seat] = {
            "won": seat in winners,
            "final_money": int(player["money"]),
            "mined": sum(int(r.get("mined", 0)) for r in robots),
            "robots_destroyed": destroyed[seat],
            "robots_lost": sum(1 for r in robots if not r["alive"]),
        }
    return records


def final_money(final_view: dict[str, Any]) -> dict[int, int | float]:
    """What Helium 3's places rank by: each seat's money (read from a view too)."""
    return {int(p["seat"]): int(p["money"]) for p in final_view["players"]}


def robots_left(final_view: dict[str, Any]) -> dict[int, int]:
    """Each seat's robots alive at the end: a seat without any cannot win."""
    left = {int(p["seat"]): 0 for p in final_view["players"]}
    for robot in final_view["robots"]:
        if robot["alive"] and int(robot["seat"]) in left:
            left[int(robot["seat"])] += 1
    return left
