"""Lasers: beams, shields that stop them and deflects that turn them
(docs/games/helium3.md "Laser")."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import act, alive, bot, events, fire_laser, robot, scene

import engine

FAR = bot("4-5", 0, 19)


def segments(applied: Any) -> list[list[list[int]]]:
    [laser] = events(applied, "laser")
    return list(laser["segments"])


def test_a_laser_beam_runs_from_the_firer_to_the_edge_of_the_board() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    applied = act(state, fire_laser("1-1", "E"))
    assert segments(applied) == [[[5, 5], [19, 5]]]
    assert alive(applied.state, "1-1")  # the beam starts in the next cell


def test_a_laser_fires_at_45_degrees_too() -> None:
    state = scene(bot("1-1", 5, 10, armed="laser"), bot("2-1", 8, 7), FAR)
    applied = act(state, fire_laser("1-1", "NE"))
    assert segments(applied) == [[[5, 10], [15, 0]]]
    assert not alive(applied.state, "2-1")


def test_a_laser_destroys_every_active_robot_in_its_line_friend_or_foe() -> None:
    line = [bot("2-1", 7, 5), bot("1-2", 9, 5), bot("3-1", 19, 5)]
    state = scene(bot("1-1", 5, 5, armed="laser"), *line, bot("2-2", 7, 6), FAR)
    applied = act(state, fire_laser("1-1", "E"))
    assert [e["robot"] for e in events(applied, "destroyed")] == ["2-1", "1-2", "3-1"]
    assert alive(applied.state, "2-2")


def test_a_laser_passes_through_inactive_robots() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"), bot("2-1", 6, 5, active=False), bot("2-2", 7, 5), FAR
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert alive(applied.state, "2-1")
    assert not alive(applied.state, "2-2")
    assert segments(applied) == [[[5, 5], [19, 5]]]


def test_a_shield_without_deflect_stops_the_beam_and_is_spent() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5, shield=True), bot("2-2", 10, 5), FAR
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert robot(applied.state, "2-1")["shield"] is False
    assert alive(applied.state, "2-1") and alive(applied.state, "2-2")
    assert segments(applied) == [[[5, 5], [8, 5]]]
    assert [e["robot"] for e in events(applied, "absorbed")] == ["2-1"]


def test_a_deflect_turns_the_beam_from_the_shields_cell_and_spends_the_shield() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 8, 5, shield=True, deflect="S"),
        bot("2-2", 10, 5),
        bot("3-1", 8, 9),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    after = robot(applied.state, "2-1")
    assert (after["alive"], after["shield"], after["deflect"]) == (True, False, None)
    assert alive(applied.state, "2-2")
    assert not alive(applied.state, "3-1")
    assert segments(applied) == [[[5, 5], [8, 5]], [[8, 5], [8, 19]]]
    [deflected] = events(applied, "deflected")
    assert (deflected["robot"], deflected["direction"]) == ("2-1", "S")


def test_a_deflect_may_turn_the_beam_at_45_degrees() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5, shield=True, deflect="SE"), FAR)
    assert segments(act(state, fire_laser("1-1", "E"))) == [[[5, 5], [8, 5]], [[8, 5], [19, 16]]]


def test_a_deflect_along_the_beam_lets_it_carry_on_but_still_spends_the_shield() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 8, 5, shield=True, deflect="E"),
        bot("2-2", 10, 5),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert robot(applied.state, "2-1")["shield"] is False
    assert not alive(applied.state, "2-2")


def test_a_laser_can_be_deflected_several_times_by_different_robots() -> None:
    state = scene(
        bot("1-1", 2, 2, armed="laser"),
        bot("2-1", 6, 2, shield=True, deflect="S"),
        bot("3-1", 6, 8, shield=True, deflect="W"),
        bot("2-2", 3, 8),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert segments(applied) == [[[2, 2], [6, 2]], [[6, 2], [6, 8]], [[6, 8], [0, 8]]]
    assert [e["robot"] for e in events(applied, "deflected")] == ["2-1", "3-1"]
    assert not alive(applied.state, "2-2")


def test_a_deflected_laser_can_come_back_and_destroy_its_firer() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 9, 5, shield=True, deflect="W"),
        bot("2-2", 2, 5),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert not alive(applied.state, "1-1")
    assert not alive(applied.state, "2-2")  # the beam passes on beyond its firer
    assert alive(applied.state, "2-1")
    assert segments(applied) == [[[5, 5], [9, 5]], [[9, 5], [0, 5]]]


def test_a_beam_sent_back_along_a_diagonal_also_reaches_its_source() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 8, shield=True, deflect="NW"), FAR)
    applied = act(state, fire_laser("1-1", "SE"))
    assert not alive(applied.state, "1-1")
    assert segments(applied) == [[[5, 5], [8, 8]], [[8, 8], [0, 0]]]


def test_a_deflector_met_twice_by_one_beam_is_spent_the_first_time_and_destroyed_the_second() -> (
    None
):
    # A square of four deflectors would send the beam round for ever; spent shields end it.
    state = scene(
        bot("1-1", 5, 2, armed="laser"),
        bot("2-1", 5, 5, shield=True, deflect="E"),
        bot("2-2", 8, 5, shield=True, deflect="S"),
        bot("3-1", 8, 8, shield=True, deflect="W"),
        bot("3-2", 5, 8, shield=True, deflect="N"),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "S"))
    assert segments(applied) == [
        [[5, 2], [5, 5]],
        [[5, 5], [8, 5]],
        [[8, 5], [8, 8]],
        [[8, 8], [5, 8]],
        [[5, 8], [5, 0]],
    ]
    assert not alive(applied.state, "2-1")
    assert not alive(applied.state, "1-1")
    assert all(alive(applied.state, r) for r in ("2-2", "3-1", "3-2"))
    assert not any(r["shield"] for r in applied.state["robots"])


def test_every_beam_ends_whatever_the_deflects() -> None:
    cells = [(x, y) for x in range(20) for y in range(20) if (x, y) != (10, 10)]
    for seed in range(60):
        rng = random.Random(seed)
        placed = rng.sample(cells, 15)
        robots = [
            bot(f"{2 + k // 5}-{k % 5 + 1}", x, y, shield=True, deflect=rng.choice(DIRECTIONS))
            for k, (x, y) in enumerate(placed)
        ]
        state = scene(bot("1-1", 10, 10, armed="laser"), *robots)
        applied = act(state, fire_laser("1-1", rng.choice(DIRECTIONS)))
        # Each shield turns the beam at most once, so it has at most 16 straight runs.
        assert len(segments(applied)) <= 16


DIRECTIONS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


@pytest.mark.parametrize("direction", ["N", "NE", "W", "SW", "NW"])
def test_a_laser_fired_straight_off_the_board_hits_nothing_and_ends(direction: str) -> None:
    state = scene(bot("1-1", 0, 0, armed="laser", facing=direction), bot("2-1", 19, 19))
    applied = act(state, fire_laser("1-1", direction))
    assert segments(applied) == [[[0, 0], [0, 0]]]
    assert alive(applied.state, "1-1") and alive(applied.state, "2-1")


def test_a_laser_with_a_bad_direction_is_refused() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    with pytest.raises(engine.EngineError) as caught:
        engine.apply(state, {"seat": 1, "turn": 0, "actions": [fire_laser("1-1", "UP")]})
    assert caught.value.code == "bad_direction"
