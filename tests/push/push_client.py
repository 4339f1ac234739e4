"""A reader of the push channel for tests: the site's ASGI application driven on an
event loop of its own thread (as a web process would run it), or a real server
read over a socket; either way the events as a browser's EventSource parses them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest


@dataclass(frozen=True)
class Event:
    kind: str
    data: dict[str, Any]
    id: str | None
    raw: bytes


class SseParser:
    """Server-sent events out of the bytes as they come (the WHATWG rules the site uses)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.last_id: str | None = None

    def feed(self, chunk: bytes) -> list[Event]:
        self.buffer += chunk
        events = []
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            kind, data, given_id = "message", [], None
            for line in block.decode().split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "event":
                    kind = value
                elif name == "data":
                    data.append(value)
                elif name == "id":
                    given_id = value
            if given_id is not None:
                self.last_id = given_id
            if data:
                events.append(Event(kind, json.loads("\n".join(data)), given_id, block + b"\n\n"))
        return events


class Channel:
    """One open /push/ answered by helium3_site.asgi.application in this process."""

    def __init__(
        self,
        *,
        match: int | None = None,
        cookie: str = "",
        last_event_id: str | None = None,
        watch: str | None = None,
    ) -> None:
        query = {"match": str(match)} if match is not None else {}
        if watch is not None:
            query["watch"] = watch
        headers = [(b"host", b"testserver")]
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        if last_event_id is not None:
            headers.append((b"last-event-id", last_event_id.encode()))
        self.scope = {
            "type": "http",
            "method": "GET",
            "path": "/push/",
            "query_string": urlencode(query).encode(),
            "headers": headers,
        }
        self.status: int | None = None
        self.body = b""
        self.chunks: queue.Queue[bytes] = queue.Queue()
        self.parser = SseParser()
        self.loop = asyncio.new_event_loop()
        self._gone: asyncio.Event | None = None
        self._started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self._started.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        from helium3_site.asgi import application

        self._gone = asyncio.Event()
        self._started.set()

        async def receive() -> dict[str, Any]:
            assert self._gone is not None
            await self._gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.status = message["status"]
            elif message.get("body"):
                self.body += message["body"]
                self.chunks.put(message["body"])

        await application(self.scope, receive, send)
        self.chunks.put(b"")  # the end

    def events(self, count: int, timeout: float = 10.0) -> list[Event]:
        """The next `count` events (fewer if the time runs out)."""
        found: list[Event] = []
        deadline = time.monotonic() + timeout
        while len(found) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                chunk = self.chunks.get(timeout=left)
            except queue.Empty:
                break
            if not chunk:
                break
            found += self.parser.feed(chunk)
        return found

    def close(self) -> None:
        if self._gone is not None:
            self.loop.call_soon_threadsafe(self._gone.set)
        self.thread.join(10)
        # The hub's own tasks outlive the page (a web process's loop runs on): end
        # them, so that its database threads stop and close their connections
        # rather than hold one each until the tests end.
        left = asyncio.all_tasks(self.loop)
        for task in left:
            task.cancel()
        if left:
            self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        self.loop.close()


def pass_turn(match: Any) -> None:
    """The person awaited passes (the engine's default orders); the bots then play
    (resolved here, as the worker would: each commit rings the bell)."""
    from site_support import drain

    import engine
    from games import services
    from games.models import Seat

    match.refresh_from_db()
    assert match.state is not None
    for seat in Seat.objects.filter(
        match=match, number__in=engine.awaiting(match.state), user__isnull=False
    ):
        passing = engine.default_orders(match.state, seat.number)
        services.orders_submit(
            match_id=match.pk,
            user=seat.user,
            turn=match.turn_number,
            orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
        )
    drain(match, emails=False)


class SocketChannel:
    """/push/ read from a real server over HTTP/1.1 (a uvicorn process)."""

    def __init__(
        self,
        port: int,
        *,
        match: int | None = None,
        last_event_id: str | None = None,
        watch: bool = False,
    ) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        query = urlencode(
            {**({"match": match} if match is not None else {}), **({"watch": 1} if watch else {})}
        )
        lines = [f"GET /push/?{query} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
        if last_event_id:
            lines.append(f"Last-Event-ID: {last_event_id}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(4096)
        head, _, rest = head.partition(b"\r\n\r\n")
        self.status = int(head.split()[1])
        self.chunked = b"transfer-encoding: chunked" in head.lower()
        self.raw = rest
        self.parser = SseParser()

    def _body(self, data: bytes) -> bytes:
        if not self.chunked:
            return data
        out = b""
        while True:
            size_line, sep, rest = data.partition(b"\r\n")
            if not sep:
                break
            size = int(size_line, 16)
            if len(rest) < size + 2:
                break
            out += rest[:size]
            data = rest[size + 2 :]
        self._left = data
        return out

    def events(self, count: int, timeout: float = 10.0) -> list[Event]:
        found: list[Event] = []
        deadline = time.monotonic() + timeout
        pending = self.raw
        self.raw = b""
        while True:
            self._left = b""
            found += self.parser.feed(self._body(pending))
            pending = self._left
            if len(found) >= count:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                more = self.sock.recv(65536)
            except TimeoutError:
                break
            if not more:
                break
            pending += more
        self.raw = pending
        return found

    def close(self) -> None:
        self.sock.close()


def database_url(db: dict[str, Any]) -> str:
    """The test's own database (SQLite's file, or PostgreSQL's test database) as a
    DATABASE_URL for the web processes a test starts."""
    if "sqlite" in db["ENGINE"]:
        return f"sqlite:///{db['NAME']}"
    return (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


ROOT = Path(__file__).resolve().parent.parent.parent
UVICORN = Path(sys.executable).parent / "uvicorn"


@contextlib.contextmanager
def web_servers(env: dict[str, str], count: int = 2) -> Iterator[list[int]]:
    """`count` web processes (uvicorn serving helium3_site.asgi, the site's pages and
    `/push/`) with the environment `env`, each on a free port; their ports, once each
    listens. Stopped on the way out."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        ports = [free_port() for _ in range(count)]
        for port in ports:
            procs.append(
                subprocess.Popen(
                    [
                        str(UVICORN),
                        "helium3_site.asgi:application",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--log-level",
                        "warning",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )  # fmt: skip
            )
        for port, proc in zip(ports, procs, strict=True):
            wait_for_port(port, proc, "uvicorn")
        yield ports
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"{what} ended: {proc.stdout.read() if proc.stdout else ''!r}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} did not listen on {port}")


def redis_server() -> tuple[int, subprocess.Popen[bytes]]:
    """A redis-server of the test's own on a free port (skips where there is none);
    the caller terminates it."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("no redis-server on this machine")
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port, proc, "redis-server")
    except BaseException:
        proc.kill()
        raise
    return port, proc
