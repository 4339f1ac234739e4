"""The scaffolding of the property tests of Helium 3 and its remake (test_properties.py,
remake/test_remake_properties.py): hypothesis settings for whole random matches, a
random explicit path, and readings of a JSON state and of a laser beam.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, Phase, settings

from engine.helium3.board import DELTAS
from engine.helium3.resolve import Turn

Json = dict[str, Any]


def matches(examples: int) -> settings:
    """Settings for properties over whole random matches: derandomized, no deadline.

    Shrinking a whole random match makes little progress and takes minutes; the failing
    example (the match's arguments and the player's own seed) is printed all the same.
    """
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


def random_walk(turn: Turn, i: int, reach: int, rng: random.Random) -> tuple[tuple[int, int], ...]:
    """A path of king steps over free cells, at most `reach` long (maybe not the shortest)."""
    robot = turn.state.robots[i]
    x, y = robot.x, robot.y
    steps: list[tuple[int, int]] = []
    for _ in range(rng.randint(1, reach)):
        free = [
            (x + dx, y + dy)
            for dx, dy in DELTAS.values()
            if turn.on_board((x + dx, y + dy))
            and turn.occ.get((y + dy) * turn.width + x + dx, i) == i
        ]
        if not free:
            break
        x, y = rng.choice(free)
        steps.append((x, y))
    return tuple(steps)


def money(state: Json) -> dict[int, int]:
    return {p["seat"]: p["money"] for p in state["players"]}


def helium_total(state: Json) -> int:
    return sum(sum(row) for row in state["helium"])


def check_beam(robot: Json, segments: list[Any], width: int, height: int) -> None:
    """A beam from `robot` is straight 45-degree segments, end to end, on the board."""
    x, y = robot["x"], robot["y"]
    for (x0, y0), (x1, y1) in segments:
        assert (x0, y0) == (x, y), "each segment starts where the last one ended"
        dx, dy = x1 - x0, y1 - y0
        length = max(abs(dx), abs(dy))
        assert dx in (0, length, -length) and dy in (0, length, -length), "45-degree lines"
        assert 0 <= x1 < width and 0 <= y1 < height
        x, y = x1, y1
