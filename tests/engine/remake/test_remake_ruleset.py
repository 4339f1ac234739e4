"""The remake is a registered ruleset value that declares its shape, seats and options."""

from __future__ import annotations

import engine
from engine.remake import RULESET


def test_the_remake_is_registered_as_helium3_remake() -> None:
    assert "helium3-remake" in engine.ruleset_names()
    assert engine.ruleset("helium3-remake") is RULESET


def test_it_declares_one_seat_at_a_time_2_to_4_seats_and_the_rounds_option() -> None:
    described = RULESET.describe()
    assert described["title"] == "Helium 3 remake"
    assert (described["seats"], described["default_seats"]) == ([2, 3, 4], 4)
    assert described["shape"] == {"simultaneous": False, "setup": False, "steps": False}
    [rounds] = described["options"]
    assert (rounds["name"], rounds["default"], rounds["minimum"], rounds["maximum"]) == (
        "rounds", 20, 5, 100,
    )  # fmt: skip
    assert described["bots"] == ["random", "prospector"]


def test_it_reads_awaiting_and_scores_from_its_own_state() -> None:
    state = engine.new_game(seed=9, ruleset="helium3-remake", seats=3)
    assert RULESET.awaiting(state) == state["awaiting"] == [1]
    assert RULESET.scores(state) == state["scores"] == {"1": 0, "2": 0, "3": 0}
