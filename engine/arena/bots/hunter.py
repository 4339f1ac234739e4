"""The `hunter` bot: a far-seeing gunner (engine1, gun, radar3: it sees almost the whole
arena from wherever it stands).

Each turn it scans wherever it stands, shoots an enemy its scan shows within reach,
and otherwise walks (only through cells its scans of this turn show free) toward the
enemy it saw last, or, seeing none, toward the nearest cell it has not seen for a
while. Hurt, it backs away from the enemies it sees. It ends its turn when no step
would do anything more."""

from __future__ import annotations

import random
from typing import Any

from engine.arena.bots.sight import Cell, Sight
from engine.arena.orders import WEAPON_RANGE
from engine.arena.state import distance

BUILD = ["engine1", "gun", "radar3"]
# Cells not seen for this many whole turns are worth looking at again.
STALE_TURNS = 8
# At most this share of its health left, it backs away from the enemies it sees.
HURT = 0.4
# A turn never takes more steps than this, whatever happens.
MAX_STEPS = 24


def build(sight: Sight, rng: random.Random) -> list[str]:
    return list(BUILD)


def _distances(sight: Sight, goal: Cell) -> dict[Cell, int]:
    """Walking distance to `goal` over the cells not known to be obstacles."""
    blocked = {c for c, k in sight.known.items() if k.what == "obstacle"}
    out = {goal: 0}
    frontier = [goal]
    while frontier:
        nxt: list[Cell] = []
        for cell in frontier:
            for _, to in sight.neighbours(cell):
                if to not in out and sight.inside(to) and to not in blocked:
                    out[to] = out[cell] + 1
                    nxt.append(to)
        frontier = nxt
    return out


def _explore_goal(sight: Sight) -> Cell | None:
    """The nearest cell not seen for a while (the centre breaks ties)."""
    centre = ((sight.width - 1) / 2, (sight.height - 1) / 2)
    best: tuple[float, float, Cell] | None = None
    for cell in sight.cells():
        entry = sight.known.get(cell)
        if entry is not None and (
            entry.what == "obstacle" or sight.turn - entry.turn < STALE_TURNS
        ):
            continue
        key = (
            float(distance(sight.at, cell)),
            abs(cell[0] - centre[0]) + abs(cell[1] - centre[1]),
            cell,
        )
        if best is None or key < best:
            best = key
    return best[2] if best else None


def _approach(sight: Sight, goal: Cell, reach: int) -> list[str] | None:
    """The path to the reachable cell nearest to within `reach` of `goal`, if it gets closer."""
    far = _distances(sight, goal)
    unknown = len(far) + sight.width * sight.height

    def score(cell: Cell) -> tuple[int, int]:
        """0 within reach; else the walking distance, then (among cells as near by
        walking) the distance as the gun reaches, diagonally."""
        if 0 < distance(cell, goal) <= reach:
            return (0, 0)
        return (far.get(cell, unknown), distance(cell, goal))

    paths = sight.reachable()
    best = min(paths, key=lambda c: (score(c), len(paths[c]), c))
    if score(best) >= score(sight.at):
        return None
    return paths[best]


def _retreat(sight: Sight, threats: list[Cell]) -> list[str] | None:
    paths = sight.reachable()

    def safety(cell: Cell) -> int:
        return min(distance(cell, t) for t in threats)

    best = max(paths, key=lambda c: (safety(c), -len(paths[c]), c))
    if safety(best) <= safety(sight.at):
        return None
    return paths[best]


def step(sight: Sight, rng: random.Random) -> dict[str, Any]:
    if sight.step >= MAX_STEPS:
        return {"type": "end"}
    if sight.radar and not sight.scanned_here():
        return {"type": "scan"}
    enemies = sight.enemies()
    seen_now = sorted(
        (distance(sight.at, c), seat, c) for seat, (c, k) in enemies.items() if sight.fresh(c)
    )
    weapon = sight.weapon
    if weapon:
        in_reach = [c for d, _, c in seen_now if 0 < d <= WEAPON_RANGE[weapon]]
        if in_reach:
            return {"type": "shoot", "target": list(in_reach[0])}
    if sight.steps_left and sight.part("engine"):
        path: list[str] | None = None
        hurt = sight.health <= HURT * sight.max_health
        if hurt and seen_now:
            path = _retreat(sight, [c for _, _, c in seen_now])
        elif enemies:
            latest = max(enemies.values(), key=lambda e: (e[1].turn, e[1].step, e[0]))
            reach = WEAPON_RANGE["gun"] if "gun" in sight.parts else 1
            path = _approach(sight, latest[0], reach)
        else:
            goal = _explore_goal(sight)
            if goal is not None:
                path = _approach(sight, goal, 0)
        if path:
            return {"type": "move", "path": path}
    return {"type": "end"}
