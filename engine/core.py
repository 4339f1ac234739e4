"""Values shared by every ruleset."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Applied:
    """One resolved turn: the new state and the full events, both as protocol JSON."""

    state: dict[str, Any]
    events: list[Event]
    turn_ms: int


def _no_description(name: str) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """What a ruleset module provides; `engine` dispatches on `state["ruleset"]`."""

    name: str
    new_game: Callable[..., dict[str, Any]]
    apply: Callable[[Any, Any], Applied]
    view: Callable[[Any, int | None], dict[str, Any]]
    events_view: Callable[..., list[Event]]
    bot_names: Callable[[], list[str]]
    bot_orders: Callable[[str, Any, int], dict[str, Any]]
    # A few words for a person choosing an opponent: how strong the bot is, how it plays.
    bot_description: Callable[[str], str] = _no_description
