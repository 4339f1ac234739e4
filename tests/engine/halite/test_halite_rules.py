"""Every rule of a Halite turn (halite.md "One turn"), one test each, with the seed's
examples. Boards are 7 x 7 with no production unless a test gives some; a seat that must
stay in play keeps a piece in a far corner."""

from __future__ import annotations

from halite_helpers import (
    EAST,
    NORTH,
    SOUTH,
    STILL,
    WEST,
    cell,
    of_type,
    position,
    turn,
    without_timing,
)

import engine

FAR = (6, 6)  # no cell of the tests' fights is next to it


# -- step 1: growth ----------------------------------------------------------------------


def test_a_still_piece_grows_by_its_production() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, production={(3, 3): 4, FAR: 2})
    after = turn(state).state
    assert cell(after, 3, 3) == (1, 14)
    assert cell(after, *FAR) == (2, 7)


def test_a_piece_named_with_direction_0_grows_like_one_not_named() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, production={(3, 3): 4})
    named = turn(state, {1: [[3, 3, STILL]]})
    assert named.state == turn(state).state
    assert named.events == []


def test_growth_is_capped_at_255() -> None:
    state = position({(3, 3): (1, 250), FAR: (2, 5)}, production={(3, 3): 10})
    assert cell(turn(state).state, 3, 3) == (1, 255)


def test_a_moving_piece_does_not_grow() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, production={(3, 3): 4, (4, 3): 4})
    after = turn(state, {1: [[3, 3, EAST]]}).state
    assert cell(after, 4, 3) == (1, 10)


def test_neutral_cells_do_not_grow() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, neutral={(0, 3): 9}, production={(0, 3): 5})
    assert cell(turn(state).state, 0, 3) == (0, 9)


# -- step 2: moves and merges -----------------------------------------------------------


def test_a_piece_that_moves_away_leaves_a_piece_of_strength_0() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, production={(3, 3): 4})
    after = turn(state, {1: [[3, 3, NORTH]]}).state
    assert cell(after, 3, 2) == (1, 10)
    assert cell(after, 3, 3) == (1, 0)
    assert after["scores"] == {"1": 2, "2": 1}


def test_a_cell_left_and_entered_by_the_same_seat_holds_the_piece_that_entered() -> None:
    state = position({(2, 3): (1, 30), (3, 3): (1, 20), FAR: (2, 5)})
    applied = turn(state, {1: [[2, 3, EAST], [3, 3, EAST]]})
    assert [cell(applied.state, x, 3) for x in (2, 3, 4)] == [(1, 0), (1, 30), (1, 20)]
    assert of_type(applied.events, "merge") == []


def test_pieces_of_one_seat_on_one_cell_merge_and_the_merge_caps_at_255() -> None:
    state = position(
        {(2, 3): (1, 200), (4, 3): (1, 100), (3, 3): (1, 7), FAR: (2, 5)},
        production={(3, 3): 3},
    )
    applied = turn(state, {1: [[2, 3, EAST], [4, 3, WEST]]})
    assert [cell(applied.state, x, 3) for x in (2, 3, 4)] == [(1, 0), (1, 255), (1, 0)]
    assert [without_timing(e) for e in of_type(applied.events, "merge")] == [
        {"type": "merge", "seat": 1, "at": [3, 3], "strength": 255, "lost": 200 + 100 + 10 - 255}
    ]


def test_a_merge_under_255_keeps_the_sum() -> None:
    state = position({(2, 3): (1, 20), (4, 3): (1, 30), FAR: (2, 5)})
    applied = turn(state, {1: [[2, 3, EAST], [4, 3, WEST]]})
    assert cell(applied.state, 3, 3) == (1, 50)
    assert [e["lost"] for e in of_type(applied.events, "merge")] == [0]


def test_the_board_wraps_at_every_edge() -> None:
    state = position(
        {(0, 1): (1, 11), (1, 0): (1, 12), (6, 3): (1, 13), (3, 6): (1, 14), (4, 4): (2, 5)}
    )
    applied = turn(state, {1: [[0, 1, WEST], [1, 0, NORTH], [6, 3, EAST], [3, 6, SOUTH]]})
    after = applied.state
    assert cell(after, 6, 1) == (1, 11)
    assert cell(after, 1, 6) == (1, 12)
    assert cell(after, 0, 3) == (1, 13)
    assert cell(after, 3, 0) == (1, 14)
    assert [e["to"] for e in of_type(applied.events, "move")] == [[1, 6], [6, 1], [0, 3], [3, 0]]


