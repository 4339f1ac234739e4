"""Halite's built-in bots: `random` moves every piece in a uniformly random direction,
`grower` plays with a plan (docs/games/halite-bots.md) and beats `random` bots; both
give orders the engine accepts, decided by the state alone."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import match, tournament
from engine.halite.state import State

RULESET = "halite"
BOTS = ["random", "grower"]
ROOT = Path(__file__).resolve().parents[3]
NORTH, EAST, SOUTH, WEST = 1, 2, 3, 4


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def scene(
    cells: dict[tuple[int, int], tuple[int, int]],
    *,
    size: int = 10,
    strength: int = 100,
    production: int = 2,
    neutral: dict[tuple[int, int], tuple[int, int]] | None = None,
    seats: int = 2,
) -> dict[str, Any]:
    """A state on a `size` x `size` board: `cells` maps (x, y) to (seat, strength) of
    owned cells, `neutral` (x, y) to (strength, production) of chosen neutral cells;
    every other cell is neutral with `strength` and every cell has `production`."""
    n = size * size
    owner, strengths, productions = [0] * n, [strength] * n, [production] * n
    for (x, y), (s, p) in (neutral or {}).items():
        strengths[y * size + x], productions[y * size + x] = s, p
    for (x, y), (seat, s) in cells.items():
        owner[y * size + x], strengths[y * size + x] = seat, s
    gone = [s for s in range(1, seats + 1) if s not in owner]
    return State(
        7, size, size, owner, strengths, productions, seats, 3, [5] * seats, gone
    ).to_json()


def moves_of(name: str, state: dict[str, Any], seat: int = 1) -> dict[tuple[int, int], int]:
    orders = engine.bot_orders(name, state, seat)
    assert orders["seat"] == seat and orders["turn"] == state["turn"]
    return {(x, y): d for x, y, d in orders["moves"]}


# -- every bot ------------------------------------------------------------------------------


def test_halite_lists_random_then_the_grower_each_with_a_description() -> None:
    assert engine.bot_names(RULESET) == BOTS
    assert all(engine.bot_description(name, RULESET) for name in BOTS)


@pytest.mark.parametrize(
    ("seats", "size"), [(2, 10), (3, 12), (4, 14), (5, 10), (6, 12)]
)  # fmt: skip
def test_every_bot_gives_orders_the_engine_accepts_for_every_seat_all_match_long(
    seats: int, size: int
) -> None:
    """Seats of both bots share the board, so states have fronts, merges and losses;
    at every turn both bots answer for every seat in play."""
    lineup = [BOTS[k % 2] for k in range(seats)]
    state = engine.new_game(
        seed=seats, seats=seats, ruleset=RULESET, options={"width": size, "height": size}
    )
    turns = 0
    while awaited := engine.awaiting(state):
        for name in BOTS:
            for seat in awaited:
                orders = engine.bot_orders(name, state, seat)
                engine.check(state, orders)
                cells = [(x, y) for x, y, _ in orders["moves"]]
                assert len(cells) == len(set(cells))
                assert all(state["owner"][y][x] == seat for x, y in cells)
                assert all(d in (NORTH, EAST, SOUTH, WEST) for _, _, d in orders["moves"])
        given = [engine.bot_orders(lineup[s - 1], state, s) for s in awaited]
        state = engine.apply(state, given).state
        turns += 1
    assert turns == state["turn"] > 10


@pytest.mark.parametrize("name", BOTS)
def test_a_bots_orders_are_decided_by_the_state_alone(name: str) -> None:
    record = match.play_match(5, ["grower", "random", "random"], ruleset=RULESET)
    for turn in (0, 20, 60):
        state = record["initial"]
        for given in record["turns"][:turn]:
            state = engine.apply(state, given["orders"]).state
        for seat in engine.awaiting(state):
            orders = engine.bot_orders(name, state, seat)
            assert orders == engine.bot_orders(name, copy.deepcopy(state), seat)
            assert orders == engine.bot_orders(name, engine.view(state, seat), seat)


def test_random_draws_each_direction_and_stillness_about_equally_often() -> None:
    """Seeded by the match seed, the turn and the seat: a piece's draw over many turns
    is uniform on 0..4 (the ones drawn still are the pieces left unnamed)."""
    state = scene({(x, y): (1, 10) for x in range(10) for y in range(5)} | {(0, 9): (2, 10)})
    counts: Counter[int] = Counter()
    for seed in range(40):
        state["seed"] = seed
        named = moves_of("random", state)
        counts.update(named.values())
        counts[0] += 50 - len(named)
    assert set(counts) == {0, 1, 2, 3, 4}
    assert all(340 <= c <= 460 for c in counts.values()), counts  # 2000 draws, 400 each
    state["turn"] += 1
    assert moves_of("random", state) != moves_of("random", {**state, "turn": 3})


def test_every_seats_orders_from_one_reading_are_each_seats_own() -> None:
    """`seats_bot_orders`, which `match.play_match` asks on a turn of several seats,
    gives what one `bot_orders` call per seat gives, and refuses what it refuses."""
    together = engine.ruleset(RULESET).seats_bot_orders
    assert together is not None
    record = match.play_match(3, ["grower", "random", "grower", "random"], ruleset=RULESET)
    state = record["initial"]
    for given in record["turns"][:40]:
        asked = [(BOTS[(seat + state["turn"]) % 2], seat) for seat in engine.awaiting(state)]
        assert together(asked, state) == [engine.bot_orders(n, state, s) for n, s in asked]
        state = engine.apply(state, given["orders"]).state
    with pytest.raises(engine.ShapeError):
        together([("grower", 1), ("nobody", 2)], state)
    with pytest.raises(engine.StateError):
        together([("grower", 1)], {**state, "owner": state["owner"][:-1]})


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_refuses_a_seat_out_of_play_an_unknown_name_and_a_bad_state(name: str) -> None:
    state = scene({(1, 1): (1, 50), (5, 5): (2, 50)}, seats=3)
    with pytest.raises(engine.OrdersError) as raised:
        engine.bot_orders(name, state, 3)  # eliminated
    assert raised.value.code == "not_your_turn"
    with pytest.raises(engine.ShapeError):
        engine.bot_orders("nobody", state, 1)
    broken = {**state, "strength": state["strength"][:-1]}
    with pytest.raises(engine.StateError):
        engine.bot_orders(name, broken, 1)
    final = match.play_match(2, ["grower", "random"], ruleset=RULESET, options={"width": 10, "height": 10})["final"]  # fmt: skip
    with pytest.raises(engine.OrdersError) as raised:
        engine.bot_orders(name, final, 1)
    assert raised.value.code == "match_over"


# -- the grower ---------------------------------------------------------------------------


def test_the_grower_waits_until_its_strength_pays_for_the_best_neighbour() -> None:
    # North pays 6/50 a strength, east 1/20, the others 2/100: north is the best.
    neutral = {(5, 4): (50, 6), (6, 5): (20, 1)}
    enemy = {(0, 0): (2, 10)}
    assert moves_of("grower", scene({(5, 5): (1, 50)} | enemy, neutral=neutral)) == {}
    assert moves_of("grower", scene({(5, 5): (1, 51)} | enemy, neutral=neutral)) == {(5, 5): NORTH}


def test_the_grower_rates_a_cell_next_to_enemy_pieces_by_the_strength_it_would_hit() -> None:
    # Two empty neutral cells: north produces 5, west nothing but lies beside a seat 2
    # piece, which a piece moving there would hit.
    state = scene({(5, 5): (1, 30), (3, 5): (2, 20)}, neutral={(4, 5): (0, 0), (5, 4): (0, 5)})
    assert moves_of("grower", state)[(5, 5)] == WEST
    alone = scene({(5, 5): (1, 30), (0, 0): (2, 20)}, neutral={(4, 5): (0, 0), (5, 4): (0, 5)})
    assert moves_of("grower", alone)[(5, 5)] == NORTH


def test_a_piece_at_255_that_cannot_pay_moves_in_anyway_to_wear_the_cell_down() -> None:
    state = scene({(5, 5): (1, 255), (0, 0): (2, 1)}, strength=255)
    assert moves_of("grower", state) == {(5, 5): NORTH}
    state = scene({(5, 5): (1, 254), (0, 0): (2, 1)}, strength=255)
    assert moves_of("grower", state) == {}


def test_an_interior_piece_heads_for_the_nearest_border_across_the_wrap() -> None:
    """Seat 1 owns columns 8, 9, 0, 1, 2 and 3 top to bottom: from column 0 the border
    is three steps west (over the edge, to column 7) and four east."""
    band = {(x, y): (1, 0) for x in (8, 9, 0, 1, 2, 3) for y in range(10)}
    state = scene(band | {(0, 5): (1, 40), (6, 0): (2, 5)}, strength=255)
    assert moves_of("grower", state) == {(0, 5): WEST}


def test_an_interior_piece_waits_until_it_holds_five_turns_of_production() -> None:
    block = {(x, y): (1, 0) for x in (4, 5, 6) for y in (4, 5, 6)}
    grown = scene(block | {(5, 5): (1, 15), (0, 0): (2, 5)}, production=3, strength=255)
    assert moves_of("grower", grown) == {(5, 5): NORTH}
    small = scene(block | {(5, 5): (1, 14), (0, 0): (2, 5)}, production=3, strength=255)
    assert moves_of("grower", small) == {}


def test_the_grower_does_not_merge_past_255_when_another_move_fits() -> None:
    """The centre of a 3 x 3 block would step north onto a piece of 200 that stays
    (the neutral cells around cost 255): it goes where the sum stays within 255,
    or stays still when no step fits."""
    block = {(x, y): (1, 200) for x in (4, 5, 6) for y in (4, 5, 6)}
    full = scene(block | {(0, 0): (2, 5)}, production=1, strength=255)
    assert moves_of("grower", full) == {}
    east_light = scene(block | {(6, 5): (1, 10), (0, 0): (2, 5)}, production=1, strength=255)
    assert moves_of("grower", east_light) == {(5, 5): EAST}


def test_the_grower_beats_random_bots_in_a_small_seeded_sample() -> None:
    """A small sample of the tables in docs/games/halite-bots.md, on a 15 x 15 board:
    five two-seat and five four-seat matches, the grower's seat rotating."""
    wins = 0
    for k in range(10):
        seats = 2 if k < 5 else 4
        lineup = ["random"] * seats
        lineup[k % seats] = "grower"
        final = match.play_match(k, lineup, ruleset=RULESET, options={"width": 15, "height": 15})[
            "final"
        ]
        wins += (k % seats + 1) in final["winners"]
    assert wins >= 9


