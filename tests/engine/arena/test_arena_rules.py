"""Each rule of docs/games/arena.md, with the seed's numbers, and the refusal of every
illegal build or step (refused with an error, nothing changes)."""

from __future__ import annotations

import copy
from collections import deque

import pytest
from arena_helpers import built, place, play, refuse, step

import engine
from engine.arena.mapgen import STARTS
from engine.arena.orders import DEFAULT_BUILD, STEP_LIMIT
from engine.arena.state import PARTS
from engine.errors import EngineError

OPEN = [[4, 4], [5, 5]]  # two obstacles, so that tests place robots anywhere else
FULL = ["engine2", "radar2", "gun"]


def build_refused(parts: list[str], code: str = "bad_build") -> str:
    state = engine.new_game(seed=1, seats=2, ruleset="arena")
    before = copy.deepcopy(state)
    orders = [{"seat": 1, "turn": 0, "build": parts}, {"seat": 2, "turn": 0, "build": []}]
    with pytest.raises(EngineError) as caught:
        engine.apply(state, orders)
    assert caught.value.code == code
    assert state == before
    return caught.value.message


# --- the arena ---------------------------------------------------------------------------


def test_arena_is_10_by_10_with_seats_in_the_corners() -> None:
    state = engine.new_game(seed=5, seats=4, ruleset="arena")
    assert (state["width"], state["height"]) == (10, 10)
    assert [(r["x"], r["y"]) for r in state["robots"]] == [(0, 0), (9, 9), (9, 0), (0, 9)]
    assert state["phase"] == "build" and state["awaiting"] == [1, 2, 3, 4]


@pytest.mark.parametrize("seed", range(60))
def test_arena_obstacles_are_10_to_16_point_symmetric_and_leave_every_cell_reachable(
    seed: int,
) -> None:
    cells = {tuple(c) for c in engine.new_game(seed=seed, ruleset="arena")["obstacles"]}
    assert 10 <= len(cells) <= 16
    assert all((9 - x, 9 - y) in cells for x, y in cells)
    assert not cells & set(STARTS)
    free = {(x, y) for x in range(10) for y in range(10)} - cells
    for start in STARTS:
        seen, todo = {start}, deque([start])
        while todo:
            x, y = todo.popleft()
            for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if nxt in free and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        assert seen == free


def test_arena_obstacles_come_from_the_seed() -> None:
    one = engine.new_game(seed=11, ruleset="arena")["obstacles"]
    assert one == engine.new_game(seed=11, ruleset="arena")["obstacles"]
    assert any(engine.new_game(seed=s, ruleset="arena")["obstacles"] != one for s in (12, 13))


def test_arena_rounds_option_is_10_to_200_default_40() -> None:
    assert engine.new_game(seed=1, ruleset="arena")["rounds"] == 40
    assert engine.new_game(seed=1, ruleset="arena", options={"rounds": 10})["rounds"] == 10
    for bad in (9, 201):
        with pytest.raises(EngineError):
            engine.new_game(seed=1, ruleset="arena", options={"rounds": bad})


# --- building ------------------------------------------------------------------------------


def test_arena_capacity_is_10() -> None:
    state = built(["engine3", "cannon"], ["shield3", "radar1", "gun"], obstacles=OPEN)
    assert state["robots"][0]["parts"] == ["engine3", "cannon"]
    assert "12" in build_refused(["engine3", "gun", "radar1", "shield1"])
    build_refused(["engine2", "radar2", "shield1", "cannon"])


def test_arena_parts_take_their_capacity() -> None:
    expected = {
        "engine1": 2, "engine2": 4, "engine3": 6, "radar1": 2, "radar2": 4, "radar3": 6,
        "shield1": 2, "shield2": 4, "shield3": 6, "gun": 2, "cannon": 4,
    }  # fmt: skip
    assert {p: v[1] for p, v in PARTS.items()} == expected
    # radar3 (6) + cannon (4) fills 10 exactly; one more part of 2 is refused.
    built(["radar3", "cannon"], [], obstacles=OPEN)
    build_refused(["radar3", "cannon", "engine1"])


def test_arena_one_part_of_a_kind() -> None:
    assert "engine" in build_refused(["engine1", "engine2"])
    assert "weapon" in build_refused(["gun", "cannon"])
    build_refused(["radar1", "radar1"])
    build_refused(["shield1", "shield2"])


def test_arena_unknown_parts_and_bad_builds_are_refused() -> None:
    build_refused(["laser"])
    build_refused("gun", code="bad_shape")  # type: ignore[arg-type]