def test_pieces_touch_across_the_wrapped_edge() -> None:
    state = position({(0, 3): (1, 20), (6, 3): (2, 15), (3, 0): (2, 9)})
    after = turn(state).state
    assert cell(after, 0, 3) == (1, 5)
    assert cell(after, 6, 3) == (0, 0)


# -- steps 3 to 5: damage, destruction, the new owners -----------------------------------


def test_50_onto_a_neutral_30_captures_it_with_20() -> None:
    state = position({(2, 3): (1, 50), FAR: (2, 5)}, neutral={(3, 3): 30})
    applied = turn(state, {1: [[2, 3, EAST]]})
    assert cell(applied.state, 3, 3) == (1, 20)
    assert cell(applied.state, 2, 3) == (1, 0)
    assert [without_timing(e) for e in applied.events if e["type"] != "move"] == [
        {"type": "damage", "seat": 1, "at": [3, 3], "damage": 30},
        {"type": "captured", "at": [3, 3], "owner": 1, "previous": 0},
    ]


def test_20_onto_a_neutral_35_is_destroyed_and_leaves_a_neutral_15() -> None:
    state = position({(2, 3): (1, 20), FAR: (2, 5)}, neutral={(3, 3): 35})
    applied = turn(state, {1: [[2, 3, EAST]]})
    assert cell(applied.state, 3, 3) == (0, 15)
    assert cell(applied.state, 2, 3) == (1, 0)
    assert [without_timing(e) for e in applied.events if e["type"] != "move"] == [
        {"type": "damage", "seat": 1, "at": [3, 3], "damage": 35},
        {"type": "destroyed", "seat": 1, "at": [3, 3]},
    ]


def test_a_piece_equal_to_the_neutral_strength_is_destroyed_and_the_cell_falls_to_0() -> None:
    state = position({(2, 3): (1, 30), FAR: (2, 5)}, neutral={(3, 3): 30})
    assert cell(turn(state, {1: [[2, 3, EAST]]}).state, 3, 3) == (0, 0)


def test_a_piece_onto_a_neutral_cell_of_strength_0_takes_it_whole() -> None:
    state = position({(2, 3): (1, 40), FAR: (2, 5)})
    applied = turn(state, {1: [[2, 3, EAST]]})
    assert cell(applied.state, 3, 3) == (1, 40)
    assert of_type(applied.events, "damage") == []


def test_20_against_15_leaves_5() -> None:
    state = position({(2, 3): (1, 20), (3, 3): (2, 15), FAR: (2, 5)})
    applied = turn(state)
    assert cell(applied.state, 2, 3) == (1, 5)
    assert cell(applied.state, 3, 3) == (0, 0)
    assert [without_timing(e) for e in applied.events] == [
        {"type": "damage", "seat": 1, "at": [2, 3], "damage": 15},
        {"type": "damage", "seat": 2, "at": [3, 3], "damage": 20},
        {"type": "destroyed", "seat": 2, "at": [3, 3]},
        {"type": "captured", "at": [3, 3], "owner": 0, "previous": 2},
    ]


def test_one_piece_next_to_two_enemy_pieces_damages_both() -> None:
    state = position({(3, 3): (1, 100), (2, 3): (2, 30), (3, 4): (2, 40), FAR: (2, 5)})
    applied = turn(state)
    assert cell(applied.state, 3, 3) == (1, 30)
    assert cell(applied.state, 2, 3) == (0, 0)
    assert cell(applied.state, 3, 4) == (0, 0)
    hits = {tuple(e["at"]): e["damage"] for e in of_type(applied.events, "damage")}
    assert hits == {(3, 3): 70, (2, 3): 100, (3, 4): 100}


def test_a_piece_hits_enemies_on_its_own_cell_and_the_four_next_to_it_only() -> None:
    enemies = {(3, 2): (2, 50), (4, 3): (2, 50), (3, 4): (2, 50), (2, 3): (2, 50)}
    diagonal = {(4, 4): (2, 50), (5, 3): (2, 50)}
    state = position({(3, 3): (1, 250), **enemies, **diagonal})
    after = turn(state).state
    assert all(cell(after, x, y) == (0, 0) for x, y in enemies)
    assert all(cell(after, x, y) == (2, 50) for x, y in diagonal)
    assert cell(after, 3, 3) == (1, 50)


