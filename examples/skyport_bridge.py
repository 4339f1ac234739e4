#!/usr/bin/env python3
"""Play a Skyport AI written for the 2013 competition server on the site, through the bot API.

    python examples/skyport_bridge.py --url http://127.0.0.1:8000 --token h3_... \\
        --match 42 --listen 127.0.0.1:54321

then start the AI, which connects to 127.0.0.1:54321 as it connected to the 2013
server. The bridge takes the token's seat in match 42 (joining it if the token's user
has none yet and a seat is free), listens for one AI on `--listen` and speaks the 2013
protocol with it (docs/en/PROTOCOL.md of pilsprog/skyport-logic: line-based TCP, one
JSON object a line): the handshake, the game start (a gamestate of turn 0), the
loadout, a gamestate when a turn begins (the seat to play first in the rotating
`players` list), the actions of every turn sent back to every AI with their `from`,
and `endturn`. It posts the AI's loadout and each turn's actions as the seat's orders.
Standard library only; it uses halite_bridge.py, beside it, for the API client.

What the 2013 server did with actions, the bridge does too: a turn is up to three
actions, ended early by an attack or `pass`, and the AI has `--turn-seconds` (3, as in
2013) to send them. An action the site refuses is dropped and the AI is sent an
`{"error": ...}`, as the 2013 server skipped it; the others are posted again. A
malformed line is answered with an error and ignored. An AI that does not connect
within `--accept-seconds`, does not shake hands within 10 seconds, sends no loadout
within `--loadout-seconds`, or disconnects, stops the bridge (exit 1): the site's clock
then plays the seat's turns as it plays any missed turn.

It waits on the site's event stream (GET /api/v1/stream/); on a site without one, or
with `--poll-only`, it looks at the match every `--poll` seconds instead (the actions
of other seats' turns are then not sent). It prints a JSON summary at the end. Exit
status: 0 when the match has finished, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import queue
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from halite_bridge import NO_STREAM, OVER, ApiError, Client, events  # noqa: E402

REVISION = 1
NAME_MAX = 15  # "less than 16 letters"
HANDSHAKE_SECONDS = 10.0  # the 2013 server dropped an AI silent for this long
ACTIONS_PER_TURN = 3
WEAPONS = ("laser", "mortar", "droid")
DIRECTIONS = ("up", "down", "right-up", "right-down", "left-up", "left-down")
# The protocol's droid example writes directions in camel case ("rightUp").
CAMEL = {"rightUp": "right-up", "rightDown": "right-down", "leftUp": "left-up"}
CAMEL["leftDown"] = "left-down"
STEPS = {
    "up": (-1, -1),
    "down": (1, 1),
    "right-up": (-1, 0),
    "right-down": (0, 1),
    "left-up": (0, -1),
    "left-down": (1, 0),
}
ATTACKS = ("laser", "mortar", "droid")
ACTION_EVENTS = ("move", "mine", "upgrade", *ATTACKS)  # an action's own event


class AiError(Exception):
    """The 2013 AI broke the protocol, timed out or disconnected."""


# ------------------------------------------------------------ the 2013 protocol


def map_object(state: dict[str, Any]) -> dict[str, Any]:
    """The MAP-OBJECT: `data[j][k]` is tile (j, k)'s letter, one J-column a list."""
    return {
        "j-length": state["size"],
        "k-length": state["size"],
        "data": [list(row) for row in state["tiles"]],
    }


def player_object(p: dict[str, Any], name: str, loadout: list[str] | None) -> dict[str, Any]:
    weapons = list(loadout or p["weapons"])
    slots = [{"name": w, "level": p["weapons"].get(w, 1)} for w in weapons] + [None, None]
    return {
        "name": name,
        "primary-weapon": slots[0],
        "secondary-weapon": slots[1],
        "health": p["health"],
        "score": p["score"],
        "position": f"{p['j']},{p['k']}",
    }


