"""Engine speed, and the same machine's python-chess as a yardstick, in one run.

    python bench/engine_vs_chess.py [--runs 5] [--matches 10] [--chess-games 20]

The engine figures are `engine.bench.run` (`python -m engine bench`): turns resolved
per second re-playing recorded four-`random` matches, and a whole bot match. The
yardstick is python-chess pushing and popping a legal move (`board.push(move);
board.pop()`) over the positions of seeded random games: the basic step of any
chess search. Both are this process's CPU time (`process_time`), measured one after
the other in interleaved rounds (the ratio is the median of the rounds' ratios), so it
holds on a noisy machine where the absolute figures drift.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chess  # noqa: E402

from bench._support import emit  # noqa: E402
from engine import bench as engine_bench  # noqa: E402


def chess_positions(games: int, seed: int = 0) -> list[tuple[chess.Board, list[chess.Move]]]:
    """Every position of `games` seeded random games (at most 200 plies each), with
    its legal moves."""
    rng = random.Random(seed)
    positions: list[tuple[chess.Board, list[chess.Move]]] = []
    for _ in range(games):
        board = chess.Board()
        for _ply in range(200):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over(claim_draw=False):
                break
            positions.append((board.copy(stack=False), moves))
            board.push(rng.choice(moves))
    return positions


def chess_push_pop_per_s(
    positions: list[tuple[chess.Board, list[chess.Move]]], runs: int
) -> tuple[float, int]:
    """Median over runs of push/pop pairs per CPU second: every legal move of every
    position pushed and popped once."""
    rates: list[float] = []
    pairs = sum(len(moves) for _, moves in positions)
    for _ in range(runs):
        start = time.process_time()
        for board, moves in positions:
            push, pop = board.push, board.pop
            for move in moves:
                push(move)
                pop()
        rates.append(pairs / (time.process_time() - start))
    return statistics.median(rates), pairs


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--chess-games", type=int, default=20)
    args = parser.parse_args(argv)

    engine = engine_bench.run(runs=args.runs, matches=args.matches)
    positions = chess_positions(args.chess_games)
    # The ratio from interleaved rounds (engine, chess, engine, chess, ...), so that a
    # change in what else the machine runs hits both sides of each round alike.
    seeds = range(engine_bench.SEED_BASE, engine_bench.SEED_BASE + args.matches)
    recorded = [engine_bench.record(seed, ["random"] * 4) for seed in seeds]
    turn_rates: list[float] = []
    chess_rates: list[float] = []
    pairs = 0
    for _ in range(args.runs):
        start = time.process_time()
        turns = engine_bench.resolve_all(recorded)
        turn_rates.append(turns / (time.process_time() - start))
        rate, pairs = chess_push_pop_per_s(positions, 1)
        chess_rates.append(rate)
    ratios = [t / c for t, c in zip(turn_rates, chess_rates, strict=True)]
    turns_per_s = statistics.median(turn_rates)
    push_pop = statistics.median(chess_rates)
    figures: dict[str, object] = {
        "turns_per_s": round(turns_per_s),
        "turns_per_s_engine_bench": engine["turns_per_s"],
        "match_s": engine["match_s"],
        "new_state_s": engine["new_state_s"],
        "bots": engine["bots"],
        "chess_push_pop_per_s": round(push_pop),
        "chess_version": chess.__version__,
        "chess_pairs": pairs,
        "turns_per_chess_push_pop": round(statistics.median(ratios), 4),
        "chess_push_pops_per_turn": round(1 / statistics.median(ratios), 1),
        "runs": args.runs,
        "matches": args.matches,
        "clock": "process_time",
    }
    emit(
        "engine_vs_chess",
        figures,
        f"{figures['turns_per_s']} turns/s, a four-random match {engine['match_s']} s; "
        f"python-chess {round(push_pop)} push/pop per s: one turn costs "
        f"{figures['chess_push_pops_per_turn']} push/pops "
        f"(ratio {figures['turns_per_chess_push_pop']})",
    )
    return figures


if __name__ == "__main__":
    main()
