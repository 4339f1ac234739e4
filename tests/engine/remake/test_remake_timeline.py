"""The remake's timeline: Helium 3's constants, one action after another (docs/games/remake.md:
the animation timeline and its constants as in docs/games/helium3.md)."""

from __future__ import annotations

from helpers import act, bot, end_of, events, mine, move
from remake_helpers import deflect, scene

from engine.remake import timing


def test_each_action_starts_when_the_previous_ones_events_end() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), bot("1-2", 8, 8, facing="E"), bot("4-5", 19, 19))
    applied = act(state, move("1-1", 8, 5), mine("1-2"))
    [moved] = events(applied, "moved")
    [mined] = events(applied, "mined")
    assert (moved["t_ms"], moved["duration_ms"]) == (0, 3 * timing.STEP_MS)
    assert (mined["t_ms"], mined["duration_ms"]) == (3 * timing.STEP_MS, timing.MINE_MS)
    assert applied.turn_ms == end_of(applied) == 3 * timing.STEP_MS + timing.MINE_MS
    assert applied.state["clock_ms"] == applied.turn_ms


def test_a_deflect_costs_no_time_and_a_turn_lasts_at_least_the_minimum() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), bot("4-5", 19, 19))
    applied = act(state, deflect("1-1", "N"))
    assert [(e["t_ms"], e["duration_ms"]) for e in applied.events] == [(0, timing.DEFLECT_MS)]
    assert timing.DEFLECT_MS == timing.SHIELD_MS == 0
    assert applied.turn_ms == timing.MIN_TURN_MS
