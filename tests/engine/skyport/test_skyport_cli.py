"""Skyport through the command line: `new --ruleset skyport`, `apply` (a list of every
loadout, then one seat's orders), `view`, `play`, `replay` and `import-skyportmap`."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import engine_cli

FIXTURE = Path(__file__).parent / "fixtures" / "three-corners.skyportmap"


def test_new_apply_and_view_work_through_the_command_line() -> None:
    made = engine_cli(
        "new", "--ruleset", "skyport", "--seed", "3", "--seats", "3",
        "--option", "rounds=5", "--option", "map=triangle-3",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout
    state = json.loads(made.stdout)
    assert (state["ruleset"], state["rounds"], state["awaiting"]) == ("skyport", 5, [1, 2, 3])
    loadouts = [{"seat": s, "turn": 0, "loadout": ["laser", "droid"]} for s in (1, 2, 3)]
    applied = engine_cli("apply", stdin=json.dumps({"state": state, "orders": loadouts}))
    assert applied.returncode == 0, applied.stdout
    after = json.loads(applied.stdout)["state"]
    assert after["phase"] == "play" and after["awaiting"] == [1]
    one = {"seat": 1, "turn": 1, "actions": []}
    turned = engine_cli("apply", stdin=json.dumps({"state": after, "orders": one}))
    out = json.loads(turned.stdout)
    assert out["state"]["awaiting"] == [2]
    assert [e["reason"] for e in out["events"]] == ["no_action", "on_spawn"]
    seen = engine_cli("view", "--seat", "2", stdin=json.dumps(after))
    assert json.loads(seen.stdout)["viewer"] == 2


def test_a_refused_action_on_the_command_line_names_it() -> None:
    state = json.loads(engine_cli("new", "--ruleset", "skyport", "--seed", "3").stdout)
    loadouts = [{"seat": s, "turn": 0, "loadout": ["laser", "mortar"]} for s in (1, 2)]
    after = json.loads(
        engine_cli("apply", stdin=json.dumps({"state": state, "orders": loadouts})).stdout
    )["state"]
    orders = {"seat": 1, "turn": 1, "actions": [{"type": "laser", "direction": "up"}]}
    out = engine_cli("apply", stdin=json.dumps({"state": after, "orders": orders}))
    assert out.returncode == 1
    error = json.loads(out.stdout)["error"]
    assert (error["code"], error["action"]) == ("illegal_action", 0)


def test_a_shipped_map_for_fewer_seats_is_an_option_error_on_the_command_line() -> None:
    new = ("new", "--ruleset", "skyport", "--seed", "3", "--option", "map=hexagon-6")
    out = engine_cli(*new, "--seats", "7")
    assert out.returncode == 2
    message = json.loads(out.stdout)["error"]["message"]
    assert "hexagon-6 has 6 spawn tiles: it takes 2 to 6 players, not 7" in message
    assert len(json.loads(engine_cli(*new).stdout)["players"]) == 2  # fewer seats play


def test_play_and_replay_a_match_between_bots(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    out = engine_cli(
        "play", "--ruleset", "skyport", "--seed", "9", "--bots", "random,prospector,random",
        "--option", "rounds=5", "--out", str(path),
    )  # fmt: skip
    assert out.returncode == 0, out.stdout
    record = json.loads(path.read_text())
    assert record["final"]["over"] is True and record["final"]["round"] == 5
    assert engine_cli("replay", str(path)).returncode == 0
    record["turns"][3]["events"] = []
    path.write_text(json.dumps(record))
    assert engine_cli("replay", str(path)).returncode == 1


def test_import_skyportmap_prints_the_map_as_json() -> None:
    out = engine_cli("import-skyportmap", str(FIXTURE))
    assert out.returncode == 0, out.stdout
    assert json.loads(out.stdout) == {
        "players": 3,
        "seats": [2, 3],
        "size": 4,
        "description": "A small map drawn by hand for the reader's tests.",
        "tiles": ["SGRV", "GOGE", "CGVG", "SGGS"],
        "spawns": [[0, 0], [3, 0], [3, 3]],
    }


def test_import_skyportmap_refuses_what_is_not_a_map(tmp_path: Path) -> None:
    bad = tmp_path / "bad.skyportmap"
    bad.write_bytes(b"\xff\xfe not text")
    for path in (str(bad), str(tmp_path / "missing.skyportmap")):
        out = engine_cli("import-skyportmap", path)
        assert out.returncode == 2
        assert json.loads(out.stdout)["error"]["code"] == "bad_map"
