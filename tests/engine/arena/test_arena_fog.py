"""The fog: a seat's view and events are a function of what it may know (its robot and
its scans), the same guarantee as Helium 3's, tested by varying everything else."""

from __future__ import annotations

import copy
import json
import random

from arena_helpers import built, place, play, step

import engine

OPEN = [[4, 4], [5, 5]]


def blob(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def unseen_variants(state: dict, seat: int) -> list[dict]:
    """States that differ from `state` only in what `seat` does not know: the other
    robots' places now, parts and health, obstacles never scanned,
    other seats' knowledge, and the seed."""
    known = state["knowledge"][str(seat)]
    own = state["robots"][seat - 1]
    rng = random.Random(7)
    out = []
    for _ in range(25):
        other = copy.deepcopy(state)
        other["seed"] = rng.randrange(10**6)
        taken = {(own["x"], own["y"])}
        unknown = [
            [x, y]
            for x in range(10)
            for y in range(10)
            if f"{x},{y}" not in known and (x, y) != (own["x"], own["y"])
        ]
        rng.shuffle(unknown)
        obstacles = [c for c in state["obstacles"] if f"{c[0]},{c[1]}" in known]
        obstacles += unknown[: rng.randrange(0, 6)]
        other["obstacles"] = obstacles
        taken |= {(c[0], c[1]) for c in obstacles}
        for robot in other["robots"]:
            if robot["seat"] == seat:
                continue
            # where it stands now is never known: a scan shows where it was
            free = [[x, y] for x in range(10) for y in range(10) if (x, y) not in taken]
            robot["x"], robot["y"] = rng.choice(free)
            taken.add((robot["x"], robot["y"]))
            parts = rng.choice([["gun"], ["cannon", "engine3"], ["radar3", "shield2"]])
            robot.update(parts=parts, health=rng.randrange(1, 19), max_health=18)
            robot.update(steps_left=rng.randrange(0, 7), reload=rng.randrange(0, 3))
            other["scores"][str(robot["seat"])] = robot["health"]
            other["knowledge"][str(robot["seat"])] = {"0,0": ["empty", None, 0, 0]}
        out.append(other)
    return out


def scanned_state() -> dict:
    state = place(
        built(["radar1", "engine1", "gun"], ["radar3"], ["cannon"], obstacles=OPEN), 1, 1, 1
    )
    place(state, 2, 8, 8)
    place(state, 3, 8, 1)
    return play(state, "scan")


def test_fog_view_is_byte_identical_whatever_the_seat_has_not_scanned() -> None:
    state = scanned_state()
    mine = blob(engine.view(state, 1))
    for other in unseen_variants(state, 1):
        assert blob(engine.view(other, 1)) == mine


def test_fog_view_holds_only_the_own_robot_score_and_knowledge() -> None:
    state = scanned_state()
    seen = engine.view(state, 1)
    assert [r["seat"] for r in seen["robots"]] == [1]
    assert list(seen["knowledge"]) == ["1"] and list(seen["scores"]) == ["1"]
    assert "obstacles" not in seen and "seed" not in seen
    assert seen["awaiting"] == [1] and seen["round"] == 1 and seen["viewer"] == 1


def test_fog_a_scanned_robot_shows_where_it_was_not_its_parts_or_health() -> None:
    state = place(built(["radar2"], ["shield3", "cannon"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 3, 3)
    state = play(state, "scan")
    seen = engine.view(state, 1)
    assert seen["knowledge"]["1"]["3,3"] == ["robot", 2, 1, 0]
    assert "cannon" not in blob(seen) and "18" not in blob(seen["knowledge"])
    other = copy.deepcopy(state)
    other["robots"][1].update(parts=["gun"], health=3, max_health=10)
    other["scores"]["2"] = 3
    assert blob(engine.view(other, 1)) == blob(seen)


def test_fog_another_seats_scans_and_moves_leave_no_trace_in_your_events() -> None:
    state = place(built(["radar1"], ["radar3", "engine2"], obstacles=OPEN), 1, 0, 0)
    place(state, 2, 9, 9)
    state = play(state, "end")
    events = []
    for kind, fields in (("scan", {}), ("move", {"path": ["up", "left"]}), ("scan", {})):
        applied = step(state, kind, **fields)
        events += applied.events
        state = applied.state
    applied = step(state, "end")
    events += applied.events
    mine = engine.events_view(events, 1, ruleset="arena")
    assert mine == [{"type": "turn_end", "t_ms": 0, "duration_ms": 0, "seat": 2}]
    theirs = engine.events_view(events, 2, ruleset="arena")
    assert [e["type"] for e in theirs] == ["scan", "move", "scan", "turn_end"]
    assert engine.events_view(events, None, ruleset="arena") == mine


def test_fog_being_shot_tells_damage_and_shooter_not_position() -> None:
    state = place(built(["gun"], ["shield1"], obstacles=OPEN), 1, 2, 2)
    place(state, 2, 3, 4)
    applied = step(state, "shoot", target=[3, 4])
    hit, damage = engine.events_view(applied.events, 2, ruleset="arena")
    assert hit == {"type": "hit", "t_ms": 0, "duration_ms": 400, "seat": 2, "by": 1, "damage": 3}
    assert damage["type"] == "damage" and damage["health"] == 9 and damage["by"] == 1
    assert "from" not in blob([hit, damage]) and "[2,2]" not in blob([hit, damage])
    # the victim's view does not learn where the shooter is either
    assert "2,2" not in engine.view(applied.state, 2)["knowledge"]["2"]
    shooter = engine.events_view(applied.events, 1, ruleset="arena")
    assert shooter[0]["type"] == "shot" and shooter[0]["hit"] == 2


def test_fog_a_miss_tells_the_target_nothing() -> None:
    state = place(built(["gun"], ["shield1"], ["radar1"], obstacles=OPEN), 1, 2, 2)
    place(state, 2, 3, 4)
    applied = step(state, "shoot", target=[3, 3])
    assert engine.events_view(applied.events, 2, ruleset="arena") == []
    assert engine.events_view(applied.events, 3, ruleset="arena") == []
    assert blob(engine.view(applied.state, 2)) == blob(engine.view(state, 2))


def test_fog_a_third_seat_learns_only_the_destruction() -> None:
    state = place(built(["cannon"], ["gun"], ["radar1"], obstacles=OPEN), 1, 2, 2)
    place(state, 2, 2, 3)
    state["robots"][1]["health"] = 8
    applied = step(state, "shoot", target=[2, 3])
    third = engine.events_view(applied.events, 3, ruleset="arena")
    assert third == [{"type": "destroyed", "t_ms": 400, "duration_ms": 200, "seat": 2, "by": 1}]


def test_fog_a_spectator_knows_only_the_public_facts_while_the_match_runs() -> None:
    state = scanned_state()
    seen = engine.view(state, None)
    assert seen["robots"] == [] and seen["knowledge"] == {} and seen["scores"] == {}
    assert "obstacles" not in seen and "seed" not in seen
    assert seen["players"] == [{"seat": s, "alive": True} for s in (1, 2, 3)]
    assert (seen["round"], seen["awaiting"], seen["viewer"], seen["step"]) == (1, [1], None, 0)
    # Everything a seat's scans showed, every robot, build and health, may vary.
    for seat in (1, 2, 3):
        for other in unseen_variants(state, seat):
            other["knowledge"] = {s: {} for s in other["knowledge"]}
            assert blob(engine.view(other, None)) == blob({**seen})


def test_fog_a_spectator_learns_which_seats_are_still_in() -> None:
    state = place(built(["cannon"], ["gun"], ["radar1"], obstacles=OPEN), 1, 2, 2)
    place(state, 2, 2, 3)
    state["robots"][1]["health"] = 8
    applied = step(state, "shoot", target=[2, 3])
    seen = engine.view(applied.state, None)
    assert [p["alive"] for p in seen["players"]] == [True, False, True]
    public = engine.events_view(applied.events, None, ruleset="arena")
    assert public == [{"type": "destroyed", "t_ms": 400, "duration_ms": 200, "seat": 2, "by": 1}]


def test_fog_a_spectator_perceives_no_scan_move_shot_or_build() -> None:
    state = engine.new_game(seed=4, seats=2, ruleset="arena")
    builds = [{"seat": 1, "turn": 0, "build": ["radar3"]}, {"seat": 2, "turn": 0, "build": ["gun"]}]
    applied = engine.apply(state, builds)
    built_event = engine.events_view(applied.events, None, ruleset="arena")
    assert built_event == [{"type": "built", "t_ms": 0, "duration_ms": 600, "parts": {}}]
    state = place(built(["radar1", "engine2", "gun"], ["shield1"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 8, 8)
    events = []
    for kind, fields in (("scan", {}), ("move", {"path": ["down"]}), ("shoot", {"target": [1, 3]})):
        applied = step(state, kind, **fields)
        events += applied.events
        state = applied.state
        assert engine.view(state, None)["step"] == 0
    assert engine.events_view(events, None, ruleset="arena") == []


def test_fog_another_seat_and_a_spectator_see_the_same_whatever_the_turn_spent() -> None:
    """How seat 1 spends its turn (a scan, a walk, a shot that misses, in any order)
    changes nothing seat 2 or a spectator sees, neither during it nor after."""
    start = place(built(["radar1", "engine3", "gun"], ["shield1"], obstacles=OPEN), 1, 1, 1)
    place(start, 2, 9, 9)
    plans = [
        [("scan", {})],
        [("move", {"path": ["right", "right"]}), ("scan", {})],
        [("shoot", {"target": [1, 3]}), ("move", {"path": ["down"] * 6})],
        [],
    ]
    for viewer in (2, None):
        seen = set()
        for plan in plans:
            state = start
            mid = set()
            for kind, fields in plan:
                state = play(state, kind, **fields)
                mid.add(blob(engine.view(state, viewer)))
            state = play(state, "end")
            assert len(mid) <= 1
            seen.add(blob(engine.view(state, viewer)))
        assert len(seen) == 1, viewer


def test_fog_once_over_every_view_is_full() -> None:
    state = place(built(["cannon"], ["gun"], obstacles=OPEN), 1, 1, 1)
    place(state, 2, 1, 2)
    state["robots"][1]["health"] = 1
    applied = step(state, "shoot", target=[1, 2])
    assert applied.state["over"]
    for seat in (1, 2, None):
        assert engine.view(applied.state, seat) == {**applied.state, "viewer": seat}
        assert engine.events_view(applied.events, seat, over=True, ruleset="arena") == (
            applied.events
        )


def test_fog_the_build_phase_view_hides_the_others() -> None:
    state = engine.new_game(seed=4, seats=3, ruleset="arena")
    seen = engine.view(state, 2)
    assert [r["seat"] for r in seen["robots"]] == [2]
    assert seen["knowledge"] == {"2": {}} and seen["awaiting"] == [1, 2, 3]
    other = engine.new_game(seed=5, seats=3, ruleset="arena")
    assert blob(engine.view(other, 2)) == blob(seen)  # the obstacles are unknown
