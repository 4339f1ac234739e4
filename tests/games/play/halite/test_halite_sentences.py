"""Halite's events as sentences: each kind told one by one while a turn has few, per
seat past that (a big map's turn stays a few lines), in the order the turn happens."""

from __future__ import annotations

from typing import Any

import engine
from games.play.halite.sentences import DETAIL_MAX, sentences


def _move(seat: int, x: int, y: int, d: int, strength: int) -> dict[str, Any]:
    to = {1: (x, y - 1), 2: (x + 1, y), 3: (x, y + 1), 4: (x - 1, y)}[d]
    return {
        "type": "move",
        "seat": seat,
        "from": [x, y],
        "to": list(to),
        "direction": d,
        "strength": strength,
        "t_ms": 0,
        "duration_ms": 300,
    }


def test_a_move_is_told_with_its_cells_direction_and_strength():
    assert sentences([_move(1, 4, 7, 1, 30)]) == [
        "Seat 1 moved (4, 7) north to (4, 6) with strength 30."
    ]


def test_many_moves_are_counted_per_seat():
    events = [_move(1, i, 0, 2, 10) for i in range(37)] + [_move(2, i, 5, 3, 1) for i in range(5)]
    events += [_move(3, i, 9, 4, 0) for i in range(5)]
    assert sentences(events) == [
        "Seat 1 moved 37 pieces (strength 370 in all).",
        "Seat 2 moved 5 pieces (strength 5 in all).",
        "Seat 3 moved 5 pieces, all of strength 0.",
    ]


def test_merges_say_what_the_cap_took():
    merge = {"type": "merge", "seat": 2, "at": [3, 3], "t_ms": 300, "duration_ms": 100}
    assert sentences([{**merge, "strength": 255, "lost": 45}]) == [
        "Seat 2's pieces merged on (3, 3) into strength 255, 45 lost over the cap of 255."
    ]
    assert sentences([{**merge, "strength": 120, "lost": 0}]) == [
        "Seat 2's pieces merged on (3, 3) into strength 120."
    ]
    many = [{**merge, "at": [i, 0], "strength": 255, "lost": 5} for i in range(DETAIL_MAX + 1)]
    assert sentences(many) == [
        f"Seat 2's pieces merged on {DETAIL_MAX + 1} cells, {5 * (DETAIL_MAX + 1)} strength "
        "lost over the cap of 255."
    ]


def test_damage_and_destruction_one_by_one_then_per_seat():
    hit = {"type": "damage", "seat": 3, "at": [1, 2], "damage": 40, "t_ms": 400, "duration_ms": 200}
    gone = {"type": "destroyed", "seat": 3, "at": [1, 2], "t_ms": 600, "duration_ms": 200}
    assert sentences([hit, gone]) == [
        "Seat 3's piece on (1, 2) took 40 damage.",
        "Seat 3's piece on (1, 2) was destroyed.",
    ]
    hits = [{**hit, "at": [i, 2]} for i in range(6)]
    gones = [{**gone, "at": [i, 2]} for i in range(6)]
    assert sentences(hits + gones) == [
        "Seat 3's pieces took 240 damage on 6 cells.",
        "Seat 3 lost 6 pieces.",
    ]


def test_captures_name_the_cell_and_whose_it_was():
    cap = {"type": "captured", "t_ms": 600, "duration_ms": 200}
    assert sentences([{**cap, "at": [4, 7], "owner": 2, "previous": 1}]) == [
        "Seat 2 took (4, 7) from seat 1."
    ]
    assert sentences([{**cap, "at": [0, 9], "owner": 1, "previous": 0}]) == ["Seat 1 took (0, 9)."]
    assert sentences([{**cap, "at": [5, 5], "owner": 0, "previous": 3}]) == [
        "(5, 5) became neutral again (seat 3 lost it)."
    ]
    many = [{**cap, "at": [i, 0], "owner": 2, "previous": 0} for i in range(9)]
    many += [{**cap, "at": [i, 1], "owner": 2, "previous": 1} for i in range(3)]
    many += [{**cap, "at": [i, 2], "owner": 0, "previous": 1} for i in range(2)]
    assert sentences(many) == [
        "2 cells became neutral again (2 of seat 1's).",
        "Seat 2 took 12 cells (9 neutral, 3 from seat 1).",
    ]


def test_eliminations_and_the_end_are_always_told():
    events = [
        {"type": "eliminated", "seat": 3, "t_ms": 800, "duration_ms": 0},
        {"type": "over", "winners": [1], "ranking": [1, 2, 3], "t_ms": 800, "duration_ms": 0},
    ]
    assert sentences(events) == [
        "Seat 3 lost its last cell and is out.",
        "The match is over: Seat 1 wins. Ranking: 1, 2, 3.",
    ]
    shared = [{"type": "over", "winners": [1, 2], "ranking": [1, 2], "t_ms": 0, "duration_ms": 0}]
    assert sentences(shared) == ["The match is over: Seats 1 and 2 share the win. Ranking: 1, 2."]


def test_a_turns_sentences_follow_the_turn_and_an_unknown_kind_is_still_told():
    events = [
        {"type": "captured", "at": [1, 1], "owner": 1, "previous": 0, "t_ms": 600},
        _move(1, 1, 2, 1, 50),
        {"type": "surprise", "t_ms": 0, "duration_ms": 0},
    ]
    assert sentences(events) == [
        "Seat 1 moved (1, 2) north to (1, 1) with strength 50.",
        "Seat 1 took (1, 1).",
        "Surprise.",
    ]


def test_a_real_turn_of_a_big_map_is_a_few_lines():
    state = engine.new_game(seed=4, seats=6, ruleset="halite", options={"width": 40, "height": 40})
    longest = 0
    for _ in range(60):
        orders = [engine.bot_orders("grower", state, s) for s in engine.awaiting(state)]
        applied = engine.apply(state, orders)
        lines = sentences(engine.events_view(applied.events, None, ruleset="halite"))
        assert all(line.endswith(".") for line in lines)
        longest = max(longest, len(lines))
        state = applied.state
    assert longest <= 6 * 5 + 2
