#!/usr/bin/env python3
"""Play a Halite bot written for the 2016 environment on the site, through the bot API.

    python examples/halite_bridge.py --url http://127.0.0.1:8000 --token h3_... \\
        --match 42 -- python3 MyBot.py

The command after `--` is started as the 2016 environment started a bot: it reads
the 2016 text protocol on its standard input and answers on its standard output
(its standard error is passed through). The bridge takes the token's seat in match
42 (joining it if the token's user has none yet and a seat is free), waits for the
match to start, sends the bot its tag (the seat), the map's size, the productions
and the map, reads its name, then every turn sends it the map and posts its moves
as the seat's orders. Standard library only (urllib).

What the 2016 environment did with a bot's moves, the bridge does too: numbers only
(anything else ends the bot, as the environment ejected it), triples read until one
names a cell off the map, a cell named twice keeps its last direction, and moves of
cells the seat does not own are dropped. Two differences: a direction above 4 is
dropped (the piece stays and grows) and, when the moves are more than the site takes
in one post (`--max-bytes`), the strongest pieces' moves are kept. A bot that does
not answer within `--turn-seconds` (`--init-seconds` for its name) is stopped, and
the bridge exits 1: the site's clock then passes the seat's turns, and hands the
seat to its stand-in bot after a few; a bridge started again takes it back.

It waits on the site's event stream (GET /api/v1/stream/, one JSON event a line),
which says when the seat's turn has come, with the map; on a site without one, or
with `--poll-only`, it looks at the match every `--poll` seconds instead. It makes
at most `--rate` requests a minute (the API takes 120 per token) and waits as long
as the server asks when it answers 429. It prints a JSON summary at the end. Exit
status: 0 when the match has finished, 1 otherwise.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

DIRECTIONS = range(5)  # 0 still, 1 north, 2 east, 3 south, 4 west
ORDERS_MAX_BYTES = 65_536  # the site's limit on an orders post (a whole 50 x 50 map fits)


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        super().__init__(f"{status} {error.get('code')}: {error.get('message')}")
        self.status = status
        self.code = error.get("code")
        self.body = body if isinstance(body, dict) else {}


class BotError(Exception):
    """The 2016 bot broke the protocol, timed out or exited."""


class Client:
    """The bot API over urllib: JSON in and out, the token on every request, at most
    `per_minute` requests a minute, and a pause for as long as the server asks when
    it answers 429."""

    def __init__(
        self, base_url: str, token: str, *, per_minute: float = 100.0, timeout: float = 30.0
    ) -> None:
        self.base = base_url.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout
        self.spacing = 60.0 / per_minute
        self.last = float("-inf")

    def _open(self, method: str, path: str, data: bytes | None) -> Any:
        """The open response; ApiError for an error answer, after waiting out 429s."""
        for _attempt in range(30):
            time.sleep(max(0.0, self.last + self.spacing - time.monotonic()))
            self.last = time.monotonic()
            request = urllib.request.Request(self.base + path, data=data, method=method)
            request.add_header("Authorization", f"Bearer {self.token}")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                return urllib.request.urlopen(request, timeout=self.timeout)
            except urllib.error.HTTPError as error:
                try:
                    payload = json.loads(error.read() or b"{}")
                except ValueError:
                    payload = {}
                if error.code == 429:
                    pause = _retry_after(error.headers.get("Retry-After"))
                    print(f"rate limited: waiting {pause:g} s as the server asks", file=sys.stderr)
                    time.sleep(pause)
                    continue
                raise ApiError(error.code, payload) from None
        raise RuntimeError("still rate limited after 30 tries")

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        with self._open(method, path, data) as response:
            return json.loads(response.read() or b"null")

    def match(self, match_id: int) -> dict[str, Any]:
        return dict(self.call("GET", f"/matches/{match_id}/"))

    def join(self, match_id: int) -> dict[str, Any]:
        return dict(self.call("POST", f"/matches/{match_id}/join/"))

    def orders(self, match_id: int, orders: dict[str, Any]) -> dict[str, Any]:
        return dict(self.call("POST", f"/matches/{match_id}/orders/", orders))

    def stream(self) -> Any:
        """The open event stream (GET /stream/); `events` reads it."""
        return self._open("GET", "/stream/", None)


def events(response: Any) -> Iterator[dict[str, Any] | None]:
    """The stream's events as they come, None for a keep-alive line (one every few
    seconds, so a read that waits the client's timeout finds a dead connection:
    OSError). Ends when the server closes the stream."""
    with response:
        for line in response:
            yield json.loads(line) if line.strip() else None


def _retry_after(value: str | None) -> float:
    try:
        return min(max(float(value or "1"), 0.1), 120.0)
    except ValueError:
        return 1.0


# ------------------------------------------------------------ the 2016 protocol


def size_line(state: dict[str, Any]) -> str:
    return f"{state['width']} {state['height']} "


def productions_line(state: dict[str, Any]) -> str:
    return "".join(f"{p} " for row in state["production"] for p in row)


def map_line(state: dict[str, Any]) -> str:
    """The map as the 2016 environment sent it: owners run-length encoded in row
    order ("count owner ..."), then every cell's strength in row order."""
    owners = [o for row in state["owner"] for o in row]
    parts: list[str] = []
    current, count = owners[0], 0
    for owner in owners:
        if owner == current:
            count += 1
        else:
            parts.append(f"{count} {current} ")
            current, count = owner, 1
    parts.append(f"{count} {current} ")
    parts.extend(f"{s} " for row in state["strength"] for s in row)
    return "".join(parts)


