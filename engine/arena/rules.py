"""The robot arena's rules (docs/games/arena.md): the state as protocol JSON, the build,
the steps of a turn, and what each seat may know of them.

Every function takes and gives protocol JSON. `apply` works on a deep copy, so a refused
build or step (an EngineError) leaves the given state as it was.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from engine.core import Applied, Event
from engine.errors import OrdersError, ShapeError, StateError

WIDTH = HEIGHT = 10
CAPACITY = 10
BASE_HEALTH = 10
# part -> (kind, capacity it takes, strength: steps, radius, extra health or damage)
PARTS: dict[str, tuple[str, int, int]] = {
    "engine1": ("engine", 2, 2),
    "engine2": ("engine", 4, 4),
    "engine3": ("engine", 6, 6),
    "radar1": ("radar", 2, 1),
    "radar2": ("radar", 4, 3),
    "radar3": ("radar", 6, 6),
    "shield1": ("shield", 2, 2),
    "shield2": ("shield", 4, 4),
    "shield3": ("shield", 6, 8),
    "gun": ("weapon", 2, 3),
    "cannon": ("weapon", 4, 8),
}
WEAPON_RANGE = {"gun": 3, "cannon": 1}
CANNON_RELOAD = 2
STARTS = ((0, 0), (9, 9), (9, 0), (0, 9))
SEAT_COUNTS = (2, 3, 4)
DEFAULT_ROUNDS, MIN_ROUNDS, MAX_ROUNDS = 40, 10, 200
MIN_OBSTACLES, MAX_OBSTACLES = 10, 16
# A seat that gives no build by the deadline gets this one: it can move, see and shoot.
DEFAULT_BUILD = ["engine1", "radar2", "shield1", "gun"]
# Steps of one turn beyond which only `end` is taken: a turn cannot grow without end.
STEP_LIMIT = 40
DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
STEP_TYPES = ("scan", "move", "shoot", "end")
STEP_MS = 400
MOVE_CELL_MS = 150
BUILD_MS = 600


def _key(x: int, y: int) -> str:
    return f"{x},{y}"


def _reachable(blocked: set[tuple[int, int]], start: tuple[int, int]) -> set[tuple[int, int]]:
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in DIRECTIONS.values():
            cell = (x + dx, y + dy)
            if (
                0 <= cell[0] < WIDTH
                and 0 <= cell[1] < HEIGHT
                and cell not in blocked
                and cell not in seen
            ):
                seen.add(cell)
                todo.append(cell)
    return seen


def place_obstacles(seed: int) -> list[list[int]]:
    """10..16 obstacle cells from the seed: point symmetric, never on a start cell (nor,
    by symmetry, on any corner), every empty cell reachable from every start."""
    rng = random.Random(seed)
    corners = set(STARTS)
    free = WIDTH * HEIGHT
    while True:
        count = rng.randrange(MIN_OBSTACLES // 2, MAX_OBSTACLES // 2 + 1)  # pairs
        cells: set[tuple[int, int]] = set()
        while len(cells) < count * 2:
            x, y = rng.randrange(WIDTH), rng.randrange(HEIGHT)
            if (x, y) in corners or (x, y) in cells:
                continue
            cells.add((x, y))
            cells.add((WIDTH - 1 - x, HEIGHT - 1 - y))
        # A 10 x 10 board has no centre cell, so each pair is two cells.
        if len(_reachable(cells, STARTS[0])) == free - len(cells):
            return [list(c) for c in sorted(cells)]


def new_game(*, seed: int, seats: int = 2, rounds: int = DEFAULT_ROUNDS) -> dict[str, Any]:
    if type(seed) is not int:
        raise ShapeError("bad_shape", "The seed is a whole number.")
    if seats not in SEAT_COUNTS:
        raise ShapeError("bad_shape", "The arena takes 2, 3 or 4 seats.")
    if type(rounds) is not int or not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise ShapeError("bad_shape", f"Rounds are {MIN_ROUNDS} to {MAX_ROUNDS}.")
    robots = [
        {
            "seat": s,
            "x": STARTS[s - 1][0],
            "y": STARTS[s - 1][1],
            "health": BASE_HEALTH,
            "max_health": BASE_HEALTH,
            "parts": [],
            "steps_left": 0,
            "shot": False,
            "reload": 0,
            "alive": True,
        }
        for s in range(1, seats + 1)
    ]
    return {
        "ruleset": "arena",
        "seed": seed,
        "width": WIDTH,
        "height": HEIGHT,
        "phase": "build",
        "players": [{"seat": s} for s in range(1, seats + 1)],
        "obstacles": place_obstacles(seed),
        "robots": robots,
        "knowledge": {str(s): {} for s in range(1, seats + 1)},
        "round": 1,
        "rounds": rounds,
        "turn": 0,
        "step": 0,
        "awaiting": list(range(1, seats + 1)),
        "scores": {str(s): BASE_HEALTH for s in range(1, seats + 1)},
        "over": False,
        "winners": [],
    }


# --- reading the state ---------------------------------------------------------------


def _int(value: Any) -> bool:
    return type(value) is int


def parse(state: Any) -> dict[str, Any]:
    """A deep copy of `state` once it is checked to be an arena state that can be."""
    if not isinstance(state, dict) or state.get("ruleset") != "arena":
        raise StateError("An arena state is an object with ruleset 'arena'.")
    needed = [
        "width",
        "height",
        "phase",
        "obstacles",
        "robots",
        "knowledge",
        "round",
        "rounds",
        "turn",
        "step",
        "awaiting",
        "scores",
        "over",
        "winners",
    ]
    missing = [k for k in needed if k not in state]
    if missing:
        raise StateError(f"The arena state lacks {', '.join(missing)}.")
    if state["width"] != WIDTH or state["height"] != HEIGHT:
        raise StateError("The arena is 10 x 10.")
    if state["phase"] not in ("build", "play"):
        raise StateError("The phase is build or play.")
    for name in ("round", "rounds", "turn", "step"):
        if not _int(state[name]) or state[name] < 0:
            raise StateError(f"{name} is a whole number.")
    if not isinstance(state["over"], bool):
        raise StateError("over is true or false.")
    robots = state["robots"]
    if not isinstance(robots, list) or len(robots) not in SEAT_COUNTS:
        raise StateError("The arena has 2 to 4 robots.")
    if state.get("players", [{"seat": r + 1} for r in range(len(robots))]) != [
        {"seat": r + 1} for r in range(len(robots))
    ]:
        raise StateError("players lists each seat, one per robot.")
    obstacles = state["obstacles"]
    if not isinstance(obstacles, list) or any(
        not isinstance(c, list) or len(c) != 2 or not all(_int(v) for v in c) for c in obstacles
    ):
        raise StateError("obstacles is a list of [x, y] cells.")
    cells = {(c[0], c[1]) for c in obstacles}
    for i, robot in enumerate(robots):
        if not isinstance(robot, dict) or robot.get("seat") != i + 1:
            raise StateError("Robots are listed by seat, from 1.")
        for name in ("x", "y", "health", "max_health", "steps_left", "reload"):
            if not _int(robot.get(name)):
                raise StateError(f"Robot {i + 1}'s {name} is a whole number.")
        if not isinstance(robot.get("alive"), bool) or not isinstance(robot.get("shot"), bool):
            raise StateError(f"Robot {i + 1}'s alive and shot are true or false.")
        parts = robot.get("parts")
        if not isinstance(parts, list) or any(
            not isinstance(p, str) or p not in PARTS for p in parts
        ):
            raise StateError(f"Robot {i + 1}'s parts are known parts.")
        if robot["alive"]:
            at = (robot["x"], robot["y"])
            if not (0 <= at[0] < WIDTH and 0 <= at[1] < HEIGHT) or at in cells:
                raise StateError(f"Robot {i + 1} stands on no free cell.")
            cells.add(at)
    knowledge = state["knowledge"]
    if not isinstance(knowledge, dict) or set(knowledge) != {str(r["seat"]) for r in robots}:
        raise StateError("knowledge has an entry for each seat.")
    if any(not isinstance(k, dict) for k in knowledge.values()):
        raise StateError("Each seat's knowledge is an object of cells.")
    scores = state["scores"]
    if (
        not isinstance(scores, dict)
        or set(scores) != set(knowledge)
        or any(not _int(v) for v in scores.values())
    ):
        raise StateError("scores has each seat's health.")
    if not isinstance(state["winners"], list) or any(not _int(s) for s in state["winners"]):
        raise StateError("winners is a list of seats.")
    awaiting = state["awaiting"]
    if not isinstance(awaiting, list) or any(not _int(s) for s in awaiting):
        raise StateError("awaiting is a list of seats.")
    if state["phase"] == "play" and not state["over"] and len(awaiting) != 1:
        raise StateError("In play one seat is awaited.")
    current = copy.deepcopy(state)
    current.setdefault("players", [{"seat": r + 1} for r in range(len(robots))])
    return current


def robot_of(state: dict[str, Any], seat: int) -> dict[str, Any]:
    robot: dict[str, Any] = state["robots"][seat - 1]
    return robot


def part_of(robot: dict[str, Any], kind: str) -> str | None:
    for part in robot["parts"]:
        if PARTS[part][0] == kind:
            return str(part)
    return None


def engine_steps(parts: list[str]) -> int:
    return sum(PARTS[p][2] for p in parts if PARTS[p][0] == "engine")


def radar_radius(parts: list[str]) -> int:
    return sum(PARTS[p][2] for p in parts if PARTS[p][0] == "radar")


def max_health(parts: list[str]) -> int:
    return BASE_HEALTH + sum(PARTS[p][2] for p in parts if PARTS[p][0] == "shield")


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


# --- orders ----------------------------------------------------------------------------


def read_build(parts: Any) -> list[str]:
    """The parts of a build, checked: known, one of each kind, within the capacity."""
    if not isinstance(parts, list) or any(not isinstance(p, str) for p in parts):
        raise ShapeError("bad_shape", "A build is a list of part names.")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise OrdersError(
            "bad_build", f"{unknown[0][:20]!r} is no part; parts are {', '.join(PARTS)}."
        )
    kinds = [PARTS[p][0] for p in parts]
    for kind in kinds:
        if kinds.count(kind) > 1:
            raise OrdersError("bad_build", f"A robot has at most one {kind}.")
    used = sum(PARTS[p][1] for p in parts)
    if used > CAPACITY:
        raise OrdersError("bad_build", f"The parts take {used} capacity; a robot has {CAPACITY}.")
    return list(parts)


def _header(state: dict[str, Any], orders: Any, field: str) -> int:
    allowed = {"seat", "turn", field} | ({"step_no"} if field == "step" else set())
    if not isinstance(orders, dict) or not {"seat", "turn", field} <= set(orders):
        raise ShapeError("bad_shape", f"Orders are an object with seat, turn and {field}.")
    if not set(orders) <= allowed:
        extra = sorted(set(orders) - allowed)[0]
        raise ShapeError("bad_shape", f"Orders have no field {extra[:20]!r} in this phase.")
    seat, turn = orders["seat"], orders["turn"]
    if not _int(seat) or not _int(turn):
        raise ShapeError("bad_shape", "seat and turn are whole numbers.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat not in state["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited now.")
    if turn != state["turn"]:
        raise OrdersError(
            "stale_turn", f"These orders are for turn {turn}; the match is at turn {state['turn']}."
        )
    if "step_no" in orders:
        step_no = orders["step_no"]
        if not _int(step_no):
            raise ShapeError("bad_shape", "step_no is a whole number.")
        if step_no != state["step"]:
            raise OrdersError(
                "stale_turn", f"This is step {step_no}; the turn is at step {state['step']}."
            )
    return int(seat)


def _check_step(state: dict[str, Any], seat: int, step: Any) -> None:
    """Raise unless `step` is legal for `seat` now (the state is not changed)."""
    if not isinstance(step, dict) or step.get("type") not in STEP_TYPES:
        raise ShapeError("bad_shape", "A step is an object whose type is scan, move, shoot or end.")
    kind = step["type"]
    fields = {"scan": {"type"}, "end": {"type"}, "move": {"type", "path"}}
    if set(step) != fields.get(kind, {"type", "target"}):
        raise ShapeError(
            "bad_shape",
            f"A {kind} step has fields {', '.join(sorted(fields.get(kind, {'type', 'target'})))}.",
        )
    if kind == "end":
        return
    if state["step"] >= STEP_LIMIT:
        raise OrdersError("illegal_step", f"A turn has at most {STEP_LIMIT} steps; end it.")
    robot = robot_of(state, seat)
    if kind == "scan":
        if part_of(robot, "radar") is None:
            raise OrdersError("illegal_step", "The robot has no radar to scan with.")
    elif kind == "move":
        _walk(state, robot, step["path"])
    else:
        _aim(state, robot, step["target"])


def _walk(state: dict[str, Any], robot: dict[str, Any], path: Any) -> list[list[int]]:
    if (
        not isinstance(path, list)
        or not path
        or any(not isinstance(d, str) or d not in DIRECTIONS for d in path)
    ):
        raise ShapeError("bad_shape", "A path is a non-empty list of up, down, left, right.")
    if part_of(robot, "engine") is None:
        raise OrdersError("illegal_step", "The robot has no engine to move with.")
    if len(path) > robot["steps_left"]:
        raise OrdersError(
            "illegal_step",
            f"The path is {len(path)} steps; the engine has {robot['steps_left']} left this turn.",
        )
    blocked = {(c[0], c[1]) for c in state["obstacles"]}
    others = {
        (r["x"], r["y"]) for r in state["robots"] if r["alive"] and r["seat"] != robot["seat"]
    }
    x, y = robot["x"], robot["y"]
    cells: list[list[int]] = []
    for direction in path:
        dx, dy = DIRECTIONS[direction]
        x, y = x + dx, y + dy
        if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
            raise OrdersError("off_board", f"Step {len(cells) + 1} of the path leaves the arena.")
        if (x, y) in blocked:
            raise OrdersError("blocked", f"An obstacle stands at ({x}, {y}).")
        if (x, y) in others:
            raise OrdersError("occupied", f"A robot stands at ({x}, {y}).")
        cells.append([x, y])
    return cells


def _aim(state: dict[str, Any], robot: dict[str, Any], target: Any) -> tuple[str, int, int]:
    if not isinstance(target, list) or len(target) != 2 or not all(_int(v) for v in target):
        raise ShapeError("bad_shape", "A target is a cell [x, y].")
    tx, ty = target
    if not (0 <= tx < WIDTH and 0 <= ty < HEIGHT):
        raise OrdersError("off_board", f"({tx}, {ty}) is outside the arena.")
    weapon = part_of(robot, "weapon")
    if weapon is None:
        raise OrdersError("not_armed", "The robot has no weapon.")
    if robot["shot"]:
        raise OrdersError("illegal_step", "The robot has already shot this turn.")
    if weapon == "cannon" and robot["reload"] > 0:
        raise OrdersError("illegal_step", "The cannon is loading: it fires every second turn.")
    far = distance((robot["x"], robot["y"]), (tx, ty))
    if far == 0:
        raise OrdersError("out_of_range", "A robot cannot shoot its own cell.")
    if far > WEAPON_RANGE[weapon]:
        raise OrdersError(
            "out_of_range",
            f"({tx}, {ty}) is {far} cells away; the {weapon} reaches {WEAPON_RANGE[weapon]}.",
        )
    return weapon, tx, ty


def check(state: Any, orders: Any) -> None:
    current = parse(state)
    if current["phase"] == "build":
        _header(current, orders, "build")
        read_build(orders["build"])
        return
    seat = _header(current, orders, "step")
    _check_step(current, seat, orders["step"])


# --- resolving -------------------------------------------------------------------------


def _event(kind: str, t_ms: int, duration_ms: int, **fields: Any) -> Event:
    return {"type": kind, "t_ms": t_ms, "duration_ms": duration_ms, **fields}


def _start_turn(state: dict[str, Any], seat: int) -> None:
    robot = robot_of(state, seat)
    robot.update(
        steps_left=engine_steps(robot["parts"]), shot=False, reload=max(0, robot["reload"] - 1)
    )
    state.update(step=0, awaiting=[seat])


def _resolve_builds(state: dict[str, Any], orders: list[Any]) -> Applied:
    builds: dict[int, list[str]] = {}
    for given in orders:
        seat = _header(state, given, "build")
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
    event = _event("built", 0, BUILD_MS, parts={str(s): builds[s] for s in sorted(builds)})
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
    return _event(
        "scan", 0, STEP_MS, seat=robot["seat"], at=[robot["x"], robot["y"]], radius=radius,
        cells=cells,
    )  # fmt: skip


def _shoot(state: dict[str, Any], robot: dict[str, Any], target: list[int]) -> list[Event]:
    weapon, tx, ty = _aim(state, robot, target)
    seat = robot["seat"]
    robot["shot"] = True
    if weapon == "cannon":
        robot["reload"] = CANNON_RELOAD
    victim = next((r for r in state["robots"] if r["alive"] and (r["x"], r["y"]) == (tx, ty)), None)
    events = [
        _event(
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
        _event(
            "damage", STEP_MS // 2, STEP_MS // 2, seat=victim["seat"], by=seat, damage=damage,
            health=victim["health"],
        )
    )  # fmt: skip
    if victim["health"] == 0:
        victim["alive"] = False
        events.append(_event("destroyed", STEP_MS, STEP_MS // 2, seat=victim["seat"], by=seat))
        living = [r["seat"] for r in state["robots"] if r["alive"]]
        if len(living) == 1:
            _finish(state, living, events, STEP_MS + STEP_MS // 2)
    return events


def _finish(state: dict[str, Any], winners: list[int], events: list[Event], t_ms: int) -> None:
    state.update(over=True, awaiting=[], winners=winners)
    events.append(_event("over", t_ms, 0, winners=winners))


def _end_turn(state: dict[str, Any], seat: int, events: list[Event], t_ms: int) -> None:
    events.append(_event("turn_end", t_ms, 0, seat=seat))
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


def _resolve_step(state: dict[str, Any], orders: Any) -> Applied:
    seat = _header(state, orders, "step")
    step = orders["step"]
    _check_step(state, seat, step)
    robot = robot_of(state, seat)
    kind = step["type"]
    events: list[Event] = []
    turn_ms = STEP_MS
    if kind == "scan":
        events.append(_scan(state, robot))
    elif kind == "move":
        cells = _walk(state, robot, step["path"])
        start = [robot["x"], robot["y"]]
        robot.update(x=cells[-1][0], y=cells[-1][1], steps_left=robot["steps_left"] - len(cells))
        turn_ms = MOVE_CELL_MS * len(cells)
        events.append(
            _event("move", 0, turn_ms, seat=seat, **{"from": start}, to=cells[-1], path=cells)
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


def apply(state: Any, orders: Any) -> Applied:
    """One resolution: every seat's build at once (a list), or one step of a turn."""
    current = parse(state)
    if current["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if current["phase"] == "build":
        return _resolve_builds(current, orders if isinstance(orders, list) else [orders])
    if isinstance(orders, list):
        if len(orders) != 1:
            raise ShapeError("bad_shape", "One seat plays at a time: give one step.")
        orders = orders[0]
    return _resolve_step(current, orders)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """At the deadline: the default build in the build phase; in play, the end of the turn."""
    current = parse(state)
    if current["phase"] == "build":
        return {"seat": seat, "turn": current["turn"], "build": list(DEFAULT_BUILD)}
    return {
        "seat": seat, "turn": current["turn"], "step_no": current["step"], "step": {"type": "end"}
    }  # fmt: skip


def awaiting(state: Any) -> list[int]:
    return list(parse(state)["awaiting"])


def scores(state: Any) -> dict[str, int | float]:
    return dict(parse(state)["scores"])


# --- what a seat knows ------------------------------------------------------------------

PUBLIC = (
    "ruleset",
    "width",
    "height",
    "phase",
    "players",
    "round",
    "rounds",
    "turn",
    "step",
    "awaiting",
)


def view(state: Any, seat: int | None) -> dict[str, Any]:
    """The state for `seat`: its own robot, score and knowledge while the match runs;
    the full state for a spectator (None) and for everyone once it is over."""
    current = parse(state)
    if seat is None or current["over"]:
        return {**current, "viewer": seat}
    if not _int(seat) or not 1 <= seat <= len(current["robots"]):
        raise OrdersError("not_your_turn", f"There is no seat {seat!r} in this match.")
    out = {k: current[k] for k in PUBLIC}
    if seat not in current["awaiting"]:
        out["step"] = 0  # how many steps another seat's turn has taken is its own
    out.update(
        robots=[robot_of(current, seat)],
        knowledge={str(seat): current["knowledge"][str(seat)]},
        scores={str(seat): current["scores"][str(seat)]},
        over=False,
        winners=[],
        viewer=seat,
    )
    return out


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """The events `seat` perceives: its own scans, moves and shots; being hit (damage and
    shooter, no position); every destruction, turn end and the end. A spectator and,
    once the match is over, everyone get them all."""
    if seat is None or over:
        return [dict(e) for e in events]
    out: list[Event] = []
    for event in events:
        kind = event["type"]
        if kind in ("turn_end", "destroyed", "over"):
            out.append(dict(event))
        elif kind == "built":
            parts = event.get("parts", {})
            own = {str(seat): parts[str(seat)]} if str(seat) in parts else {}
            out.append({**event, "parts": own})
        elif kind in ("scan", "move") and event["seat"] == seat:
            out.append(dict(event))
        elif kind == "shot":
            if event["seat"] == seat:
                out.append(dict(event))
            elif event["hit"] == seat:
                damage = PARTS[event["weapon"]][2]
                out.append(
                    _event(
                        "hit", event["t_ms"], event["duration_ms"], seat=seat, by=event["seat"],
                        damage=damage,
                    )
                )  # fmt: skip
        elif kind == "damage" and event["seat"] == seat:
            out.append(dict(event))
    return out