def test_damage_is_computed_before_any_is_applied() -> None:
    state = position({(2, 3): (1, 10), (3, 3): (2, 10), (0, 0): (1, 1), FAR: (2, 1)})
    after = turn(state).state
    assert cell(after, 2, 3) == (0, 0)
    assert cell(after, 3, 3) == (0, 0)


def test_a_strength_0_piece_is_destroyed_when_hit_even_by_a_strength_0_enemy() -> None:
    state = position({(2, 3): (1, 0), (3, 3): (2, 0), (0, 0): (1, 1), FAR: (2, 1)})
    applied = turn(state)
    assert cell(applied.state, 2, 3) == (0, 0)
    assert cell(applied.state, 3, 3) == (0, 0)
    assert [e["damage"] for e in of_type(applied.events, "damage")] == [0, 0]
    assert len(of_type(applied.events, "destroyed")) == 2


def test_a_strength_0_piece_that_is_not_hit_stays() -> None:
    state = position({(2, 3): (1, 0), FAR: (2, 5)})
    assert cell(turn(state).state, 2, 3) == (1, 0)


def test_a_piece_left_behind_is_hit_like_any_other() -> None:
    state = position({(2, 3): (1, 60), (1, 3): (2, 9), FAR: (2, 5)})
    after = turn(state, {1: [[2, 3, EAST]]}).state
    assert cell(after, 3, 3) == (1, 60)
    assert cell(after, 2, 3) == (0, 0)  # the 0 left behind touched seat 2's 9
    assert cell(after, 1, 3) == (2, 9)  # which took the 0 piece's 0


def test_a_moved_piece_is_hit_where_it_arrives() -> None:
    state = position({(2, 3): (1, 60), (4, 3): (2, 9), (0, 0): (2, 1)})
    applied = turn(state, {1: [[2, 3, EAST]]})
    assert cell(applied.state, 3, 3) == (1, 51)
    assert cell(applied.state, 4, 3) == (0, 0)
    assert cell(applied.state, 2, 3) == (1, 0)


def test_pieces_of_two_seats_on_one_neutral_cell_fight_it_and_each_other() -> None:
    state = position(
        {(2, 3): (1, 200), (4, 3): (2, 60), (0, 0): (1, 1), FAR: (2, 1)}, neutral={(3, 3): 50}
    )
    applied = turn(state, {1: [[2, 3, EAST]], 2: [[4, 3, WEST]]})
    # Seat 1's 200 takes 60 (seat 2) + 0 (seat 2's piece left at (4, 3)) + 50 (the cell).
    assert cell(applied.state, 3, 3) == (1, 90)
    # Both pieces left behind touch the other seat's piece on (3, 3) and are destroyed.
    assert cell(applied.state, 2, 3) == (0, 0)
    assert cell(applied.state, 4, 3) == (0, 0)
    hits = {(e["seat"], tuple(e["at"])): e["damage"] for e in of_type(applied.events, "damage")}
    assert hits == {(1, (3, 3)): 110, (2, (3, 3)): 200 + 50, (1, (2, 3)): 60, (2, (4, 3)): 200}


def test_neutral_strength_falls_by_the_sum_of_the_pieces_on_it_and_not_below_0() -> None:
    state = position(
        {(2, 3): (1, 30), (4, 3): (2, 40), (0, 0): (1, 1), FAR: (2, 1)}, neutral={(3, 3): 100}
    )
    after = turn(state, {1: [[2, 3, EAST]], 2: [[4, 3, WEST]]}).state
    assert cell(after, 3, 3) == (0, 100 - 30 - 40)
    state = position(
        {(2, 3): (1, 90), (4, 3): (2, 80), (0, 0): (1, 1), FAR: (2, 1)}, neutral={(3, 3): 100}
    )
    assert cell(turn(state, {1: [[2, 3, EAST]], 2: [[4, 3, WEST]]}).state, 3, 3) == (0, 0)


