"""The arena's events as sentences, one per event type, from a viewer's copy."""

from __future__ import annotations

import engine
from games.play.arena.sentences import sentences


def _e(kind: str, **fields: object) -> dict[str, object]:
    return {"type": kind, "t_ms": 0, "duration_ms": 300, **fields}


def test_a_scan_tells_its_cells_and_the_robots_it_found():
    cells = {"3,4": ["robot", 1], "4,5": ["robot", 2], "2,3": ["obstacle", None]}
    cells |= {f"{x},9": ["empty", None] for x in range(6)}
    said = sentences([_e("scan", seat=1, at=[3, 4], radius=1, cells=cells)])
    assert said == ["Seat 1 scanned 9 cells around (3, 4): seat 2's robot at (4, 5), 1 obstacle."]
    empty = sentences([_e("scan", seat=1, at=[0, 0], radius=1, cells={"0,0": ["robot", 1]})])
    assert empty == ["Seat 1 scanned 1 cell around (0, 0): no robot."]


def test_being_hit_tells_the_shooter_and_the_damage_only():
    assert sentences([_e("hit", seat=1, by=2, damage=3)]) == ["Seat 2 hit you for 3."]


def test_moves_shots_damage_destruction_turn_ends_and_the_end():
    events = [
        _e("move", seat=1, **{"from": [0, 0]}, to=[2, 1], path=[[1, 0], [2, 0], [2, 1]]),
        _e("shot", seat=1, **{"from": [2, 1]}, target=[4, 3], weapon="gun", hit=2),
        _e("shot", seat=1, **{"from": [2, 1]}, target=[3, 3], weapon="cannon", hit=None),
        _e("damage", seat=2, by=1, damage=3, health=7),
        _e("destroyed", seat=2, by=1),
        _e("turn_end", seat=1),
        _e("over", winners=[1]),
        _e("over", winners=[1, 3]),
    ]
    assert sentences(events) == [
        "Seat 1 moved 3 cells from (0, 0) to (2, 1).",
        "Seat 1 fired the gun from (2, 1) at (4, 3): it hit seat 2.",
        "Seat 1 fired the cannon from (2, 1) at (3, 3): it hit nothing.",
        "Seat 2 took 3 from seat 1 (7 health left).",
        "Seat 2's robot was destroyed by seat 1.",
        "Seat 1 ended its turn.",
        "The match is over: seat 1 wins.",
        "The match is over: seats 1 and 3 share the win.",
    ]


def test_the_build_tells_only_the_parts_in_the_viewers_copy():
    state = engine.new_game(seed=4, ruleset="arena", seats=2)
    builds = [
        {"seat": 1, "turn": 0, "build": ["engine2", "radar2", "gun"]},
        {"seat": 2, "turn": 0, "build": ["engine1", "radar1", "shield3"]},
    ]
    events = engine.apply(state, builds).events
    mine = sentences(engine.events_view(events, 1, ruleset="arena"))
    assert mine == ["The robots are built: seat 1 engine2, radar2 and gun."]
    assert "shield3" not in repr(mine)
    # A spectator learns no build while the match runs; everyone every build once over.
    assert sentences(engine.events_view(events, None, ruleset="arena")) == ["The robots are built."]
    everyone = sentences(engine.events_view(events, None, over=True, ruleset="arena"))
    assert everyone == [
        "The robots are built: seat 1 engine2, radar2 and gun; seat 2 engine1, radar1 and shield3."
    ]
    assert sentences([_e("built", parts={})]) == ["The robots are built."]


def test_an_unknown_or_malformed_event_is_still_a_sentence():
    assert sentences([_e("sparks")]) == ["Sparks."]
    assert sentences([_e("move", seat=1, path=None)]) == ["Seat 1 moved 0 cells from (?) to (?)."]
