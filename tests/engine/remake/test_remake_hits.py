"""Hits in the remake (remake.md "Hits"): missiles on a cell, lasers to the edge through
everyone until a shield, deflects and their chains, one hit per shield, kamikaze."""

from __future__ import annotations

from helpers import act, alive, bot, events, fire_laser, fire_missile, kamikaze, robot
from remake_helpers import scene

FAR = bot("4-5", 19, 19)


def test_a_missile_hits_the_vehicle_on_its_target_cell_and_nothing_else() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 9, 9), bot("2-2", 10, 9), FAR)
    applied = act(state, fire_missile("1-1", 9, 9))
    assert not alive(applied.state, "2-1") and alive(applied.state, "2-2")
    missed = act(state, fire_missile("1-1", 8, 8))
    assert not events(missed, "destroyed")


def test_a_laser_runs_to_the_edge_and_hits_every_vehicle_on_its_line_own_side_included() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5), bot("1-2", 12, 5), bot("3-1", 19, 5),
        bot("2-2", 4, 5), FAR,
    )  # fmt: skip
    applied = act(state, fire_laser("1-1", "E"))
    assert [alive(applied.state, r) for r in ("2-1", "1-2", "3-1", "2-2", "1-1")] == [
        False, False, False, True, True,
    ]  # fmt: skip
    [beam] = events(applied, "laser")
    assert beam["segments"] == [[[5, 5], [19, 5]]]


def test_a_laser_stops_at_a_shielded_vehicle_whose_shield_drops() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5, shield=True), bot("2-2", 12, 5), FAR
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert alive(applied.state, "2-1") and alive(applied.state, "2-2")
    assert robot(applied.state, "2-1")["shield"] is False
    assert [e["robot"] for e in events(applied, "absorbed")] == ["2-1"]
    assert events(applied, "laser")[0]["segments"] == [[[5, 5], [8, 5]]]


def test_a_deflect_turns_the_laser_and_the_shield_drops_all_the_same() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 8, 5, shield=True, deflect="S"),
        bot("2-2", 8, 9),
        bot("3-1", 12, 5),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    deflector = robot(applied.state, "2-1")
    assert deflector["alive"] and (deflector["shield"], deflector["deflect"]) == (False, None)
    assert not alive(applied.state, "2-2") and alive(applied.state, "3-1")
    assert events(applied, "deflected")[0]["direction"] == "S"
    assert events(applied, "laser")[0]["segments"] == [[[5, 5], [8, 5]], [[8, 5], [8, 19]]]


def test_a_deflect_may_send_the_laser_back_at_its_source() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5, shield=True, deflect="W"), FAR)
    applied = act(state, fire_laser("1-1", "E"))
    assert not alive(applied.state, "1-1") and alive(applied.state, "2-1")


def test_deflects_chain() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("2-1", 8, 5, shield=True, deflect="S"),
        bot("3-1", 8, 9, shield=True, deflect="W"),
        bot("2-2", 2, 9),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "E"))
    assert [e["robot"] for e in events(applied, "deflected")] == ["2-1", "3-1"]
    assert not alive(applied.state, "2-2")
    assert events(applied, "laser")[0]["segments"] == [
        [[5, 5], [8, 5]], [[8, 5], [8, 9]], [[8, 9], [0, 9]],
    ]  # fmt: skip


def test_a_beam_that_would_enter_a_cell_it_already_crossed_in_the_same_direction_stops() -> None:
    # North to 2-1, which turns it east to 3-1, which turns it back west through 2-1
    # (its shield spent: destroyed) to 2-2, which turns it east again: the next cell,
    # (6, 5), was crossed eastward already, so the beam stops there and 3-1 is spared.
    state = scene(
        bot("1-1", 5, 9, armed="laser"),
        bot("2-1", 5, 5, shield=True, deflect="E"),
        bot("3-1", 10, 5, shield=True, deflect="W"),
        bot("2-2", 3, 5, shield=True, deflect="E"),
        FAR,
    )
    applied = act(state, fire_laser("1-1", "N"))
    assert not alive(applied.state, "2-1")
    assert alive(applied.state, "3-1") and alive(applied.state, "1-1")
    assert events(applied, "laser")[0]["segments"] == [
        [[5, 9], [5, 5]], [[5, 5], [10, 5]], [[10, 5], [3, 5]], [[3, 5], [5, 5]],
    ]  # fmt: skip


def test_a_shield_takes_one_hit_and_a_second_hit_before_its_owners_next_turn_destroys() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"),
        bot("1-2", 5, 7, armed="missile"),
        bot("2-1", 9, 6, shield=True),
        FAR,
    )
    one_hit = act(state, fire_missile("1-1", 9, 6))
    assert alive(one_hit.state, "2-1") and robot(one_hit.state, "2-1")["shield"] is False
    two_hits = act(state, fire_missile("1-1", 9, 6), fire_missile("1-2", 9, 6))
    assert [e["type"] for e in two_hits.events if e.get("robot") == "2-1"] == [
        "absorbed",
        "destroyed",
    ]


def test_a_kamikaze_hits_the_launcher_and_its_eight_neighbours_and_no_further() -> None:
    ring = [bot(f"2-{n}", x, y) for n, (x, y) in enumerate([(4, 4), (6, 6), (4, 6)], start=1)]
    state = scene(bot("1-1", 5, 5), bot("1-2", 5, 4), *ring, bot("3-1", 7, 5), FAR)
    applied = act(state, kamikaze("1-1"))
    gone = {r["id"] for r in applied.state["robots"] if not r["alive"]}
    assert gone == {"1-1", "1-2", "2-1", "2-2", "2-3"}


def test_a_shielded_kamikaze_launcher_survives_and_its_shield_drops() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), bot("2-1", 6, 6), bot("2-2", 4, 4, shield=True),
                  FAR)  # fmt: skip
    applied = act(state, kamikaze("1-1"))
    launcher = robot(applied.state, "1-1")
    assert launcher["alive"] and launcher["shield"] is False
    assert not alive(applied.state, "2-1") and alive(applied.state, "2-2")
    assert {e["robot"] for e in events(applied, "absorbed")} == {"1-1", "2-2"}
