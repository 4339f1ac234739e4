"""Skyport's rules (skyport.md), each test named after the rule, with the seed's numbers."""

from __future__ import annotations

import pytest
from skyport_helpers import (
    MINE,
    OPEN,
    act,
    droid,
    laser,
    mortar,
    move,
    of_type,
    player,
    position,
    reject,
    robot,
    tiles,
    upgrade,
)

from engine.skyport.hexgrid import DIRECTIONS, distance, neighbours
from engine.skyport.resolve import damage

BACK_AND_FORTH = (move("right-up"), move("left-down"))  # two actions that end where they began


def test_the_six_directions_are_the_specs_steps() -> None:
    assert DIRECTIONS == {
        "up": (-1, -1),
        "down": (1, 1),
        "right-up": (-1, 0),
        "right-down": (0, 1),
        "left-up": (0, -1),
        "left-down": (1, 0),
    }


def test_hex_distance_is_max_for_the_same_sign_and_the_sum_otherwise() -> None:
    assert distance((0, 0), (3, 2)) == 3
    assert distance((0, 0), (-2, -4)) == 4
    assert distance((0, 0), (0, 3)) == 3
    assert distance((0, 0), (2, -1)) == 3
    assert distance((5, 1), (1, 4)) == 7
    assert all(distance((4, 4), n) == 1 for n in neighbours((4, 4), 9))
    assert len(set(neighbours((4, 4), 9))) == 6
    assert neighbours((0, 0), 9) == [(1, 1), (0, 1), (1, 0)]


# -- moving and mining ---------------------------------------------------------------


def test_a_move_is_one_step_in_a_direction() -> None:
    state = position([robot(4, 4), robot(6, 2)])
    applied = act(state, move("up"), move("right-down"), move("left-down"))
    me = player(applied.state, 1)
    assert (me["j"], me["k"]) == (4, 4)
    steps = [(e["from"], e["to"], e["direction"]) for e in of_type(applied, "move")]
    assert steps == [
        ([4, 4], [3, 3], "up"),
        ([3, 3], [3, 4], "right-down"),
        ([3, 4], [4, 4], "left-down"),
    ]


@pytest.mark.parametrize(
    ("grid", "start", "direction"),
    [
        (OPEN, (0, 4), "right-up"),  # off the map
        (tiles(OPEN, O=[(6, 6)]), (7, 7), "up"),  # rock
        (tiles(OPEN, V=[(6, 6)]), (7, 7), "up"),  # void
        (OPEN, (1, 1), "up"),  # a spawn tile
        (OPEN, (5, 4), "right-up"),  # a player on (4, 4)
    ],
)
def test_a_move_off_the_map_or_onto_rock_void_spawn_or_a_player_is_illegal(
    grid: list[str], start: tuple[int, int], direction: str
) -> None:
    state = position([robot(*start), robot(4, 4)], grid)
    error = reject(state, move("left-down"), move("right-up"), move(direction))
    assert error["action"] == 2
    assert "Action 3" in error["message"]


def test_an_unknown_direction_is_illegal() -> None:
    error = reject(position([robot(4, 4), robot(6, 2)]), move("north"))
    assert error["action"] == 0


def test_mining_takes_one_resource_and_a_tile_holds_two_then_is_grass() -> None:
    state = position([robot(4, 4), robot(6, 2)], tiles(OPEN, R=[(4, 4)]))
    applied = act(state, MINE, MINE)
    after = applied.state
    assert player(after, 1)["resources"]["rubidium"] == 2
    assert after["tiles"][4][4] == "G" and "4,4" not in after["resources"]
    assert [e["left"] for e in of_type(applied, "mine")] == [1, 0]
    assert reject(state, MINE, MINE, MINE)["action"] == 2


@pytest.mark.parametrize(
    ("letter", "resource"), [("E", "explosium"), ("R", "rubidium"), ("C", "scrap")]
)
def test_each_resource_tile_gives_its_resource(letter: str, resource: str) -> None:
    state = position([robot(4, 4), robot(6, 2)], tiles(OPEN, **{letter: [(4, 4)]}))
    applied = act(state, MINE)
    assert applied.state["resources"]["4,4"] == 1
    assert player(applied.state, 1)["resources"][resource] == 1


