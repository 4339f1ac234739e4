"""A finished match's record per seat, and the ending as players read it.

What a seat records is its game's: each presentation's `seat_records(final state,
turns)` gives won and final_money (its score) and the `counts` the game keeps
(stored as Seat.counts), the keys its `record_fields` declare (Helium 3: money,
helium mined, robots destroyed and lost; Halite: territory and production; Skyport: points and damage;
...); a game without one records its winners and `engine.scores` (`scored_seats`)
and an empty record. Pure: it reads the final state and the stored turns' full
events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from games import presentation
from games.endings import Turns, final_scores, scored_seats, seat_names, winner_phrase


class RecordError(ValueError):
    """A game's record does not match the fields it declares."""


@dataclass(frozen=True)
class SeatRecord:
    """What a Seat row stores at the end: won, score and the game's own counts."""

    seat: int
    won: bool
    final_money: int | None
    counts: dict[str, int] = field(default_factory=dict)


def seat_records(final_state: dict[str, Any], turns: Turns) -> dict[int, SeatRecord]:
    """Each seat's record from the final state and (mover seat, full events) per turn,
    as the game's presentation counts it. A count the game does not declare, or one
    that is not a whole number, is the game's bug: RecordError."""
    ruleset = str(final_state.get("ruleset", engine.rulesets.DEFAULT))
    shown = presentation.get(ruleset)
    declared = {f.key for f in shown.record_fields}
    counted = shown.seat_records(final_state, turns)
    out = {}
    for seat, fields in counted.items():
        counts = dict(fields.get("counts") or {})
        unknown = set(counts) - declared
        if unknown:
            raise RecordError(f"{ruleset} counts {sorted(unknown)} it does not declare.")
        if any(type(v) is not int for v in counts.values()):
            raise RecordError(f"{ruleset} counts something that is not a whole number.")
        out[seat] = SeatRecord(
            seat=seat, won=bool(fields["won"]), final_money=fields["final_money"], counts=counts
        )
    return out


def record_text(ruleset: str, counts: dict[str, Any] | None, *, scores: bool = True) -> str:
    """A seat's record in a line, in its game's words and order: "1,200 money at the
    end · 340 helium mined · 1 robot destroyed" (counts not stored are left out).
    `scores`: with the count the places rank by (the results show it apart)."""
    if not counts:
        return ""
    shown = presentation.get(ruleset).record_fields
    return " · ".join(
        f.text(int(counts[f.key]))
        for f in shown
        if (scores or not f.score) and isinstance(counts.get(f.key), int)
    )


# The ending as players read it: places, the sentence that says what decided the
# match, and the battle clock once the last turn ran past the end.


@dataclass(frozen=True)
class Standing:
    """A seat's place at the end. `tied`: another seat shares the place. `money`: its
    score; `robots_left`: its pieces left, None in a game without pieces."""

    seat: int
    place: int
    tied: bool
    won: bool
    money: int | float
    robots_left: int | None


def standings(final_state: dict[str, Any]) -> list[Standing]:
    """Every seat's place, best first.

    The rules name the winners; places carry their order on. A game whose seats
    have pieces (Helium 3's robots: its presentation's `pieces_left`) ranks seats
    with pieces left before seats without (a seat without cannot win, whatever its
    score), then every game ranks by score (`final_scores`), more first. Seats equal
    on both share a place, and the next place is skipped (1st, 1st, 3rd). A final
    state that carries its own `ranking` of every seat (Halite) is ranked by it.
    """
    shown = presentation.get(str(final_state.get("ruleset", engine.rulesets.DEFAULT)))
    winners = {int(s) for s in final_state.get("winners", [])}
    score = shown.final_scores(final_state)
    left = shown.pieces_left(final_state)
    ranking = _ranking(final_state, set(score))
    if ranking is not None:
        # The engine ranks every seat itself (Halite: territory, then territory over
        # the whole match, then the order of elimination): places follow it, and
        # only the winners, when several, share one.
        shared = len(winners) > 1
        return [
            Standing(
                seat=seat,
                place=1 if seat in winners else index + 1,
                tied=shared and seat in winners,
                won=seat in winners,
                money=score[seat],
                robots_left=left.get(seat, 0) if left is not None else None,
            )
            for index, seat in enumerate(ranking)
        ]

    def key(seat: int) -> tuple[bool, int | float]:
        return (left is None or left.get(seat, 0) > 0, score[seat])

    order = sorted(score, key=lambda s: (key(s), -s), reverse=True)
    keys = [key(s) for s in order]
    return [
        Standing(
            seat=seat,
            place=1 + sum(1 for k in keys if k > key(seat)),
            tied=keys.count(key(seat)) > 1,
            won=seat in winners,
            money=score[seat],
            robots_left=left.get(seat, 0) if left is not None else None,
        )
        for seat in order
    ]


