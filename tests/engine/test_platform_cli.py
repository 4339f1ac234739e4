"""The command line for every ruleset: `rulesets`, and `--ruleset` and `--option` on
every command. `new`, `play`, `bench` and `tournament` start a game of that ruleset
with those options; `apply`, `view`, `replay`, `export-hlt` and `import-hlt` check
that their input is of that ruleset with those option values (exit 2 and nothing
else written if not); `bots`, `import-skyportmap` and `rulesets` check the options
against the ruleset (`rulesets` lists the rulesets that take them). The test
rulesets are registered by running platform_rulesets.py, which is `python -m engine`
with them added."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, assert_one_sentence, engine_cli

from engine.cli import build_parser

WITH_TEST_RULESETS = Path(__file__).parent / "platform_rulesets.py"
HLT_FIXTURE = Path(__file__).parent / "halite" / "fixtures" / "three-seats-12x10.hlt"
SKYPORT_MAP = Path(__file__).parent / "skyport" / "fixtures" / "three-corners.skyportmap"


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(WITH_TEST_RULESETS), *args],
        input=stdin,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def ok(*args: str, stdin: str | None = None) -> Any:
    done = cli(*args, stdin=stdin)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def error(done: subprocess.CompletedProcess[str], exit_code: int) -> dict[str, Any]:
    assert done.returncode == exit_code, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    body = json.loads(done.stdout)["error"]
    assert body["code"] == "bad_shape"
    assert_one_sentence(body["message"])
    return dict(body)


def test_rulesets_lists_each_with_its_seats_shape_bots_and_options() -> None:
    done = engine_cli("rulesets")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == (
        "helium3: Helium 3; seats 2, 3, 4 (default 4); one seat at a time; "
        "bots random, miner, fighter; options: length_ms=600000 (int 1..): "
        "the battle's length in ms of the turns' timelines"
    )
    lines = {line.split(":")[0]: line for line in cli("rulesets").stdout.splitlines()}
    assert {"helium3", "nim", "rps", "race", "dig"} <= set(lines)
    assert "all seats at once" in lines["rps"] and "rounds=3 (int 1..50)" in lines["rps"]
    assert "setup at once, then one seat at a time" in lines["race"]
    assert "a turn of several steps" in lines["dig"]


def test_rulesets_json_is_one_list_of_their_descriptions() -> None:
    described = {r["name"]: r for r in ok("rulesets", "--json")}
    assert described["rps"]["shape"] == {"simultaneous": True, "setup": False, "steps": False}
    assert described["dig"]["options"][0] == {
        "name": "steps", "kind": "int", "default": 3, "minimum": 1, "maximum": 9,
        "choices": [], "help": "steps in a turn",
    }  # fmt: skip
    assert described["helium3"]["seats"] == [2, 3, 4]


def test_new_takes_a_ruleset_and_its_options() -> None:
    state = ok("new", "--ruleset", "dig", "--seed", "4", "--option", "steps=5",
               "--option", "width=12", "--seats", "3")  # fmt: skip
    assert state["ruleset"] == "dig" and state["steps"] == 5 and state["width"] == 12
    assert [p["seat"] for p in state["players"]] == [1, 2, 3]
    assert ok("new", "--ruleset", "rps", "--seed", "1")["awaiting"] == [1, 2]


def test_helium3_takes_its_battle_length_as_an_option_too() -> None:
    done = engine_cli("new", "--seed", "3", "--option", "length_ms=90000")
    assert json.loads(done.stdout)["length_ms"] == 90_000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--option", "steps=10"), "Option steps is at most 9."),
        (("--option", "steps=two"), "Option steps takes a whole number, not 'two'."),
        (("--option", "speed=2"), "The dig ruleset has no option 'speed'; known: steps, rounds, width."),
        (("--option", "steps"), "Write an option as NAME=VALUE, not 'steps'."),
        (("--option", "steps=2", "--option", "steps=3"), "Option steps is given twice."),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["new", "play", "bench", "tournament"])
def test_a_bad_option_is_a_clear_error_with_exit_code_2(command, args, message) -> None:
    base = {
        "new": ("new", "--seed", "1"),
        "play": ("play", "--seed", "1", "--bots", "random,random"),
        "bench": ("bench", "--runs", "1", "--matches", "1"),
        "tournament": ("tournament", "--matches", "1"),
    }[command]
    body = error(cli(*base, "--ruleset", "dig", *args), 2)
    assert body["message"] == message


@pytest.mark.parametrize("command", [("new",), ("play", "--bots", "random,random")])
def test_length_ms_is_a_bad_command_line_for_a_ruleset_without_a_battle_clock(command) -> None:
    body = error(cli(*command, "--seed", "1", "--ruleset", "dig", "--length-ms", "5000"), 1)
    known = "known: steps, rounds, width."
    assert body["message"] == f"The dig ruleset has no option 'length_ms'; {known}"


def test_an_unknown_ruleset_is_a_bad_shape_error() -> None:
    body = error(engine_cli("new", "--seed", "1", "--ruleset", "chess"), 1)
    assert "chess" in body["message"]


def test_play_checks_the_seat_count_of_the_ruleset() -> None:
    body = error(
        cli("play", "--ruleset", "nim", "--seed", "1", "--bots", "perfect,perfect,perfect"), 1
    )
    assert body["message"] == "Name 2 bots, one per seat, separated by commas."


@pytest.mark.parametrize(
    ("ruleset", "bots"),
    [("rps", "random,rock,random"), ("race", "greedy,random"), ("dig", "walker,random")],
)
def test_play_writes_a_replay_that_replay_re_resolves(tmp_path, ruleset, bots) -> None:
    path = tmp_path / "replay.json"
    summary = ok("play", "--ruleset", ruleset, "--seed", "8", "--bots", bots,
                 "--option", "rounds=2" if ruleset != "race" else "target=9", "--out", str(path))  # fmt: skip
    record = json.loads(path.read_text())
    assert set(record) >= {"initial", "turns", "final"}
    assert summary == {
        "winners": record["final"]["winners"],
        "turns": len(record["turns"]),
        "scores": record["final"]["scores"],
    }
    assert ok("replay", str(path)) == {
        "ok": True, "turns": len(record["turns"]), "winners": record["final"]["winners"],
    }  # fmt: skip
    record["turns"][-1]["events"][0]["t_ms"] += 1
    path.write_text(json.dumps(record))
    assert cli("replay", str(path)).returncode == 1


def test_apply_takes_the_list_of_a_simultaneous_turn_and_view_reads_the_ruleset() -> None:
    state = ok("new", "--ruleset", "rps", "--seed", "1")
    orders = [{"seat": 1, "turn": 0, "throw": "paper"}, {"seat": 2, "turn": 0, "throw": "rock"}]
    out = ok("apply", "--as", "2", stdin=json.dumps({"state": state, "orders": orders}))
    assert out["state"]["viewer"] == 2 and out["state"]["scores"] == {"1": 1, "2": 0}
    assert [e["type"] for e in out["events"]][:2] == ["thrown", "thrown"]
    done = cli("apply", stdin=json.dumps({"state": state, "orders": orders[::-1]}))
    assert error(done, 1)["message"] == "Give the orders in seat order: 1, 2."
    assert ok("view", "--seat", "0", stdin=json.dumps(state))["viewer"] is None


def test_apply_checks_a_steps_step_no() -> None:
    state = ok("new", "--ruleset", "dig", "--seed", "1")
    given = {"seat": 1, "turn": 0, "step_no": 0, "action": "scan"}
    after = ok("apply", stdin=json.dumps({"state": state, "orders": given}))["state"]
    assert after["step"] == 1
    done = cli("apply", stdin=json.dumps({"state": after, "orders": given}))
    assert done.returncode == 1 and json.loads(done.stdout)["error"]["code"] == "stale_turn"


def test_bench_runs_for_any_ruleset_beside_helium3s_figure() -> None:
    figures = ok("bench", "--ruleset", "race", "--runs", "1", "--matches", "2",
                 "--option", "target=30")  # fmt: skip
    assert figures["ruleset"] == "race" and figures["options"] == {"target": 30}
    assert figures["turns_per_s"] > 0 and figures["reference"]["turns_per_s"] > 0
    assert figures["reference"]["ruleset"] == "helium3"
    assert set(figures["bots"]) == {"random", "greedy"}
    assert figures["bots"]["greedy"]["turns_per_match"] > 1


def test_tournament_runs_for_any_ruleset() -> None:
    done = cli("tournament", "--ruleset", "race", "--matches", "4", "--seed-base", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "greedy vs 1 random (2 seats, greedy's seat rotates): 4 matches, seeds 3..6"
    assert "greedy vs random (2 seats, they swap seats): 4 matches, seeds 3..6" in lines
    rows = [line for line in lines if line.startswith("| greedy |")]
    assert len(rows) == 2 and rows[0].split("|")[2].strip() == "4"
    assert "| bot | seats | wins | win % | mean score | mean turns per player |" in lines
    assert (
        cli("tournament", "--ruleset", "race", "--matches", "4", "--seed-base", "3").stdout
        == done.stdout
    )


def test_tournament_refuses_a_bot_the_ruleset_does_not_have() -> None:
    body = error(cli("tournament", "--ruleset", "rps", "--matches", "1", "--best", "fighter"), 1)
    assert body["message"] == "Unknown bot 'fighter'; known: random, rock."


# ------------------------------------------- --ruleset and --option on every command


def test_every_command_takes_ruleset_and_option() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) == {
        "new", "apply", "view", "bots", "play", "replay", "export-hlt", "import-hlt",
        "import-skyportmap", "tournament", "bench", "rulesets",
    }  # fmt: skip
    for name, command in commands.items():
        flags = {flag for action in command._actions for flag in action.option_strings}
        assert {"--ruleset", "--option"} <= flags, name


def test_apply_checks_the_states_ruleset_and_options_and_writes_nothing_else() -> None:
    state = ok("new", "--ruleset", "dig", "--seed", "1", "--option", "steps=5")
    given = {"seat": 1, "turn": 0, "step_no": 0, "action": "scan"}
    body = json.dumps({"state": state, "orders": given})
    checked = ok("apply", "--ruleset", "dig", "--option", "steps=5", stdin=body)
    assert checked == ok("apply", stdin=body) and checked["state"]["step"] == 1
    for args, message in [
        (("--ruleset", "nim"), "The state is of ruleset dig, not nim."),
        (("--option", "steps=3"), "The state has steps=5, not steps=3."),
        (("--ruleset", "dig", "--option", "pile=3"), "The dig ruleset has no option 'pile'; known: steps, rounds, width."),
    ]:  # fmt: skip
        done = cli("apply", *args, stdin=body)
        assert error(done, 2)["message"] == message
        assert len(done.stdout.splitlines()) == 1  # the error object and nothing else


def test_view_checks_the_states_ruleset_and_options() -> None:
    state = json.dumps(ok("new", "--ruleset", "rps", "--seed", "2", "--option", "rounds=4"))
    seen = ok("view", "--seat", "1", "--ruleset", "rps", "--option", "rounds=4", stdin=state)
    assert seen == ok("view", "--seat", "1", stdin=state) and seen["viewer"] == 1
    helium3 = engine_cli("new", "--seed", "2").stdout
    done = engine_cli("view", "--seat", "1", "--ruleset", "helium3-remake", stdin=helium3)
    assert error(done, 2)["message"] == "The state is of ruleset helium3, not helium3-remake."
    done = cli("view", "--seat", "1", "--option", "rounds=3", stdin=state)
    assert error(done, 2)["message"] == "The state has rounds=4, not rounds=3."


def test_replay_checks_the_replays_ruleset_and_options(tmp_path) -> None:
    path = tmp_path / "replay.json"
    ok("play", "--ruleset", "race", "--seed", "2", "--bots", "greedy,random",
       "--option", "target=9", "--out", str(path))  # fmt: skip
    checked = ok("replay", str(path), "--ruleset", "race", "--option", "target=9")
    assert checked == ok("replay", str(path)) and checked["ok"] is True
    done = cli("replay", str(path), "--ruleset", "rps")
    assert error(done, 2)["message"] == "The replay is of ruleset race, not rps."
    done = cli("replay", str(path), "--option", "target=15")
    assert error(done, 2)["message"] == "The replay has target=9, not target=15."


def test_export_hlt_checks_the_replays_options(tmp_path) -> None:
    path = tmp_path / "replay.json"
    engine_cli("play", "--ruleset", "halite", "--seed", "1", "--bots", "random,random",
               "--option", "width=10", "--option", "height=12", "--out", str(path))  # fmt: skip
    checked = engine_cli("export-hlt", str(path), "--ruleset", "halite", "--option", "width=10")
    assert checked.returncode == 0 and json.loads(checked.stdout)["width"] == 10
    assert checked.stdout == engine_cli("export-hlt", str(path)).stdout
    done = engine_cli("export-hlt", str(path), "--option", "height=10")
    assert error(done, 2)["message"] == "The replay has height=12, not height=10."
    done = engine_cli("export-hlt", str(path), "--ruleset", "skyport")
    assert error(done, 1)["message"].startswith("Argument --ruleset: invalid choice: 'skyport'")


def test_import_hlt_checks_the_imported_replays_options_before_writing_it(tmp_path) -> None:
    out = tmp_path / "imported.json"
    summary = ok("import-hlt", str(HLT_FIXTURE), "--ruleset", "halite",
                 "--option", "width=12", "--option", "height=10", "--out", str(out))  # fmt: skip
    assert summary["turns"] == len(json.loads(out.read_text())["turns"])
    out.unlink()
    done = cli("import-hlt", str(HLT_FIXTURE), "--option", "width=30", "--out", str(out))
    assert error(done, 2)["message"] == "The imported replay has width=12, not width=30."
    assert not out.exists()


def test_bots_checks_the_options_against_its_ruleset() -> None:
    listed = cli("bots", "--ruleset", "dig", "--option", "steps=2")
    assert listed.returncode == 0 and listed.stdout == cli("bots", "--ruleset", "dig").stdout
    assert listed.stdout.split() == ["random", "walker"]
    body = error(cli("bots", "--ruleset", "dig", "--option", "steps=10"), 2)
    assert body["message"] == "Option steps is at most 9."


def test_import_skyportmap_reads_skyport_maps_and_checks_the_options() -> None:
    plain = engine_cli("import-skyportmap", str(SKYPORT_MAP))
    done = engine_cli("import-skyportmap", str(SKYPORT_MAP), "--ruleset", "skyport",
                      "--option", "rounds=10", "--option", "map=triangle-3")  # fmt: skip
    assert done.returncode == 0 and done.stdout == plain.stdout
    body = error(engine_cli("import-skyportmap", str(SKYPORT_MAP), "--option", "width=9"), 2)
    assert body["message"] == "The skyport ruleset has no option 'width'; known: rounds, map."
    body = error(engine_cli("import-skyportmap", str(SKYPORT_MAP), "--ruleset", "halite"), 1)
    assert body["message"].startswith("Argument --ruleset: invalid choice: 'halite'")


def test_rulesets_lists_the_one_named_or_those_taking_the_options() -> None:
    assert [r["name"] for r in ok("rulesets", "--json", "--ruleset", "rps")] == ["rps"]
    taking = [r["name"] for r in ok("rulesets", "--json", "--option", "rounds=3")]
    assert taking == ["rps", "dig"]
    wide = cli("rulesets", "--option", "width=12", "--option", "rounds=20").stdout.splitlines()
    assert [line.split(":")[0] for line in wide] == ["dig"]
    body = error(cli("rulesets", "--option", "rounds=500"), 2)
    assert body["message"] == "No ruleset takes rounds=500."
    body = error(cli("rulesets", "--ruleset", "nim", "--option", "rounds=3"), 2)
    assert body["message"] == "The nim ruleset has no option 'rounds'; known: pile."


@pytest.mark.parametrize(
    ("command", "rest"),
    [
        ("new", ("--seed", "1")),
        ("play", ("--seed", "1", "--bots", "random,random")),
        ("bench", ("--runs", "1", "--matches", "1")),
        ("tournament", ("--matches", "1")),
    ],
)
def test_commands_starting_a_game_start_it_of_that_ruleset_with_those_options(
    command, rest
) -> None:
    out = cli(command, *rest, "--ruleset", "dig", "--option", "width=11")
    assert out.returncode == 0, out.stdout + out.stderr
    if command == "new":
        assert json.loads(out.stdout)["width"] == 11
    elif command == "bench":
        assert json.loads(out.stdout)["options"]["width"] == 11
    body = error(cli(command, *rest, "--ruleset", "dig", "--option", "width=1"), 2)
    assert body["message"].startswith("Option width is at least")
