"""Text on the site's pages passes WCAG AA contrast (4.5:1 for normal text).

Every CSS rule that sets a text `color` is checked against the background the same
rule sets, or the page's white where it sets none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "games" / "static" / "games"
RULE = re.compile(r"([^{}]+)\{([^}]*)\}")
HEX = r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b"


def _rgb(code: str) -> tuple[float, float, float]:
    if len(code) == 3:
        code = "".join(c * 2 for c in code)
    r, g, b = (int(code[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return r, g, b


def _luminance(code: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(code))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _text_rules() -> list[tuple[str, str, str]]:
    found = []
    for css in sorted(STATIC.glob("*.css")):
        for selector, body in RULE.findall(css.read_text()):
            fg = re.search(r"(?<![-\w])color:\s*" + HEX, body)
            if fg is None:
                continue
            bg = re.search(r"background(?:-color)?:\s*" + HEX, body)
            found.append(
                (f"{css.name}: {selector.strip()}", fg.group(1), bg.group(1) if bg else "fff")
            )
    return found


def test_the_contrast_formula_matches_wcag_reference_values():
    assert contrast("000", "fff") == pytest.approx(21.0)
    assert contrast("777", "fff") == pytest.approx(4.48, abs=0.01)


def test_the_stylesheets_set_text_colours_at_all():
    assert len(_text_rules()) >= 5


@pytest.mark.parametrize(("where", "fg", "bg"), _text_rules())
def test_every_text_colour_passes_wcag_aa_on_its_background(where, fg, bg):
    assert contrast(fg, bg) >= 4.5, f"{where}: #{fg} on #{bg} is {contrast(fg, bg):.2f}:1"