def test_arena_health_is_10_plus_shield_2_4_8() -> None:
    for shield, health in (("shield1", 12), ("shield2", 14), ("shield3", 18)):
        state = built([shield], [], obstacles=OPEN)
        robot = state["robots"][0]
        assert (robot["health"], robot["max_health"]) == (health, health)
        assert state["scores"] == {"1": health, "2": 10}


def test_arena_builds_are_hidden_until_all_have_built() -> None:
    state = engine.new_game(seed=1, seats=2, ruleset="arena")
    with pytest.raises(EngineError) as caught:
        engine.apply(state, {"seat": 1, "turn": 0, "build": ["gun"]})
    assert caught.value.code == "bad_shape"  # both seats' builds are resolved together
    applied = engine.apply(
        state,
        [{"seat": 1, "turn": 0, "build": ["gun"]}, {"seat": 2, "turn": 0, "build": ["cannon"]}],
    )
    assert engine.events_view(applied.events, 1, ruleset="arena") == [
        {"type": "built", "t_ms": 0, "duration_ms": 600, "parts": {"1": ["gun"]}}
    ]
    assert "cannon" not in str(engine.view(applied.state, 1))
    assert applied.state["phase"] == "play" and applied.state["awaiting"] == [1]


def test_arena_default_build_at_the_deadline_and_end_in_play() -> None:
    state = engine.new_game(seed=1, seats=2, ruleset="arena")
    orders = engine.default_orders(state, 2)
    assert orders == {"seat": 2, "turn": 0, "build": DEFAULT_BUILD}
    assert sum(PARTS[p][1] for p in DEFAULT_BUILD) <= 10
    state = engine.apply(state, [engine.default_orders(state, 1), orders]).state
    assert engine.default_orders(state, 1) == {
        "seat": 1, "turn": 1, "step_no": 0, "step": {"type": "end"}
    }  # fmt: skip


# --- steps -------------------------------------------------------------------------------


@pytest.mark.parametrize(("engine_part", "steps"), [("engine1", 2), ("engine2", 4), ("engine3", 6)])
def test_arena_engine_gives_2_4_6_steps_a_turn(engine_part: str, steps: int) -> None:
    state = place(built([engine_part], [], obstacles=OPEN), 1, 0, 0)
    assert state["robots"][0]["steps_left"] == steps
    state = play(state, "move", path=["down"])
    # split over several moves, never more than the engine's steps in the whole turn
    refuse(state, "move", "illegal_step", path=["right"] * steps)
    state = play(state, "move", path=["right"] * (steps - 1))
    assert (state["robots"][0]["x"], state["robots"][0]["y"]) == (steps - 1, 1)
    assert state["robots"][0]["steps_left"] == 0 and state["step"] == 2
    refuse(state, "move", "illegal_step", path=["up"])


def test_arena_no_engine_cannot_move() -> None:
    refuse(built(["gun"], [], obstacles=OPEN), "move", "illegal_step", path=["right"])


def test_arena_no_diagonal_moves() -> None:
    state = built(["engine3"], [], obstacles=OPEN)
    for bad in (["up-right"], ["down", "diagonal"], [], "down", [[1, 1]]):
        refuse(state, "move", "bad_shape", path=bad)


def test_arena_moves_are_blocked_by_obstacles_robots_and_the_edge() -> None:
    state = place(built(["engine3"], [], obstacles=OPEN), 1, 3, 4)
    place(state, 2, 3, 6)
    refuse(state, "move", "blocked", path=["right"])  # (4, 4) is an obstacle
    refuse(state, "move", "occupied", path=["down", "down"])
    refuse(state, "move", "off_board", path=["left", "left", "left", "left"])
    refuse(state, "move", "blocked", path=["up", "right", "down"])  # through it, not just onto


def test_arena_radar_scans_chebyshev_1_3_6_centred_on_the_robot() -> None:
    for radar, radius in (("radar1", 1), ("radar2", 3), ("radar3", 6)):
        state = place(built([radar], [], obstacles=OPEN), 1, 2, 2)
        applied = step(state, "scan")
        cells = {
            (x, y)
            for x in range(max(0, 2 - radius), min(10, 2 + radius + 1))
            for y in range(max(0, 2 - radius), min(10, 2 + radius + 1))
        }
        (event,) = applied.events
        assert event["radius"] == radius and event["at"] == [2, 2]
        assert set(event["cells"]) == {f"{x},{y}" for x, y in cells}
        assert set(applied.state["knowledge"]["1"]) == set(event["cells"])