def gamestate(
    state: dict[str, Any], names: dict[int, str], loadouts: dict[int, list[str]]
) -> dict[str, Any]:
    """A gamestate: turn 0 before the game starts, else the site's turn number, with
    the seat to play first in `players` and the others after it in the turn order."""
    order = list(state["order"])
    first = state["awaiting"][0] if state["phase"] == "play" and state["awaiting"] else order[0]
    at = order.index(first)
    rotated = order[at:] + order[:at]
    by_seat = {p["seat"]: p for p in state["players"]}
    return {
        "message": "gamestate",
        "turn": 0 if state["phase"] == "loadout" else state["turn"],
        "map": map_object(state),
        "players": [player_object(by_seat[s], names[s], loadouts.get(s)) for s in rotated],
    }


def read_loadout(message: dict[str, Any]) -> list[str]:
    """The loadout message's two weapons, primary first; ValueError if it is not one."""
    weapons = [message.get("primary-weapon"), message.get("secondary-weapon")]
    if any(w not in WEAPONS for w in weapons):
        raise ValueError(f"a loadout names two of {', '.join(WEAPONS)}")
    if weapons[0] == weapons[1]:
        raise ValueError("a loadout names two different weapons")
    return [str(w) for w in weapons]


def _direction(value: Any) -> str:
    name = CAMEL.get(value, value) if isinstance(value, str) else value
    if name not in DIRECTIONS:
        known = ", ".join(DIRECTIONS)
        raise ValueError(f"{str(value)[:20]!r} is not a direction; the directions are {known}")
    return str(name)


def read_action(message: dict[str, Any]) -> dict[str, Any] | None:
    """One action message as the site's action, None for `pass`; ValueError if it is
    not an action the protocol knows."""
    kind = message.get("type")
    if kind == "pass":
        return None
    if kind in ("move", "laser"):
        return {"type": kind, "direction": _direction(message.get("direction"))}
    if kind == "mine":
        return {"type": "mine"}
    if kind == "upgrade":
        weapon = message.get("weapon")
        if weapon not in WEAPONS:
            raise ValueError(f"upgrade names one of {', '.join(WEAPONS)}")
        return {"type": "upgrade", "weapon": weapon}
    if kind == "mortar":
        text = message.get("coordinates")
        parts = text.split(",") if isinstance(text, str) else []
        try:
            dj, dk = (int(p) for p in parts)
        except ValueError:
            raise ValueError('a mortar\'s coordinates are "j,k", relative to the robot') from None
        return {"type": "mortar", "target": [dj, dk]}
    if kind == "droid":
        sequence = message.get("sequence")
        if not isinstance(sequence, list):
            raise ValueError("a droid's sequence is a list of directions")
        return {"type": "droid", "sequence": [_direction(d) for d in sequence]}
    raise ValueError(f"unknown action type {str(kind)[:20]!r}")


def action_messages(events_of_turn: list[dict[str, Any]], names: dict[int, str]) -> list[str]:
    """The turn's actions as the 2013 server re-broadcast them, each with `from`."""
    out: list[dict[str, Any]] = []
    for e in events_of_turn:
        kind = e.get("type")
        base = {"message": "action", "type": kind}
        if kind in ("move", "laser"):
            out.append({**base, "direction": e["direction"]})
        elif kind == "mine":
            out.append(base)
        elif kind == "upgrade":
            out.append({**base, "weapon": e["weapon"]})
        elif kind == "mortar":
            (fj, fk), (tj, tk) = e["from"], e["target"]
            out.append({**base, "coordinates": f"{tj - fj},{tk - fk}"})
        elif kind == "droid":
            walked = [e["from"], *e["path"]]
            steps = {v: k for k, v in STEPS.items()}
            sequence = [
                steps[(b[0] - a[0], b[1] - a[1])]
                for a, b in zip(walked, walked[1:], strict=False)
                if (b[0] - a[0], b[1] - a[1]) in steps
            ]
            out.append({**base, "sequence": sequence})
        else:
            continue
        out[-1]["from"] = names.get(e["seat"], f"seat-{e['seat']}")
    return [json.dumps(m) for m in out]


