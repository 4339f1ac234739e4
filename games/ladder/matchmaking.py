"""The draw of one ladder match, as the 2016 Halite site drew its games; pure: the
randomness is the caller's `random.Random`.

- The seat count from SEAT_COUNTS, clipped into the game's seat range.
- The first bot with weight sigma^2 (uncertain bots play more), among the bots
  that may seed a match (the ladder's API bots with a free slot).
- The others at random among the bots with a free slot whose rank on the ladder
  is within 5 / u^0.65 of the first's (u uniform in (0, 1]); too few: no match.
- The game's default options, and a square map whose side is drawn from
  MAP_SIDES for a game whose options are a `width` and a `height`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine

SEAT_COUNTS = (2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6)
MAP_SIDES = (20, 25, 25, 30, 30, 30, 35, 35, 35, 35, 40, 40, 40, 45, 45, 50)


@dataclass(frozen=True)
class Bot:
    """A bot of the ladder: `key` is "user:<id>" or "bot:<name>"."""

    key: str
    sigma: float
    conservative: float  # mu - 3 sigma: the ladder's rank order
    free: bool  # fewer than LADDER_MATCHES_PER_BOT of its ladder matches run
    seeds: bool  # may be the first bot drawn (an API bot)


def seat_count(rng: random.Random, allowed: Sequence[int]) -> int:
    """A draw from SEAT_COUNTS, clipped into the game's range (the largest count the
    game allows at or below it, else its smallest)."""
    wanted = rng.choice(SEAT_COUNTS)
    fitting = [n for n in allowed if n <= wanted]
    return max(fitting) if fitting else min(allowed)


def rank_window(rng: random.Random) -> float:
    """How far in rank the other bots may be from the first: 5 / u^0.65."""
    u = 1.0 - rng.random()  # (0, 1]
    return 5.0 / float(u**0.65)


def ranked(bots: Sequence[Bot]) -> list[Bot]:
    """The ladder's order: mu - 3 sigma, best first (ties by key)."""
    return sorted(bots, key=lambda b: (-b.conservative, b.key))


def draw(rng: random.Random, bots: Sequence[Bot], allowed: Sequence[int]) -> list[Bot] | None:
    """The bots of one match (the first one first), or None when this draw finds no
    match: nobody to seed it, or too few near the first in rank."""
    order = ranked(bots)
    rank = {b.key: i for i, b in enumerate(order, start=1)}
    seeds = [b for b in order if b.free and b.seeds]
    if not seeds:
        return None
    count = seat_count(rng, allowed)
    first = rng.choices(seeds, weights=[b.sigma**2 for b in seeds])[0]
    window = rank_window(rng)
    near = [
        b
        for b in order
        if b.free and b.key != first.key and abs(rank[b.key] - rank[first.key]) < window
    ]
    if len(near) < count - 1:
        return None
    return [first, *rng.sample(near, count - 1)]


def options(rng: random.Random, ruleset: str) -> dict[str, Any]:
    """The new match's options: the game's defaults, and a square map of a side from
    MAP_SIDES (within the options' bounds) where the options are a width and a height."""
    rules = engine.ruleset(ruleset)
    chosen: dict[str, Any] = {}
    sized = {o.name: o for o in rules.options if o.kind == "int" and o.name in ("width", "height")}
    if len(sized) == 2:
        side = rng.choice(MAP_SIDES)
        for option in sized.values():
            low = option.minimum if option.minimum is not None else side
            high = option.maximum if option.maximum is not None else side
            chosen[option.name] = min(max(side, low), high)
    return dict(rules.resolve_options(chosen))