def test_arena_scan_shows_empty_obstacle_and_robot_with_turn_and_step() -> None:
    state = place(built(["radar2", "engine1"], [], obstacles=OPEN), 1, 3, 3)
    place(state, 2, 5, 4)
    state = play(state, "move", path=["left"])
    state = play(state, "scan")
    known = state["knowledge"]["1"]
    assert known["4,4"] == ["obstacle", None, 1, 1]
    assert known["5,4"] == ["robot", 2, 1, 1]
    assert known["3,3"] == ["empty", None, 1, 1]
    assert known["2,3"] == ["robot", 1, 1, 1]
    assert known["5,5"][0] == "obstacle" and "6,3" not in known  # 3 away, and 4 away
    state = play(state, "scan")  # any number of scans
    assert state["knowledge"]["1"]["5,4"][3] == 2


def test_arena_no_radar_cannot_scan() -> None:
    refuse(built(["gun"], [], obstacles=OPEN), "scan", "illegal_step")


def test_arena_knowledge_keeps_the_latest_scan_and_robots_where_seen() -> None:
    state = place(built(["radar1", "engine1"], ["engine1"], obstacles=OPEN), 1, 3, 5)
    place(state, 2, 2, 5)
    state = play(play(state, "scan"), "end")
    state = play(play(state, "move", path=["down", "down"]), "end")  # seat 2 leaves
    known = state["knowledge"]["1"]
    assert known["2,5"] == ["robot", 2, 1, 0]  # where it was seen
    assert known["4,4"][0] == "obstacle"
    state = play(play(state, "move", path=["right"]), "scan")
    assert state["knowledge"]["1"]["4,4"] == ["obstacle", None, 3, 1]  # obstacles stay known
    assert state["knowledge"]["1"]["2,5"] == ["robot", 2, 1, 0]  # not rescanned


