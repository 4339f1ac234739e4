"""The `random` bot: a random build, then random legal steps until it ends its turn."""

from __future__ import annotations

import random
from typing import Any

from engine.arena.bots.sight import Sight, kind
from engine.arena.orders import CAPACITY, WEAPON_RANGE
from engine.arena.state import PARTS, distance

# It ends its turn with this chance at each step, and always after this many steps.
END_CHANCE = 0.25
MAX_STEPS = 6


def build(sight: Sight, rng: random.Random) -> list[str]:
    """At most one part of each kind, within the capacity, all at random."""
    kinds = ["engine", "radar", "shield", "weapon"]
    rng.shuffle(kinds)
    parts: list[str] = []
    room = CAPACITY
    for wanted in kinds:
        choices = [p for p in PARTS if kind(p) == wanted and PARTS[p][1] <= room]
        choice = rng.choice([None, *choices])
        if choice is not None:
            parts.append(choice)
            room -= PARTS[choice][1]
    return sorted(parts)


def _walk(sight: Sight, rng: random.Random) -> list[str]:
    """A random path of one to `steps_left` cells, each sure to be free."""
    path: list[str] = []
    at = sight.at
    visited = {at}
    for _ in range(rng.randint(1, sight.steps_left)):
        options = [(n, c) for n, c in sight.neighbours(at) if c not in visited and sight.free(c)]
        if not options:
            break
        name, at = rng.choice(options)
        visited.add(at)
        path.append(name)
    return path


def step(sight: Sight, rng: random.Random) -> dict[str, Any]:
    """One random legal step; `end` at random and always after MAX_STEPS steps."""
    if sight.step >= MAX_STEPS or rng.random() < END_CHANCE:
        return {"type": "end"}
    options: list[dict[str, Any]] = []
    if sight.radar:
        options.append({"type": "scan"})
    if sight.steps_left and sight.part("engine"):
        path = _walk(sight, rng)
        if path:
            options.append({"type": "move", "path": path})
    weapon = sight.weapon
    if weapon:
        reach = WEAPON_RANGE[weapon]
        targets = [c for c in sight.cells() if 0 < distance(c, sight.at) <= reach]
        if targets:
            x, y = rng.choice(targets)
            options.append({"type": "shoot", "target": [x, y]})
    if not options:
        return {"type": "end"}
    return rng.choice(options)
