"""Tournaments between built-in bots: seeded matches and the table they give.

`python -m engine tournament` measures the best bot three ways, each over the same
seeds `seed_base .. seed_base + matches - 1`:
- against three `random` bots, four seats, its seat rotating 1, 2, 3, 4;
- against the `miner` alone, two seats, the two swapping seats;
- with the `miner` and two `random` bots, four seats, every rotation of the line-up
  and the best bot before or after the miner.
A seat wins when it is among the match's winners (ties share the win). Everything
is deterministic: the same arguments print the same table.

`--ruleset NAME` (or any `--option`) plays any ruleset through the engine's JSON
interface instead (`run_ruleset`): the best bot against `random` bots (at `--seats`
seats, the ruleset's usual count unless told), and against the rival alone; the tables
then give the mean of the game's score, and the wins each bot shared with another seat
(draws).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import engine
from engine import match
from engine.errors import EngineError, ShapeError
from engine.helium3 import api, bots
from engine.helium3.state import State

BEST = "fighter"
RIVAL = "miner"


@dataclass(slots=True)
class Tally:
    """One bot's results over a series: one entry per seat it played."""

    seats: int = 0
    wins: int = 0
    # Wins shared with another seat (a tie for first place): draws.
    shared: int = 0
    money: int = 0
    turns: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def mean_money(self) -> float:
        return self.money / self.seats if self.seats else 0.0

    @property
    def mean_turns(self) -> float:
        return self.turns / self.seats if self.seats else 0.0


@dataclass(slots=True)
class Series:
    """A set of matches with one purpose, and each bot's tally over it."""

    title: str
    matches: int = 0
    tallies: dict[str, Tally] = field(default_factory=dict)
    # What a tally's `money` counts: Helium 3's money, or another game's score.
    measure: str = "money"

    def tally(self, bot: str) -> Tally:
        return self.tallies.setdefault(bot, Tally())


def play(
    seed: int, lineup: list[str], length_ms: int = api.DEFAULT_LENGTH_MS
) -> tuple[State, dict[int, int]]:
    """Play one match, bot lineup[k] in the k-th seat; the final state and each seat's
    number of turns."""
    state = api.new_state(seed, len(lineup), length_ms)
    bot_of = dict(zip(state.seats, lineup, strict=True))
    turns = dict.fromkeys(state.seats, 0)
    while not state.over:
        seat = state.to_move
        assert seat is not None
        orders = bots.choose(bot_of[seat], state, seat)
        state = api.play(state, orders)[0]
        turns[seat] += 1
    return state, turns


def record(series: Series, seed: int, lineup: list[str]) -> None:
    state, turns = play(seed, lineup)
    series.matches += 1
    for seat, bot in zip(state.seats, lineup, strict=True):
        tally = series.tally(bot)
        tally.seats += 1
        tally.wins += seat in state.winners
        tally.money += state.money[seat]
        tally.turns += turns[seat]


def against_random(best: str, matches: int, seed_base: int) -> Series:
    series = Series(f"{best} vs three random (4 seats, {best}'s seat rotates)")
    series.tally(best)
    for k in range(matches):
        lineup = ["random"] * 4
        lineup[k % 4] = best
        record(series, seed_base + k, lineup)
    return series


def head_to_head(best: str, rival: str, matches: int, seed_base: int) -> Series:
    series = Series(f"{best} vs {rival} (2 seats, they swap seats)")
    for k in range(matches):
        record(series, seed_base + k, [best, rival] if k % 2 == 0 else [rival, best])
    return series