def test_mining_anything_but_a_resource_tile_is_illegal() -> None:
    assert reject(position([robot(4, 4), robot(6, 2)]), MINE)["action"] == 0


# -- upgrades --------------------------------------------------------------------------


def test_upgrades_cost_4_for_level_2_and_5_more_for_level_3() -> None:
    rich = {"rubidium": 9, "explosium": 3, "scrap": 0}
    state = position([robot(4, 4, resources=rich), robot(6, 2)])
    applied = act(state, upgrade("laser"), upgrade("laser"))
    me = player(applied.state, 1)
    assert me["weapons"]["laser"] == 3 and me["resources"]["rubidium"] == 0
    assert [(e["weapon"], e["level"]) for e in of_type(applied, "upgrade")] == [
        ("laser", 2),
        ("laser", 3),
    ]
    assert reject(state, upgrade("mortar"))["action"] == 0  # 3 explosium < 4
    four = position([robot(4, 4, resources={"rubidium": 8}), robot(6, 2)])
    assert reject(four, upgrade("laser"), upgrade("laser"))["action"] == 1  # 4 left < 5


def test_no_upgrade_past_level_3_or_of_a_weapon_not_in_the_loadout() -> None:
    state = position(
        [
            robot(4, 4, {"laser": 3, "droid": 1}, resources={"rubidium": 9, "explosium": 9}),
            robot(6, 2),
        ]
    )
    assert reject(state, upgrade("laser"))["action"] == 0
    assert reject(state, upgrade("mortar"))["action"] == 0


def test_each_weapon_is_upgraded_with_its_own_resource() -> None:
    rich = {"rubidium": 4, "explosium": 4, "scrap": 4}
    state = position([robot(4, 4, {"mortar": 1, "droid": 1}, resources=rich), robot(6, 2)])
    after = act(state, upgrade("mortar"), upgrade("droid")).state
    assert player(after, 1)["resources"] == {"rubidium": 4, "explosium": 0, "scrap": 0}


# -- the weapon table -----------------------------------------------------------------


@pytest.mark.parametrize(("level", "amount"), [(1, 16), (2, 18), (3, 22)])
def test_the_laser_does_16_18_22_by_level(level: int, amount: int) -> None:
    state = position([robot(4, 4, {"laser": level, "mortar": 1}), robot(4, 6)])
    applied = act(state, *BACK_AND_FORTH, laser("right-down"))
    assert [e["amount"] for e in of_type(applied, "damage")] == [amount]
    assert player(applied.state, 2)["health"] == 100 - amount


@pytest.mark.parametrize(("level", "reach"), [(1, 5), (2, 6), (3, 7)])
def test_the_laser_reaches_5_6_7_tiles_by_level(level: int, reach: int) -> None:
    wide = ["G" * 12] * 12
    state = position(
        [robot(0, 0, {"laser": level, "droid": 1}), robot(11, 11)],
        tiles(wide, S=[(0, 11), (11, 0)]),
        spawns=[(0, 11), (11, 0)],
    )
    applied = act(state, laser("right-down"))
    assert of_type(applied, "laser")[0]["tiles"] == [[0, k] for k in range(1, reach + 1)]


@pytest.mark.parametrize(("level", "main"), [(1, 20), (2, 20), (3, 25)])
def test_the_mortar_does_20_20_25_by_level_and_18_around(level: int, main: int) -> None:
    state = position([robot(4, 4, {"mortar": level, "laser": 1}), robot(4, 6), robot(5, 6)])
    applied = act(state, *BACK_AND_FORTH, mortar(0, 2))
    assert [(e["seat"], e["amount"]) for e in of_type(applied, "damage")] == [(2, main), (3, 18)]


