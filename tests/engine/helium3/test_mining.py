"""Mining: 500 from the robot's cell and 250 from each neighbour
(docs/games/helium3.md "Actions")."""

from __future__ import annotations

from helpers import act, bot, cell, events, helium_at, mine, money, robot, scene, total_helium

FAR = bot("4-5", 19, 19)


def rich(x: int, y: int, amount: int) -> dict[tuple[int, int], int]:
    """`amount` of helium on the 5x5 around (x, y)."""
    return {(x + dx, y + dy): amount for dx in range(-2, 3) for dy in range(-2, 3)}


def test_mining_takes_500_from_the_robots_cell_and_250_from_each_neighbour() -> None:
    state = scene(bot("1-1", 10, 10), FAR, helium=rich(10, 10, 1000))
    applied = act(state, mine("1-1"))
    assert events(applied, "mined")[0]["amount"] == 500 + 8 * 250
    assert helium_at(applied.state, 10, 10) == 1000 - 500
    for x, y in [(9, 9), (10, 9), (11, 9), (9, 10), (11, 10), (9, 11), (10, 11), (11, 11)]:
        assert helium_at(applied.state, x, y) == 1000 - 250
    assert helium_at(applied.state, 12, 10) == 1000  # two cells away: untouched


def test_mining_takes_what_there_is_when_a_cell_holds_less() -> None:
    helium = {(10, 10): 300, (11, 10): 100, (9, 9): 249, (10, 11): 251}
    state = scene(bot("1-1", 10, 10), FAR, helium=helium)
    applied = act(state, mine("1-1"))
    assert events(applied, "mined")[0]["amount"] == 300 + 100 + 249 + 250
    assert helium_at(applied.state, 10, 10) == 0
    assert helium_at(applied.state, 11, 10) == 0
    assert helium_at(applied.state, 9, 9) == 0
    assert helium_at(applied.state, 10, 11) == 1


def test_mining_adds_the_total_to_the_robots_mined_and_its_owners_money() -> None:
    state = scene(bot("1-1", 10, 10, mined=40), FAR, helium=rich(10, 10, 1000), money={1: 70})
    applied = act(state, mine("1-1"))
    assert robot(applied.state, "1-1")["mined"] == 40 + 2500
    assert money(applied.state, 1) == 70 + 2500
    assert money(applied.state, 4) == 0


def test_mining_moves_the_robot_up_to_four_cells_first_and_mines_where_it_arrives() -> None:
    state = scene(bot("1-1", 6, 10, facing="E"), FAR, helium=rich(10, 10, 1000))
    applied = act(state, mine("1-1", 10, 10))
    assert cell(applied.state, "1-1") == (10, 10)
    assert events(applied, "mined")[0]["amount"] == 2500
    assert helium_at(applied.state, 10, 10) == 500


def test_mining_at_the_edge_takes_nothing_from_off_the_board() -> None:
    helium = {(0, 0): 1000, (1, 0): 1000, (0, 1): 1000, (1, 1): 1000}
    state = scene(bot("1-1", 0, 0), FAR, helium=helium)
    assert events(act(state, mine("1-1")), "mined")[0]["amount"] == 500 + 3 * 250


def test_mining_empty_ground_mines_nothing_and_still_counts_as_an_action() -> None:
    state = scene(bot("1-1", 10, 10, active=False), FAR)
    applied = act(state, mine("1-1"))
    assert events(applied, "mined")[0]["amount"] == 0
    assert robot(applied.state, "1-1")["active"] is True


def test_mining_moves_helium_from_the_board_to_money_and_nothing_else() -> None:
    state = scene(bot("1-1", 10, 10), FAR, helium=rich(10, 10, 333))
    applied = act(state, mine("1-1"))
    assert total_helium(applied.state) + money(applied.state, 1) == total_helium(state)


def test_the_mined_event_lists_each_cell_and_what_it_gave() -> None:
    state = scene(bot("1-1", 10, 10), FAR, helium={(10, 10): 600, (11, 11): 90})
    [event] = events(act(state, mine("1-1")), "mined")
    assert event["robot"] == "1-1"
    assert sorted(map(tuple, event["cells"])) == [(10, 10, 500), (11, 11, 90)]


def test_a_robots_mined_counts_everything_it_mined_this_match() -> None:
    state = scene(bot("1-1", 10, 10), bot("2-1", 15, 1), FAR, helium=rich(10, 10, 1000))
    state = act(state, mine("1-1")).state
    state = act(act(state).state).state
    state = act(state, mine("1-1")).state
    assert robot(state, "1-1")["mined"] == 2 * 2500
    assert helium_at(state, 10, 10) == 0