class Ai:
    """The 2013 AI's connection: one JSON object a line each way."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.file = connection.makefile("r", encoding="utf-8", errors="replace", newline="")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.file:
                if line.strip():
                    self.lines.put(line.strip("\r\n"))
        except OSError:
            pass
        self.lines.put(None)

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        try:
            self.connection.sendall(line.encode() + b"\n")
        except OSError:
            raise AiError("the AI has disconnected") from None

    def error(self, text: str) -> None:
        print(f"to the AI: {text}", file=sys.stderr)
        self.send({"error": text})

    def receive(self, seconds: float) -> dict[str, Any] | None:
        """The next message, None when `seconds` pass first; a line that is not a JSON
        object is answered with an error and skipped."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                raise AiError("the AI has disconnected")
            try:
                message = json.loads(line)
            except ValueError:
                self.error(f"not a JSON object: {line[:60]}")
                continue
            if not isinstance(message, dict) or not isinstance(message.get("message"), str):
                self.error(f"not a message: {line[:60]}")
                continue
            return message

    def discard_waiting(self) -> None:
        """Lines sent before the gamestate about to go out (actions past a turn's end)
        are no turn's: each is answered with an error, as the 2013 server refused an
        action out of turn."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                raise AiError("the AI has disconnected")
            self.error(f"not your turn, discarded: {line[:60]}")

    def close(self) -> None:
        # Shut the socket down first: that ends the reading thread's read, which holds
        # the file's lock (closing the file first would wait for the AI's next line).
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def listen_address(text: str) -> tuple[str, int]:
    """`host:port` (the host may be left out: 127.0.0.1); ValueError if it is not one."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen is host:port, not {text[:40]!r}")
    return host or "127.0.0.1", int(port)


def accept(listen: tuple[str, int], seconds: float) -> tuple[Ai, str]:
    """The AI that connects to `listen` and its name from the handshake."""
    server = socket.create_server(listen)
    print(f"listening on {listen[0]}:{server.getsockname()[1]}", file=sys.stderr, flush=True)
    server.settimeout(seconds)
    try:
        connection, _address = server.accept()
    except TimeoutError:
        raise AiError(f"no AI connected within {seconds:g} s") from None
    finally:
        server.close()
    connection.settimeout(None)
    ai = Ai(connection)
    hello = ai.receive(HANDSHAKE_SECONDS)
    if hello is None:
        ai.close()
        raise AiError(f"the AI sent no handshake within {HANDSHAKE_SECONDS:g} s")
    name = hello.get("name")
    problem = None
    if hello.get("message") != "connect":
        problem = "You need to send a handshake first"
    elif hello.get("revision") != REVISION:
        problem = f"this server speaks revision {REVISION} of the protocol"
    elif not isinstance(name, str) or not 0 < len(name) <= NAME_MAX:
        problem = f"a name is a string of 1 to {NAME_MAX} letters"
    if problem is not None:
        ai.error(problem)
        ai.close()
        raise AiError(f"bad handshake: {problem}")
    ai.send({"message": "connect", "status": True})
    return ai, str(name)


# ------------------------------------------------------------ playing


def take_seat(client: Client, match_id: int) -> dict[str, Any]:
    match = client.match(match_id)
    if match.get("ruleset") != "skyport":
        raise RuntimeError(f"match {match_id} is not a game of Skyport ({match.get('ruleset')})")
    if match["seat"] is None:
        match = client.join(match_id)
    return match


Update = tuple[str, dict[str, Any]]  # ("match", GET /matches/ID/'s body) or ("turn", event)


