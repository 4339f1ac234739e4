"""No module of the site imports itself round a circle.

The graph is read from the source with ast (every `import`, top-level or inside a
function: a lazy import only hides a circle until the day the import moves up), so
the test needs no Django and imports nothing it reads.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "games"


def _modules(root: Path, package: str) -> dict[str, Path]:
    found = {}
    for path in (root / package).rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _nearest(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of `package` it imports."""
    modules = _modules(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(_nearest(alias.name, modules) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                for alias in node.names:
                    whole = f"{base}.{alias.name}"
                    targets.add(whole if whole in modules else _nearest(base, modules))
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_site_imports_itself_round_a_circle() -> None:
    graph = import_graph()
    assert len(graph) > 50, "the site's modules were not found"
    assert cycles(graph) == []


def test_the_services_queue_tasks_without_importing_them() -> None:
    graph = import_graph()
    assert "games.tasks" not in graph["games.queue"]
    assert not {m for m in graph["games.queue"] if m.startswith("games.services")}
    assert "games.queue" in graph["games.services.turns"]


def test_the_check_finds_a_circle_however_the_import_is_written(tmp_path: Path) -> None:
    # A circle through a lazy import inside a function, a relative import and a
    # package's __init__: what the site once had, in miniature.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")
    (pkg / "b.py").write_text("from .sub import c\n")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.c import x\n")
    (pkg / "sub" / "c.py").write_text("import pkg.a\nx = 1\n")
    (pkg / "d.py").write_text("from pkg import a\n")
    assert cycles(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