def parse_moves(line: str, width: int, height: int) -> dict[tuple[int, int], int]:
    """A moves line, read as the 2016 environment read it: digits and spaces only,
    "x y d" triples until one names a cell off the map; the last move of a cell wins."""
    line = line.rstrip("\r\n")
    if any(not (c.isdigit() and c.isascii()) and c != " " for c in line):
        raise BotError(f"the bot sent a character other than digits and spaces: {line[:80]!r}")
    try:
        numbers = [int(word) for word in line.split()]
    except ValueError:  # a number too long to read
        raise BotError(f"the bot sent a number that is not one: {line[:80]!r}") from None
    moves: dict[tuple[int, int], int] = {}
    for at in range(0, len(numbers) - 2, 3):
        x, y, direction = numbers[at : at + 3]
        if not (x < width and y < height):
            break
        moves[(x, y)] = direction
    return moves


def orders_for(
    moves: dict[tuple[int, int], int], state: dict[str, Any], seat: int, max_bytes: int
) -> dict[str, Any]:
    """The seat's orders: its own pieces that move, in row order; the strongest
    pieces' moves first if they are more than one post takes."""
    owner, strength = state["owner"], state["strength"]
    kept = sorted(
        [x, y, d]
        for (x, y), d in moves.items()
        if owner[y][x] == seat and d in DIRECTIONS and d != 0
    )
    orders = {"seat": seat, "turn": state["turn"], "moves": kept}
    if len(json.dumps(orders, separators=(",", ":"))) > max_bytes:
        kept.sort(key=lambda m: (-strength[m[1]][m[0]], m[1], m[0]))
        room = max_bytes - len(json.dumps({**orders, "moves": []}, separators=(",", ":")))
        fitting = []
        for move in kept:
            room -= len(json.dumps(move, separators=(",", ":"))) + 1
            if room < 0:
                break
            fitting.append(move)
        print(f"turn {state['turn']}: kept {len(fitting)} of {len(kept)} moves", file=sys.stderr)
        orders["moves"] = sorted(fitting)
    return orders


