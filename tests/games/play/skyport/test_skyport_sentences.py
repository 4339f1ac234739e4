"""Skyport's events as sentences: one readable sentence per event, an attack told
with the damage it did."""

from __future__ import annotations

import engine
from games.play.skyport.sentences import sentences


def _e(kind: str, **fields: object) -> dict:
    return {"type": kind, "t_ms": 0, "duration_ms": 300, **fields}


def test_the_mortar_and_its_damage_are_one_sentence():
    events = [
        _e("mortar", seat=2, **{"from": [1, 1]}, target=[3, 4], landed=True),
        _e("damage", seat=1, by=2, at=[3, 4], amount=35, points=35),
        _e("damage", seat=2, by=2, at=[2, 4], amount=25, points=0),
    ]
    assert sentences(events) == [
        "Seat 2 fired the mortar at (3, 4): seat 1 took 35 (35 points) and seat 2 itself "
        "took 25 (no points)."
    ]


def test_every_event_type_has_its_sentence():
    events = [
        _e(
            "loadouts",
            players=[
                {"seat": 1, "weapons": ["laser", "mortar"]},
                {"seat": 2, "weapons": ["droid", "laser"]},
            ],
        ),
        _e("move", seat=1, **{"from": [0, 9]}, to=[1, 9], direction="left-down"),
        _e("mine", seat=1, at=[1, 9], resource="rubidium", left=1),
        _e("mine", seat=1, at=[1, 9], resource="rubidium", left=0),
        _e("upgrade", seat=1, weapon="laser", level=2),
        _e("laser", seat=1, **{"from": [1, 9]}, direction="up", tiles=[[0, 8]]),
        _e("droid", seat=2, **{"from": [5, 5]}, path=[[4, 4], [3, 3]], at=[3, 3]),
        _e("damage", seat=1, by=2, at=[3, 3], amount=22, points=22),
        _e("mortar", seat=2, **{"from": [5, 5]}, target=[6, 6], landed=False),
        _e("death", seat=1, by=2, at=[3, 3]),
        _e("penalty", seat=1, points=-40, reason="death"),
        _e("skip", seat=1),
        _e("respawn", seat=1, at=[0, 9]),
        _e("penalty", seat=2, points=-10, reason="no_action"),
        _e("penalty", seat=2, points=-10, reason="on_spawn"),
        _e("over", winners=[2]),
        _e("over", winners=[1, 2]),
        _e("comet", seat=1),
    ]
    assert sentences(events) == [
        "The loadouts are revealed: seat 1 laser and mortar; seat 2 droid and laser.",
        "Seat 1 moved left-down from (0, 9) to (1, 9).",
        "Seat 1 mined rubidium at (1, 9) (1 left).",
        "Seat 1 mined rubidium at (1, 9) (mined out).",
        "Seat 1 upgraded the laser to level 2.",
        "Seat 1 fired the laser up from (1, 9) across 1 tile: nobody was hit.",
        "Seat 2 sent the droid 2 steps from (5, 5); it exploded at (3, 3): seat 1 took 22 "
        "(22 points).",
        "Seat 2 fired the mortar at (6, 6), where it could not land and did nothing: nobody "
        "was hit.",
        "Seat 1 died at (3, 3), killed by seat 2.",
        "Seat 1 lost 40 points: it died.",
        "Seat 1 is dead: its turn is skipped.",
        "Seat 1 is back on its spawn at (0, 9), with full health.",
        "Seat 2 lost 10 points: no action this turn.",
        "Seat 2 lost 10 points: it ended its turn on its spawn.",
        "The match is over: seat 2 wins.",
        "The match is over: seats 1 and 2 share the win.",
        "Comet.",
    ]


def test_a_death_by_ones_own_shot_says_so_and_odd_fields_do_not_fail():
    assert sentences([_e("death", seat=3, by=3, at=[1, 1])]) == [
        "Seat 3 died at (1, 1), killed by its own shot."
    ]
    assert sentences([_e("move", seat=1, **{"from": "x"}, to=None)]) == [
        "Seat 1 moved None from (?) to (?)."
    ]


def test_every_event_of_a_played_match_reads_as_a_sentence():
    state = engine.new_game(seed=7, seats=3, ruleset="skyport")
    told: list[str] = []
    kinds: set[str] = set()
    while not state["over"]:
        orders = [engine.bot_orders("prospector", state, s) for s in engine.awaiting(state)]
        applied = engine.apply(state, orders if len(orders) > 1 else orders[0])
        state = applied.state
        kinds |= {e["type"] for e in applied.events}
        told += sentences(applied.events)
    assert told and all(line[0].isupper() and line.endswith(".") for line in told)
    assert not [line for line in told if "(?)" in line or "None" in line]
    assert {"loadouts", "over"} <= kinds
