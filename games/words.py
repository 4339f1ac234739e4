"""How the site writes a number, a bot and a duration, once for every page, email
and the admin: "10,198", "bot fighter", "10.4 seconds". The board scripts write
numbers the same way in the browser (Intl.NumberFormat("en")).
"""

from __future__ import annotations

# Largest first: (seconds in the unit, its name).
_UNITS = ((86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second"))


def number(value: object) -> str:
    """A count or an amount with thousands separated: 10198 -> "10,198",
    -4100 -> "-4,100", 2.5 -> "2.5"; what is not a number as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}"


def bot_label(name: str) -> str:
    """A built-in bot in a seat, as every page, email and the admin name it:
    "bot fighter"."""
    return f"bot {name}"


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def ms_words(ms: object) -> str:
    """A duration in milliseconds as a person reads it, in minutes and seconds:
    300000 -> "5 minutes", 90000 -> "1 minute 30 seconds", 10400 -> "10.4
    seconds", 500 -> "0.5 seconds"; tenths of a second are kept only under a
    minute. What is not a whole number of milliseconds is returned as it is."""
    if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
        return str(ms)
    if ms < 60_000:
        tenths = round(ms / 100)
        if tenths % 10 == 0:
            return _plural(tenths // 10, "second")
        return f"{tenths / 10:.1f} seconds"
    return seconds_words(round(ms / 1000))


def seconds_words(seconds: object) -> str:
    """A whole number of seconds in its largest unit and, when not zero, the next
    one below: 86400 -> "1 day", 90 -> "1 minute 30 seconds", 9000 -> "2 hours
    30 minutes" (what is smaller is dropped). Anything else as it is."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
        return str(seconds)
    if seconds == 0:
        return "0 seconds"
    for index, (size, unit) in enumerate(_UNITS):
        count, rest = divmod(seconds, size)
        if count:
            text = _plural(count, unit)
            if index + 1 < len(_UNITS):
                below_size, below_unit = _UNITS[index + 1]
                below = rest // below_size
                if below:
                    text += " " + _plural(below, below_unit)
            return text
    return str(seconds)  # unreachable: a positive int has a count of seconds