def test_a_cell_whose_pieces_were_all_destroyed_becomes_neutral_with_0() -> None:
    state = position({(2, 3): (1, 200), (3, 3): (2, 100), FAR: (2, 5)})
    after = turn(state).state
    assert cell(after, 3, 3) == (0, 0)


def test_an_owned_cell_taken_by_an_enemy_changes_hands() -> None:
    state = position({(2, 3): (1, 200), (3, 3): (2, 50), FAR: (2, 5)})
    applied = turn(state, {1: [[2, 3, EAST]]})
    assert cell(applied.state, 3, 3) == (1, 150)
    # The 0 that seat 1 left on (2, 3) touched seat 2's 50 and was destroyed.
    assert cell(applied.state, 2, 3) == (0, 0)
    assert [without_timing(e) for e in of_type(applied.events, "captured")] == [
        {"type": "captured", "at": [2, 3], "owner": 0, "previous": 1},
        {"type": "captured", "at": [3, 3], "owner": 1, "previous": 2},
    ]


# -- steps 6 and 7: territory, eliminations, the end -------------------------------------


def test_territory_is_counted_and_territory_total_accumulates() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, territory_total={1: 4, 2: 9}, turn=5)
    first = turn(state, {1: [[3, 3, NORTH]]}).state
    assert first["scores"] == {"1": 2, "2": 1}
    assert first["territory_total"] == {"1": 4 + 2, "2": 9 + 1}
    second = turn(first).state
    assert second["territory_total"] == {"1": 4 + 2 + 2, "2": 9 + 1 + 1}
    assert second["turn"] == 7


def test_a_seat_with_no_cell_left_is_eliminated() -> None:
    applied = turn(position({(2, 3): (1, 20), (3, 3): (2, 15), (0, 0): (3, 9)}, seats=3))
    after = applied.state
    assert after["alive"] == [1, 3]
    assert after["eliminated"] == [2]
    assert after["awaiting"] == [1, 3]
    assert after["scores"] == {"1": 1, "2": 0, "3": 1}
    assert not after["over"]
    assert [without_timing(e) for e in of_type(applied.events, "eliminated")] == [
        {"type": "eliminated", "seat": 2}
    ]


def test_seats_eliminated_in_one_turn_are_listed_the_smaller_territory_total_first() -> None:
    pieces = {(3, 3): (1, 255), (2, 3): (2, 10), (4, 3): (3, 10), (0, 0): (4, 1)}
    state = position(pieces, seats=4, territory_total={1: 9, 2: 5, 3: 3, 4: 9})
    applied = turn(state)
    assert applied.state["eliminated"] == [3, 2]
    assert [e["seat"] for e in of_type(applied.events, "eliminated")] == [3, 2]
    state = position(pieces, seats=4, territory_total={1: 9, 2: 3, 3: 5, 4: 9})
    assert turn(state).state["eliminated"] == [2, 3]
    # Equal totals: seat order, as the 2016 environment's stable sort leaves them.
    state = position(pieces, seats=4, territory_total={1: 9, 2: 4, 3: 4, 4: 9})
    assert turn(state).state["eliminated"] == [2, 3]


def test_the_match_ends_when_one_seat_is_left() -> None:
    applied = turn(position({(2, 3): (1, 20), (3, 3): (2, 15)}))
    final = applied.state
    assert final["over"] and final["awaiting"] == []
    assert final["winners"] == [1]
    assert final["ranking"] == [1, 2]
    assert [without_timing(e) for e in applied.events[-2:]] == [
        {"type": "eliminated", "seat": 2},
        {"type": "over", "winners": [1], "ranking": [1, 2]},
    ]


def test_the_match_ends_when_no_seat_is_left_and_the_last_eliminated_win() -> None:
    state = position({(2, 3): (1, 10), (3, 3): (2, 10)}, territory_total={1: 8, 2: 6})
    final = turn(state).state
    assert final["over"]
    assert final["alive"] == []
    assert final["eliminated"] == [2, 1]
    assert final["ranking"] == [1, 2]
    assert final["winners"] == [1]
    state = position({(2, 3): (1, 10), (3, 3): (2, 10)}, territory_total={1: 8, 2: 8})
    final = turn(state).state
    assert final["ranking"] == [2, 1]
    assert final["winners"] == [1, 2]


