"""Actions of the remake (remake.md "Actions"): how far each moves first, the missile's
7, the laser's direction, deflect, and what a vehicle holds (weapon or shield)."""

from __future__ import annotations

import pytest
from helpers import (
    act,
    alive,
    arm,
    bot,
    cell,
    events,
    fire_laser,
    fire_missile,
    mine,
    move,
    reject,
    robot,
    shield,
)
from remake_helpers import deflect, pass_turn, scene

FAR = bot("4-5", 19, 19)


def test_move_goes_up_to_5_cells() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    assert cell(act(state, move("1-1", 10, 10)).state, "1-1") == (10, 10)
    body = reject(state, move("1-1", 11, 5), code="out_of_range")
    assert "5" in body["message"]


@pytest.mark.parametrize("kind", ["arm_missile", "arm_laser", "shield", "mine"])
def test_arming_shielding_and_mining_move_up_to_2_cells_first(kind: str) -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, {"robot": "1-1", "type": kind, "to": [7, 3]})
    assert cell(applied.state, "1-1") == (7, 3)
    body = reject(state, {"robot": "1-1", "type": kind, "to": [8, 5]}, code="out_of_range")
    assert "2" in body["message"]
    reject(state, {"robot": "1-1", "type": kind, "path": [[6, 5], [7, 5], [8, 5]]},
           code="out_of_range")  # fmt: skip


def test_moves_follow_free_king_step_paths() -> None:
    # A wall of vehicles on column 6, rows 4..6: going round it takes 4 steps, not 2.
    wall = [bot(f"2-{n}", 6, 3 + n) for n in range(1, 4)]
    state = scene(bot("1-1", 5, 5), *wall, FAR)
    reject(state, mine("1-1", 7, 5), code="blocked")
    applied = act(state, move("1-1", 7, 5))
    [moved, *_] = events(applied, "moved")
    assert cell(applied.state, "1-1") == (7, 5)
    assert sum(len(e["path"]) for e in events(applied, "moved")) == 4 and moved["path"]


def test_a_missile_hits_any_cell_at_distance_1_to_7() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), FAR)
    assert events(act(state, fire_missile("1-1", 12, 0)), "missile")[0]["target"] == [12, 0]
    assert events(act(state, fire_missile("1-1", 6, 5)), "missile")
    body = reject(state, fire_missile("1-1", 13, 5), code="out_of_range")
    assert "7" in body["message"] and "8" in body["message"]
    reject(state, fire_missile("1-1", 5, 5), code="out_of_range")
    reject(state, fire_missile("1-1", 5, 20), code="off_board")


def test_a_laser_fires_in_one_of_the_eight_directions() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    for direction in ("N", "NE", "E", "SE", "S", "SW", "W", "NW"):
        assert events(act(state, fire_laser("1-1", direction)), "laser")
    reject(state, fire_laser("1-1", "up"), code="bad_direction")


def test_a_fired_weapon_is_spent_and_must_be_armed_again() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("3-1", 15, 15), to_move=1, seats=2)
    after = act(state, fire_missile("1-1", 9, 9)).state
    assert robot(after, "1-1")["armed"] is None
    again = pass_turn(after).state
    reject(again, fire_missile("1-1", 9, 9), code="not_armed")
    reject(scene(bot("1-1", 5, 5), FAR), fire_laser("1-1", "E"), code="not_armed")
    reject(scene(bot("1-1", 5, 5, armed="laser"), FAR), fire_missile("1-1", 6, 6),
           code="not_armed")  # fmt: skip


def test_deflect_needs_a_shield_raised_on_an_earlier_turn() -> None:
    state = scene(bot("1-1", 5, 5), bot("3-1", 15, 15), seats=2)
    body = reject(state, deflect("1-1", "NE"), code="not_shielded")
    assert "1-1" in body["message"]
    # The shield and the deflect cannot be the same turn's: one action per vehicle.
    reject(state, shield("1-1"), deflect("1-1", "NE"), code="duplicate_robot")
    raised = pass_turn(act(state, shield("1-1")).state).state
    applied = act(raised, deflect("1-1", "NE"))
    after = robot(applied.state, "1-1")
    assert (after["shield"], after["deflect"]) == (True, "NE")


def test_a_deflects_event_is_a_shielded_event_carrying_the_deflect() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), FAR)
    applied = act(state, deflect("1-1", "SW"))
    [event] = applied.events[:1]
    assert event["type"] == "shielded" and event["deflect"] == "SW"
    assert (event["robot"], event["seat"], event["duration_ms"]) == ("1-1", 1, 0)
    reject(state, deflect("1-1", "down"), code="bad_direction")


def test_a_shield_action_takes_no_deflect_field() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    body = reject(state, {"robot": "1-1", "type": "shield", "deflect": "N"}, code="bad_shape")
    assert "deflect" in body["message"]


def test_arming_drops_the_shield_and_replaces_another_armed_weapon() -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="E"), bot("1-2", 8, 8, armed="laser"), FAR)
    applied = act(state, arm("1-1", "missile"), arm("1-2", "missile", 9, 9))
    one, two = robot(applied.state, "1-1"), robot(applied.state, "1-2")
    assert (one["armed"], one["shield"], one["deflect"]) == ("missile", False, None)
    assert (two["armed"], two["shield"], cell(applied.state, "1-2")) == ("missile", False, (9, 9))


def test_raising_the_shield_disarms_the_weapon() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), FAR)
    after = robot(act(state, shield("1-1", 6, 6)).state, "1-1")
    assert (after["armed"], after["shield"], after["deflect"]) == (None, True, None)


@pytest.mark.parametrize("action", [move("1-1", 8, 8), mine("1-1")])
def test_move_and_mine_drop_both_the_weapon_and_the_shield(action: dict[str, object]) -> None:
    for held in ({"armed": "missile"}, {"shield": True, "deflect": "N"}):
        state = scene(bot("1-1", 5, 5, **held), FAR)
        after = robot(act(state, action).state, "1-1")
        assert (after["armed"], after["shield"], after["deflect"]) == (None, False, None)


def test_re_shielding_after_a_move_of_2_raises_a_new_shield_without_a_deflect() -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="W"), FAR)
    after = robot(act(state, shield("1-1", 7, 7)).state, "1-1")
    assert (cell(act(state, shield("1-1", 7, 7)).state, "1-1"), after["shield"]) == ((7, 7), True)
    assert after["deflect"] is None


def test_deflect_keeps_the_shield_and_changes_only_its_direction() -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="W"), FAR)
    applied = act(state, deflect("1-1", "E"))
    after = robot(applied.state, "1-1")
    assert (after["shield"], after["deflect"], cell(applied.state, "1-1")) == (True, "E", (5, 5))
    assert not events(applied, "moved") and not events(applied, "turned")


def test_kamikaze_needs_no_arming() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, {"robot": "1-1", "type": "kamikaze"})
    assert not alive(applied.state, "1-1")
