"""The engine is pure: no Django, no site code, no I/O or clock in its rules, no global
random: a test fails if the engine imports Django."""

from __future__ import annotations

import ast
import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
FORBIDDEN = ("django", "games", "helium3_site", "celery", "redis", "psycopg")


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at any depth of the file."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Call) and (
            getattr(node.func, "id", "") == "__import__"
            or getattr(node.func, "attr", "") == "import_module"
        ):
            strings = [a for a in node.args if isinstance(a, ast.Constant)]
            names.update(a.value for a in strings if isinstance(a.value, str))
    return names


def sources() -> list[Path]:
    found = sorted(ENGINE.rglob("*.py"))
    assert len(found) > 10
    return found


def is_forbidden(module: str) -> bool:
    return module.split(".")[0] in FORBIDDEN


def test_no_engine_source_imports_django_or_the_site() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(m for m in imported_modules(path) if is_forbidden(m))
        for path in sources()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_no_engine_source_text_has_an_import_of_django_or_the_site() -> None:
    # A plain text search as well, in case an import hides where the syntax tree check
    # above does not look (a string handed to exec, say).
    pattern = re.compile(
        r"(^\s*(import|from)\s+|import_module\(\s*['\"]|__import__\(\s*['\"])"
        r"(django|games|helium3_site)\b",
        re.MULTILINE,
    )
    for path in sources():
        assert not pattern.search(path.read_text()), path


def test_importing_the_whole_engine_loads_no_django_or_site_module() -> None:
    script = """
import importlib, json, pkgutil, sys
import engine
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    if info.name != "engine.__main__":
        importlib.import_module(info.name)
import engine.cli
state = engine.new_game(seed=1)
names = engine.bot_names()
for name in names:
    engine.bot_orders(name, state, 1)
engine.apply(state, {"seat": 1, "turn": 0, "actions": []})
engine.view(state, 1)
print(json.dumps(sorted(sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "engine.helium3.resolve" in loaded  # the check did import the engine
    assert [m for m in loaded if is_forbidden(m)] == []


def test_the_rules_do_no_io_and_read_no_clock() -> None:
    # The command line, benches and tournaments may; the rules of a ruleset may not.
    impure = {"os", "io", "sys", "time", "datetime", "socket", "subprocess", "pathlib", "shutil"}
    for path in sorted((ENGINE / "helium3").rglob("*.py")):
        used = {m.split(".")[0] for m in imported_modules(path)} & impure
        assert not used, (path, used)
        tree = ast.parse(path.read_text())
        calls = {
            n.func.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        assert not calls & {"open", "print", "input"}, (path, calls & {"open", "print", "input"})


def test_the_rules_never_use_the_global_random() -> None:
    # Only random.Random(...) instances, seeded from the match: no random.choice() and co.
    for path in sources():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                assert {a.name for a in node.names} <= {"Random"}, path
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", (path, node.attr)


def test_a_whole_bot_match_leaves_the_global_random_untouched_and_repeats_exactly() -> None:
    def match() -> list[object]:
        state = engine.new_game(seed=9, length_ms=60_000)
        log: list[object] = []
        while not state["over"]:
            orders = engine.bot_orders("random", state, state["to_move"])
            applied = engine.apply(state, orders)
            log.append((orders, applied.events))
            state = applied.state
        log.append(state)
        return log

    random.seed(123)
    before = random.getstate()
    first = match()
    assert random.getstate() == before
    random.seed(456)
    assert match() == first


def test_apply_and_view_never_change_their_inputs() -> None:
    state = engine.new_game(seed=4)
    orders = engine.bot_orders("random", state, 1)
    kept_state, kept_orders = copy.deepcopy(state), copy.deepcopy(orders)
    applied = engine.apply(state, orders)
    engine.view(state, 1)
    engine.view(applied.state, None)
    engine.events_view(applied.events, 2)
    assert state == kept_state and orders == kept_orders