class Bot:
    """The 2016 bot as a child process, one line of text per message."""

    def __init__(self, command: list[str]) -> None:
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            raise BotError(f"cannot start {command[0]!r}: {error.strerror}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BotError(f"the bot has exited (status {self.process.poll()})") from None

    def receive(self, seconds: float) -> str:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            raise BotError(f"the bot did not answer within {seconds:g} s") from None
        if line is None:
            raise BotError(f"the bot has exited (status {self.process.wait()})")
        return line.rstrip("\n").rstrip("\r")

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ------------------------------------------------------------ playing

OVER = ("finished", "aborted")
# The stream is not there (an older site), or not served by this server.
NO_STREAM = (404, 405, 421, 501, 503)


def take_seat(client: Client, match_id: int) -> dict[str, Any]:
    match = client.match(match_id)
    if match.get("ruleset") != "halite":
        raise RuntimeError(f"match {match_id} is not a game of Halite ({match.get('ruleset')})")
    if match["seat"] is None:
        match = client.join(match_id)
    return match


def updates(
    client: Client, match_id: int, args: argparse.Namespace
) -> Iterator[dict[str, Any] | None]:
    """The match (GET /matches/ID/'s body) each time something may have changed,
    and None now and then when nothing has.

    From the event stream when the site has one: its `your_turn`, `match_started`
    and `match_over` events carry the match; a turn that eliminated a seat is looked
    at. The match is looked at once the stream is open (what happened before is not
    news to the stream), again after `--look-every` seconds without news, and when
    the stream drops, before it is opened again. Without a stream (`--poll-only`, or
    a site that does not serve one) the match is looked at every `--poll` seconds.
    """
    streaming = not args.poll_only
    while True:
        if not streaming:
            yield client.match(match_id)
            time.sleep(args.poll)
            continue
        try:
            response = client.stream()
        except ApiError as error:
            if error.status not in NO_STREAM:
                raise
            print(f"no event stream here ({error}); looking every {args.poll:g} s", file=sys.stderr)
            streaming = False
            continue
        try:
            yield client.match(match_id)
            news = time.monotonic()
            for event in events(response):
                if event is not None and event.get("match_id") == match_id:
                    news = time.monotonic()
                    if "match" in event:
                        yield event["match"]
                    elif any(e.get("type") == "eliminated" for e in event.get("events", [])):
                        yield client.match(match_id)
                elif time.monotonic() - news > args.look_every:
                    news = time.monotonic()
                    yield client.match(match_id)
                else:
                    yield None
        except (OSError, http.client.HTTPException, ValueError) as error:
            print(f"the stream dropped ({error}); opening it again", file=sys.stderr)
            time.sleep(args.poll)
        finally:
            response.close()


class Player:
    """The seat's side of the match: the bot started when the match starts, fed a
    map and asked for moves on each of the seat's turns, stopped when the seat is
    out or the match is over."""

    def __init__(self, client: Client, command: list[str], args: argparse.Namespace) -> None:
        self.client = client
        self.command = command
        self.args = args
        self.bot: Bot | None = None
        self.seat = 0
        self.name: str | None = None
        self.played = 0
        self.last_turn = -1
        self.reclaimed_turn = -1
        self.out = False

    def see(self, match: dict[str, Any]) -> None:
        """Act on the match as it is now."""
        state = match["state"]
        if match["status"] != "running" or state is None or self.out:
            return
        if self.seat not in state["alive"]:
            self.out = True  # the 2016 environment stopped a bot with no cell left
            self.stop()
            return
        if self.bot is None:
            self.start(state)
        if self.handed_over(match) and state["turn"] > self.reclaimed_turn:
            self.reclaim(state["turn"])
        elif match["your_turn"] and state["turn"] > self.last_turn:
            self.turn(state)

    def handed_over(self, match: dict[str, Any]) -> bool:
        """The site's clock gave the seat to its stand-in bot (missed turns)."""
        return any(s["number"] == self.seat and s["bot"] for s in match.get("seats", []))

    def reclaim(self, turn: int) -> None:
        self.reclaimed_turn = turn
        try:
            self.client.call("POST", f"/matches/{self.args.match}/reclaim/")
            print(f"turn {turn}: took the seat back from the stand-in bot", file=sys.stderr)
        except ApiError as error:
            if error.status != 409:  # it was not handed over (any more)
                raise

    def start(self, state: dict[str, Any]) -> None:
        self.bot = Bot(self.command)
        for line in (str(self.seat), size_line(state), productions_line(state), map_line(state)):
            self.bot.send(line)
        self.name = self.bot.receive(self.args.init_seconds)[:30]
        print(f"{self.name} plays seat {self.seat} of match {self.args.match}", file=sys.stderr)

    def turn(self, state: dict[str, Any]) -> None:
        assert self.bot is not None
        self.bot.send(map_line(state))
        line = self.bot.receive(self.args.turn_seconds)
        moves = parse_moves(line, state["width"], state["height"])
        orders = orders_for(moves, state, self.seat, self.args.max_bytes)
        self.last_turn = state["turn"]
        try:
            self.client.orders(self.args.match, orders)
            self.played += 1
        except ApiError as error:
            if error.status != 409:  # the turn moved on (the clock); the next map follows
                raise
            print(f"turn {state['turn']}: {error}", file=sys.stderr)

    def stop(self) -> None:
        if self.bot is not None:
            self.bot.stop()


def play(client: Client, command: list[str], args: argparse.Namespace) -> dict[str, Any]:
    deadline = time.monotonic() + args.max_seconds
    player = Player(client, command, args)
    player.seat = take_seat(client, args.match)["seat"]
    try:
        match: dict[str, Any] = {}
        for update in updates(client, args.match, args):
            if update is not None:
                match = update
                if match["status"] in OVER:
                    break
                player.see(match)
            if time.monotonic() > deadline:
                raise RuntimeError(f"match {args.match} did not end within {args.max_seconds:g} s")
    finally:
        player.stop()
    state = match["state"] or {}
    return {
        "match": args.match,
        "seat": player.seat,
        "name": player.name,
        "turns_played": player.played,
        "status": match["status"],
        "winners": match["winners"],
        "turns": state.get("turn"),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        own, command = argv, []
    else:
        split = argv.index("--")
        own, command = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("HELIUM3_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("HELIUM3_TOKEN", ""))
    parser.add_argument("--match", type=int, required=True, help="the match to play")
    parser.add_argument(
        "--poll", type=float, default=1.0, help="seconds between looks without the stream"
    )
    parser.add_argument(
        "--poll-only", action="store_true", help="look at the match instead of the stream"
    )
    parser.add_argument(
        "--look-every", type=float, default=30.0, help="seconds of a quiet stream between looks"
    )
    parser.add_argument(
        "--rate", type=float, default=100.0, help="requests a minute at most (the API takes 120)"
    )
    parser.add_argument("--init-seconds", type=float, default=60.0, help="time for the name")
    parser.add_argument("--turn-seconds", type=float, default=30.0, help="time for each move")
    parser.add_argument("--max-seconds", type=float, default=24 * 3600.0, help="give up after")
    parser.add_argument("--max-bytes", type=int, default=ORDERS_MAX_BYTES, help="largest post")
    args = parser.parse_args(own)
    if not args.token:
        parser.error("give a token with --token or HELIUM3_TOKEN")
    if not command:
        parser.error("give the bot's command after --, e.g. -- python3 MyBot.py")
    try:
        summary = play(Client(args.url, args.token, per_minute=args.rate), command, args)
    except (ApiError, BotError, RuntimeError, OSError, http.client.HTTPException) as error:
        print(f"bridge stopped: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0 if summary["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
