"""Resolution: every seat's build at once, then one step of a turn at a time, with the
events of its animation timeline (`t_ms`, `duration_ms`).

`resolve_builds` and `resolve_step` change the state they are given: `api.apply` gives
them the deep copy `parse` returns, and every build or step is checked before anything
changes, so a refused one (an EngineError) leaves the given state as it was.
"""

from __future__ import annotations

from typing import Any

from engine.arena.orders import aim, check_step, read_build, read_header, walk
from engine.arena.state import (
    HEIGHT,
    PARTS,
    WIDTH,
    engine_steps,
    max_health,
    radar_radius,
    robot_of,
)
from engine.core import Applied, Event
from engine.errors import OrdersError, ShapeError

CANNON_RELOAD = 2
STEP_MS = 400
MOVE_CELL_MS = 150
BUILD_MS = 600


def _key(x: int, y: int) -> str:
    return f"{x},{y}"


def make_event(kind: str, t_ms: int, duration_ms: int, **fields: Any) -> Event:
    return {"type": kind, "t_ms": t_ms, "duration_ms": duration_ms, **fields}


def _start_turn(state: dict[str, Any], seat: int) -> None:
    robot = robot_of(state, seat)
    robot.update(
        steps_left=engine_steps(robot["parts"]), shot=False, reload=max(0, robot["reload"] - 1)
    )
    state.update(step=0, awaiting=[seat])


def resolve_builds(state: dict[str, Any], orders: list[Any]) -> Applied:
    builds: dict[int, list[str]] = {}
    for given in orders:
        seat = read_header(state, given, "build")
        if seat in builds:
            raise OrdersError("not_your_turn", f"Seat {seat} gives two builds.")
        builds[seat] = read_build(given["build"])
    missing = [s for s in state["awaiting"] if s not in builds]
    if missing:
        raise ShapeError("bad_shape", f"Every seat builds at once; seat {missing[0]} is missing.")
    for seat, parts in builds.items():
        robot = robot_of(state, seat)
        health = max_health(parts)
        robot.update(parts=parts, health=health, max_health=health)
        state["scores"][str(seat)] = health
    state.update(phase="play", turn=state["turn"] + 1)
    _start_turn(state, 1)
    event = make_event("built", 0, BUILD_MS, parts={str(s): builds[s] for s in sorted(builds)})
    return Applied(state, [event], BUILD_MS)


def _scan(state: dict[str, Any], robot: dict[str, Any]) -> Event:
    radius = radar_radius(robot["parts"])
    obstacles = {(c[0], c[1]) for c in state["obstacles"]}
    robots = {(r["x"], r["y"]): r["seat"] for r in state["robots"] if r["alive"]}
    known = state["knowledge"][str(robot["seat"])]
    cells: dict[str, list[Any]] = {}
    for y in range(max(0, robot["y"] - radius), min(HEIGHT, robot["y"] + radius + 1)):
        for x in range(max(0, robot["x"] - radius), min(WIDTH, robot["x"] + radius + 1)):
            if (x, y) in robots:
                seen: list[Any] = ["robot", robots[(x, y)]]
            elif (x, y) in obstacles:
                seen = ["obstacle", None]
            else:
                seen = ["empty", None]
            cells[_key(x, y)] = seen
            known[_key(x, y)] = [*seen, state["turn"], state["step"]]
    return make_event(
        "scan", 0, STEP_MS, seat=robot["seat"], at=[robot["x"], robot["y"]], radius=radius,
        cells=cells,
    )  # fmt: skip


def _shoot(state: dict[str, Any], robot: dict[str, Any], target: list[int]) -> list[Event]:
    weapon, tx, ty = aim(state, robot, target)
    seat = robot["seat"]
    robot["shot"] = True
    if weapon == "cannon":
        robot["reload"] = CANNON_RELOAD
    victim = next((r for r in state["robots"] if r["alive"] and (r["x"], r["y"]) == (tx, ty)), None)
    events = [
        make_event(
            "shot", 0, STEP_MS, seat=seat, **{"from": [robot["x"], robot["y"]]},
            target=[tx, ty], weapon=weapon, hit=None if victim is None else victim["seat"],
        )
    ]  # fmt: skip
    if victim is None:
        return events
    damage = PARTS[weapon][2]
    victim["health"] = max(0, victim["health"] - damage)
    state["scores"][str(victim["seat"])] = victim["health"]
    events.append(
        make_event(
            "damage", STEP_MS // 2, STEP_MS // 2, seat=victim["seat"], by=seat, damage=damage,
            health=victim["health"],
        )
    )  # fmt: skip
    if victim["health"] == 0:
        victim["alive"] = False
        events.append(make_event("destroyed", STEP_MS, STEP_MS // 2, seat=victim["seat"], by=seat))
        living = [r["seat"] for r in state["robots"] if r["alive"]]
        if len(living) == 1:
            _finish(state, living, events, STEP_MS + STEP_MS // 2)
    return events


def _finish(state: dict[str, Any], winners: list[int], events: list[Event], t_ms: int) -> None:
    state.update(over=True, awaiting=[], winners=winners)
    events.append(make_event("over", t_ms, 0, winners=winners))


def _end_turn(state: dict[str, Any], seat: int, events: list[Event], t_ms: int) -> None:
    events.append(make_event("turn_end", t_ms, 0, seat=seat))
    state["turn"] += 1
    living = [r["seat"] for r in state["robots"] if r["alive"]]
    after = [s for s in living if s > seat]
    if after:
        _start_turn(state, after[0])
        return
    state["round"] += 1
    if state["round"] > state["rounds"]:
        state["round"] = state["rounds"]
        best = max(robot_of(state, s)["health"] for s in living)
        state["step"] = 0
        _finish(state, [s for s in living if robot_of(state, s)["health"] == best], events, t_ms)
        return
    _start_turn(state, living[0])


def resolve_step(state: dict[str, Any], orders: Any) -> Applied:
    seat = read_header(state, orders, "step")
    step = orders["step"]
    check_step(state, seat, step)
    robot = robot_of(state, seat)
    kind = step["type"]
    events: list[Event] = []
    turn_ms = STEP_MS
    if kind == "scan":
        events.append(_scan(state, robot))
    elif kind == "move":
        cells = walk(state, robot, step["path"])
        start = [robot["x"], robot["y"]]
        robot.update(x=cells[-1][0], y=cells[-1][1], steps_left=robot["steps_left"] - len(cells))
        turn_ms = MOVE_CELL_MS * len(cells)
        events.append(
            make_event("move", 0, turn_ms, seat=seat, **{"from": start}, to=cells[-1], path=cells)
        )
    elif kind == "shoot":
        events.extend(_shoot(state, robot, step["target"]))
        turn_ms = STEP_MS * 2 if len(events) > 2 else STEP_MS
    if kind == "end":
        _end_turn(state, seat, events, 0)
        turn_ms = STEP_MS
    elif not state["over"]:
        state["step"] += 1
    return Applied(state, events, turn_ms)
