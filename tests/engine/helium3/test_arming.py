"""Arming and disarming: one of missile, laser or shield at a time
(docs/games/helium3.md "Robot states")."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import act, arm, bot, cell, events, fire_laser, fire_missile, reject, robot, scene

FAR = bot("4-5", 19, 19)


@pytest.mark.parametrize("weapon", ["missile", "laser"])
def test_arming_moves_up_to_two_cells_then_arms_the_weapon(weapon: str) -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, arm("1-1", weapon, 7, 5))
    assert cell(applied.state, "1-1") == (7, 5)
    assert robot(applied.state, "1-1")["armed"] == weapon
    [armed] = events(applied, "armed")
    assert (armed["robot"], armed["weapon"]) == ("1-1", weapon)


DISARMING: list[dict[str, Any]] = [
    {"robot": "1-1", "type": "move", "to": [5, 3]},
    {"robot": "1-1", "type": "move", "to": [5, 5]},
    {"robot": "1-1", "type": "mine"},
    {"robot": "1-1", "type": "shield"},
]


@pytest.mark.parametrize("weapon", ["missile", "laser"])
@pytest.mark.parametrize("action", DISARMING, ids=lambda a: str(a["type"]))
def test_any_other_action_disarms_the_weapon(weapon: str, action: dict[str, Any]) -> None:
    state = scene(bot("1-1", 5, 5, armed=weapon), FAR, helium={(5, 5): 100})
    assert robot(act(state, action).state, "1-1")["armed"] is None


def test_arming_the_laser_replaces_an_armed_missile() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    assert robot(act(state, arm("1-1", "laser")).state, "1-1")["armed"] == "laser"


def test_arming_the_missile_replaces_an_armed_laser() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    assert robot(act(state, arm("1-1", "missile")).state, "1-1")["armed"] == "missile"


@pytest.mark.parametrize("weapon", ["missile", "laser"])
def test_arming_drops_the_shield_and_its_deflect(weapon: str) -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="E"), FAR)
    after = robot(act(state, arm("1-1", weapon)).state, "1-1")
    assert (after["armed"], after["shield"], after["deflect"]) == (weapon, False, None)


@pytest.mark.parametrize("weapon", ["missile", "laser"])
def test_raising_a_shield_disarms_the_weapon(weapon: str) -> None:
    state = scene(bot("1-1", 5, 5, armed=weapon), FAR)
    after = robot(act(state, {"robot": "1-1", "type": "shield", "deflect": "S"}).state, "1-1")
    assert (after["armed"], after["shield"], after["deflect"]) == (None, True, "S")


def test_firing_the_missile_needs_it_armed_and_then_clears_it() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    assert robot(act(state, fire_missile("1-1", 5, 2)).state, "1-1")["armed"] is None


def test_firing_the_laser_needs_it_armed_and_then_clears_it() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    assert robot(act(state, fire_laser("1-1", "N")).state, "1-1")["armed"] is None


@pytest.mark.parametrize("armed", [None, "laser"])
def test_a_missile_cannot_be_fired_unless_a_missile_is_armed(armed: str | None) -> None:
    state = scene(bot("1-1", 5, 5, armed=armed), FAR)
    body = reject(state, fire_missile("1-1", 5, 2), code="not_armed")
    assert "1-1" in body["message"] and "missile" in body["message"]


@pytest.mark.parametrize("armed", [None, "missile"])
def test_a_laser_cannot_be_fired_unless_a_laser_is_armed(armed: str | None) -> None:
    state = scene(bot("1-1", 5, 5, armed=armed), FAR)
    body = reject(state, fire_laser("1-1", "N"), code="not_armed")
    assert "laser" in body["message"]


def test_a_shielded_robot_cannot_fire() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), FAR)
    reject(state, fire_laser("1-1", "N"), code="not_armed")


def test_a_weapon_stays_armed_across_turns_until_the_robot_acts_again() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), FAR)
    state = act(state, arm("1-1", "missile")).state
    state = act(act(state).state).state  # seat 2 and seat 4 pass
    assert state["to_move"] == 1
    assert robot(state, "1-1")["armed"] == "missile"


def test_a_weapon_is_not_disarmed_when_another_robot_acts() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("1-2", 8, 8), FAR)
    assert robot(act(state, arm("1-2", "missile")).state, "1-1")["armed"] == "laser"
