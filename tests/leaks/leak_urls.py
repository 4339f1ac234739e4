"""Every URL pattern of the site, from the resolver, made into requests.

A pattern is walked to from the root URLconf through every include (namespaces,
the admin, allauth, the bot API), so a page added tomorrow is crawled without
touching this file, unless its URL takes a keyword argument this crawler has no
value for: then the test fails and says to add the name to `KWARGS`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404
from django.utils.regex_helper import normalize

# The only patterns not crawled, each with the reason it cannot show game data.
# Keep it tiny: a pattern belongs here only if nothing it answers depends on a match.
SKIP: dict[str, str] = {}

# A path segment no pattern names: appended to patterns that end in a catch-all,
# so that the request reaches the catch-all and not a sibling pattern.
PROBE = "leak-crawler-probe/"


@dataclass(frozen=True)
class Pattern:
    """One URL pattern as reached from the root: its pieces, from the outermost."""

    namespace: str
    route: str
    names: tuple[str, ...]
    pieces: tuple[Any, ...] = field(compare=False)
    kwargs: tuple[str, ...] = field(compare=False)

    @property
    def key(self) -> str:
        """What a response's resolver_match says when it came from this pattern."""
        return f"{self.namespace}:{self.route}"


def _join_route(route1: str, route2: str) -> str:
    # As django.urls.resolvers.URLResolver._join_route, which ResolverMatch.route uses.
    if not route1:
        return route2
    return route1 + route2.removeprefix("^")


def url_patterns() -> list[Pattern]:
    """Every leaf pattern, in the resolver's order. Two patterns with the same route
    in the same namespace are one URL (the resolver always picks the first; the
    bot API's GET and POST of /matches/ are such a pair), so only the first is kept."""
    found: dict[str, Pattern] = {}

    def walk(entries: list[Any], route: str, namespaces: tuple[str, ...], pieces: tuple) -> None:
        for entry in entries:
            here = _join_route(route, str(entry.pattern))
            if isinstance(entry, URLResolver):
                spaces = namespaces + ((entry.namespace,) if entry.namespace else ())
                walk(entry.url_patterns, here, spaces, pieces + (entry.pattern,))
            elif isinstance(entry, URLPattern):
                chain = pieces + (entry.pattern,)
                kwargs = tuple(sorted({name for piece in chain for name in piece.regex.groupindex}))
                pattern = Pattern(":".join(namespaces), here, (), chain, kwargs)
                first = found.setdefault(pattern.key, pattern)
                if entry.name:
                    found[pattern.key] = replace(first, names=first.names + (entry.name,))

    walk(get_resolver().url_patterns, "", (), ())
    return list(found.values())


def _piece_path(piece: Any, values: dict[str, Any]) -> str:
    converters = getattr(piece, "converters", {})
    for template, params in normalize(piece.regex.pattern):
        if set(params) <= set(values):
            filled = {
                p: converters[p].to_url(values[p]) if p in converters else str(values[p])
                for p in params
            }
            return template % filled
    raise AssertionError(f"cannot fill {piece} from {sorted(values)}")


def build_path(pattern: Pattern, values: dict[str, Any]) -> str | None:
    """A path that the resolver sends to `pattern` with these kwargs, or None."""
    path = "/" + "".join(_piece_path(piece, values) for piece in pattern.pieces)
    for candidate in (path, path + PROBE):
        try:
            match = resolve(candidate)
        except Resolver404:
            continue
        if f"{':'.join(match.namespaces)}:{match.route}" == pattern.key:
            return candidate
    return None


class UnknownKwarg(AssertionError):
    pass


def kwarg_values(
    pattern: Pattern, table: dict[str, Callable[[], list[Any]]]
) -> Iterator[dict[str, Any]]:
    """Every combination of the table's values for the pattern's kwargs."""
    missing = [name for name in pattern.kwargs if name not in table]
    if missing:
        raise UnknownKwarg(
            f"URL pattern {pattern.key!r} {pattern.names} takes {missing}, which the leak "
            "crawler has no value for: add them to the kwargs table in "
            "tests/leaks/test_leak_crawler.py (a real object of the planted world, so the "
            "page is crawled as it is when it shows a planted match)."
        )
    choices = [table[name]() for name in pattern.kwargs]
    for combo in itertools.product(*choices):
        yield dict(zip(pattern.kwargs, combo, strict=True))
