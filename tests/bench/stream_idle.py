"""How many idle event streams one web process holds, and what they cost it.

    python tests/bench/stream_idle.py [--streams 1000] [--idle-seconds 10]

A throwaway site (SQLite and Celery's filesystem queue under a temporary folder,
whatever DATABASE_URL and the like say) with a user per four streams, each user seated in a running
two-seat Helium 3 match; one uvicorn process serving helium3_site.asgi, as the
Procfile's `stream` process. The script opens the streams from this process (one
asyncio socket each), then reads from /proc what the server holds: resident memory
and threads before and with the streams open, and its CPU time over an idle window
(the hub's query and the keep-alive lines). Last, it plays one turn of one match in
this process and times how long the turn's `your_turn` takes to reach the other
seat's streams. It prints one JSON object. docs/api-stream.md has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
STREAMS_PER_USER = 4


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proc_status(pid: int) -> dict[str, float]:
    """Resident memory (MiB), threads and CPU seconds of a process, from /proc."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {
        "rss_mib": int(fields["VmRSS"].split()[0]) / 1024,
        "threads": int(fields["Threads"]),
        "cpu_s": (int(stat[11]) + int(stat[12])) / ticks,
    }


def build_site(users: int) -> list[tuple[Any, str, int, int]]:
    """Users, a token each, seated in pairs in running matches: (user, token, match, seat)."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from games import services
    from games.selectors import seat_of
    from games.services.tokens import token_create

    call_command("migrate", verbosity=0)
    people = [
        User.objects.create(username=f"stream-bench-{n}", email=f"b{n}@example.invalid")
        for n in range(users)
    ]
    seated = []
    for first, second in zip(people[::2], people[1::2], strict=True):
        match = services.match_create(creator=first, seat_count=2, api=True)
        services.seat_join(match_id=match.pk, user=second, api=True)
        for user in (first, second):
            seat = seat_of(match, user)
            assert seat is not None
            seated.append((user, token_create(user=user, name="bench")[1], match.pk, seat.number))
    return seated


class Client:
    """One open stream: its socket, and the events read from it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.keepalives = 0

    async def read(self) -> None:
        """Chunked lines until the server closes the stream."""
        while True:
            size_line = await self.reader.readline()
            if not size_line:
                return
            size = int(size_line.strip() or b"0", 16)
            if size == 0:
                return
            chunk = await self.reader.readexactly(size + 2)
            for line in chunk[:-2].split(b"\n")[:-1]:
                if line.strip():
                    self.events.append((time.monotonic(), json.loads(line)))
                else:
                    self.keepalives += 1


async def open_stream(port: int, token: str) -> Client:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /api/v1/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r} {await reader.read(300)!r}")
    while (await reader.readline()).strip():  # the headers
        pass
    return Client(reader, writer)


async def measure(args: argparse.Namespace, port: int, pid: int, seated: list[Any]) -> dict:
    from games import services

    before = proc_status(pid)
    tokens = [token for _user, token, _match, _seat in seated]
    plan = [tokens[n % len(tokens)] for n in range(args.streams)]
    started = time.monotonic()
    clients: list[Client] = []
    for start in range(0, len(plan), 100):  # in batches, as bots would come
        clients += await asyncio.gather(*(open_stream(port, t) for t in plan[start : start + 100]))
    opened_s = time.monotonic() - started
    readers = [asyncio.create_task(c.read()) for c in clients]
    await asyncio.sleep(2)  # the first events (your_turn of every seat to move) go out
    held = proc_status(pid)
    idle_from = held["cpu_s"]
    keepalives_from = sum(c.keepalives for c in clients)
    await asyncio.sleep(args.idle_seconds)
    idle = proc_status(pid)
    keepalives = sum(c.keepalives for c in clients) - keepalives_from

    # One turn: the first match's seat 1 passes; its seat 3 hears its turn.
    user, _token, match_id, _seat = seated[0]
    other_token = seated[1][1]
    theirs = [c for c, t in zip(clients, plan, strict=True) if t == other_token]
    marks = [len(c.events) for c in theirs]

    def play() -> float:
        services.orders_submit(match_id=match_id, user=user, turn=0, actions=[])
        services.turn_resolve(match_id=match_id, number=0)
        return time.monotonic()

    resolved_at = await asyncio.to_thread(play)
    deadline = resolved_at + 10
    arrivals = []
    for client, mark in zip(theirs, marks, strict=True):
        while time.monotonic() < deadline:
            got = [t for t, e in client.events[mark:] if e["type"] == "your_turn"]
            if got:
                arrivals.append(got[0] - resolved_at)
                break
            await asyncio.sleep(0.01)
    for client in clients:
        client.writer.close()
    for task in readers:
        task.cancel()
    return {
        "streams": len(clients),
        "users": len(seated),
        "open_seconds": round(opened_s, 2),
        "server_before": {k: round(v, 1) for k, v in before.items() if k != "cpu_s"},
        "server_with_streams": {k: round(v, 1) for k, v in held.items() if k != "cpu_s"},
        "kib_per_stream": round((held["rss_mib"] - before["rss_mib"]) * 1024 / len(clients), 1),
        "idle_seconds": args.idle_seconds,
        "idle_cpu_percent": round(100 * (idle["cpu_s"] - idle_from) / args.idle_seconds, 1),
        "keepalive_lines": keepalives,
        "turn_to_your_turn_ms": [round(1000 * a) for a in arrivals],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.streams + 200
    if soft < need:  # the server inherits it
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    users = 2 * max(1, -(-args.streams // (2 * STREAMS_PER_USER)))
    with tempfile.TemporaryDirectory(prefix="h3-stream-bench-") as folder:
        for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "EMAIL_URL"):
            os.environ.pop(name, None)
        os.environ.update(
            DJANGO_SETTINGS_MODULE="helium3_site.settings",
            HELIUM3_VAR_DIR=folder,
            SHOWCASE_STEP_SECONDS="0",
            LOG_LEVEL="WARNING",
        )
        sys.path.insert(0, str(ROOT))
        seated = build_site(users)
        port = free_port()
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "uvicorn"),
                "helium3_site.asgi:application",
                "--port",
                str(port),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=os.environ.copy(),
        )
        try:
            for _ in range(300):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            figures = asyncio.run(measure(args, port, server.pid, seated))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
