"""`python -m engine ...` (docs/protocol.md "Engine command line"), run as a real subprocess.

Every error is a protocol error object on standard output with exit code 1, and no
input, however broken, makes it print a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import assert_one_sentence, bot, scene, shield

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: bytes | str = b"") -> tuple[int, str, str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    # A strict codec on standard input, as some machines have: garbage must still be JSON.
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def ok(*args: str, stdin: bytes | str = b"") -> Any:
    code, out, err = run(*args, stdin=stdin)
    assert code == 0, (out, err)
    return json.loads(out)


def fails(*args: str, stdin: bytes | str = b"", code: str) -> dict[str, Any]:
    exit_code, out, err = run(*args, stdin=stdin)
    assert exit_code == 1, (out, err)
    assert "Traceback" not in out + err
    body = json.loads(out)
    assert set(body) == {"error"}
    assert body["error"]["code"] == code, body
    assert_one_sentence(body["error"]["message"])
    return dict(body["error"])


def test_new_prints_a_new_state_for_a_seed() -> None:
    state = ok("new", "--seed", "42")
    import engine

    assert state == engine.new_game(seed=42)


def test_new_takes_the_number_of_seats_and_the_battle_length() -> None:
    state = ok("new", "--seed", "3", "--seats", "2", "--length-ms", "90000")
    assert [p["seat"] for p in state["players"]] == [1, 3]
    assert state["length_ms"] == 90_000


def test_apply_resolves_a_turn_and_prints_the_state_and_events() -> None:
    import engine

    state = engine.new_game(seed=1)
    orders = {"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [5, 3]}]}
    out = ok("apply", stdin=json.dumps({"state": state, "orders": orders}))
    applied = engine.apply(state, orders)
    assert out == {"state": applied.state, "events": applied.events}


def hidden_shield_turn() -> dict[str, Any]:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15, shield=True, deflect="N"))
    orders = {"seat": 1, "turn": 0, "actions": [shield("1-1", 6, 6, deflect="E")]}
    return {"state": state, "orders": orders}


def test_apply_as_a_seat_prints_that_seats_view_and_copy_of_the_events() -> None:
    mine = ok("apply", "--as", "1", stdin=json.dumps(hidden_shield_turn()))
    assert mine["state"]["viewer"] == 1
    assert "seed" not in mine["state"]
    own, other = mine["state"]["robots"]
    assert (own["shield"], own["deflect"]) == (True, "E")
    assert "shield" not in other and "deflect" not in other
    assert "shielded" in [e["type"] for e in mine["events"]]
    theirs = ok("apply", "--as", "2", stdin=json.dumps(hidden_shield_turn()))
    assert "shielded" not in [e["type"] for e in theirs["events"]]
    assert "shield" not in theirs["state"]["robots"][0]


def test_apply_as_0_prints_a_spectators_view() -> None:
    out = ok("apply", "--as", "0", stdin=json.dumps(hidden_shield_turn()))
    assert out["state"]["viewer"] is None
    assert not any("shield" in r for r in out["state"]["robots"])
    assert "shielded" not in [e["type"] for e in out["events"]]


def test_view_prints_a_seats_view_and_0_a_spectators() -> None:
    import engine

    state = hidden_shield_turn()["state"]
    assert ok("view", "--seat", "2", stdin=json.dumps(state)) == engine.view(state, 2)
    assert ok("view", "--seat", "0", stdin=json.dumps(state)) == engine.view(state, None)


def test_bots_lists_the_built_in_bots_one_a_line_random_among_them() -> None:
    code, out, _ = run("bots")
    assert code == 0
    names = out.splitlines()
    assert "random" in names
    assert all(name and name.strip() == name for name in names)


def test_play_plays_a_whole_match_deterministically_and_writes_a_replay_that_replays(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    args = ("play", "--seed", "5", "--bots", "random,random,random", "--length-ms", "60000")
    summary = ok(*args, "--out", str(first))
    assert {"winners", "turns", "money"} <= set(summary)
    assert ok(*args, "--out", str(second)) == summary
    assert first.read_bytes() == second.read_bytes()
    record = json.loads(first.read_text())
    assert {"initial", "turns", "final"} <= set(record)
    assert [p["seat"] for p in record["initial"]["players"]] == [1, 2, 3]
    assert record["final"]["over"] is True
    assert len(record["turns"]) == summary["turns"]
    assert all({"orders", "events"} <= set(turn) for turn in record["turns"])
    assert ok("replay", str(first))["ok"] is True


def test_replay_fails_when_a_turn_differs_from_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    ok("play", "--seed", "6", "--bots", "random,random", "--length-ms", "40000", "--out", str(path))
    record = json.loads(path.read_text())
    record["turns"][0]["events"].append({"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": 1})
    path.write_text(json.dumps(record))
    exit_code, out, err = run("replay", str(path))
    assert exit_code != 0
    assert "Traceback" not in out + err
    assert "error" in json.loads(out)


def test_replay_fails_when_the_final_state_differs_from_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    ok("play", "--seed", "6", "--bots", "random,random", "--length-ms", "40000", "--out", str(path))
    record = json.loads(path.read_text())
    record["final"]["players"][0]["money"] += 1
    path.write_text(json.dumps(record))
    assert run("replay", str(path))[0] != 0


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"not json",
        b"{",
        b"\xff\xfe\x00\x81 garbage",
        b"\xc3\x28 {}",
        b"[" * 100_000,
        b'{"state": NaN',
    ],
    ids=["empty", "words", "unclosed", "binary", "not-utf8", "deep", "nan"],
)
def test_apply_answers_garbage_input_with_bad_json(stdin: bytes) -> None:
    fails("apply", stdin=stdin, code="bad_json")


def test_view_answers_garbage_input_with_bad_json() -> None:
    fails("view", "--seat", "1", stdin=b"\x00\x01\x02", code="bad_json")


@pytest.mark.parametrize(
    "stdin",
    ["[]", '"state"', '{"state": {}}', '{"orders": {}}', "42"],
)
def test_apply_needs_an_object_with_state_and_orders(stdin: str) -> None:
    fails("apply", stdin=stdin, code="bad_shape")


def test_apply_prints_the_error_of_illegal_orders_and_exits_1() -> None:
    import engine

    state = engine.new_game(seed=1)
    orders = {"seat": 2, "turn": 0, "actions": []}
    fails("apply", stdin=json.dumps({"state": state, "orders": orders}), code="not_your_turn")
    orders = {"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [9, 9]}]}
    body = fails("apply", stdin=json.dumps({"state": state, "orders": orders}), code="out_of_range")
    assert body["action"] == 0


def test_apply_and_view_refuse_a_bad_state() -> None:
    state = hidden_shield_turn()["state"]
    state["robots"][1].update(x=5, y=5)
    fails(
        "apply",
        stdin=json.dumps({"state": state, "orders": {"seat": 1, "turn": 0, "actions": []}}),
        code="bad_state",
    )
    fails("view", "--seat", "1", stdin=json.dumps(state), code="bad_state")
    fails("view", "--seat", "1", stdin="[1, 2, 3]", code="bad_state")


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("frobnicate",),
        ("new",),
        ("new", "--seed", "x"),
        ("new", "--seed", "1", "--seats", "5"),
        ("new", "--seed", "1", "--length-ms", "0"),
        ("view",),
        ("view", "--seat", "9"),
        ("apply", "--as", "one"),
        ("play", "--seed", "1", "--bots", "random"),
        ("play", "--seed", "1", "--bots", "random,no-such-bot"),
        ("replay", "/no/such/replay.json"),
    ],
    ids=lambda a: " ".join(a) or "nothing",
)
def test_bad_command_lines_are_bad_shape_errors(args: tuple[str, ...]) -> None:
    stdin = json.dumps(hidden_shield_turn()["state"]) if args[:1] == ("view",) else ""
    fails(*args, stdin=stdin, code="bad_shape")


def test_a_replay_file_that_is_not_json_is_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "junk.json"
    path.write_bytes(b"\x89PNG\r\n")
    fails("replay", str(path), code="bad_json")


def test_a_replay_file_of_the_wrong_shape_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "shape.json"
    for record in (
        [],
        {"turns": "many"},
        {"initial": None, "turns": []},
        {"initial": {}, "turns": [{}]},
    ):
        path.write_text(json.dumps(record))
        exit_code, out, err = run("replay", str(path))
        assert exit_code == 1 and "Traceback" not in out + err
        assert json.loads(out)["error"]["code"] in ("bad_shape", "bad_state")