def _ranking(final_state: dict[str, Any], seats: set[int]) -> list[int] | None:
    """The state's own `ranking` (every seat, best first), when it has a whole one."""
    ranking = final_state.get("ranking")
    if not isinstance(ranking, list) or any(type(s) is not int for s in ranking):
        return None
    if len(ranking) != len(seats) or set(ranking) != seats:
        return None
    return list(ranking)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def result_phrase(standing: Standing, *, nobody_won: bool, subject: str = "You") -> str:
    """One seat's result in a few words: "You won", "You drew 1st", "alice came 3rd".

    `nobody_won`: no seat had robots left at the end, so places are by money only.
    """
    if nobody_won:
        who = "you" if subject == "You" else subject
        return f"Nobody won ({who} came {ordinal(standing.place)} on money)"
    if standing.won:
        return f"{subject} drew 1st" if standing.tied else f"{subject} won"
    verb = "drew" if standing.tied else "came"
    return f"{subject} {verb} {ordinal(standing.place)}"


def mmss(ms: int) -> str:
    """Battle time as m:ss (whole seconds, rounded down)."""
    seconds = max(0, int(ms)) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def battle_clock_text(clock_ms: int, length_ms: int) -> str:
    """The battle clock against its length: "4:12 of 10:00".

    The match ends after the turn that takes the clock to or past its length, so
    the last turn may run past the end: the clock then reads "10:00 of 10:00" and
    says by how much (never "10:04 of 10:00").
    """
    past = int(clock_ms) - int(length_ms)
    if past < 1000:
        return f"{mmss(min(clock_ms, length_ms))} of {mmss(length_ms)}"
    return f"{mmss(length_ms)} of {mmss(length_ms)} · the last turn ran {mmss(past)} past the end"


def decided_by(
    final_state: dict[str, Any],
    names: dict[int, str] | None = None,
    *,
    noun: str = "robot",
    when: str | None = None,
    ended: str = "when the battle clock ran out",
) -> str:
    """One sentence, from the final state, of what decided the match.

    `names`: a name per seat ("alice", "bot miner") shown after its number. A game
    says what it calls its pieces (`noun`), when the match ended (`when`, by default
    the battle clock's time) and how a match that ran its course ends (`ended`).
    """
    names = names or {}
    table = standings(final_state)
    winners = [s.seat for s in table if s.won]
    at = when or f"at {mmss(int(final_state['clock_ms']))} of the battle clock"
    living = [s for s in table if (s.robots_left or 0) > 0]
    if not winners:
        return f"Nobody won: no seat had {noun}s left {at}."
    who = seat_names(winners, names)
    elimination = final_state.get("termination") == "elimination" or len(living) <= 1
    if elimination:
        left = table[0].robots_left or 0
        robots = f"1 {noun}" if left == 1 else f"{left} {noun}s"
        return f"{who} won as the last seat with {noun}s left ({robots}), {at}."
    best = table[0].money
    behind = [s for s in living if not s.won]
    richer = [s for s in table if s.robots_left == 0 and s.money > best]
    if len(winners) == 1:
        sentence = f"{who} won on money: {best:,}"
    else:
        sentence = f"{who} shared the win on money: {best:,} each"
    if behind:
        sentence += f" to {behind[0].money:,}"
    sentence += f" {ended}."
    if richer:
        them = seat_names([s.seat for s in richer], names)
        had = "had" if len(richer) == 1 else "each had"
        sentence += f" {them} {had} more money but no {noun}s left."
    return sentence


__all__ = [
    "RecordError",
    "SeatRecord",
    "Standing",
    "Turns",
    "battle_clock_text",
    "decided_by",
    "final_scores",
    "mmss",
    "ordinal",
    "record_text",
    "result_phrase",
    "scored_seats",
    "seat_names",
    "seat_records",
    "standings",
    "winner_phrase",
]