@pytest.mark.parametrize(("level", "reach"), [(1, 2), (2, 3), (3, 4)])
def test_the_mortar_reaches_distance_2_3_4_by_level(level: int, reach: int) -> None:
    state = position([robot(4, 4, {"mortar": level, "laser": 1}), robot(8, 7)])
    assert of_type(act(state, mortar(-reach, 0)), "mortar")[0]["target"] == [4 - reach, 4]
    assert of_type(act(state, mortar(reach, reach)), "mortar")[0]["target"] == [4 + reach] * 2
    assert reject(state, mortar(-reach - 1, 0))["action"] == 0
    assert reject(state, mortar(1, -reach))["action"] == 0  # distance reach + 1 (opposite signs)


@pytest.mark.parametrize(("level", "main", "reach"), [(1, 22, 3), (2, 24, 4), (3, 26, 5)])
def test_the_droid_does_22_24_26_by_level_and_10_around_and_walks_3_4_5(
    level: int, main: int, reach: int
) -> None:
    state = position([robot(4, 0, {"droid": level, "laser": 1}), robot(4, 3), robot(3, 3)])
    applied = act(state, *BACK_AND_FORTH, droid("right-down", "right-down", "right-down"))
    assert [(e["seat"], e["amount"]) for e in of_type(applied, "damage")] == [(2, main), (3, 10)]
    far = position([robot(4, 0, {"droid": level, "laser": 1}), robot(0, 4)])
    walked = act(far, droid(*["right-down"] * reach))
    assert of_type(walked, "droid")[0]["at"] == [4, reach]
    assert reject(far, droid(*["right-down"] * (reach + 1)))["action"] == 0


# -- damage and its bonus -------------------------------------------------------------


def test_damage_is_rounded_half_up_with_a_fifth_more_for_each_unused_action() -> None:
    assert damage(25, 0, 2) == 35  # the seed's example: level-3 mortar, 2 unused
    assert damage(0, 18, 2) == 25  # 25.2
    assert damage(16, 0, 0) == 16
    assert damage(22, 0, 1) == 26  # 26.4
    assert damage(24, 0, 1) == 29  # 28.8
    assert damage(0, 10, 2) == 14


def test_the_seeds_example_a_level_3_mortar_with_2_unused_actions_gives_35_and_25() -> None:
    state = position([robot(4, 4, {"mortar": 3, "laser": 1}), robot(4, 6), robot(3, 6)])
    applied = act(state, mortar(0, 2))
    assert [(e["seat"], e["amount"]) for e in of_type(applied, "damage")] == [(2, 35), (3, 25)]
    assert player(applied.state, 1)["score"] == 60
    assert applied.turn_ms == 300


def test_an_attack_ends_the_turn_and_orders_after_it_are_illegal() -> None:
    state = position([robot(4, 4), robot(6, 2)])
    assert reject(state, laser("up"), move("down"))["action"] == 1
    assert reject(
        state, move("up"), move("down"), move("up"), move("down"), code="too_many_actions"
    )


# -- laser, mortar, droid in detail -----------------------------------------------------


def test_the_laser_passes_over_void_and_spawn_tiles_and_through_players() -> None:
    grid = tiles(OPEN, V=[(5, 5)])
    state = position([robot(3, 3), robot(4, 4), robot(6, 6)], grid)
    applied = act(state, laser("down"))
    assert of_type(applied, "laser")[0]["tiles"] == [[4, 4], [5, 5], [6, 6], [7, 7], [8, 8]]
    assert [e["seat"] for e in of_type(applied, "damage")] == [2, 3]


def test_the_laser_stops_before_rock() -> None:
    state = position([robot(3, 3), robot(6, 6)], tiles(OPEN, O=[(5, 5)]))
    applied = act(state, laser("down"))
    assert of_type(applied, "laser")[0]["tiles"] == [[4, 4]]
    assert of_type(applied, "damage") == []


