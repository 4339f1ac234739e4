"""Inactive robots are immune; any action makes a robot active
(docs/games/helium3.md "Robot states")."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    act,
    alive,
    bot,
    events,
    fire_laser,
    fire_missile,
    kamikaze,
    move,
    robot,
    scene,
)

FAR = bot("4-5", 19, 19)


def test_robots_start_inactive() -> None:
    import engine

    assert not any(r["active"] for r in engine.new_game(seed=1)["robots"])


def test_an_inactive_robot_is_immune_to_a_missile() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5, active=False), FAR)
    applied = act(state, fire_missile("1-1", 8, 5))
    assert alive(applied.state, "2-1")
    assert events(applied, "destroyed") == [] and events(applied, "absorbed") == []


def test_an_inactive_robot_is_immune_to_a_laser_and_the_beam_passes_on() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 7, 5, active=False),
        bot("2-2", 9, 5),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert alive(applied.state, "2-1")
    assert not alive(applied.state, "2-2")


def test_an_inactive_robot_is_immune_to_a_kamikaze_blast() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 5, active=False), bot("2-2", 4, 4), FAR)
    applied = act(state, kamikaze("1-1"))
    assert alive(applied.state, "2-1")
    assert not alive(applied.state, "2-2")


def test_an_inactive_friendly_robot_is_immune_too() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 5, active=False), FAR)
    assert alive(act(state, kamikaze("1-1")).state, "1-2")


ACTIONS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"robot": "1-1", "type": "move", "to": [5, 3]}, {}),
    ({"robot": "1-1", "type": "mine"}, {}),
    ({"robot": "1-1", "type": "arm_missile"}, {}),
    ({"robot": "1-1", "type": "arm_laser"}, {}),
    ({"robot": "1-1", "type": "shield"}, {}),
    ({"robot": "1-1", "type": "shield", "deflect": "N"}, {}),
    ({"robot": "1-1", "type": "fire_missile", "target": [5, 2]}, {"armed": "missile"}),
    ({"robot": "1-1", "type": "fire_laser", "direction": "N"}, {"armed": "laser"}),
    ({"robot": "1-1", "type": "move", "to": [5, 5]}, {}),
]


@pytest.mark.parametrize(("action", "fields"), ACTIONS, ids=lambda a: str(a.get("type", "")))
def test_any_action_makes_a_robot_active_even_one_that_goes_nowhere(
    action: dict[str, Any], fields: dict[str, Any]
) -> None:
    state = scene(bot("1-1", 5, 5, active=False, **fields), FAR)
    assert robot(act(state, action).state, "1-1")["active"] is True


def test_a_kamikaze_by_an_inactive_robot_still_destroys_it() -> None:
    state = scene(bot("1-1", 5, 5, active=False), FAR)
    applied = act(state, kamikaze("1-1"))
    assert not alive(applied.state, "1-1")
    assert robot(applied.state, "1-1")["active"] is True


def test_a_pass_does_not_activate_anything() -> None:
    state = scene(bot("1-1", 5, 5, active=False), FAR)
    assert robot(act(state).state, "1-1")["active"] is False


def test_the_robot_not_given_an_order_stays_inactive() -> None:
    state = scene(bot("1-1", 5, 5, active=False), bot("1-2", 7, 7, active=False), FAR)
    applied = act(state, move("1-1", 5, 3))
    assert robot(applied.state, "1-2")["active"] is False


def test_a_robot_stays_active_for_the_rest_of_the_match() -> None:
    state = scene(bot("1-1", 5, 5, active=False), bot("2-1", 15, 15), FAR)
    state = act(state, move("1-1", 5, 3)).state
    for _ in range(8):
        state = act(state).state
    assert robot(state, "1-1")["active"] is True


def test_a_robot_becomes_destroyable_once_it_has_acted() -> None:
    # Turn 1: seat 1 moves its robot, which is now in play; turn 2: seat 2 shoots it.
    state = scene(
        bot("1-1", 5, 5, active=False), bot("2-1", 5, 9, armed="missile"), bot("3-1", 19, 0)
    )
    state = act(state, move("1-1", 5, 6)).state
    applied = act(state, fire_missile("2-1", 5, 6))
    assert not alive(applied.state, "1-1")
