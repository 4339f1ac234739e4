"""The draw of a ladder match (games/ladder/matchmaking.py), as the 2016 Halite
manager drew its games: seat counts, the sigma^2-weighted first bot, opponents near
in rank, map sides. No database."""

from __future__ import annotations

import random
from collections import Counter

from games.ladder import matchmaking
from games.ladder.matchmaking import MAP_SIDES, SEAT_COUNTS, Bot


def bots(n: int, *, api: int = 1, sigma: float = 5.0) -> list[Bot]:
    return [
        Bot(key=f"b{i:02}", sigma=sigma, conservative=float(100 - i), free=True, seeds=i < api)
        for i in range(n)
    ]


def test_seat_counts_follow_halites_table_clipped_into_the_games_range() -> None:
    rng = random.Random(1)
    drawn = Counter(matchmaking.seat_count(rng, range(2, 9)) for _ in range(15_000))
    for n in range(2, 7):
        expected = SEAT_COUNTS.count(n) / len(SEAT_COUNTS)
        assert abs(drawn[n] / 15_000 - expected) < 0.02
    assert set(drawn) == {2, 3, 4, 5, 6}
    # A game of 2 to 4 seats: 5 and 6 become 4.
    clipped = Counter(matchmaking.seat_count(rng, (2, 3, 4)) for _ in range(15_000))
    assert set(clipped) == {2, 3, 4}
    assert abs(clipped[4] / 15_000 - 6 / 15) < 0.02
    # A game of two seats only.
    assert {matchmaking.seat_count(rng, (2,)) for _ in range(100)} == {2}


def test_the_first_bot_is_drawn_with_weight_sigma_squared() -> None:
    pool = [
        Bot(key="sure", sigma=1.0, conservative=10, free=True, seeds=True),
        Bot(key="unsure", sigma=3.0, conservative=9, free=True, seeds=True),
    ]
    rng = random.Random(2)
    firsts = Counter()
    for _ in range(5000):
        picked = matchmaking.draw(rng, pool, (2,))
        assert picked is not None
        firsts[picked[0].key] += 1
    # 9 : 1
    assert abs(firsts["unsure"] / 5000 - 0.9) < 0.02


def test_only_bots_that_may_seed_are_drawn_first_and_busy_bots_are_never_drawn() -> None:
    pool = bots(10, api=2)
    busy = Bot(key="b05", sigma=5.0, conservative=95.0, free=False, seeds=False)
    pool = [b if b.key != "b05" else busy for b in pool]
    rng = random.Random(3)
    for _ in range(500):
        picked = matchmaking.draw(rng, pool, range(2, 7))
        if picked is None:
            continue
        assert picked[0].key in {"b00", "b01"}
        assert "b05" not in {b.key for b in picked}
        assert len({b.key for b in picked}) == len(picked)
    nobody = [Bot(key="x", sigma=5, conservative=0, free=False, seeds=True), *bots(3, api=0)]
    assert matchmaking.draw(rng, nobody, (2,)) is None


def test_opponents_are_near_the_first_in_rank() -> None:
    """Rank distance under 5 / u^0.65: within 5 always allowed, far ranks rarely."""
    pool = bots(200, api=1)  # the seed is rank 1
    rng = random.Random(4)
    distances = []
    for _ in range(3000):
        picked = matchmaking.draw(rng, pool, (2,))
        assert picked is not None
        distances.append(int(picked[1].key[1:]))
    # P(distance >= d) for the window 5/u^0.65 is about (5/d)^(1/0.65), less for a
    # uniform pick within the window: far opponents are rare.
    assert sum(d <= 4 for d in distances) / len(distances) > 0.45
    assert sum(d >= 50 for d in distances) / len(distances) < 0.05
    assert max(distances) > 5  # but the window does open up


def test_too_few_bots_near_in_rank_make_no_match() -> None:
    pool = bots(3, api=1)
    rng = random.Random(5)
    # Five seats asked of a pool of three: never a match of five.
    assert all(matchmaking.draw(rng, pool, (5,)) is None for _ in range(50))


def test_map_sides_are_drawn_from_halites_table_for_a_game_of_width_and_height() -> None:
    rng = random.Random(6)
    sides = Counter()
    for _ in range(4000):
        options = matchmaking.options(rng, "halite")
        assert options["width"] == options["height"]
        sides[options["width"]] += 1
    assert set(sides) == set(MAP_SIDES)
    assert abs(sides[35] / 4000 - 4 / 16) < 0.03
    # Other games: their defaults.
    assert matchmaking.options(rng, "helium3") == {"length_ms": 600_000}