def updates(client: Client, match_id: int, args: argparse.Namespace) -> Iterator[Update | None]:
    """The match each time it may have changed, and each turn it resolved (the stream's
    `turn_resolved`, the actions to tell the AI); None now and then when nothing did.
    The same shape as halite_bridge.updates."""
    streaming = not args.poll_only
    while True:
        if not streaming:
            yield ("match", client.match(match_id))
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
            yield ("match", client.match(match_id))
            news = time.monotonic()
            for event in events(response):
                if event is not None and event.get("match_id") == match_id:
                    news = time.monotonic()
                    if event.get("type") == "turn_resolved":
                        yield ("turn", event)
                    elif "match" in event:
                        yield ("match", event["match"])
                elif time.monotonic() - news > args.look_every:
                    news = time.monotonic()
                    yield ("match", client.match(match_id))
                else:
                    yield None
        except (OSError, http.client.HTTPException, ValueError) as error:
            print(f"the stream dropped ({error}); opening it again", file=sys.stderr)
            time.sleep(args.poll)
        finally:
            response.close()


class Player:
    """The seat's side of the match: gamestates and actions out to the AI, its loadout
    and actions in and posted as the seat's orders."""

    def __init__(self, client: Client, ai: Ai, name: str, args: argparse.Namespace) -> None:
        self.client = client
        self.ai = ai
        self.name = name
        self.args = args
        self.seat = 0
        self.names: dict[int, str] = {}
        self.loadouts: dict[int, list[str]] = {}
        self.told_turn = -1  # the last gamestate's turn (0: the game start)
        self.played_turn = -1
        self.reclaimed_turn = -1
        self.played = 0

    def learn_names(self, match: dict[str, Any]) -> None:
        """The 2013 AIs know whose turn it is by name: every seat gets a distinct one."""
        for s in match.get("seats", []):
            n = s["number"]
            if n == self.seat:
                self.names[n] = self.name
            else:
                given = str(s.get("player") or s.get("bot") or f"seat-{n}")[:NAME_MAX]
                self.names[n] = f"{given[: NAME_MAX - 3]}-{n}" if given == self.name else given

    def see(self, match: dict[str, Any]) -> None:
        state = match["state"]
        if match["status"] != "running" or state is None:
            return
        if not self.names:
            self.learn_names(match)
        if self.handed_over(match) and state["turn"] > self.reclaimed_turn:
            self.reclaim(state["turn"])
            return
        self.tell(state)
        if match["your_turn"] and state["turn"] > self.played_turn:
            if state["phase"] == "loadout":
                self.loadout(state)
            else:
                self.turn(state)

    def tell(self, state: dict[str, Any]) -> None:
        """A gamestate for a turn the AI has not been told of yet."""
        turn = 0 if state["phase"] == "loadout" else state["turn"]
        if turn > self.told_turn:
            self.ai.discard_waiting()
            self.ai.send(gamestate(state, self.names, self.loadouts))
            self.told_turn = turn

    def told(self, event: dict[str, Any]) -> None:
        """A turn resolved: its actions to the AI, then `endturn`; then the next
        gamestate if the match is at the turn right after it."""
        for e in event.get("events", []):
            if e.get("type") == "loadouts":
                for p in e["players"]:
                    self.loadouts.setdefault(p["seat"], list(p["weapons"]))
        for line in action_messages(event.get("events", []), self.names):
            self.ai.send(line)
        self.ai.send({"message": "endturn"})
        match = self.client.match(self.args.match)
        if match["state"] is not None and match["state"]["turn"] == event["turn"] + 1:
            self.see(match)

    def handed_over(self, match: dict[str, Any]) -> bool:
        return any(s["number"] == self.seat and s["bot"] for s in match.get("seats", []))

    def reclaim(self, turn: int) -> None:
        self.reclaimed_turn = turn
        try:
            self.client.call("POST", f"/matches/{self.args.match}/reclaim/")
            print(f"turn {turn}: took the seat back from the stand-in bot", file=sys.stderr)
        except ApiError as error:
            if error.status != 409:
                raise

    def loadout(self, state: dict[str, Any]) -> None:
        deadline = time.monotonic() + self.args.loadout_seconds
        while True:
            message = self.ai.receive(max(0.0, deadline - time.monotonic()))
            if message is None:
                raise AiError(f"the AI sent no loadout within {self.args.loadout_seconds:g} s")
            if message["message"] != "loadout":
                self.ai.error("send your loadout first")
                continue
            try:
                weapons = read_loadout(message)
            except ValueError as error:
                self.ai.error(str(error))
                continue
            break
        self.loadouts[self.seat] = weapons
        orders = {"seat": self.seat, "turn": state["turn"], "loadout": weapons}
        self.post(state, orders)

    def turn(self, state: dict[str, Any]) -> None:
        """Up to three actions within --turn-seconds, ended early by an attack or a
        pass; posted, each action the site refuses dropped (and the AI told)."""
        actions: list[dict[str, Any]] = []
        deadline = time.monotonic() + self.args.turn_seconds
        while len(actions) < ACTIONS_PER_TURN:
            message = self.ai.receive(max(0.0, deadline - time.monotonic()))
            if message is None:
                break
            if message["message"] != "action":
                self.ai.error(f"an action was expected, not {message['message'][:20]!r}")
                continue
            try:
                action = read_action(message)
            except ValueError as error:
                self.ai.error(str(error))
                continue
            if action is None:
                break
            actions.append(action)
            if action["type"] in ATTACKS:
                break
        while True:
            orders = {"seat": self.seat, "turn": state["turn"], "actions": actions}
            try:
                self.post(state, orders)
                return
            except ApiError as error:
                index = error.body.get("error", {}).get("action")
                if error.status != 400 or not isinstance(index, int) or index >= len(actions):
                    raise
                self.ai.error(f"{error.body['error'].get('message')} (skipped)")
                del actions[index]

    def post(self, state: dict[str, Any], orders: dict[str, Any]) -> None:
        self.played_turn = state["turn"]
        try:
            self.client.orders(self.args.match, orders)
            self.played += 1
        except ApiError as error:
            if error.status != 409:  # the turn moved on (the clock); the next one follows
                raise
            print(f"turn {state['turn']}: {error}", file=sys.stderr)