# -- the tournament -----------------------------------------------------------------------


def test_the_tournament_plays_the_grower_against_random_bots_at_the_seats_asked() -> None:
    options = {"width": 12, "height": 12}
    alone, duel = tournament.run_ruleset(RULESET, 4, 10, "grower", "random", options, seats=4)
    assert alone.matches == duel.matches == 4
    assert alone.tallies["grower"].seats == 4 and alone.tallies["random"].seats == 12
    assert duel.tallies["grower"].seats == duel.tallies["random"].seats == 4
    assert alone.tallies["grower"].mean_money > alone.tallies["random"].mean_money


def test_the_tournament_command_prints_the_halite_tables() -> None:
    args = ("tournament", "--ruleset", "halite", "--matches", "2", "--seed-base", "4",
            "--seats", "4", "--option", "width=12", "--option", "height=12")  # fmt: skip
    done = cli(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "grower vs 3 random (4 seats, grower's seat rotates): 2 matches, seeds 4..5"
    assert "grower vs random (2 seats, they swap seats): 2 matches, seeds 4..5" in lines
    assert lines.count("| bot | seats | wins | win % | mean score | mean turns per player |") == 2
    assert (
        sum(line.startswith("Wins shared with another seat (draws): grower ") for line in lines)
        == 2
    )
    assert cli(*args).stdout == done.stdout
    refused = cli("tournament", "--ruleset", "halite", "--matches", "1", "--seats", "7")
    assert refused.returncode == 1 and '"bad_shape"' in refused.stdout


@pytest.mark.slow
def test_the_grower_wins_nine_in_ten_of_the_documented_tables() -> None:
    """The tables in docs/games/halite-bots.md: 100 seeded matches at four seats and 100
    at two, 30 x 30 board."""
    alone, duel = tournament.run_ruleset(RULESET, 100, 0, "grower", "random", {}, seats=4)
    assert alone.tallies["grower"].win_rate >= 0.9
    assert duel.tallies["grower"].win_rate >= 0.9