def test_the_laser_does_not_hit_a_player_on_its_spawn() -> None:
    state = position([robot(4, 0), robot(8, 0)], spawns=[(0, 0), (8, 0)])  # seat 2 on its spawn
    applied = act(state, laser("left-down"))
    assert [8, 0] in of_type(applied, "laser")[0]["tiles"]
    assert of_type(applied, "damage") == []


def test_a_mortar_may_hit_the_shooters_own_tile_and_scores_nothing_for_it() -> None:
    state = position([robot(4, 4, {"mortar": 1, "laser": 1}), robot(4, 5)])
    applied = act(state, mortar(0, 0))
    hits = [(e["seat"], e["amount"], e["points"]) for e in of_type(applied, "damage")]
    assert hits == [(1, 28, 0), (2, 25, 25)]
    assert player(applied.state, 1)["score"] == 25


@pytest.mark.parametrize("letter", ["O", "V", "S"])
def test_a_mortar_landing_on_rock_void_or_a_spawn_does_nothing(letter: str) -> None:
    state = position(
        [robot(4, 4, {"mortar": 1, "laser": 1}), robot(4, 5)], tiles(OPEN, **{letter: [(4, 6)]})
    )
    applied = act(state, mortar(0, 2))
    assert of_type(applied, "mortar")[0]["landed"] is False
    assert of_type(applied, "damage") == []


def test_a_mortar_on_a_spawn_does_nothing() -> None:
    state = position([robot(2, 2, {"mortar": 1, "laser": 1}), robot(1, 0)])
    applied = act(state, mortar(-2, -2))  # onto the spawn (0, 0); seat 2 stands next to it
    shot = of_type(applied, "mortar")[0]
    assert (shot["target"], shot["landed"]) == ([0, 0], False)
    assert of_type(applied, "damage") == []


def test_a_mortar_target_off_the_map_is_illegal() -> None:
    state = position([robot(1, 4, {"mortar": 1, "laser": 1}), robot(6, 2)])
    assert reject(state, mortar(-2, 0))["action"] == 0


def test_the_droid_walks_through_players() -> None:
    state = position([robot(4, 0, {"droid": 1, "laser": 1}), robot(4, 1), robot(8, 4)])
    applied = act(state, droid("right-down", "right-down"))
    assert of_type(applied, "droid")[0]["path"] == [[4, 1], [4, 2]]
    assert [(e["seat"], e["amount"]) for e in of_type(applied, "damage")] == [(2, 14)]


@pytest.mark.parametrize("letter", ["O", "V", "S"])
def test_the_droid_stops_before_rock_void_or_a_spawn_and_explodes_there(letter: str) -> None:
    state = position(
        [robot(4, 0, {"droid": 1, "laser": 1}), robot(7, 7)], tiles(OPEN, **{letter: [(4, 2)]})
    )
    applied = act(state, droid("right-down", "right-down", "right-down"))
    shot = of_type(applied, "droid")[0]
    assert (shot["path"], shot["at"]) == ([[4, 1]], [4, 1])


def test_the_droid_stops_before_leaving_the_map() -> None:
    state = position([robot(4, 7, {"droid": 1, "laser": 1}), robot(7, 3)])
    shot = of_type(act(state, droid("right-down", "right-down", "up")), "droid")[0]
    assert (shot["path"], shot["at"]) == ([[4, 8]], [4, 8])


def test_an_empty_droid_walk_explodes_on_the_shooters_tile() -> None:
    state = position([robot(4, 4, {"droid": 1, "laser": 1}), robot(5, 4)])
    applied = act(state, droid())
    assert of_type(applied, "droid")[0]["at"] == [4, 4]
    hits = [(e["seat"], e["amount"], e["points"]) for e in of_type(applied, "damage")]
    assert hits == [(1, 31, 0), (2, 14, 14)]  # 22 and 10, each times 1.4


def test_a_weapon_not_in_the_loadout_is_illegal() -> None:
    state = position([robot(4, 4, {"laser": 1, "mortar": 1}), robot(6, 2)])
    assert reject(state, droid("up"))["action"] == 0


# -- spawns ---------------------------------------------------------------------------


