"""Numbers in words for the pages: "1 day", "15 minutes", not "86400 s"; counts
and amounts with their thousands separated ("10,198"), as games.words writes them."""

from __future__ import annotations

from django import template

from games import words

register = template.Library()


@register.filter
def number(value: object) -> str:
    """{{ money|number }} -> "10,198", as every page and email writes a number."""
    return words.number(value)


@register.filter
def bot_label(name: str) -> str:
    """{{ seat.standin_bot|bot_label }} -> "bot fighter", as a seat's label says it."""
    return words.bot_label(name)


@register.filter
def ms_words(value: object) -> str:
    """{{ match.length_ms|ms_words }} -> "5 minutes"; 10400 -> "10.4 seconds"."""
    return words.ms_words(value)


_UNITS = [(86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second")]


@register.filter
def seconds_words(value: object) -> str:
    """A whole number of seconds in its largest exact unit: 90 -> "90 seconds",
    3600 -> "1 hour", 172800 -> "2 days"; anything else as it is."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return str(value)
    for size, unit in _UNITS:
        if value % size == 0:
            count = value // size
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return str(value)  # unreachable: every int is a whole number of seconds


@register.filter
def minutes_words(ms: object) -> str:
    """A battle length in minutes and seconds: 600000 -> "10 minutes", 90000 -> "1
    minute 30 seconds" (it said "1.5 min"), as games.words writes every duration."""
    return words.ms_words(ms)