def play(client: Client, args: argparse.Namespace) -> dict[str, Any]:
    deadline = time.monotonic() + args.max_seconds
    seat = take_seat(client, args.match)["seat"]
    ai, name = accept(listen_address(args.listen), args.accept_seconds)
    print(f"{name} plays seat {seat} of match {args.match}", file=sys.stderr)
    player = Player(client, ai, name, args)
    player.seat = seat
    try:
        match: dict[str, Any] = {}
        for update in updates(client, args.match, args):
            if update is not None:
                kind, body = update
                if kind == "turn":
                    player.told(body)
                    continue
                match = body
                if match["status"] in OVER:
                    break
                player.see(match)
            if time.monotonic() > deadline:
                raise RuntimeError(f"match {args.match} did not end within {args.max_seconds:g} s")
    finally:
        ai.close()
    state = match["state"] or {}
    return {
        "match": args.match,
        "seat": seat,
        "name": name,
        "turns_played": player.played,
        "status": match["status"],
        "winners": match["winners"],
        "turns": state.get("turn"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("HELIUM3_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("HELIUM3_TOKEN", ""))
    parser.add_argument("--match", type=int, required=True, help="the match to play")
    parser.add_argument(
        "--listen", default="127.0.0.1:54321", help="host:port the AI connects to (port 0: any)"
    )
    parser.add_argument("--accept-seconds", type=float, default=600.0, help="wait for the AI")
    parser.add_argument("--loadout-seconds", type=float, default=30.0, help="time for a loadout")
    parser.add_argument("--turn-seconds", type=float, default=3.0, help="time for the actions")
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
    parser.add_argument("--max-seconds", type=float, default=24 * 3600.0, help="give up after")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.token:
        parser.error("give a token with --token or HELIUM3_TOKEN")
    try:
        listen_address(args.listen)
    except ValueError as error:
        parser.error(str(error))
    try:
        summary = play(Client(args.url, args.token, per_minute=args.rate), args)
    except (ApiError, AiError, RuntimeError, OSError, http.client.HTTPException) as error:
        print(f"bridge stopped: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0 if summary["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
