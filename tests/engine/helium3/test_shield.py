"""Shields: one hit absorbed, an optional deflect, gone with any action
(docs/games/helium3.md "Hitting a robot", "Laser" and "Robot states"; the fog of
shield is tested in test_fog.py)."""

from __future__ import annotations

import pytest
from helpers import (
    act,
    alive,
    bot,
    cell,
    events,
    fire_laser,
    fire_missile,
    kamikaze,
    move,
    reject,
    robot,
    scene,
    shield,
)

FAR = bot("4-5", 19, 19)


def test_a_shield_action_moves_up_to_five_cells_then_raises_the_shield() -> None:
    state = scene(bot("1-1", 5, 5, facing="S"), FAR)
    applied = act(state, shield("1-1", 5, 10))
    after = robot(applied.state, "1-1")
    assert (after["x"], after["y"], after["shield"], after["deflect"]) == (5, 10, True, None)
    reject(state, shield("1-1", 5, 11), code="out_of_range")


def test_a_shield_may_be_raised_in_place_with_a_deflect_direction() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, shield("1-1", deflect="SW"))
    after = robot(applied.state, "1-1")
    assert (cell(applied.state, "1-1"), after["shield"], after["deflect"]) == ((5, 5), True, "SW")
    [shielded] = events(applied, "shielded")
    assert (shielded["robot"], shielded["deflect"]) == ("1-1", "SW")


def test_a_shield_deflect_must_be_one_of_the_eight_directions() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    body = reject(state, shield("1-1", deflect="UP"), code="bad_direction")
    assert "N NE E SE S SW W NW" in body["message"]


def test_a_shield_absorbs_one_hit_only() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"),
        bot("1-2", 5, 7, armed="missile"),
        bot("2-1", 9, 6, shield=True),
        FAR,
    )
    applied = act(state, fire_missile("1-1", 9, 6), fire_missile("1-2", 9, 6))
    assert [e["type"] for e in applied.events if e.get("robot") == "2-1"] == [
        "absorbed",
        "destroyed",
    ]
    assert not alive(applied.state, "2-1")


def test_a_shield_absorbs_a_kamikaze_blast() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 6, shield=True, deflect="N"), FAR)
    applied = act(state, kamikaze("1-1"))
    after = robot(applied.state, "2-1")
    assert (after["alive"], after["shield"], after["deflect"]) == (True, False, None)


def test_a_shield_absorbs_a_laser_and_stops_it() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("2-1", 5, 8, shield=True), FAR)
    applied = act(state, fire_laser("1-1", "S"))
    assert alive(applied.state, "2-1")
    assert robot(applied.state, "2-1")["shield"] is False


@pytest.mark.parametrize(
    "action",
    [move("2-1", 12, 12), {"robot": "2-1", "type": "mine"}, shield("2-1", 11, 11)],
    ids=["move", "mine", "shield-again"],
)
def test_any_action_first_drops_the_shield(action: dict[str, object]) -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 10, 10, shield=True, deflect="E"), FAR, to_move=2)
    after = robot(act(state, action).state, "2-1")
    if action["type"] == "shield":
        assert (after["shield"], after["deflect"]) == (True, None)  # a new shield, no deflect
    else:
        assert (after["shield"], after["deflect"]) == (False, None)


def test_a_shield_lasts_through_other_seats_turns_until_it_is_hit() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 10, 10), FAR)
    state = act(state, shield("1-1")).state
    state = act(act(state).state).state
    assert robot(state, "1-1")["shield"] is True


def test_a_shielded_robot_that_goes_kamikaze_is_destroyed_all_the_same() -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="N"), FAR)
    assert not alive(act(state, kamikaze("1-1")).state, "1-1")