def test_arena_gun_hits_for_3_within_distance_3() -> None:
    state = place(built(["gun"], [], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 4, 3)
    refuse(state, "shoot", "out_of_range", target=[5, 1])  # distance 4
    applied = step(state, "shoot", target=[4, 3])
    assert applied.state["robots"][1]["health"] == 7
    assert applied.state["scores"]["2"] == 7
    shot, damage = applied.events
    assert shot["weapon"] == "gun" and shot["hit"] == 2 and shot["target"] == [4, 3]
    assert (damage["type"], damage["seat"], damage["by"], damage["damage"]) == ("damage", 2, 1, 3)


def test_arena_cannon_hits_for_8_within_distance_1_every_second_turn() -> None:
    state = place(built(["cannon"], ["shield3"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 2, 2)
    refuse(state, "shoot", "out_of_range", target=[3, 3])
    state = play(state, "shoot", target=[2, 2])
    assert state["robots"][1]["health"] == 10 and state["robots"][0]["reload"] == 2
    state = play(play(state, "end"), "end")  # seat 1's next turn: reload falls to 1
    assert state["robots"][0]["reload"] == 1
    refuse(state, "shoot", "illegal_step", target=[2, 2])
    state = play(play(play(state, "end"), "end"), "shoot", target=[2, 2])
    assert state["robots"][1]["health"] == 2


def test_arena_shot_at_most_once_a_turn() -> None:
    state = place(built(["gun"], ["shield3"], obstacles=OPEN), 1, 1, 1)
    state = play(state, "shoot", target=[2, 2])  # a miss still counts
    assert state["robots"][0]["shot"] is True
    refuse(state, "shoot", "illegal_step", target=[2, 1])
    state = play(play(play(state, "end"), "end"), "shoot", target=[2, 1])
    assert state["robots"][0]["shot"] is True


def test_arena_never_shoots_its_own_cell_nor_without_a_weapon() -> None:
    state = place(built(["gun"], [], obstacles=OPEN), 1, 1, 1)
    refuse(state, "shoot", "out_of_range", target=[1, 1])
    refuse(state, "shoot", "off_board", target=[-1, 1])
    refuse(state, "shoot", "bad_shape", target=[1])
    refuse(built(["radar1"], [], obstacles=OPEN), "shoot", "not_armed", target=[1, 0])


def test_arena_destroyed_at_0_health_leaves_the_board_and_the_last_robot_wins() -> None:
    state = place(built(["cannon"], ["gun"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 1, 2)
    state["robots"][1]["health"] = 5
    applied = step(state, "shoot", target=[1, 2])
    after = applied.state
    assert after["robots"][1]["health"] == 0 and after["robots"][1]["alive"] is False
    assert [e["type"] for e in applied.events] == ["shot", "damage", "destroyed", "over"]
    assert after["over"] and after["winners"] == [1] and after["awaiting"] == []
    with pytest.raises(EngineError) as caught:
        step(after, "end")
    assert caught.value.code == "match_over"


def test_arena_destroyed_seats_are_skipped_and_their_cell_is_free() -> None:
    state = place(built(["cannon", "engine1"], ["gun"], ["gun"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 1, 2)
    state["robots"][1]["health"] = 8
    state = play(state, "shoot", target=[1, 2])
    assert not state["over"]
    state = play(play(state, "move", path=["down"]), "end")
    assert state["awaiting"] == [3]  # seat 2 is skipped
    state = play(state, "end")
    assert state["awaiting"] == [1] and state["round"] == 2


def test_arena_after_rounds_most_health_wins_ties_share() -> None:
    state = built(["shield1"], ["shield1"], ["gun"], rounds=10, obstacles=OPEN)
    for _ in range(10 * 3 - 1):
        state = play(state, "end")
    assert not state["over"] and state["round"] == 10 and state["awaiting"] == [3]
    applied = step(state, "end")
    assert applied.state["over"] and applied.state["winners"] == [1, 2]
    assert applied.events[-1]["type"] == "over" and applied.state["turn"] == 31


def test_arena_turn_counts_turns_and_step_counts_steps() -> None:
    state = built(["radar1"], [], obstacles=OPEN)
    assert (state["turn"], state["step"]) == (1, 0)
    state = play(play(state, "scan"), "scan")
    assert (state["turn"], state["step"]) == (1, 2)
    with pytest.raises(EngineError) as caught:
        engine.apply(state, {"seat": 1, "turn": 1, "step_no": 1, "step": {"type": "scan"}})
    assert caught.value.code == "stale_turn"
    state = play(state, "end")
    assert (state["turn"], state["step"], state["awaiting"]) == (2, 0, [2])


def test_arena_a_turn_has_at_most_40_steps_then_only_end() -> None:
    state = built(["radar1"], [], obstacles=OPEN)
    for _ in range(STEP_LIMIT):
        state = play(state, "scan")
    refuse(state, "scan", "illegal_step")
    assert play(state, "end")["awaiting"] == [2]


def test_arena_orders_of_the_wrong_seat_shape_or_phase_are_refused() -> None:
    state = built(["radar1"], [], obstacles=OPEN)
    before = copy.deepcopy(state)
    bad = [
        ({"seat": 2, "turn": 1, "step": {"type": "end"}}, "not_your_turn"),
        ({"seat": 1, "turn": 0, "step": {"type": "end"}}, "stale_turn"),
        ({"seat": 1, "turn": 1, "step": {"type": "dance"}}, "bad_shape"),
        ({"seat": 1, "turn": 1, "step": {"type": "scan", "x": 1}}, "bad_shape"),
        ({"seat": 1, "turn": 1, "build": ["gun"]}, "bad_shape"),
        ({"seat": 1, "turn": 1}, "bad_shape"),
    ]
    for orders, code in bad:
        with pytest.raises(EngineError) as caught:
            engine.apply(state, orders)
        assert caught.value.code == code, orders
        with pytest.raises(EngineError):
            engine.check(state, orders)
    assert state == before


def test_arena_an_inconsistent_state_is_bad_state() -> None:
    state = built(["radar1"], [], obstacles=OPEN)
    place(state, 2, 0, 0)
    with pytest.raises(EngineError) as caught:
        play(state, "end")
    assert caught.value.code == "bad_state"


@pytest.mark.parametrize(
    ("field", "value"),
    [("scores", None), ("scores", {"1": "a", "2": 1}), ("knowledge", {"1": {}, "2": []}),
     ("winners", "x"), ("robots", [1, 2]), ("obstacles", [[1]]), ("phase", "dance")],
)  # fmt: skip
def test_arena_a_malformed_state_is_bad_state_for_every_entry_point(
    field: str, value: object
) -> None:
    state = built(["radar1"], [], obstacles=OPEN)
    state[field] = value
    for call in (
        lambda: engine.view(state, 1),
        lambda: engine.scores(state),
        lambda: engine.awaiting(state),
        lambda: play(state, "end"),
    ):
        with pytest.raises(EngineError) as caught:
            call()
        assert caught.value.code == "bad_state"
