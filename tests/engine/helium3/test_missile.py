"""Missiles: one cell at distance 1 to 6 (docs/games/helium3.md "Actions" and "Hitting a robot")."""

from __future__ import annotations

import pytest
from helpers import act, alive, bot, events, fire_missile, reject, robot, scene, types

FAR = bot("4-5", 19, 19)


@pytest.mark.parametrize(("x", "y"), [(11, 5), (5, 11), (11, 11), (0, 0), (6, 5)])
def test_a_missile_reaches_any_cell_1_to_6_away(x: int, y: int) -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", x, y), FAR)
    applied = act(state, fire_missile("1-1", x, y))
    assert not alive(applied.state, "2-1")


def test_missile_range_is_6() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    act(state, fire_missile("1-1", 11, 0))
    body = reject(state, fire_missile("1-1", 12, 5), code="out_of_range")
    assert "6" in body["message"]
    reject(state, fire_missile("1-1", 5, 12), code="out_of_range")


def test_a_missile_cannot_target_its_own_cell() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    reject(state, fire_missile("1-1", 5, 5), code="out_of_range")


def test_a_missile_cannot_target_a_cell_off_the_board() -> None:
    state = scene(bot("1-1", 1, 1, armed="missile"), FAR)
    reject(state, fire_missile("1-1", -1, 1), code="off_board")


def test_a_missile_destroys_the_active_robot_it_hits() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 9, 7), FAR)
    applied = act(state, fire_missile("1-1", 9, 7))
    assert not alive(applied.state, "2-1")
    assert [e["robot"] for e in events(applied, "destroyed")] == ["2-1"]


def test_a_missile_hits_only_the_target_cell() -> None:
    around = [
        bot(f"2-{n}", x, y)
        for n, (x, y) in enumerate([(8, 7), (10, 7), (9, 6), (9, 8), (10, 8)], 1)
    ]
    state = scene(bot("1-1", 5, 5, armed="missile"), *around, FAR)
    applied = act(state, fire_missile("1-1", 9, 7))
    assert all(alive(applied.state, r["id"]) for r in around)
    assert events(applied, "destroyed") == []


def test_a_missile_on_an_empty_cell_still_flies_and_hits_nothing() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile", facing="E"), FAR)
    applied = act(state, fire_missile("1-1", 8, 5))
    [missile] = events(applied, "missile")
    assert (missile["robot"], missile["target"]) == ("1-1", [8, 5])
    assert types(applied) == ["missile"]


def test_a_missile_flies_over_robots_between_the_firer_and_the_target() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 6, 5), bot("2-2", 8, 5), FAR)
    applied = act(state, fire_missile("1-1", 8, 5))
    assert alive(applied.state, "2-1")
    assert not alive(applied.state, "2-2")


def test_friendly_fire_counts_for_missiles() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("1-2", 7, 7), FAR)
    assert not alive(act(state, fire_missile("1-1", 7, 7)).state, "1-2")


def test_a_shielded_robot_hit_by_a_missile_loses_its_shield_and_deflect_and_survives() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5, shield=True, deflect="N"), FAR
    )
    applied = act(state, fire_missile("1-1", 8, 5))
    after = robot(applied.state, "2-1")
    assert (after["alive"], after["shield"], after["deflect"]) == (True, False, None)
    assert [e["robot"] for e in events(applied, "absorbed")] == ["2-1"]
    assert events(applied, "deflected") == []


def test_an_inactive_robot_hit_by_a_missile_is_unharmed() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5, active=False), FAR)
    applied = act(state, fire_missile("1-1", 8, 5))
    assert robot(applied.state, "2-1") == robot(state, "2-1")


def test_the_missile_event_names_the_firer_and_the_target() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    [missile] = events(act(state, fire_missile("1-1", 2, 9)), "missile")
    assert (missile["robot"], missile["target"]) == ("1-1", [2, 9])
