"""Twin arena matches through the bot API and its stream: matches that differ only in
how seat 1 spends its turn (a scan; a walk of two cells, a shot at an empty cell and a
scan; a shot and a walk of six cells) give seat 2 and a spectator byte-identical
answers (the match body, the history, seat 2's stream) while the turn is played and
once it has ended. Seat 1 itself hears each of its steps at once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from api_support import ApiClient
from django.db import transaction
from site_support import drain

from games import services
from games.models import Match

BUILDS = {1: ["engine3", "radar1", "gun"], 2: ["engine1", "radar1", "shield3"]}
MOVES = {"right": (1, 0), "down": (0, 1), "left": (-1, 0), "up": (0, -1)}


def _walk(state: dict[str, Any], cells: int) -> list[str]:
    """A path of `cells` steps from seat 1's corner around the obstacles."""
    blocked = {tuple(c) for c in state["obstacles"]} | {(9, 9)}
    paths: dict[tuple[int, int], list[str]] = {(0, 0): []}
    todo = [(0, 0)]
    while todo:
        at = todo.pop(0)
        if len(paths[at]) == cells:
            return paths[at]
        for name, (dx, dy) in MOVES.items():
            cell = (at[0] + dx, at[1] + dy)
            if 0 <= cell[0] < 10 and 0 <= cell[1] < 10 and cell not in blocked | set(paths):
                paths[cell] = [*paths[at], name]
                todo.append(cell)
    raise AssertionError(f"no walk of {cells} cells")


def _plan(state: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Seat 1's steps before its `end`; every shot misses (seat 2 is far away)."""
    if name == "scan":
        return [{"type": "scan"}]
    if name == "walk-shoot-scan":
        path = _walk(state, 2)
        x = sum(MOVES[d][0] for d in path)
        y = sum(MOVES[d][1] for d in path)
        return [{"type": "move", "path": path}, {"type": "shoot", "target": [x + 2, y]},
                {"type": "scan"}]  # fmt: skip
    return [{"type": "shoot", "target": [2, 2]}, {"type": "move", "path": _walk(state, 6)}]


PLANS = ("scan", "walk-shoot-scan", "shoot-walk")


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


@pytest.fixture
def duel(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, ruleset="arena", options={"rounds": 10}, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


def _play(
    duel: Match, player: Any, opponent: Any, plan: str, watchers: dict[str, ApiClient]
) -> dict[str, tuple[set[bytes], bytes]]:
    """Inside a savepoint rolled back after it: the builds, then seat 1's plan and end.
    For each watcher's API answers and each seat's stream: what it was told after each
    step of the turn (the set of them) and once the turn ended."""
    # Imported here, not at collection: the API's schema lists the rulesets registered
    # when it loads, and the test rulesets are registered when the session starts.
    from games.api.stream import Session, encode, read_digests

    during: dict[str, set[bytes]] = {name: set() for name in [*watchers, "stream 1", "stream 2"]}
    after: dict[str, bytes] = {}
    savepoint = transaction.savepoint()
    try:
        for user, seat in ((player, 1), (opponent, 2)):
            services.orders_submit(
                match_id=duel.pk, user=user, turn=0, orders={"build": BUILDS[seat]}
            )
        drain(duel, emails=False)
        streams = {1: Session(player.pk), 2: Session(opponent.pk)}
        for session in streams.values():
            session.open()

        def look() -> dict[str, bytes]:
            seen = {}
            for seat, session in streams.items():
                latest = read_digests([session.user_id])[session.user_id]
                seen[f"stream {seat}"] = encode(session.catch_up(latest))
            for name, client in watchers.items():
                answers = [client.get_json(f"/matches/{duel.pk}/{p}") for p in ("", "history/")]
                assert all(a.status_code == 200 for a in answers)
                seen[name] = b"\n".join(a.content for a in answers)
            return seen

        assert duel.state is not None
        for step in _plan(duel.state, plan):
            duel.refresh_from_db()
            assert duel.state is not None
            services.orders_submit(
                match_id=duel.pk, user=player, turn=duel.turn_number,
                orders={"step_no": duel.state["step"], "step": step},
            )  # fmt: skip
            for name, seen in look().items():
                during[name].add(seen)
        duel.refresh_from_db()
        assert duel.state is not None
        services.orders_submit(
            match_id=duel.pk, user=player, turn=duel.turn_number,
            orders={"step_no": duel.state["step"], "step": {"type": "end"}},
        )  # fmt: skip
        drain(duel, emails=False)
        after = look()
        duel.refresh_from_db()
        assert duel.state is not None and duel.state["awaiting"] == [2]
    finally:
        transaction.savepoint_rollback(savepoint)
    return {name: (during[name], after[name]) for name in during}


@pytest.mark.django_db
def test_how_seat_1_spends_its_turn_shows_to_neither_seat_2_nor_a_spectator(
    duel: Match,
    player: Any,
    opponent: Any,
    api_opponent: ApiClient,
    api_spectator: ApiClient,
    frozen_clock: None,
) -> None:
    watchers = {"seat 2": api_opponent, "spectator": api_spectator}
    runs = {plan: _play(duel, player, opponent, plan, watchers) for plan in PLANS}
    first = runs[PLANS[0]]
    for name in ("seat 2", "spectator", "stream 2"):
        assert len(first[name][0]) == 1, (name, "changed during the turn")
        for plan in PLANS[1:]:
            assert runs[plan][name][0] == first[name][0], (plan, name, "during the turn")
            assert runs[plan][name][1] == first[name][1], (plan, name, "after the turn")
    assert first["stream 2"][0] == {b""}, "seat 2 heard of a step"
    assert b'"type":"turn_resolved"' in first["stream 2"][1]
    # The control: seat 1 hears each of its own steps at once, so its streams differ.
    assert runs["scan"]["stream 1"] != runs["shoot-walk"]["stream 1"]
    assert all(b'"type":"turn_resolved"' in told for told in first["stream 1"][0])
