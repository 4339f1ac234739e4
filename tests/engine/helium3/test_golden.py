"""Golden replays: recorded `python -m engine play` matches, re-resolved on every run.

Each fixture in `golden/` is a replay file exactly as `play --out` wrote it (see
golden/README.md for how they were recorded). `python -m engine replay` re-resolves
its orders from the initial state and must reproduce every event and the final
state, so any change of the rules, the map or the timing shows up here. The sha256
of each final state is pinned below as well, so drift is explicit in a diff: a
deliberate rule change re-records the fixtures and updates these digests together.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import digest, engine_cli, named_tests_missing, read_json

import engine
from engine.errors import CODES
from engine.helium3 import timing

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parents[3]
Json = dict[str, Any]

# file: (sha256 of the final state's canonical JSON, turns, winners, termination)
FIXTURES: dict[str, tuple[str, int, list[int], str]] = {
    "2p-random-random-seed49.json": (
        "6a20eda747338a05b33f6ccfd4a70f624a7c266983de7ed3df5f564692f69aa8", 111, [1], "clock",
    ),
    "2p-miner-fighter-seed57.json": (
        "feaf9acb029ec563913b1d674ff595adec6ad2e1756142dbe4b3a1a4d7ba39a2", 84, [3], "clock",
    ),
    "3p-random-random-random-seed45.json": (
        "a9d840b04c7f19fee7a01948be188322ffe17cbc90ce270c77331cd73c43e09f", 77, [3],
        "elimination",
    ),
    "3p-fighter-miner-random-seed26.json": (
        "ce1f6b81202788f8a452bf3731c966f2505d5b67a1442b1e66eca137473b499c", 81, [1], "clock",
    ),
    "4p-random-random-random-random-seed59.json": (
        "026848f5536659fca8ee971ec25b793c880ca6f95febea8822c59b46d13d5e11", 86, [4],
        "elimination",
    ),
    "4p-fighter-fighter-fighter-fighter-seed23.json": (
        "2d69c3a464f13947dbbdb593269aa8229f1dfc79b3996fdb80d5484eaae70e14", 89, [1], "clock",
    ),
}  # fmt: skip
EVENT_TYPES = {
    "turned", "moved", "mined", "armed", "shielded", "missile", "laser", "kamikaze",
    "absorbed", "deflected", "destroyed", "skipped", "pass", "match_over",
}  # fmt: skip


def load(name: str) -> Json:
    return read_json(GOLDEN / name)


def replay(path: Path) -> subprocess.CompletedProcess[str]:
    return engine_cli("replay", str(path))


def test_every_fixture_in_golden_is_pinned_here() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.json")) == sorted(FIXTURES)


def test_the_golden_replays_cover_two_three_and_four_seats_and_every_built_in_bot() -> None:
    records = [load(name) for name in FIXTURES]
    assert {len(r["bots"]) for r in records} == {2, 3, 4}
    assert {b for r in records for b in r["bots"]} >= {"random", "miner", "fighter"}
    assert {FIXTURES[n][3] for n in FIXTURES} == {"clock", "elimination"}


def test_the_golden_replays_show_every_type_of_event() -> None:
    seen = {e["type"] for name in FIXTURES for t in load(name)["turns"] for e in t["events"]}
    assert seen == EVENT_TYPES


@pytest.mark.parametrize("name", list(FIXTURES))
def test_a_golden_replay_re_resolves_exactly_on_the_command_line(name: str) -> None:
    _, turns, winners, _ = FIXTURES[name]
    done = replay(GOLDEN / name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {"ok": True, "turns": turns, "winners": winners}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_a_golden_replay_ends_in_its_pinned_final_state(name: str) -> None:
    """Re-resolved here turn by turn: the final state's digest is the pinned one."""
    pinned, turns, winners, termination = FIXTURES[name]
    record = load(name)
    assert digest(record["final"]) == pinned, "the fixture file changed"
    state = record["initial"]
    assert state == engine.new_game(
        seed=state["seed"], seats=len(record["bots"]), length_ms=state["length_ms"]
    ), "the map or the spawns changed"
    for turn in record["turns"]:
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"]
        state = applied.state
    assert digest(state) == pinned
    assert len(record["turns"]) == turns
    assert state["winners"] == winners and state["termination"] == termination


def _change_a_timing(record: Json) -> None:
    event = record["turns"][5]["events"][0]
    event["duration_ms"] += 1


def _change_the_final_money(record: Json) -> None:
    record["final"]["players"][0]["money"] += 1


def _drop_the_last_turn(record: Json) -> None:
    record["turns"].pop()


def _change_an_order(record: Json) -> None:
    for turn in record["turns"]:
        for action in turn["orders"]["actions"]:
            if action["type"] == "move":
                action["to"] = [
                    action["to"][0],
                    action["to"][1] + (1 if action["to"][1] < 10 else -1),
                ]
                return
    raise AssertionError("no move to change")


def _make_an_order_illegal(record: Json) -> None:
    turn = next(t for t in record["turns"] if t["orders"]["actions"])
    turn["orders"]["actions"][0] = {"robot": "9-9", "type": "kamikaze"}


def _swap_two_turns(record: Json) -> None:
    turns = record["turns"]
    turns[3], turns[4] = turns[4], turns[3]


TAMPERINGS: dict[str, tuple[Callable[[Json], None], str]] = {
    "an event's timing": (_change_a_timing, "bad_state"),
    "the final money": (_change_the_final_money, "bad_state"),
    "a missing last turn": (_drop_the_last_turn, "bad_state"),
    "a move's destination": (_change_an_order, ""),
    "an illegal order": (_make_an_order_illegal, "unknown_robot"),
    "two turns swapped": (_swap_two_turns, "not_your_turn"),
}


@pytest.mark.parametrize("tampering", list(TAMPERINGS))
def test_a_tampered_replay_fails_with_a_json_error(tampering: str, tmp_path: Path) -> None:
    change, code = TAMPERINGS[tampering]
    record = load("3p-fighter-miner-random-seed26.json")
    tampered = copy.deepcopy(record)
    change(tampered)
    assert tampered != record
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(tampered), encoding="utf-8")
    done = replay(path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    error = json.loads(done.stdout)["error"]
    assert set(error) <= {"code", "message", "action"} and error["message"]
    if code:
        assert error["code"] == code, error
    else:  # a changed destination is refused, or resolves to other events
        assert error["code"] in CODES


def test_a_replay_that_is_not_json_fails_with_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text((GOLDEN / "2p-random-random-seed49.json").read_text()[:-10], encoding="utf-8")
    done = replay(path)
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "bad_json"


# docs/games/helium3.md is the rules' written record: it must not drift from the code either.
RULES_MD = ROOT / "docs" / "games" / "helium3.md"


def test_docs_helium3_md_names_only_tests_that_exist() -> None:
    named, missing = named_tests_missing(
        RULES_MD.read_text(encoding="utf-8"), r"test_\w+", Path(__file__).resolve().parents[1]
    )
    assert named > 100
    assert not missing


def test_docs_helium3_md_gives_the_engines_timing_constants() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    documented = {k: int(v) for k, v in re.findall(r"^\| `([A-Z_]+_MS)` \| (\d+) \|", text, re.M)}
    actual = {k: v for k, v in vars(timing).items() if k.endswith("_MS") and type(v) is int}
    assert documented == actual