def test_no_attack_from_a_spawn() -> None:
    state = position([robot(0, 0), robot(4, 4)])
    assert reject(state, laser("down"))["action"] == 0
    assert reject(state, mortar(1, 1))["action"] == 0


def test_no_attack_onto_a_spawn_the_player_on_it_is_not_hit() -> None:
    state = position(
        [robot(6, 1, {"droid": 1, "mortar": 1}), robot(8, 0), robot(7, 1)],
        spawns=[(0, 0), (8, 0), (0, 8)],
    )
    applied = act(state, mortar(2, 0))  # lands on (8, 1), next to seat 2's spawn and seat 3
    assert [e["seat"] for e in of_type(applied, "damage")] == [3]


def test_ending_ones_own_turn_on_ones_own_spawn_costs_10_points() -> None:
    state = position([robot(0, 0, resources={"rubidium": 4}), robot(4, 4)])
    applied = act(state, upgrade("laser"))  # no move off the spawn, and no way back onto it
    assert reject(state, move("down"), move("up"))["action"] == 1
    assert of_type(applied, "penalty") == [
        {
            "type": "penalty",
            "t_ms": 300,
            "duration_ms": 0,
            "seat": 1,
            "points": -10,
            "reason": "on_spawn",
        }
    ]
    assert applied.state["scores"]["1"] == -10


def test_a_turn_with_no_action_costs_10_points() -> None:
    applied = act(position([robot(4, 4), robot(6, 2)]))
    assert [(e["points"], e["reason"]) for e in of_type(applied, "penalty")] == [(-10, "no_action")]
    assert applied.state["scores"] == {"1": -10, "2": 0}
    assert applied.turn_ms == 0


# -- points and death -------------------------------------------------------------------


def test_damage_scores_its_full_amount_overkill_included_and_a_kill_20_more() -> None:
    state = position([robot(4, 4), robot(4, 6, health=5)])
    applied = act(state, laser("right-down"))  # 16 * 1.4 = 22.4 -> 22
    assert [(e["amount"], e["points"]) for e in of_type(applied, "damage")] == [(22, 22)]
    death = of_type(applied, "death")[0]
    assert (death["seat"], death["by"], death["at"], death["bounty"]) == (2, 1, [4, 6], 20)
    assert applied.state["scores"] == {"1": 42, "2": -40}


def test_dying_costs_40_points() -> None:
    state = position([robot(4, 4), robot(4, 6, health=1)])
    applied = act(state, laser("right-down"))
    assert [(e["seat"], e["points"], e["reason"]) for e in of_type(applied, "penalty")] == [
        (2, -40, "death")
    ]


def test_killing_oneself_gives_no_points_and_costs_40() -> None:
    state = position([robot(4, 4, {"mortar": 1, "laser": 1}, health=10), robot(6, 2)])
    applied = act(state, mortar(0, 0))
    assert of_type(applied, "death")[0]["bounty"] == 0
    assert applied.state["scores"]["1"] == -40
    assert player(applied.state, 1)["dead"] is True


def test_a_body_stays_blocks_moves_and_further_hits_do_nothing() -> None:
    state = position([robot(4, 4), robot(4, 6, health=1), robot(6, 2)])
    killed = act(state, laser("right-down")).state
    body = player(killed, 2)
    assert (body["j"], body["k"], body["dead"], body["health"]) == (4, 6, True, 0)
    # seat 2's turn is skipped: seat 3 plays, then seat 1 again
    assert killed["awaiting"] == [3]
    back = act(killed, move("up")).state
    assert back["awaiting"] == [1]
    assert reject(back, move("right-down"), move("right-down"))["action"] == 1
    again = act(back, laser("right-down"))
    assert of_type(again, "damage") == []
    assert again.state["scores"]["1"] == killed["scores"]["1"]


