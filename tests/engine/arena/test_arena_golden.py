"""Golden replays of the arena: seed + recorded orders -> the pinned digest of the end.

See golden/README.md for how they were recorded. Any drift of the rules, the obstacles
or the timing shows up as a difference in an event, the final state or its digest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, digest, engine_cli, named_tests_missing, read_json

import engine

GOLDEN = Path(__file__).parent / "golden"

# file: (sha256 of the final state's canonical JSON, resolutions, winners)
FIXTURES: dict[str, tuple[str, int, list[int]]] = {
    "2p-random-random-seed1-10r.json": ("982ab81999459b1c10069416b225eb31df29ec479c86fd36da3ee025f314f138", 55, [1, 2]),
    "2p-hunter-random-seed2-20r.json": ("b9e85c43b5f43afa5c324b8dc9a0385581f937a6e7d381ea6061299431efeb84", 82, [1]),
    "3p-hunter-random-hunter-seed3-15r.json": ("a95a1038b4ef1594e045d37902b0e6b6bbc647c8f69d3e0d9516d694c52b8118", 148, [1, 3]),
    "4p-hunter-hunter-hunter-hunter-seed4-12r.json": ("4263d4b8ab4bd402e031699a7dbb6add5e6df73e7879c7a72d63b380d13ab861", 115, [3]),
}  # fmt: skip


def test_every_fixture_in_golden_is_pinned_here() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.json")) == sorted(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_golden_replay_gives_the_pinned_final_state(name: str) -> None:
    record = read_json(GOLDEN / name)
    initial = record["initial"]
    seats = len(initial["robots"])
    assert initial == engine.new_game(
        seed=initial["seed"], seats=seats, ruleset="arena", options={"rounds": initial["rounds"]}
    )
    state = initial
    for n, turn in enumerate(record["turns"]):
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"], f"resolution {n}"
        state = applied.state
    assert state == record["final"]
    pinned, turns, winners = FIXTURES[name]
    assert (digest(state), len(record["turns"]), state["winners"]) == (pinned, turns, winners)


def test_the_replay_command_accepts_a_golden_replay() -> None:
    out = engine_cli("replay", str(GOLDEN / sorted(FIXTURES)[0]))
    assert out.returncode == 0, out.stdout


def test_every_test_the_rules_page_names_exists() -> None:
    page = (ROOT / "docs" / "games" / "arena.md").read_text(encoding="utf-8")
    named, missing = named_tests_missing(page, r"test_arena_\w+", Path(__file__).parent)
    assert named >= 10 and missing == []
