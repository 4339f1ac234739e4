"""Halite replays in the 2016 format (version 11): `python -m engine export-hlt`,
`import-hlt`, and `replay` on an imported file, which re-resolves every frame.

The fixtures are 2016-format files written by `play` then `export-hlt` (their
README says how); importing one rebuilds the match from frame 0, the productions
and the moves alone, so the rules must reach every recorded frame again.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import match
from engine.halite import hlt

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("*.hlt"))
HLT_KEYS = {
    "version",
    "width",
    "height",
    "num_players",
    "num_frames",
    "player_names",
    "productions",
    "frames",
    "moves",
    "seed",
}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def refused(done: subprocess.CompletedProcess[str], status: int, code: str) -> str:
    """The command failed with `status`, one error object on stdout, no traceback."""
    assert done.returncode == status, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    body = json.loads(done.stdout)
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert isinstance(message, str) and message.endswith(".") and "\n" not in message
    return str(message)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A three-seat match between the built-in bots, recorded by `play`."""
    out = tmp_path_factory.mktemp("hlt") / "match.json"
    done = cli(
        "play", "--ruleset", "halite", "--bots", "random,grower,random", "--seed", "11",
        "--option", "width=12", "--option", "height=10", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(out.read_text()))


def _write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# ---------------------------------------------------------------- export


def test_export_writes_the_2016_keys_with_a_frame_per_state_and_a_moves_grid_per_turn(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    done = cli("export-hlt", str(_write(tmp_path / "r.json", recorded)))
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout.rstrip("\n")
    data = json.loads(text)
    assert set(data) == HLT_KEYS
    initial, turns, final = recorded["initial"], recorded["turns"], recorded["final"]
    assert (data["version"], data["width"], data["height"]) == (11, 12, 10)
    assert (data["num_players"], data["player_names"]) == (3, ["random", "grower", "random"])
    assert data["num_frames"] == len(turns) + 1 == len(data["frames"]) == len(data["moves"]) + 1
    assert data["productions"] == initial["production"] and data["seed"] == initial["seed"]
    for frame, state in ((data["frames"][0], initial), (data["frames"][-1], final)):
        assert [[cell[0] for cell in row] for row in frame] == state["owner"]
        assert [[cell[1] for cell in row] for row in frame] == state["strength"]
    # Each turn's grid holds the direction every seat gave each of its cells.
    for turn, grid in zip(turns, data["moves"], strict=True):
        given = {(x, y): d for orders in turn["orders"] for x, y, d in orders["moves"]}
        assert all(grid[y][x] == given.get((x, y), 0) for y in range(10) for x in range(12))
    assert any(any(any(row) for row in grid) for grid in data["moves"])
    # Written as the 2016 environment's JSON writer wrote: compact, keys sorted.
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":"))


