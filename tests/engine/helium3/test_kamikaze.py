"""Kamikaze: the robot is destroyed and hits its eight neighbours
(docs/games/helium3.md "Kamikaze")."""

from __future__ import annotations

from helpers import act, alive, bot, events, kamikaze, robot, scene, types

FAR = bot("4-5", 19, 19)


def test_kamikaze_destroys_the_robot_itself() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state, kamikaze("1-1"))
    assert not alive(applied.state, "1-1")
    assert types(applied)[:2] == ["kamikaze", "destroyed"]


def test_kamikaze_hits_every_robot_in_the_eight_neighbouring_cells() -> None:
    near = [(4, 4), (5, 4), (6, 4), (4, 5), (6, 5), (4, 6), (5, 6), (6, 6)]
    robots = [bot(f"{2 + k // 4}-{k % 4 + 1}", x, y) for k, (x, y) in enumerate(near)]
    state = scene(bot("1-1", 5, 5), *robots, FAR)
    applied = act(state, kamikaze("1-1"))
    assert not any(alive(applied.state, r["id"]) for r in robots)


def test_kamikaze_spares_robots_two_cells_away() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 7, 5), bot("2-2", 3, 3), bot("2-3", 5, 7), FAR)
    applied = act(state, kamikaze("1-1"))
    assert all(alive(applied.state, r) for r in ("2-1", "2-2", "2-3"))


def test_kamikaze_hits_friends_too() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 5), FAR)
    assert not alive(act(state, kamikaze("1-1")).state, "1-2")


def test_kamikaze_spares_inactive_neighbours_and_only_unshields_shielded_ones() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("2-1", 6, 5, active=False),
        bot("2-2", 4, 5, shield=True),
        bot("2-3", 5, 4),
        FAR,
    )
    applied = act(state, kamikaze("1-1"))
    assert alive(applied.state, "2-1") and alive(applied.state, "2-2")
    assert robot(applied.state, "2-2")["shield"] is False
    assert not alive(applied.state, "2-3")
    assert [e["robot"] for e in events(applied, "absorbed")] == ["2-2"]


def test_a_robot_destroyed_by_a_blast_does_not_explode_in_turn() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 5), bot("2-2", 7, 5), FAR)
    applied = act(state, kamikaze("1-1"))
    assert not alive(applied.state, "2-1")
    assert alive(applied.state, "2-2")


def test_kamikaze_in_a_corner_hits_the_three_neighbours_on_the_board() -> None:
    state = scene(bot("1-1", 0, 0), bot("2-1", 1, 0), bot("2-2", 0, 1), bot("2-3", 1, 1), FAR)
    applied = act(state, kamikaze("1-1"))
    assert [e["robot"] for e in events(applied, "destroyed")] == ["1-1", "2-1", "2-2", "2-3"]


def test_kamikaze_is_allowed_unarmed_and_takes_no_target() -> None:
    state = scene(bot("1-1", 5, 5, active=False), FAR)
    [event] = events(act(state, kamikaze("1-1")), "kamikaze")
    assert event["robot"] == "1-1"