def mixed(best: str, rival: str, matches: int, seed_base: int) -> Series:
    series = Series(f"{best} + {rival} + two random (4 seats, every seating)")
    for k in range(matches):
        pair = [best, rival] if (k // 4) % 2 == 0 else [rival, best]
        base = [*pair, "random", "random"]
        shift = k % 4
        record(series, seed_base + k, base[shift:] + base[:shift])
    return series


def run(
    matches: int = 100, seed_base: int = 0, best: str = BEST, rival: str = RIVAL
) -> list[Series]:
    return [
        against_random(best, matches, seed_base),
        head_to_head(best, rival, matches, seed_base),
        mixed(best, rival, matches, seed_base),
    ]


def table(all_series: list[Series], seed_base: int) -> str:
    """The results as Markdown tables, one per series."""
    out: list[str] = []
    for series in all_series:
        last = seed_base + series.matches - 1
        out.append(f"{series.title}: {series.matches} matches, seeds {seed_base}..{last}")
        out.append("")
        out.append(
            f"| bot | seats | wins | win % | mean {series.measure} | mean turns per player |"
        )
        out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
        for bot, t in series.tallies.items():
            out.append(
                f"| {bot} | {t.seats} | {t.wins} | {100 * t.win_rate:.1f} | "
                f"{t.mean_money:.0f} | {t.mean_turns:.1f} |"
            )
        if series.measure == "score":
            draws = ", ".join(f"{bot} {t.shared}" for bot, t in series.tallies.items())
            out.append("")
            out.append(f"Wins shared with another seat (draws): {draws}.")
        out.append("")
    return "\n".join(out)


# -- any ruleset, through the engine's JSON interface -------------------------------------


def default_best(ruleset: str) -> str:
    """The bot a tournament measures unless told: the last one the ruleset lists
    (rulesets list their bots from the plainest to the strongest)."""
    return engine.bot_names(ruleset)[-1]


def default_rival(ruleset: str) -> str:
    names = engine.bot_names(ruleset)
    return names[-2] if len(names) > 1 else names[-1]


def record_ruleset(
    series: Series, ruleset: str, seed: int, lineup: list[str], options: Mapping[str, Any]
) -> None:
    """One match of any ruleset; a tally's `money` is the seat's score there."""
    played = match.play_match(seed, lineup, ruleset=ruleset, options=options)
    final = played["final"]
    scores = engine.scores(final)
    series.matches += 1
    seats = [p["seat"] for p in final["players"]]
    winners = final["winners"]
    for seat, bot in zip(seats, lineup, strict=True):
        tally = series.tally(bot)
        tally.seats += 1
        tally.wins += seat in winners
        tally.shared += seat in winners and len(winners) > 1
        tally.money += int(scores.get(str(seat), 0))
        tally.turns += sum(
            any(o.get("seat") == seat for o in turn["orders"])
            if isinstance(turn["orders"], list)
            else turn["orders"].get("seat") == seat
            for turn in played["turns"]
        )


def _fits(ruleset: str, seats: int, seed: int, options: Mapping[str, Any]) -> bool:
    """Whether a match of `seats` seats takes these options (a map drawn for four
    players does not make a duel)."""
    try:
        engine.new_game(seed=seed, seats=seats, ruleset=ruleset, options=options)
    except EngineError:
        return False
    return True


def run_ruleset(
    ruleset: str,
    matches: int,
    seed_base: int,
    best: str,
    rival: str,
    options: Mapping[str, Any] | None = None,
    seats: int | None = None,
    *,
    duel: bool = True,
) -> list[Series]:
    """The tournament for any ruleset: `best` against `random` bots at `seats` seats (the
    ruleset's usual count unless told; its seat rotating), and against `rival` alone if
    two seats may play (they swap seats). Its tables give the mean score, what the game
    ranks by. The duel is left out when its options do not fit two seats, or when not
    asked for (`duel=False`: a caller that reads the first table only)."""
    rules = engine.ruleset(ruleset)
    given = dict(options or {})
    seats = rules.default_seats if seats is None else seats
    if seats not in rules.seats:
        counts = ", ".join(str(n) for n in rules.seats)
        raise ShapeError("bad_shape", f"A {rules.name} match has {counts} seats.")
    alone = Series(
        f"{best} vs {seats - 1} random ({seats} seats, {best}'s seat rotates)", measure="score"
    )
    alone.tally(best)
    for k in range(matches):
        lineup = ["random"] * seats
        lineup[k % seats] = best
        record_ruleset(alone, ruleset, seed_base + k, lineup, given)
    out = [alone]
    if duel and 2 in rules.seats and _fits(ruleset, 2, seed_base, given):
        duel_series = Series(f"{best} vs {rival} (2 seats, they swap seats)", measure="score")
        for k in range(matches):
            lineup = [best, rival] if k % 2 == 0 else [rival, best]
            record_ruleset(duel_series, ruleset, seed_base + k, lineup, given)
        out.append(duel_series)
    return out
