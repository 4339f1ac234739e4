"""Moving: ranges, free paths and the path every engine picks (docs/games/helium3.md "Actions")."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from helpers import act, alive, bot, cell, events, reject, robot, scene

# The seed's move ranges: move 6, mine 4, arm missile 2, arm laser 2, shield 5.
RANGES = [("move", 6), ("mine", 4), ("arm_missile", 2), ("arm_laser", 2), ("shield", 5)]
FAR = bot("4-5", 19, 19)


def walked(applied: Any, robot_id: str) -> list[list[int]]:
    """Every cell the robot stepped on, in order."""
    return [c for e in events(applied, "moved") if e["robot"] == robot_id for c in e["path"]]


def go(kind: str, robot_id: str, x: int, y: int, **extra: Any) -> dict[str, Any]:
    return {"robot": robot_id, "type": kind, "to": [x, y], **extra}


@pytest.mark.parametrize(("kind", "reach"), RANGES)
def test_each_moving_action_goes_as_far_as_its_range(kind: str, reach: int) -> None:
    state = scene(bot("1-1", 5, 10, facing="E"), FAR)
    applied = act(state, go(kind, "1-1", 5 + reach, 10))
    assert cell(applied.state, "1-1") == (5 + reach, 10)
    assert len(walked(applied, "1-1")) == reach


@pytest.mark.parametrize(("kind", "reach"), RANGES)
def test_each_moving_action_goes_no_farther_than_its_range(kind: str, reach: int) -> None:
    state = scene(bot("1-1", 5, 10, facing="E"), FAR)
    body = reject(state, go(kind, "1-1", 5 + reach + 1, 10), code="out_of_range")
    assert str(reach) in body["message"]


def test_the_move_ranges_are_6_4_2_2_5_and_0_for_the_rest() -> None:
    from engine.helium3.orders import MOVE_RANGE

    assert MOVE_RANGE == {
        "move": 6, "mine": 4, "arm_missile": 2, "arm_laser": 2, "shield": 5,
        "fire_missile": 0, "fire_laser": 0, "kamikaze": 0,
    }  # fmt: skip


@pytest.mark.parametrize(
    "action",
    [
        {"robot": "1-1", "type": "fire_missile", "target": [8, 10], "to": [6, 10]},
        {"robot": "1-1", "type": "fire_laser", "direction": "E", "to": [6, 10]},
        {"robot": "1-1", "type": "kamikaze", "to": [6, 10]},
        {"robot": "1-1", "type": "fire_laser", "direction": "E", "path": [[6, 10]]},
    ],
)
def test_firing_and_kamikaze_have_move_range_0_and_take_no_destination(
    action: dict[str, Any],
) -> None:
    state = scene(bot("1-1", 5, 10, armed="laser"), FAR)
    reject(state, action, code="bad_shape")


def test_a_fire_action_leaves_the_robot_where_it_stands() -> None:
    state = scene(bot("1-1", 5, 10, armed="laser", facing="E"), FAR)
    applied = act(state, {"robot": "1-1", "type": "fire_laser", "direction": "E"})
    assert cell(applied.state, "1-1") == (5, 10)
    assert walked(applied, "1-1") == []


@pytest.mark.parametrize("kind", ["mine", "arm_missile", "arm_laser", "shield"])
def test_mine_arm_and_shield_without_a_destination_stay_in_place(kind: str) -> None:
    state = scene(bot("1-1", 5, 10), FAR)
    applied = act(state, {"robot": "1-1", "type": kind})
    assert cell(applied.state, "1-1") == (5, 10)
    assert walked(applied, "1-1") == []


def test_a_move_needs_a_destination() -> None:
    state = scene(bot("1-1", 5, 10), FAR)
    reject(state, {"robot": "1-1", "type": "move"}, code="bad_shape")


def test_a_robot_cannot_move_off_the_board() -> None:
    state = scene(bot("1-1", 1, 1), FAR)
    reject(state, go("move", "1-1", -1, 1), code="off_board")
    reject(state, go("move", "1-1", 1, 20), code="off_board")


def test_a_move_must_end_on_a_cell_free_of_living_robots() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 8, 5, active=False), FAR)
    body = reject(state, go("move", "1-1", 8, 5), code="occupied")
    assert "2-1" in body["message"]


def test_a_move_may_end_on_a_cell_where_a_robot_was_destroyed() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 8, 5, alive=False), FAR)
    assert cell(act(state, go("move", "1-1", 8, 5)).state, "1-1") == (8, 5)


def test_destroyed_robots_block_nothing() -> None:
    wall = [bot(f"2-{n}", 6, y, alive=False) for n, y in enumerate(range(3, 8), start=1)]
    state = scene(bot("1-1", 5, 5, facing="E"), *wall, FAR)
    applied = act(state, go("arm_laser", "1-1", 7, 5))
    assert walked(applied, "1-1") == [[6, 5], [7, 5]]


def test_the_engine_walks_around_living_robots_own_or_not() -> None:
    # A wall from (4,6) to (6,6) under the robot: the free way round is 4 steps long.
    wall = [bot("1-2", 4, 6), bot("2-1", 5, 6, active=False), bot("3-1", 6, 6)]
    state = scene(bot("1-1", 5, 5, facing="S"), *wall, FAR)
    applied = act(state, go("mine", "1-1", 5, 7))
    path = walked(applied, "1-1")
    assert len(path) == 4
    assert not {(4, 6), (5, 6), (6, 6)} & {tuple(c) for c in path}


def test_a_destination_in_range_but_farther_by_free_cells_is_blocked() -> None:
    wall = [bot("1-2", 4, 6), bot("2-1", 5, 6), bot("3-1", 6, 6)]
    state = scene(bot("1-1", 5, 5, facing="S"), *wall, FAR)
    body = reject(state, go("arm_missile", "1-1", 5, 7), code="blocked")
    assert "2" in body["message"]


def test_a_destination_walled_in_by_robots_is_blocked() -> None:
    ring = [(x, y) for y in (9, 10, 11) for x in (9, 10, 11) if (x, y) != (10, 10)]
    robots = [bot(f"2-{n}", x, y) if n <= 5 else bot(f"3-{n - 5}", x, y)
              for n, (x, y) in enumerate(ring, start=1)]  # fmt: skip
    state = scene(bot("1-1", 10, 6), *robots, FAR)
    reject(state, go("move", "1-1", 10, 10), code="blocked")


def test_out_of_range_is_reported_before_blocked() -> None:
    ring = [(x, y) for y in (9, 10, 11) for x in (9, 10, 11) if (x, y) != (10, 10)]
    robots = [bot(f"2-{n}", x, y) if n <= 5 else bot(f"3-{n - 5}", x, y)
              for n, (x, y) in enumerate(ring, start=1)]  # fmt: skip
    state = scene(bot("1-1", 10, 2), *robots, FAR)
    reject(state, go("move", "1-1", 10, 10), code="out_of_range")


def test_a_robot_ends_facing_the_way_of_its_last_step() -> None:
    state = scene(bot("1-1", 5, 5, facing="N"), FAR)
    applied = act(state, go("move", "1-1", 5, 8))
    assert robot(applied.state, "1-1")["facing"] == "S"


# -- the path the engine picks ------------------------------------------------------------


def test_the_picked_path_keeps_the_robots_facing_while_that_stays_shortest() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), FAR)
    applied = act(state, go("move", "1-1", 8, 6))
    assert walked(applied, "1-1") == [[6, 5], [7, 5], [8, 6]]


def test_the_picked_path_otherwise_turns_to_the_direction_closest_to_the_straight_line() -> None:
    # Facing S is not on a shortest path to (8, 7); SE is closer to the line (3, 2) than E.
    state = scene(bot("1-1", 5, 5, facing="S"), FAR)
    applied = act(state, go("move", "1-1", 8, 7))
    assert walked(applied, "1-1") == [[6, 6], [7, 7], [8, 7]]


def test_the_same_destination_is_reached_another_way_from_another_facing() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), FAR)
    applied = act(state, go("move", "1-1", 8, 7))
    assert walked(applied, "1-1") == [[6, 5], [7, 6], [8, 7]]


def test_a_tie_in_angle_goes_to_the_direction_first_in_n_ne_e_se_s_sw_w_nw() -> None:
    # E is blocked; NE and SE are both 45 degrees off the line to (7, 5): NE comes first.
    state = scene(bot("1-1", 5, 5, facing="S"), bot("2-1", 6, 5), FAR)
    assert walked(act(state, go("move", "1-1", 7, 5)), "1-1") == [[6, 4], [7, 5]]
    # N is blocked; NE and NW tie: NE comes first.
    state = scene(bot("1-1", 5, 5, facing="S"), bot("2-1", 5, 4), FAR)
    assert walked(act(state, go("move", "1-1", 5, 3)), "1-1") == [[6, 4], [5, 3]]


def test_keeping_the_facing_beats_the_tie_order() -> None:
    state = scene(bot("1-1", 5, 5, facing="SE"), bot("2-1", 6, 5), FAR)
    assert walked(act(state, go("move", "1-1", 7, 5)), "1-1") == [[6, 6], [7, 5]]


def test_the_picked_path_around_a_wall_is_a_shortest_free_path_chosen_step_by_step() -> None:
    # Going E or W round the wall ties (both at 90 degrees to S): E comes first.
    wall = [bot("1-2", 4, 6), bot("2-1", 5, 6), bot("3-1", 6, 6)]
    state = scene(bot("1-1", 5, 5, facing="S"), *wall, FAR)
    applied = act(state, go("move", "1-1", 5, 7))
    assert walked(applied, "1-1") == [[6, 5], [7, 6], [6, 7], [5, 7]]


def test_the_picked_path_is_the_same_every_time() -> None:
    wall = [bot("2-1", 7, 4), bot("2-2", 7, 5), bot("2-3", 7, 6), bot("3-1", 9, 8)]
    state = scene(bot("1-1", 5, 5, facing="NW"), *wall, FAR)
    paths = {str(walked(act(state, go("move", "1-1", 10, 7)), "1-1")) for _ in range(5)}
    assert len(paths) == 1


# -- a path given in the orders -----------------------------------------------------------


def test_a_given_path_is_walked_as_given_even_if_longer_than_the_shortest() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    path = [[5, 4], [6, 3], [7, 4], [7, 5]]
    applied = act(state, go("move", "1-1", 7, 5, path=path))
    assert walked(applied, "1-1") == path
    assert cell(applied.state, "1-1") == (7, 5)


def test_a_given_path_sets_the_destination_when_to_is_absent() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, {"robot": "1-1", "type": "mine", "path": [[6, 5], [7, 5]]})
    assert cell(applied.state, "1-1") == (7, 5)


def test_a_given_path_must_be_made_of_king_steps() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    body = reject(state, go("move", "1-1", 8, 5, path=[[6, 5], [8, 5]]), code="blocked")
    assert "[8, 5]" in body["message"]


def test_a_given_path_must_start_next_to_the_robot() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    reject(state, go("move", "1-1", 8, 5, path=[[7, 5], [8, 5]]), code="blocked")


@pytest.mark.parametrize("blocker", [bot("2-1", 6, 5, active=False), bot("1-2", 6, 5)])
def test_a_given_path_may_not_cross_a_living_robot(blocker: dict[str, Any]) -> None:
    state = scene(bot("1-1", 5, 5), blocker, FAR)
    body = reject(state, go("move", "1-1", 7, 5, path=[[6, 5], [7, 5]]), code="blocked")
    assert blocker["id"] in body["message"]


def test_a_given_path_may_cross_a_destroyed_robot() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 5, alive=False), FAR)
    applied = act(state, go("move", "1-1", 7, 5, path=[[6, 5], [7, 5]]))
    assert cell(applied.state, "1-1") == (7, 5)
    assert not alive(applied.state, "2-1")


def test_a_given_path_may_not_leave_the_board() -> None:
    state = scene(bot("1-1", 0, 5), FAR)
    reject(state, go("move", "1-1", 0, 7, path=[[-1, 6], [0, 7]]), code="off_board")


def test_a_given_path_longer_than_the_range_is_out_of_range() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    path = [[5, 4], [5, 3], [6, 3], [7, 3], [7, 4]]
    body = reject(state, go("mine", "1-1", 7, 4, path=path), code="out_of_range")
    assert "4" in body["message"]


def test_a_given_path_must_end_at_the_destination() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    reject(state, go("move", "1-1", 8, 5, path=[[6, 5], [7, 5]]), code="bad_shape")


def test_an_empty_path_to_another_cell_is_refused() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    reject(state, go("move", "1-1", 7, 5, path=[]), code="bad_shape")


# -- the picked path against the rule, written out independently -------------------------

_COMPASS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
_STEP = {"N": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (1, 1),
         "S": (0, 1), "SW": (-1, 1), "W": (-1, 0), "NW": (-1, -1)}  # fmt: skip


def rule_path(
    start: tuple[int, int],
    dest: tuple[int, int],
    facing: str,
    robots: set[tuple[int, int]],
    reach: int,
) -> list[list[int]] | None:
    """The path of docs/games/helium3.md, step by step: stay on a shortest free path;
    keep the facing if possible; else the smallest angle to the line to the
    destination; ties N NE E ... NW."""
    dist = {dest: 0}
    frontier = [dest]
    while frontier:
        nxt = []
        for cx, cy in frontier:
            for dx, dy in _STEP.values():
                n = (cx + dx, cy + dy)
                if 0 <= n[0] < 20 and 0 <= n[1] < 20 and n not in dist and n not in robots:
                    dist[n] = dist[(cx, cy)] + 1
                    nxt.append(n)
        frontier = nxt
    if dist.get(start, reach + 1) > reach:
        return None
    path, here = [], start
    while here != dest:
        options = [d for d in _COMPASS
                   if dist.get((here[0] + _STEP[d][0], here[1] + _STEP[d][1])) == dist[here] - 1]  # fmt: skip
        if facing not in options:
            line = math.atan2(dest[1] - here[1], dest[0] - here[0])

            def off(d: str, line: float = line) -> float:
                a = abs(math.atan2(_STEP[d][1], _STEP[d][0]) - line) % (2 * math.pi)
                return min(a, 2 * math.pi - a)

            best = min(off(d) for d in options)
            facing = next(d for d in options if off(d) - best < 1e-9)
        here = (here[0] + _STEP[facing][0], here[1] + _STEP[facing][1])
        path.append(list(here))
    return path


def test_the_picked_path_follows_the_rule_on_random_crowded_boards() -> None:
    rng = random.Random(20)
    checked = blocked = 0
    for _ in range(400):
        sx, sy = rng.randrange(20), rng.randrange(20)
        w = rng.choice([2, 3, 4])  # how tightly the other robots crowd round
        near = [(x, y) for x in range(max(0, sx - w), min(20, sx + w + 1))
                for y in range(max(0, sy - w), min(20, sy + w + 1)) if (x, y) != (sx, sy)]  # fmt: skip
        others = rng.sample(near, min(len(near), rng.randint(3, 15)))
        free = [c for c in near if c not in others]
        if not free:
            continue
        dest, facing = rng.choice(free), rng.choice(_COMPASS)
        kind, reach = rng.choice(RANGES)
        if max(abs(dest[0] - sx), abs(dest[1] - sy)) > reach:
            continue
        robots = [bot(f"{2 + k // 5}-{k % 5 + 1}", x, y) for k, (x, y) in enumerate(others)]
        state = scene(bot("1-1", sx, sy, facing=facing), *robots)
        expected = rule_path((sx, sy), dest, facing, set(others), reach)
        if expected is None:
            reject(state, go(kind, "1-1", *dest), code="blocked")
            blocked += 1
        else:
            assert walked(act(state, go(kind, "1-1", *dest)), "1-1") == expected
            checked += 1
    assert checked > 100 and blocked > 10, (checked, blocked)
