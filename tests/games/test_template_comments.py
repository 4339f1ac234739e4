"""Django's {# #} comment ends on its own line: one that runs on is printed as text."""

from __future__ import annotations

from pathlib import Path

import pytest

TEMPLATES = sorted((Path(__file__).resolve().parents[2] / "templates").rglob("*.html"))


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_every_short_comment_closes_on_its_line(path: Path) -> None:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        rest = line
        while "{#" in rest:
            rest = rest[rest.index("{#") + 2 :]
            assert "#}" in rest, f"{path.name}:{number}: a {{# comment runs on; use {{% comment %}}"
            rest = rest[rest.index("#}") + 2 :]


def test_the_templates_are_found() -> None:
    assert len(TEMPLATES) > 20
