"""`python -m engine bench`: how fast the engine resolves turns and plays matches.

Not part of the pure core: it reads the clock (this process's CPU time, so that other
work on the machine does not count). It records `matches` four-seat
`random` matches as typed orders, then times
- `turns_per_s`: re-resolving every recorded turn from the initial state with
  `api.play` (the state copy each turn makes included), the median of `runs` runs;
- `match_s`: a whole four-`random` match (map generation and the bots' thinking
  included), the median over the seeds;
- for each built-in bot, its thinking time per turn and a whole four-seat match of it.

`--ruleset NAME` (or any `--option`) benches any ruleset through the engine's JSON
interface instead (`run_ruleset`), with Helium 3's figure by the same method beside it,
and times the ruleset's mid-match `SCENARIOS` (the board of a match well under way,
where a turn does the most work).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import engine
from engine import match, rulesets
from engine.helium3 import api, bots
from engine.helium3.orders import Orders
from engine.helium3.state import State
from engine.tournament import play

SEED_BASE = 1000


def _clock() -> float:
    """CPU seconds of this process: what one core spends, whatever else the machine runs."""
    return time.process_time()


def record(seed: int, lineup: list[str]) -> tuple[State, list[Orders]]:
    """A whole match's initial state and the orders its bots gave."""
    initial = state = api.new_state(seed, len(lineup))
    bot_of = dict(zip(state.seats, lineup, strict=True))
    orders: list[Orders] = []
    while not state.over:
        seat = state.to_move
        assert seat is not None
        given = bots.choose(bot_of[seat], state, seat)
        orders.append(given)
        state = api.play(state, given)[0]
    return initial, orders


def resolve_all(recorded: list[tuple[State, list[Orders]]]) -> int:
    """Re-resolve every recorded match from its initial state; returns the turns."""
    turns = 0
    for initial, orders in recorded:
        state = initial
        for given in orders:
            state = api.play(state, given)[0]
        turns += len(orders)
    return turns


def timed_matches(seeds: range, lineup: list[str]) -> tuple[list[float], int]:
    """Seconds for each whole match, and the total turns played."""
    times: list[float] = []
    turns = 0
    for seed in seeds:
        start = _clock()
        final, _ = play(seed, lineup)
        times.append(_clock() - start)
        turns += final.turn
    return times, turns


def think_ms(name: str, seeds: range) -> float:
    """Median over runs of a bot's mean thinking time per turn, on positions of its own
    four-seat matches."""
    positions: list[tuple[State, int]] = []
    for seed in seeds:
        state = api.new_state(seed, 4)
        while not state.over:
            seat = state.to_move
            assert seat is not None
            positions.append((state, seat))
            state = api.play(state, bots.choose(name, state, seat))[0]
    runs: list[float] = []
    for _ in range(3):
        start = _clock()
        for state, seat in positions:
            bots.choose(name, state, seat)
        runs.append((_clock() - start) / len(positions))
    return 1000 * statistics.median(runs)


def run(runs: int = 5, matches: int = 10) -> dict[str, Any]:
    seeds = range(SEED_BASE, SEED_BASE + matches)
    recorded = [record(seed, ["random"] * 4) for seed in seeds]
    rates: list[float] = []
    turns = 0
    for _ in range(runs):
        start = _clock()
        turns = resolve_all(recorded)
        rates.append(turns / (_clock() - start))
    match_times, _ = timed_matches(seeds, ["random"] * 4)
    bot_seeds = range(SEED_BASE, SEED_BASE + max(1, min(matches, 5)))
    per_bot: dict[str, dict[str, float]] = {}
    for name in bots.names():
        times, played = timed_matches(bot_seeds, [name] * 4)
        per_bot[name] = {
            "think_ms_per_turn": round(think_ms(name, bot_seeds), 3),
            "match_s": round(statistics.median(times), 4),
            "turns_per_match": played / len(bot_seeds),
        }
    start = _clock()
    for seed in seeds:
        api.new_state(seed, 4)
    new_state_s = (_clock() - start) / len(seeds)
    return {
        "turns_per_s": round(statistics.median(rates)),
        "match_s": round(statistics.median(match_times), 4),
        "turns_resolved": turns,
        "runs": runs,
        "matches": matches,
        "new_state_s": round(new_state_s, 4),
        "bots": per_bot,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "clock": "process_time",
    }


