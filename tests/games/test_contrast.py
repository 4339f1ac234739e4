"""Text on the site's pages passes WCAG AA contrast (4.5:1 for normal text), in the
light theme and in the dark one.

The site's colours are design tokens (custom properties) in games/static/games/site.css:
one block for the light theme (`:root`), one for the dark theme chosen by the switch
(`:root[data-theme="dark"]`) and the same again for a system in dark mode. Every pair
of tokens the stylesheet puts text on is checked in both themes. Besides, every CSS
rule that sets a literal text `color` is checked against the background the same rule
sets, or the page's white where it sets none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "games" / "static" / "games"
SITE_CSS = STATIC / "site.css"
RULE = re.compile(r"([^{}]+)\{([^}]*)\}")
HEX = r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b"
TOKEN = re.compile(r"--([\w-]+):\s*#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")

# (text token, background token): every place the stylesheet sets text on a background.
TEXT_PAIRS = [
    ("text", "bg"),
    ("text", "surface"),
    ("text", "surface-2"),
    ("muted", "bg"),
    ("muted", "surface"),
    ("muted", "surface-2"),
    ("link", "bg"),
    ("link", "surface"),
    ("on-accent", "accent"),
    ("on-accent", "accent-hover"),
    ("head-text", "head-bg"),
    ("head-muted", "head-bg"),
    ("on-highlight", "highlight"),
    ("danger", "bg"),
    ("danger", "surface"),
    ("danger", "danger-bg"),
    ("success", "success-bg"),
    ("warning", "warning-bg"),
    ("warning", "surface"),
]
# Not text, but what tells a control from the page (WCAG 1.4.11: 3:1).
UI_PAIRS = [("accent", "bg"), ("accent", "surface"), ("highlight", "head-bg")]


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


def _block(css: str, selector: str) -> str:
    start = css.index(selector + " {")
    return css[start : css.index("}", start)]


def themes() -> dict[str, dict[str, str]]:
    """The colour tokens of each theme: light, dark by choice, dark by the system."""
    css = SITE_CSS.read_text()
    found = {}
    for name, selector in (
        ("light", ":root"),
        ("dark", ':root[data-theme="dark"]'),
        ("system dark", ':root:not([data-theme="light"])'),
    ):
        found[name] = {k: v.lower() for k, v in TOKEN.findall(_block(css, selector))}
    return found


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


def test_both_themes_define_every_token_the_pairs_use():
    found = themes()
    used = {token for pair in TEXT_PAIRS + UI_PAIRS for token in pair}
    for name, tokens in found.items():
        assert used <= set(tokens), f"{name} lacks {sorted(used - set(tokens))}"
    assert found["light"]["bg"] != found["dark"]["bg"]


def test_the_system_dark_theme_is_the_switchs_dark_theme():
    found = themes()
    assert found["system dark"] == found["dark"]


def test_the_dark_theme_is_dark_and_the_light_one_light():
    found = themes()
    assert _luminance(found["dark"]["bg"]) < 0.02 < 0.8 < _luminance(found["light"]["bg"])


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("fg", "bg"), TEXT_PAIRS)
def test_every_text_token_passes_wcag_aa_on_its_background_in_both_themes(theme, fg, bg):
    tokens = themes()[theme]
    ratio = contrast(tokens[fg], tokens[bg])
    assert ratio >= 4.5, f"{theme}: --{fg} #{tokens[fg]} on --{bg} #{tokens[bg]} is {ratio:.2f}:1"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("fg", "bg"), UI_PAIRS)
def test_controls_stand_out_from_the_page_in_both_themes(theme, fg, bg):
    tokens = themes()[theme]
    ratio = contrast(tokens[fg], tokens[bg])
    assert ratio >= 3, f"{theme}: --{fg} #{tokens[fg]} on --{bg} #{tokens[bg]} is {ratio:.2f}:1"


def test_the_site_stylesheet_colours_text_only_through_its_tokens():
    """A literal colour in a rule would not follow the theme."""
    for selector, body in RULE.findall(SITE_CSS.read_text()):
        if selector.strip().startswith(":root"):
            continue
        assert not re.search(r"(?<![-\w])color:\s*#", body), selector.strip()


@pytest.mark.parametrize(("where", "fg", "bg"), _text_rules())
def test_every_literal_text_colour_passes_wcag_aa_on_its_background(where, fg, bg):
    assert contrast(fg, bg) >= 4.5, f"{where}: #{fg} on #{bg} is {contrast(fg, bg):.2f}:1"
