"""A movie's caption tells each line of a turn as its events play: a missile's line
with what it destroyed once the hit plays, not when the missile leaves; the
match's end after the turn's last animation."""

from __future__ import annotations

from games import presentation
from games.views.told import told


def test_a_line_is_told_when_the_last_of_its_events_plays_and_the_end_at_the_turns_end() -> None:
    sentences = presentation.get("helium3").sentences
    events = [
        {"type": "moved", "robot": "4-2", "path": [[3, 4], [3, 5]], "t_ms": 0},
        {"type": "missile", "robot": "4-1", "target": [7, 7], "t_ms": 400, "duration_ms": 900},
        {"type": "destroyed", "robot": "1-5", "dropped": 4100, "t_ms": 1300},
        {"type": "absorbed", "robot": "2-3", "t_ms": 1300},
        {"type": "match_over", "winners": [4], "reason": "elimination", "t_ms": 1300},
    ]
    said = told(sentences, events)
    assert [x["line"] for x in said] == sentences(events)
    by_line = {x["line"]: x["t_ms"] for x in said}
    missile = next(line for line in by_line if "fired a missile" in line)
    assert "destroying 1-5" in missile and "shield took the hit" in missile
    assert by_line[missile] == 1300  # the hit, not the launch at 400
    assert by_line[next(line for line in by_line if "moved" in line)] == 0
    assert by_line[next(line for line in by_line if line.startswith("The match is over"))] is None


def test_a_turn_of_shields_only_tells_each_shield_as_it_is_raised() -> None:
    sentences = presentation.get("remake").sentences
    events = [
        {"type": "shielded", "robot": "1-1", "t_ms": 0, "duration_ms": 300},
        {"type": "shielded", "robot": "1-2", "t_ms": 300, "duration_ms": 300},
    ]
    said = told(sentences, events)
    assert [x["t_ms"] for x in said] == [0, 300]
    assert all(x["line"] for x in said)
