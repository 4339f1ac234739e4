"""Escaping for HTML the presentations write as Python strings (boards, order forms,
history lines).

`escape` gives the same text as django.utils.html.escape (which is the standard
library's html.escape of str(text)), without Django's check of every argument for a
lazy translation: the board, the orders form and the history call it hundreds of
times for each page and poll, and all they interpolate it into is a string they mark
safe as a whole.
"""

from __future__ import annotations

from html import escape as _escape


def escape(text: object) -> str:
    """`text` with &, <, >, " and ' written as HTML character references."""
    return _escape(str(text))