def test_a_dead_seat_skips_one_turn_then_respawns_with_its_weapons_and_plays_at_once() -> None:
    loaded = {"rubidium": 3, "explosium": 1, "scrap": 0}
    state = position(
        [robot(4, 4), robot(4, 6, {"laser": 2, "droid": 3}, health=1, resources=loaded)]
    )
    after_kill = act(state, laser("right-down"))
    assert [e["type"] for e in after_kill.events][-1] == "skip"
    assert of_type(after_kill, "skip") == [
        {"type": "skip", "t_ms": 300, "duration_ms": 0, "seat": 2}
    ]
    killed = after_kill.state
    assert killed["awaiting"] == [1] and player(killed, 2)["respawn_next"] is True
    assert of_type(after_kill, "penalty")[0]["reason"] == "death"  # and no no_action for the skip
    respawned = act(killed, move("up"))
    assert of_type(respawned, "respawn") == [
        {"type": "respawn", "t_ms": 300, "duration_ms": 0, "seat": 2, "at": [0, 8]}
    ]
    two = player(respawned.state, 2)
    assert (two["j"], two["k"], two["health"], two["dead"], two["respawn_next"]) == (
        0,
        8,
        100,
        False,
        False,
    )
    assert two["weapons"] == {"laser": 2, "droid": 3} and two["resources"] == loaded
    assert respawned.state["awaiting"] == [2]
    assert respawned.state["round"] == 2  # round 1 ended with the skip


# -- turns, rounds, the end -----------------------------------------------------------


def test_seats_take_turns_in_a_fixed_order_and_a_round_is_one_turn_each() -> None:
    state = position([robot(4, 4), robot(6, 2), robot(2, 6)], rounds=2)
    seen = []
    while not state["over"]:
        seen.append((state["round"], state["awaiting"][0], state["turn"]))
        state = act(state, move("up"), move("down")).state
    assert seen == [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 4), (2, 2, 5), (2, 3, 6)]
    assert state["awaiting"] == [] and state["round"] == 2


def test_after_the_last_round_the_highest_score_wins_and_ties_share() -> None:
    state = position([robot(4, 4), robot(6, 2), robot(2, 6)], rounds=5)
    state["round"] = 5
    state["awaiting"] = [3]
    for p, score in zip(state["players"], (30, 10, 30), strict=True):
        p["score"] = score
    state["scores"] = {"1": 30, "2": 10, "3": 30}
    applied = act(state, move("up"))
    assert applied.state["over"] is True
    assert applied.state["winners"] == [1, 3]
    assert applied.events[-1] == {"type": "over", "t_ms": 300, "duration_ms": 0, "winners": [1, 3]}


def test_each_action_has_its_own_300_ms_slot() -> None:
    state = position([robot(4, 4), robot(4, 6)])
    applied = act(state, move("up"), move("down"), laser("right-down"))
    assert [(e["type"], e["t_ms"], e["duration_ms"]) for e in applied.events] == [
        ("move", 0, 300),
        ("move", 300, 300),
        ("laser", 600, 300),
        ("damage", 600, 300),
    ]
    assert applied.turn_ms == 900


def test_an_illegal_action_rejects_the_whole_orders_and_names_the_action() -> None:
    state = position([robot(4, 4, resources={"rubidium": 4}), robot(6, 2)])
    error = reject(state, upgrade("laser"), move("up"), move("sideways"))
    assert error["action"] == 2 and "Action 3" in error["message"]
    assert player(state, 1)["weapons"]["laser"] == 1


def test_when_every_seat_is_dead_the_turn_passes_over_each_once_then_the_first_respawns() -> None:
    state = position([robot(4, 4, {"mortar": 1, "laser": 1}, health=5), robot(4, 5, health=5)])
    applied = act(state, mortar(0, 0))
    passing = [(e["type"], e["seat"]) for e in applied.events if e["type"] in ("skip", "respawn")]
    assert passing == [("skip", 2), ("skip", 1), ("respawn", 2)]
    after = applied.state
    assert (after["awaiting"], after["round"], after["turn"]) == ([2], 2, 2)
    assert player(after, 1)["respawn_next"] is True
    assert after["scores"] == {"1": 5, "2": -40}  # 25 and 20 for seat 2, -40 for its own death