# -- any ruleset, through the engine's JSON interface -------------------------------------


def _replay_all(records: list[dict[str, Any]]) -> int:
    """Re-resolve every recorded match through `engine.apply`; returns the resolutions."""
    turns = 0
    for played in records:
        state = played["initial"]
        for turn in played["turns"]:
            state = engine.apply(state, turn["orders"]).state
        turns += len(played["turns"])
    return turns


def _recorded(ruleset: str, seeds: range, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Matches of `random` bots (or the ruleset's first bot) at its usual seat count."""
    rules = engine.ruleset(ruleset)
    bot = "random" if "random" in rules.bot_names() else rules.bot_names()[0]
    lineup = [bot] * rules.default_seats
    return [match.play_match(s, lineup, ruleset=ruleset, options=options) for s in seeds]


def _timed_rate(records: list[dict[str, Any]]) -> float:
    """Resolutions per CPU second of one re-resolution of `records`."""
    start = _clock()
    turns = _replay_all(records)
    return turns / max(_clock() - start, 1e-9)


def _json_rates(
    ruleset: str, seeds: range, runs: int, options: Mapping[str, Any]
) -> tuple[float, float, float]:
    """Resolutions per second of `ruleset`'s recorded matches and of Helium 3's, each the
    median of `runs` runs, and the median of the runs' ratios. The two are timed in
    turn, run by run, the first one alternating, so that a busy spell of the machine
    falls on both sides of a ratio instead of on one ruleset's runs."""
    records = _recorded(ruleset, seeds, options)
    reference = _recorded(rulesets.DEFAULT, seeds, {})
    rates: list[float] = []
    references: list[float] = []
    for run in range(runs):
        if run % 2:
            references.append(_timed_rate(reference))
            rates.append(_timed_rate(records))
        else:
            rates.append(_timed_rate(records))
            references.append(_timed_rate(reference))
    ratios = [rate / ref for rate, ref in zip(rates, references, strict=True)]
    return statistics.median(rates), statistics.median(references), statistics.median(ratios)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A match played by `bot` in every seat up to `from_turn`, then `turns` more turns
    whose orders are recorded; the bench times `engine.apply` alone on those turns."""

    name: str
    seats: int
    options: Mapping[str, Any] = field(default_factory=dict)
    bot: str = "random"
    from_turn: int = 100
    turns: int = 50


# Mid-match boards by ruleset: a Halite turn costs in proportion to the pieces on the
# board, few at the start of a match, so a bench of whole matches would flatter it.
SCENARIOS: dict[str, tuple[Scenario, ...]] = {
    # From turn 170 the growers own most of the 30 x 30 board (70 to 90 %): about 660
    # events a turn, the costliest turns of a match.
    "halite": (
        Scenario("30x30, 4 seats", 4, {"width": 30, "height": 30}, "grower"),
        Scenario("50x50, 6 seats", 6, {"width": 50, "height": 50}, "grower"),
        Scenario("30x30, 4 seats, crowded", 4, {"width": 30, "height": 30}, "grower", 170),
    ),
    # A Skyport turn costs most once the prospectors have met: shots, blasts, deaths
    # and respawns. Four seats play 30 rounds of four turns (fewer while a seat is
    # dead); the bench starts about round 10.
    "skyport": (Scenario("generated, 4 seats", 4, {}, "prospector", 37, 50),),
    # An arena step costs most once the hunters have met: scans over a wide radar,
    # shots, damage and destruction. From turn 12 (the fourth round) most of them have
    # found someone; each resolution timed is one step.
    "arena": (Scenario("hunters, 4 seats", 4, {}, "hunter", 12, 100),),
}


def scenario_turns(ruleset: str, scenario: Scenario, seed: int) -> tuple[dict[str, Any], list[Any]]:
    """The state at `from_turn` (or the last before the end) and the orders of up to
    `turns` turns from there, as `engine.apply` takes them."""
    state = engine.new_game(
        seed=seed, seats=scenario.seats, ruleset=ruleset, options=scenario.options
    )
    recorded: list[Any] = []
    start = state
    while (awaited := engine.awaiting(state)) and len(recorded) < scenario.turns:
        given = [engine.bot_orders(scenario.bot, state, seat) for seat in awaited]
        orders: Any = given[0] if len(given) == 1 else given
        if state["turn"] < scenario.from_turn:
            start = state = engine.apply(state, orders).state
            continue
        recorded.append(orders)
        state = engine.apply(state, orders).state
    return start, recorded


def time_scenario(ruleset: str, scenario: Scenario, runs: int, seed: int) -> dict[str, Any]:
    """Resolutions per second of `engine.apply` on the scenario's recorded turns, the
    median of `runs` runs (the bots' thinking is done before the clock starts)."""
    start, recorded = scenario_turns(ruleset, scenario, seed)
    rates: list[float] = []
    for _ in range(runs):
        began = _clock()
        state = start
        for orders in recorded:
            state = engine.apply(state, orders).state
        rates.append(len(recorded) / max(_clock() - began, 1e-9))
    return {
        "name": scenario.name,
        "seats": scenario.seats,
        "options": dict(scenario.options),
        "bot": scenario.bot,
        "seed": seed,
        "from_turn": start["turn"],
        "turns": len(recorded),
        "turns_per_s": round(statistics.median(rates)),
    }


def run_ruleset(
    ruleset: str, runs: int = 5, matches: int = 10, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The bench of any ruleset, through `engine.apply` on protocol JSON (each
    resolution reads and writes the state's JSON):
    - `turns_per_s`: re-resolving `matches` recorded matches of `random` bots at the
      ruleset's usual seat count (one `apply` each: a turn, a step or a simultaneous
      turn), the median of `runs` runs; `reference` is the same figure for Helium 3
      (four seats), measured in the same run, run for run in turn with it, and `ratio`
      the median of the runs' ratios of the first to the second;
    - `match_s`: a whole match of those bots, the median over the seeds;
    - for each built-in bot, a whole match of it in every seat and its resolutions;
    - `scenarios`: the ruleset's mid-match `SCENARIOS`, `engine.apply` alone timed on
      recorded turns (the median of `runs` runs), beside Helium 3's `reference`."""
    given = dict(options or {})
    rules = engine.ruleset(ruleset)
    seeds = range(SEED_BASE, SEED_BASE + matches)
    rate, reference, ratio = _json_rates(ruleset, seeds, runs, given)
    per_bot: dict[str, dict[str, float]] = {}
    bot_seeds = range(SEED_BASE, SEED_BASE + max(1, min(matches, 5)))
    for name in rules.bot_names():
        times: list[float] = []
        played = 0
        for seed in bot_seeds:
            start = _clock()
            record_ = match.play_match(
                seed, [name] * rules.default_seats, ruleset=ruleset, options=given
            )
            times.append(_clock() - start)
            played += len(record_["turns"])
        per_bot[name] = {
            "match_s": round(statistics.median(times), 4),
            "turns_per_match": played / len(bot_seeds),
        }
    scenarios = [
        time_scenario(ruleset, scenario, runs, SEED_BASE) for scenario in SCENARIOS.get(ruleset, ())
    ]
    random_bot = "random" if "random" in per_bot else next(iter(per_bot))
    return {
        "ruleset": ruleset,
        "options": rules.resolve_options(given),
        "seats": rules.default_seats,
        "turns_per_s": round(rate),
        "reference": {"ruleset": rulesets.DEFAULT, "seats": 4, "turns_per_s": round(reference)},
        "ratio": round(ratio, 3),
        "match_s": per_bot[random_bot]["match_s"],
        "runs": runs,
        "matches": matches,
        "bots": per_bot,
        "scenarios": scenarios,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "clock": "process_time",
    }
