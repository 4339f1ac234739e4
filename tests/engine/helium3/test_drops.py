"""Destruction drops half of what the robot mined, 350:750 over its 3x3 (docs/games/helium3.md
"Destruction")."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    act,
    bot,
    events,
    fire_laser,
    fire_missile,
    helium_at,
    kamikaze,
    money,
    scene,
    total_helium,
)

from engine import Applied

FAR = bot("4-5", 19, 19)
NEIGHBOURS = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]


def shot(
    mined: int, x: int = 10, y: int = 10, helium: dict[tuple[int, int], int] | None = None
) -> tuple[dict[str, Any], Applied]:
    """Seat 1's missile destroys seat 2's robot at (x, y), which had mined `mined`."""
    fx = x - 3 if x >= 3 else x + 3
    state = scene(
        bot("1-1", fx, y, armed="missile"),
        bot("2-1", x, y, mined=mined),
        bot("3-1", 19, 0),
        FAR,
        money={2: mined},
        helium=helium,
    )
    return state, act(state, fire_missile("1-1", x, y))


def test_5000_dropped_gives_1056_in_the_centre_and_493_in_each_neighbour() -> None:
    after = shot(10_000)[1]
    [destroyed] = [e for e in events(after, "destroyed") if e["robot"] == "2-1"]
    assert destroyed["dropped"] == 5000
    assert helium_at(after.state, 10, 10) == 1056
    for dx, dy in NEIGHBOURS:
        assert helium_at(after.state, 10 + dx, 10 + dy) == 493  # not 492
    assert total_helium(after.state) == 1056 + 8 * 493


def test_a_robot_drops_half_of_what_it_mined_rounded_down() -> None:
    after = shot(10_001)[1]
    assert [e["dropped"] for e in events(after, "destroyed")] == [5000]


@pytest.mark.parametrize("dropped", [0, 1, 3, 8, 9, 100, 355, 3550, 5000, 7777, 123_457])
def test_the_drop_splits_as_8x_plus_y_with_x_to_y_as_350_to_750_rounded_down(
    dropped: int,
) -> None:
    after = shot(2 * dropped)[1]
    centre = dropped * 750 // 3550
    around = (dropped - centre) // 8
    assert helium_at(after.state, 10, 10) == centre
    assert {helium_at(after.state, 10 + dx, 10 + dy) for dx, dy in NEIGHBOURS} == {around}
    assert centre + 8 * around <= dropped


def test_the_owners_money_falls_by_the_drop() -> None:
    before, applied = shot(10_000)
    after = applied.state
    assert money(before, 2) == 10_000
    assert money(after, 2) == 10_000 - 5000
    assert money(after, 1) == money(before, 1)  # the shooter gains nothing


def test_dropped_helium_adds_to_what_lies_there() -> None:
    ground = {(10, 10): 100, (11, 11): 7}
    after = shot(10_000, helium=ground)[1]
    assert helium_at(after.state, 10, 10) == 100 + 1056
    assert helium_at(after.state, 11, 11) == 7 + 493


def test_dropped_helium_can_be_mined_again() -> None:
    after = shot(10_000)[1].state
    after["to_move"] = 1
    mined = act(after, {"robot": "1-1", "type": "mine", "to": [10, 10]})
    assert events(mined, "mined")[0]["amount"] == 500 + 8 * 250


def test_helium_dropped_off_the_board_is_lost() -> None:
    after = shot(10_000, x=0, y=0)[1]
    assert helium_at(after.state, 0, 0) == 1056
    assert helium_at(after.state, 1, 0) == helium_at(after.state, 0, 1) == 493
    assert helium_at(after.state, 1, 1) == 493
    assert total_helium(after.state) == 1056 + 3 * 493


def test_a_robot_that_mined_nothing_drops_nothing() -> None:
    after = shot(0)[1]
    assert [e["dropped"] for e in events(after, "destroyed")] == [0]
    assert total_helium(after.state) == 0


def test_several_robots_destroyed_by_one_laser_each_drop_their_own_share() -> None:
    state = scene(
        bot("1-1", 5, 10, armed="laser"),
        bot("2-1", 10, 10, mined=10_000),
        bot("3-1", 11, 10, mined=2 * 3550),
        FAR,
        money={2: 10_000, 3: 2 * 3550},
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert [(e["robot"], e["dropped"]) for e in events(applied, "destroyed")] == [
        ("2-1", 5000),
        ("3-1", 3550),
    ]
    # 3550 splits as 750 in the centre and 350 around.
    assert helium_at(applied.state, 10, 10) == 1056 + 350
    assert helium_at(applied.state, 11, 10) == 493 + 750
    assert helium_at(applied.state, 9, 10) == 493
    assert helium_at(applied.state, 12, 10) == 350
    assert money(applied.state, 2) == 5000
    assert money(applied.state, 3) == 3550


def test_a_kamikaze_robot_and_its_victims_each_drop_their_share() -> None:
    state = scene(
        bot("1-1", 10, 10, mined=2 * 3550),
        bot("2-1", 11, 10, mined=2 * 3550),
        FAR,
        money={1: 2 * 3550, 2: 2 * 3550},
    )
    applied = act(state, kamikaze("1-1"))
    assert [e["dropped"] for e in events(applied, "destroyed")] == [3550, 3550]
    assert helium_at(applied.state, 10, 10) == 750 + 350
    assert helium_at(applied.state, 11, 10) == 350 + 750
    assert helium_at(applied.state, 9, 10) == 350
    assert helium_at(applied.state, 12, 10) == 350
    assert money(applied.state, 1) == money(applied.state, 2) == 3550


def test_the_destroyed_event_lists_the_cells_that_received_helium() -> None:
    after = shot(10_000, x=0, y=0)[1]
    [destroyed] = [e for e in events(after, "destroyed") if e["robot"] == "2-1"]
    assert sorted(map(tuple, destroyed["cells"])) == [
        (0, 0, 1056), (0, 1, 493), (1, 0, 493), (1, 1, 493),
    ]  # fmt: skip