def test_export_takes_the_players_names_and_keeps_thirty_characters_of_each(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    path = _write(tmp_path / "r.json", recorded)
    done = cli("export-hlt", str(path), "--names", f"Ada,{'x' * 40},Grace Hopper")
    assert json.loads(done.stdout)["player_names"] == ["Ada", "x" * 30, "Grace Hopper"]
    refused(cli("export-hlt", str(path), "--names", "Ada,Grace"), 2, "bad_shape")


def test_export_refuses_a_replay_whose_events_do_not_replay(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    tampered = copy.deepcopy(recorded)
    tampered["turns"][2]["events"] = tampered["turns"][3]["events"]
    message = refused(cli("export-hlt", str(_write(tmp_path / "r.json", tampered))), 1, "bad_state")
    assert message.startswith("Turn 2 does not replay")


def test_export_refuses_a_replay_of_another_game(tmp_path: Path) -> None:
    record = match.play_match(1, ["random", "random"], ruleset="helium3-remake")
    message = refused(cli("export-hlt", str(_write(tmp_path / "r.json", record))), 2, "bad_shape")
    assert "Halite" in message


# ---------------------------------------------------------------- round trip


def test_export_then_import_gives_back_the_match_and_replay_checks_every_frame(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    exported = tmp_path / "match.hlt"
    exported.write_text(cli("export-hlt", str(_write(tmp_path / "r.json", recorded))).stdout)
    done = cli("import-hlt", str(exported), "--out", str(tmp_path / "back.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    back = json.loads((tmp_path / "back.json").read_text())
    assert json.loads(done.stdout)["winners"] == recorded["final"]["winners"]
    assert back["players"] == ["random", "grower", "random"]
    assert back["final"] == recorded["final"]
    assert [t["events"] for t in back["turns"]] == [t["events"] for t in recorded["turns"]]
    # The initial state is the 2016 file's: frame 0, the productions and the seed; the
    # project's own optional fields take a new match's values when the engine reads it.
    assert {k: v for k, v in recorded["initial"].items() if k in back["initial"]} == back["initial"]
    replayed = cli("replay", str(tmp_path / "back.json"))
    assert replayed.returncode == 0, replayed.stdout
    assert json.loads(replayed.stdout) == {
        "ok": True,
        "turns": len(recorded["turns"]),
        "winners": recorded["final"]["winners"],
    }
    # And the imported replay exports to the very same file.
    again = cli("export-hlt", str(tmp_path / "back.json"))
    assert again.stdout == exported.read_text()


# ---------------------------------------------------------------- fixtures


def test_there_are_fixtures_of_two_three_and_four_seats_and_one_played_to_the_last_turn() -> None:
    files = [json.loads(path.read_text()) for path in FIXTURE_FILES]
    assert {data["num_players"] for data in files} == {2, 3, 4}
    # 10 x 10 lasts floor(10 * sqrt(100)) = 100 turns: 101 frames.
    assert any(data["num_frames"] == 101 and data["width"] == 10 for data in files)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_importing_a_fixture_re_resolves_every_frame_of_it(path: Path) -> None:
    data = json.loads(path.read_text())
    record = hlt.to_record(hlt.loads(path.read_bytes()))
    assert len(record["turns"]) == data["num_frames"] - 1
    for turn, frame in zip(record["turns"], data["frames"][1:], strict=True):
        assert turn["expect"]["owner"] == [[cell[0] for cell in row] for row in frame]
        assert turn["expect"]["strength"] == [[cell[1] for cell in row] for row in frame]
    assert match.replay_check(record)["turns"] == len(record["turns"])
    # Each fixture was recorded to its end: one seat left, or the last turn played.
    final = record["final"]
    assert final["over"] and (len(final["alive"]) <= 1 or final["turn"] == final["max_turns"])
    assert hlt.export(record).dumps() == path.read_text().rstrip("\n")


def test_a_fixture_imported_from_the_command_line_replays(tmp_path: Path) -> None:
    path = FIXTURES / "four-seats.hlt"
    out = tmp_path / "four.json"
    done = cli("import-hlt", str(path), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    replayed = cli("replay", str(out))
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["ok"] is True


def test_a_gzip_compressed_file_imports_as_the_file_itself(tmp_path: Path) -> None:
    path = FIXTURES / "four-seats.hlt"
    packed = _write(tmp_path / "four.hlt.gz", "")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert hlt.loads(packed.read_bytes()) == hlt.loads(path.read_bytes())
    done = cli("import-hlt", str(packed))
    assert done.returncode == 0 and json.loads(done.stdout)["players"][0] == "grower"
    packed.write_bytes(gzip.compress(path.read_bytes())[:200])
    refused(cli("import-hlt", str(packed)), 2, "bad_shape")


def test_a_file_without_a_seed_gets_one_fixed_by_its_map() -> None:
    data = json.loads((FIXTURES / "two-seats-elimination.hlt").read_text())
    del data["seed"]
    first = hlt.to_record(hlt.parse(data))
    again = hlt.to_record(hlt.parse(copy.deepcopy(data)))
    assert first == again
    assert first["initial"]["seed"] == hlt.chosen_seed(hlt.parse(data))
    data["frames"][0][0][0][1] ^= 1  # another map, another seed
    assert hlt.chosen_seed(hlt.parse(data)) != first["initial"]["seed"]


# ---------------------------------------------------------------- tampering


def _tampered_strength(data: dict[str, Any], f: int) -> tuple[int, int]:
    """Change one cell's strength in frame f; returns the cell."""
    for y, row in enumerate(data["frames"][f]):
        for x, cell in enumerate(row):
            if cell[0] == 0 and cell[1] < 255:
                cell[1] += 1
                return x, y
    raise AssertionError("no neutral cell to change")


def test_importing_a_file_with_a_tampered_frame_names_the_frame_and_the_cell(
    tmp_path: Path,
) -> None:
    data = json.loads((FIXTURES / "two-seats-elimination.hlt").read_text())
    x, y = _tampered_strength(data, 4)
    message = refused(cli("import-hlt", str(_write(tmp_path / "t.hlt", data))), 1, "bad_state")
    assert message.startswith("Turn 3 does not replay: frame 4 has")
    assert f"at ({x}, {y})" in message


def test_a_tampered_moves_grid_is_caught_by_the_next_frame(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "two-seats-elimination.hlt").read_text())
    grid, frame = data["moves"][0], data["frames"][0]
    x, y = next((x, y) for y, row in enumerate(frame) for x, c in enumerate(row) if c[0] == 1)
    grid[y][x] = 0 if grid[y][x] else 2
    message = refused(cli("import-hlt", str(_write(tmp_path / "t.hlt", data))), 1, "bad_state")
    assert message.startswith("Turn 0 does not replay: frame 1 has")


def test_replay_checks_the_imported_frames_themselves(tmp_path: Path) -> None:
    record = hlt.to_record(hlt.loads((FIXTURES / "three-seats-12x10.hlt").read_bytes()))
    record["turns"][5]["expect"]["strength"][0][0] += 1
    message = refused(cli("replay", str(_write(tmp_path / "r.json", record))), 1, "bad_state")
    assert message == "Turn 5 does not replay: the state's 'strength' differs from the recording."


def test_a_file_that_goes_on_after_the_match_is_over_is_refused() -> None:
    data = json.loads((FIXTURES / "two-seats-elimination.hlt").read_text())
    data["frames"].append(copy.deepcopy(data["frames"][-1]))
    data["moves"].append(copy.deepcopy(data["moves"][-1]))
    data["num_frames"] += 1
    with pytest.raises(engine.EngineError, match="the match is over after frame"):
        hlt.to_record(hlt.parse(data))


# ---------------------------------------------------------------- bad input


def _fixture() -> dict[str, Any]:
    return dict(json.loads((FIXTURES / "two-seats-elimination.hlt").read_text()))


def _without(key: str) -> dict[str, Any]:
    data = _fixture()
    del data[key]
    return data


def _with(**changes: Any) -> dict[str, Any]:
    return {**_fixture(), **changes}


def _row_short() -> dict[str, Any]:
    data = _fixture()
    data["frames"][2][3].pop()
    return data


def _cell(value: Any) -> dict[str, Any]:
    data = _fixture()
    data["frames"][1][0][0] = value
    return data


def _move(value: Any) -> dict[str, Any]:
    data = _fixture()
    data["moves"][0][1][1] = value
    return data


def _move_on_a_neutral_cell() -> dict[str, Any]:
    data = _fixture()
    frame = data["frames"][0]
    x, y = next((x, y) for y, row in enumerate(frame) for x, c in enumerate(row) if c[0] == 0)
    data["moves"][0][y][x] = 3
    return data


BAD_FILES: list[tuple[str, Any, str, str]] = [
    ("not JSON", "{frames: [", "bad_json", "not valid JSON"),
    ("binary HLT 10", "HLT 10\n10 10 2 5\n", "bad_shape", "only version 11"),
    ("a list", [1, 2], "bad_shape", "JSON object"),
    ("version 10", _with(version=10), "bad_shape", "version 10"),
    ("version as text", _with(version="11"), "bad_shape", "version 11"),
    ("no frames key", _without("frames"), "bad_shape", "'frames'"),
    ("too narrow", _with(width=9), "bad_shape", "'width'"),
    ("seven players", _with(num_players=7), "bad_shape", "'num_players'"),
    ("names short", _with(player_names=["a"]), "bad_shape", "player_names"),
    ("frame count", _with(num_frames=3), "bad_shape", "'frames'"),
    ("moves count", _with(moves=[]), "bad_shape", "'moves'"),
    ("productions rows", _with(productions=[[1] * 10]), "bad_shape", "productions"),
    ("short row", _row_short(), "bad_shape", "Row 3 of frame 2"),
    ("cell not a pair", _cell([0]), "bad_shape", "Frame 1 at (0, 0)"),
    ("owner out of range", _cell([3, 10]), "bad_shape", "Frame 1 at (0, 0)"),
    ("strength 256", _cell([0, 256]), "bad_shape", "Frame 1 at (0, 0)"),
    ("direction 5", _move(5), "bad_shape", "moves[0]"),
    ("move on a neutral cell", _move_on_a_neutral_cell(), "bad_shape", "no seat in play owns"),
    ("production 16", _with(productions=[[16] * 10] * 10), "bad_shape", "not a Halite map"),
]


@pytest.mark.parametrize(
    ("content", "code", "words"), [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES]
)
def test_a_bad_file_is_refused_with_a_clear_message(content: Any, code: str, words: str) -> None:
    text = content if isinstance(content, str) else json.dumps(content)
    with pytest.raises(hlt.HltError) as caught:
        hlt.to_record(hlt.loads(text.encode()))
    assert caught.value.code == code and words in caught.value.message


@pytest.mark.parametrize("index", [0, 1, 3], ids=["not JSON", "binary", "version 10"])
def test_the_command_line_exits_2_on_a_bad_file(index: int, tmp_path: Path) -> None:
    _name, content, code, _words = BAD_FILES[index]
    path = _write(tmp_path / "bad.hlt", content if isinstance(content, str) else content)
    refused(cli("import-hlt", str(path)), 2, code)


def test_the_command_line_exits_2_on_a_missing_file_or_a_replay_that_is_not_json(
    tmp_path: Path,
) -> None:
    refused(cli("import-hlt", str(tmp_path / "nothing.hlt")), 2, "bad_shape")
    refused(cli("export-hlt", str(tmp_path / "nothing.json")), 2, "bad_shape")
    refused(cli("export-hlt", str(_write(tmp_path / "r.json", "not json"))), 2, "bad_json")
    refused(cli("export-hlt", str(_write(tmp_path / "r.json", {"turns": 3}))), 2, "bad_shape")