def test_max_turns_is_floor_of_10_sqrt_width_times_height() -> None:
    assert position({(0, 0): (1, 1), FAR: (2, 1)})["max_turns"] == 70
    assert position({(0, 0): (1, 1), FAR: (2, 1)}, width=20, height=30)["max_turns"] == 244
    options = {"width": 30, "height": 30}
    assert engine.new_game(seed=1, ruleset="halite", options=options)["max_turns"] == 300


def test_the_match_ends_when_turn_reaches_max_turns() -> None:
    state = position({(3, 3): (1, 10), FAR: (2, 5)}, turn=68)
    almost = turn(state).state
    assert almost["turn"] == 69 and not almost["over"]
    final = turn(almost).state
    assert final["turn"] == 70 and final["over"]
    assert final["awaiting"] == []


# -- ranking -----------------------------------------------------------------------------


def last_turn(pieces: dict[tuple[int, int], tuple[int, int]], seats: int, totals: dict[int, int],
              eliminated: list[int] | None = None) -> dict[str, object]:  # fmt: skip
    state = position(pieces, seats=seats, turn=69, territory_total=totals, eliminated=eliminated)
    return turn(state).state


def test_the_ranking_puts_the_larger_territory_first() -> None:
    final = last_turn({(0, 0): (1, 1), (2, 0): (2, 1), (2, 2): (2, 1)}, 2, {1: 50, 2: 10})
    assert final["ranking"] == [2, 1]
    assert final["winners"] == [2]


def test_the_ranking_breaks_a_territory_tie_by_territory_total() -> None:
    final = last_turn({(0, 0): (1, 1), (2, 2): (2, 1)}, 2, {1: 10, 2: 50})
    assert final["ranking"] == [2, 1]
    assert final["winners"] == [2]
    final = last_turn({(0, 0): (1, 1), (2, 2): (2, 1)}, 2, {1: 50, 2: 10})
    assert final["ranking"] == [1, 2]


def test_seats_tied_on_territory_and_territory_total_all_win() -> None:
    final = last_turn({(0, 0): (1, 1), (2, 2): (2, 1), (4, 4): (3, 1)}, 3, {1: 10, 2: 10, 3: 9})
    assert final["winners"] == [1, 2]
    # The 2016 environment's order within such a tie: the larger seat first.
    assert final["ranking"] == [2, 1, 3]


def test_eliminated_seats_rank_after_the_living_the_last_eliminated_first() -> None:
    pieces = {(0, 0): (1, 1), (2, 2): (3, 1)}
    final = last_turn(pieces, 4, {1: 10, 2: 99, 3: 20, 4: 99}, eliminated=[4, 2])
    assert final["ranking"] == [3, 1, 2, 4]
    assert final["winners"] == [3]


# -- the timeline --------------------------------------------------------------------------


def test_each_event_has_its_place_in_the_turn_timeline() -> None:
    state = position(
        {(2, 3): (1, 60), (1, 3): (1, 200), (3, 4): (2, 5), (0, 0): (2, 1)},
        neutral={(3, 3): 10},
    )
    applied = turn(state, {1: [[2, 3, EAST], [1, 3, EAST]]})
    assert applied.turn_ms == 800
    timing = {e["type"]: (e["t_ms"], e["duration_ms"]) for e in applied.events}
    assert timing == {
        "move": (0, 300), "damage": (400, 200), "destroyed": (600, 200),
        "captured": (600, 200),
    }  # fmt: skip
    merge = turn(position({(2, 3): (1, 20), (4, 3): (1, 30), FAR: (2, 5)}),
                 {1: [[2, 3, EAST], [4, 3, WEST]]}).events  # fmt: skip
    assert [(e["t_ms"], e["duration_ms"]) for e in of_type(merge, "merge")] == [(300, 100)]
    end = turn(position({(2, 3): (1, 20), (3, 3): (2, 15)})).events
    assert [(e["type"], e["t_ms"], e["duration_ms"]) for e in end[-2:]] == [
        ("eliminated", 800, 0), ("over", 800, 0),
    ]  # fmt: skip
    for events in (applied.events, merge, end):
        assert all(e["t_ms"] + e["duration_ms"] <= 800 for e in events)
        assert [e["t_ms"] for e in events] == sorted(e["t_ms"] for e in events)
