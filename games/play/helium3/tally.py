"""What a finished Helium 3 match's places rank by (robots left, then money); what
it records per seat is games/play/helium3/record.py."""

from __future__ import annotations

from typing import Any


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
