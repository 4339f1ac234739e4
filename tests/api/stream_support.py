"""The event stream's test support: the site served by uvicorn in a thread of the test
process (helium3_site.asgi, as production serves it) and a client that reads the
stream's lines in a thread of its own, so that a test waits for events with a
timeout instead of blocking on a socket."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import uvicorn

STREAM = "/api/v1/stream/"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def asgi_server(app: Any = None) -> Iterator[str]:
    """uvicorn serving `app` (helium3_site.asgi's application unless another is
    given) on 127.0.0.1, in a thread of this process; yields the base URL."""
    if app is None:
        from helium3_site.asgi import application as app

    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        # Streams still open at the end are cut after this long.
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="asgi-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        assert not thread.is_alive(), "uvicorn did not stop"


class Answer:
    """A plain (not streamed) answer: status, headers, JSON body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    base: str,
    path: str,
    *,
    token: str | None,
    method: str = "GET",
    headers: dict[str, str] | None = None,
) -> Answer:
    """One request read to its end (for answers that are not a stream)."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, headers=sent)
        response = conn.getresponse()
        return Answer(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
    finally:
        conn.close()


class Stream:
    """An open GET /api/v1/stream/: its lines, read by a thread into a queue."""

    def __init__(self, base: str, token: str, *, path: str = STREAM) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        # Kept: the connection forgets its socket when the answer says it will close.
        self.sock = self.conn.sock
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.raw: list[bytes] = []  # every line, blank ones too
        self.reader = threading.Thread(target=self._read, name="stream-reader", daemon=True)
        if self.status == 200:
            self.reader.start()

    def _read(self) -> None:
        try:
            for line in self.response:
                self.raw.append(line)
                self.lines.put(line)
        except Exception:  # closed under the reader's feet, or cut by the server
            pass
        self.lines.put(None)

    def next_line(self, timeout: float) -> bytes | None:
        """The next line, blank or not; None when the stream ended."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from the stream within {timeout} s") from None

    def next_event(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next event (keep-alive lines skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.next_line(max(0.01, deadline - time.monotonic()))
            if line is None:
                raise AssertionError("the stream ended")
            if line.strip():
                event: dict[str, Any] = json.loads(line)
                return event

    def events_until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """Events up to and with the first that `done` accepts."""
        deadline = time.monotonic() + timeout
        events = []
        while True:
            event = self.next_event(max(0.01, deadline - time.monotonic()))
            events.append(event)
            if done(event):
                return events

    def quiet(self, seconds: float) -> list[dict[str, Any]]:
        """Every event that comes within `seconds` (none, usually)."""
        deadline = time.monotonic() + seconds
        events = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            if line.strip():
                events.append(json.loads(line))
        return events

    def ended(self, timeout: float) -> bool:
        """The server closed the stream within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                if self.lines.get(timeout=left) is None:
                    return True
            except queue.Empty:
                return False
        return False

    def close(self) -> None:
        """Hang up: the socket shut down (the reader sees its end) and closed, so that
        the server's next write fails even on a WSGI server, which reads nothing."""
        if self.sock is not None:
            with suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        if self.reader.is_alive():
            self.reader.join(timeout=5)
        self.response.close()
        self.conn.close()


STREAM_CLIENT = Path(__file__).resolve().parent / "halite_stream_client.py"


def engine_match(
    ruleset: str, seed: int, options: dict[str, Any], bots: dict[int, str]
) -> dict[str, Any]:
    """The match that programs playing `bots` (seat -> bot) will play, played by the
    engine alone, each bot on its seat's view as a program sees it."""
    import engine

    state = engine.new_game(ruleset=ruleset, seed=seed, seats=len(bots), options=options)
    while not state["over"]:
        orders = [
            engine.bot_orders(bots[seat], engine.view(state, seat), seat)
            for seat in engine.awaiting(state)
        ]
        state = engine.apply(state, orders if len(orders) > 1 else orders[0]).state
    return state


def programs_play(
    base: str,
    ruleset: str,
    options: dict[str, Any],
    players: dict[int, Any],
    bots: dict[int, str],
    timeout: float = 300,
) -> tuple[int, dict[int, dict[str, Any]]]:
    """A match of `ruleset` created by seat 1's player through the API and joined by
    the others, then played to its end by one program a seat (its own process and
    token, on the event stream). Returns the match's id and each program's report."""
    from api_support import ApiClient, token_for

    created = ApiClient(token_for(players[1], "lobby")).post_json(
        "/matches/", {"ruleset": ruleset, "seats": len(players), "options": options}
    )
    assert created.status_code == 201, created.content[:300]
    match_id = int(created.json()["id"])
    for seat in sorted(players)[1:]:
        joined = ApiClient(token_for(players[seat], "lobby")).post_json(
            f"/matches/{match_id}/join/"
        )
        assert joined.status_code == 200, joined.content[:300]
    programs = {
        seat: subprocess.Popen(
            [
                sys.executable,
                str(STREAM_CLIENT),
                base,
                token_for(who, "bot"),
                str(match_id),
                bots[seat],
            ],
            cwd=STREAM_CLIENT.parents[2],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for seat, who in players.items()
    }
    reports = {}
    for seat, program in programs.items():
        try:
            out, err = program.communicate(timeout=timeout)
        finally:
            program.kill()
        assert program.returncode == 0, err[-3000:]
        reports[seat] = json.loads(out)
    return match_id, reports
