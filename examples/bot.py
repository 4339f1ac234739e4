#!/usr/bin/env python3
"""An example Helium 3 bot: plain Python 3, standard library only (urllib).

It creates a match against built-in bots through the bot API (or joins one with
--join), then plays its seat to the end. It does not poll: it holds the event
stream open (GET /api/v1/stream/, docs/api-stream.md), which tells it when its turn
has come, with its view of the state. On each of its turns it sends up to two
actions: `mine` on the richest free cell a robot can reach, or a `move` towards
the richest helium when none is in reach. When the engine refuses an action it
drops that action and tries again, and passes as a last resort. When the stream
drops it reconnects (the stream then says again which turns wait for it) and
looks at its match once, in case it ended meanwhile. It prints a JSON summary at
the end.

    export HELIUM3_TOKEN=h3_...          # Settings -> API tokens, or manage.py issue_token
    python examples/bot.py --url http://127.0.0.1:8000 --bots random,random,random

With --ladder it puts itself on the Helium 3 ladder instead and plays every ladder
match the site's matchmaker starts for it, from the same stream, until --matches of
them are over (docs/compete.md, "The bot ladder"):

    python examples/bot.py --ladder --matches 5

With --accept-challenges it waits on the same stream for challenges instead: it
accepts each challenge to a Helium 3 match (the game its plan() plays), declines the
others, and plays the matches accepting makes, until --matches of them are over
(docs/compete.md, "Challenges"):

    python examples/bot.py --accept-challenges --matches 1

Exit status: 0 when the match is over, 1 on an error the bot cannot get past.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from typing import Any

MINE_RANGE = 4
MOVE_RANGE = 6
MAX_ACTIONS = 2
# The ladder --ladder joins: the game this bot's plan() plays.
LADDER_GAME = "helium3"


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        super().__init__(f"{status} {error.get('code')}: {error.get('message')}")
        self.status = status
        self.code = error.get("code")
        self.action = error.get("action")


class Client:
    """The bot API over urllib: JSON in and out, the token on every request, and
    a pause for as long as the server asks when it answers 429."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 30.0) -> None:
        self.base = base_url.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout

    def _request(self, method: str, path: str, data: bytes | None) -> urllib.request.Request:
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        return request

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        for _attempt in range(20):
            request = self._request(method, path, data)
            request.add_header("Accept", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                payload = json.loads(error.read() or b"{}")
                if error.code == 429:
                    time.sleep(float(error.headers.get("Retry-After", "1")))
                    continue
                raise ApiError(error.code, payload) from None
        raise RuntimeError("still rate limited after 20 tries")

    def events(self) -> Iterator[dict[str, Any] | None]:
        """The event stream: each event as it comes, None for a keep-alive line (one
        every few seconds: a read that waits `timeout` for a line finds the
        connection dead). Ends when the server closes the stream."""
        for _attempt in range(20):
            try:
                response = urllib.request.urlopen(
                    self._request("GET", "/stream/", None), timeout=self.timeout
                )
            except urllib.error.HTTPError as error:
                payload = json.loads(error.read() or b"{}")
                if error.code == 429:
                    time.sleep(float(error.headers.get("Retry-After", "1")))
                    continue
                raise ApiError(error.code, payload) from None
            with response:
                for line in response:
                    yield json.loads(line) if line.strip() else None
            return
        raise RuntimeError("still rate limited after 20 tries")

    def create_match(self, **options: Any) -> dict[str, Any]:
        return self.call("POST", "/matches/", options)[1]

    def join(self, match_id: int) -> dict[str, Any]:
        return self.call("POST", f"/matches/{match_id}/join/")[1]

    def match(self, match_id: int) -> dict[str, Any]:
        return self.call("GET", f"/matches/{match_id}/")[1]

    def orders(self, match_id: int, orders: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", f"/matches/{match_id}/orders/", orders)[1]

    def replay(self, match_id: int) -> dict[str, Any]:
        return self.call("GET", f"/matches/{match_id}/replay/")[1]


def mine_value(helium: list[list[int]], x: int, y: int) -> int:
    """What mining at (x, y) takes: 500 at most from the cell, 250 from each neighbour."""
    total = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            cx, cy = x + dx, y + dy
            if 0 <= cy < len(helium) and 0 <= cx < len(helium[0]):
                cap = 500 if dx == dy == 0 else 250
                total += min(cap, helium[cy][cx])
    return total


def _step_towards(start: tuple[int, int], goal: tuple[int, int], steps: int) -> tuple[int, int]:
    """The cell `steps` king moves from start along the way to goal (or goal itself)."""
    (x, y), (gx, gy) = start, goal
    for _ in range(steps):
        if (x, y) == (gx, gy):
            break
        x += (gx > x) - (gx < x)
        y += (gy > y) - (gy < y)
    return x, y


def plan(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Up to two actions, the most valuable first: `mine` the richest free cell in
    reach, or, with no helium in reach, `move` towards the richest cell there is."""
    helium = view["helium"]
    width, height = view["width"], view["height"]
    taken = {(r["x"], r["y"]) for r in view["robots"] if r["alive"]}
    richest = max(
        ((mine_value(helium, x, y), (x, y)) for y in range(height) for x in range(width)),
        default=(0, (0, 0)),
    )
    options = []
    for robot in view["robots"]:
        if robot["seat"] != seat or not robot["alive"]:
            continue
        here = (robot["x"], robot["y"])
        best, best_cell = 0, here
        for y in range(max(0, here[1] - MINE_RANGE), min(height, here[1] + MINE_RANGE + 1)):
            for x in range(max(0, here[0] - MINE_RANGE), min(width, here[0] + MINE_RANGE + 1)):
                if (x, y) in taken and (x, y) != here:
                    continue
                value = mine_value(helium, x, y)
                if value > best:
                    best, best_cell = value, (x, y)
        if best > 0:
            options.append((best, robot["id"], "mine", best_cell, here))
        elif richest[0] > 0:
            cell = _step_towards(here, richest[1], MOVE_RANGE)
            if cell not in taken:
                options.append((0, robot["id"], "move", cell, here))
    options.sort(key=lambda option: -option[0])
    actions: list[dict[str, Any]] = []
    claimed: set[tuple[int, int]] = set()
    for _value, robot_id, kind, cell, here in options:
        if cell in claimed:
            continue
        claimed.add(cell)
        action: dict[str, Any] = {"robot": robot_id, "type": kind}
        if cell != here:
            action["to"] = list(cell)  # a mine without "to" mines where it stands
        actions.append(action)
        if len(actions) == MAX_ACTIONS:
            break
    return actions


def play_turn(client: Client, match_id: int, view: dict[str, Any], seat: int) -> None:
    actions = plan(view, seat)
    while True:
        orders = {"seat": seat, "turn": view["turn"], "actions": actions}
        try:
            client.orders(match_id, orders)
            return
        except ApiError as error:
            if error.status == 409:
                return  # the turn moved on (the clock, or an earlier post): look again
            if error.status != 400 or not actions:
                raise
            # The engine names the action it refused: drop it and send the rest.
            index = error.action if isinstance(error.action, int) else len(actions) - 1
            actions = [a for i, a in enumerate(actions) if i != index]


def run(args: argparse.Namespace) -> dict[str, Any]:
    client = Client(args.url, args.token)
    if args.join:
        match = client.join(args.join)
    else:
        bots = [b for b in args.bots.split(",") if b]
        match = client.create_match(
            seats=args.seats,
            bots=bots,
            length_ms=args.length_ms,
            turn_seconds=args.turn_seconds,
            public=not args.private,
        )
    match_id, seat = match["id"], match["seat"]
    print(f"playing seat {seat} of match {match_id}", file=sys.stderr)
    deadline = time.monotonic() + args.max_seconds
    final = None
    while final is None:
        try:
            with closing(client.events()) as events:
                for event in events:
                    if time.monotonic() > deadline:
                        break
                    if event is None or event["match_id"] != match_id:
                        continue  # a keep-alive line, or another match of ours
                    if event["type"] == "your_turn":
                        play_turn(client, match_id, event["match"]["state"], seat)
                    elif event["type"] == "match_over":
                        final = event["match"]
                        break
            if final is None and time.monotonic() < deadline:
                # A stream that reconnects tells the turns that wait, not a match
                # that ended while it was away: look once.
                time.sleep(args.poll)
                looked = client.match(match_id)
                if looked["status"] in ("finished", "aborted"):
                    final = looked
        except (OSError, http.client.HTTPException) as error:
            print(f"the connection dropped ({error}); reconnecting", file=sys.stderr)
            time.sleep(args.poll)
        if final is None and time.monotonic() > deadline:
            raise RuntimeError(f"match {match_id} did not end within {args.max_seconds} s")
    match = final
    state = match["state"] or {}
    summary = {
        "match": match_id,
        "seat": seat,
        "status": match["status"],
        "winners": match["winners"],
        "turns": state.get("turn"),
        "money": {str(p["seat"]): p["money"] for p in state.get("players", [])},
    }
    if match["status"] == "finished":
        summary["replay_turns"] = len(client.replay(match_id)["turns"])
    return summary


def ladder(args: argparse.Namespace) -> dict[str, Any]:
    """Put the bot on the Helium 3 ladder (PUT /api/v1/ladder/helium3/) and play every
    ladder match the site's matchmaker starts for it: nobody creates them, they come
    on the event stream like any match of ours (two at most at a time). Ends once
    `--matches` of them are over (0: at --max-seconds); `--ladder-off` then takes
    the bot off the ladder again."""
    client = Client(args.url, args.token)
    path = f"/ladder/{LADDER_GAME}/"
    joined = client.call("PUT", path, {"on": True})[1]
    print(f"on the {LADDER_GAME} ladder since {joined['joined_at']}", file=sys.stderr)
    seen: set[int] = set()  # the matches we met on the stream: started or our turn
    over: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + args.max_seconds

    def done() -> bool:
        return bool(args.matches) and len(over) >= args.matches

    while not done() and time.monotonic() < deadline:
        try:
            with closing(client.events()) as events:
                for event in events:
                    if time.monotonic() > deadline or done():
                        break
                    if event is None:
                        continue
                    match_id, match = event["match_id"], event.get("match") or {}
                    if event["type"] == "match_started":
                        seen.add(match_id)
                        print(f"ladder match {match_id} started", file=sys.stderr)
                    elif event["type"] == "your_turn":
                        seen.add(match_id)
                        play_turn(client, match_id, match["state"], match["seat"])
                    elif event["type"] == "match_over" and match_id in seen:
                        over[match_id] = match
        except (OSError, http.client.HTTPException) as error:
            print(f"the connection dropped ({error}); reconnecting", file=sys.stderr)
            time.sleep(args.poll)
    if args.ladder_off:
        client.call("PUT", path, {"on": False})
    standing = client.call("GET", path)[1]
    return {
        "ladder": LADDER_GAME,
        "on": standing["on"],
        "removed_reason": standing["removed_reason"],
        "matches": [
            {"match": match_id, "status": m["status"], "seat": m["seat"], "winners": m["winners"]}
            for match_id, m in sorted(over.items())
        ],
    }


def accept_challenges(args: argparse.Namespace) -> dict[str, Any]:
    """Answer every challenge the stream brings (`challenge` events; on connecting,
    those still pending): accept one to a match of the game plan() plays, decline any
    other, and play the matches accepted, from the same stream, until `--matches` of
    them are over (0: until --max-seconds)."""
    client = Client(args.url, args.token)
    answered: dict[int, str] = {}  # challenge id -> "accepted" or "declined"
    mine: set[int] = set()  # the matches our accepted challenges made
    over: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + args.max_seconds

    def done() -> bool:
        return bool(args.matches) and len(over) >= args.matches

    while not done() and time.monotonic() < deadline:
        try:
            with closing(client.events()) as events:
                for event in events:
                    if time.monotonic() > deadline or done():
                        break
                    if event is None:
                        continue
                    if event["type"] == "challenge":
                        challenge = event["challenge"]
                        if challenge["id"] in answered:
                            continue
                        verb = "accept" if challenge["ruleset"] == LADDER_GAME else "decline"
                        try:
                            body = client.call("POST", f"/challenges/{challenge['id']}/{verb}/")[1]
                        except ApiError as error:
                            if error.code != "challenge_closed":
                                raise
                            continue  # cancelled or expired meanwhile
                        answered[challenge["id"]] = body["status"]
                        print(
                            f"challenge {challenge['id']} of {challenge['challenger']}: "
                            f"{body['status']}",
                            file=sys.stderr,
                        )
                        if body["match_id"] is not None:
                            mine.add(body["match_id"])
                        continue
                    match_id, match = event.get("match_id"), event.get("match") or {}
                    if match_id not in mine:
                        continue
                    if event["type"] == "your_turn":
                        play_turn(client, match_id, match["state"], match["seat"])
                    elif event["type"] == "match_over":
                        over[match_id] = match
        except (OSError, http.client.HTTPException) as error:
            print(f"the connection dropped ({error}); reconnecting", file=sys.stderr)
            time.sleep(args.poll)
    return {
        "challenges": {str(k): v for k, v in sorted(answered.items())},
        "matches": [
            {"match": match_id, "status": m["status"], "seat": m["seat"], "winners": m["winners"]}
            for match_id, m in sorted(over.items())
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("HELIUM3_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("HELIUM3_TOKEN", ""))
    parser.add_argument("--join", type=int, default=0, help="join this match instead")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", default="random,random,random", help="built-in bots, in order")
    parser.add_argument("--length-ms", type=int, default=600_000, help="battle length")
    parser.add_argument("--turn-seconds", type=int, default=3600, help="time per turn")
    parser.add_argument("--private", action="store_true", help="a private match")
    parser.add_argument(
        "--poll", type=float, default=1.0, help="seconds before reconnecting a dropped stream"
    )
    parser.add_argument("--max-seconds", type=float, default=3600.0, help="give up after")
    parser.add_argument(
        "--ladder", action="store_true", help="join the Helium 3 ladder and play its matches"
    )
    parser.add_argument(
        "--matches", type=int, default=0, help="with --ladder: stop after this many (0: never)"
    )
    parser.add_argument(
        "--ladder-off", action="store_true", help="with --ladder: leave the ladder at the end"
    )
    parser.add_argument(
        "--accept-challenges",
        action="store_true",
        help="wait for challenges: accept Helium 3 ones, decline others, play what they make",
    )
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give a token with --token or HELIUM3_TOKEN")
    try:
        if args.accept_challenges:
            summary = accept_challenges(args)
        else:
            summary = ladder(args) if args.ladder else run(args)
    except (ApiError, RuntimeError, OSError) as error:
        print(f"bot stopped: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
