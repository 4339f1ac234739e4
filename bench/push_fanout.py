"""Push fan-out with many open pages: a ring's wait behind the hub's reads.

    python bench/push_fanout.py [--matches 1000] [--seconds 60] [--rings 60] [--turns 4]
        [--tree PATH]

The production setup of the push process's part (PostgreSQL, a redis-server of the
run's own for the doorbell), without HTTP: a process of its own runs the push
channel (games.push.asgi.push_app, `--tree`'s copy, this checkout's by default)
on one event loop for two pages a match, each signed in as one of the match's two
people (so every page has a "your move" count too), the pages being the ASGI
application's own `send`. This process then, for `--seconds`:
- rings the bell `--rings` times a second for matches picked at random, most of
  them unchanged (what the other push processes' pages and the other matches bring
  on a busy site: a read that finds nothing new);
- plays `--turns` turns a second on matches picked at random (both seats pass, the
  turn resolved as the worker does), each timed from its ring (after the commit) to
  each of the match's two pages receiving its `turn` event.

Counters from the push process (less noisy than the times on a loaded machine):
each kind of read the hub makes (reads.read, reads.read_rung, ...): how many,
their statements, wall and CPU time of the database thread; the process's CPU per
second; how long the event loop was held (a 10 ms timer's lateness: total and
worst); the hub's Python time per wake-up. The matches are made once and kept in
the database `helium3_push_fanout` (--fresh makes them again), so two trees can be
run in turn on the same data.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import _support  # noqa: E402

DATABASE = "helium3_push_fanout"


# -- The push process (--serve) ------------------------------------------------------


def serve(pages_file: Path, out_file: Path) -> None:
    """Opens the pages, says "ready" on stdout, then runs until stdin closes; writes
    its counters and every event's arrival to `out_file`."""
    sys.path.insert(0, os.getcwd())  # the tree under test (--tree), before this one
    import django

    django.setup()
    from django.db import connection

    from games.push import asgi

    assert Path(asgi.__file__).is_relative_to(Path.cwd()), asgi.__file__

    pages = json.loads(pages_file.read_text())
    jobs: dict[str, list[float]] = {}  # name -> [count, statements, wall, cpu]
    arrivals: list[tuple[int, str, float]] = []  # match, version, monotonic
    lag = {"total": 0.0, "worst": 0.0, "ticks": 0}
    measuring = threading.Event()

    def timed(fn: Any) -> Any:
        def run(*args: Any) -> Any:
            statements = [0]

            def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
                statements[0] += 1
                return execute(sql, params, many, context)

            wall, cpu = time.monotonic(), time.thread_time()
            try:
                with connection.execute_wrapper(count):
                    return fn(*args)
            finally:
                if measuring.is_set():
                    got = jobs.setdefault(getattr(fn, "__name__", "?"), [0, 0, 0.0, 0.0])
                    got[0] += 1
                    got[1] += statements[0]
                    got[2] += time.monotonic() - wall
                    got[3] += time.thread_time() - cpu

        run.__name__ = getattr(fn, "__name__", "?")
        return run

    async def main() -> None:
        loop = asyncio.get_running_loop()
        gone = asyncio.Event()
        received = [0]

        async def page(match_id: int, session: str) -> None:
            scope = {
                "type": "http",
                "method": "GET",
                "path": "/push/",
                "query_string": f"match={match_id}".encode(),
                "headers": [(b"host", b"testserver"), (b"cookie", f"sessionid={session}".encode())],
            }

            async def receive() -> dict[str, Any]:
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: Any) -> None:
                body = message.get("body") or b""
                if b"event: turn" not in body:
                    return
                at = time.monotonic()
                received[0] += 1
                for block in body.split(b"\n\n"):
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: ") and b'"version"' in line:
                            data = json.loads(line[6:])
                            arrivals.append((data["match"], data["version"], at))

            await asyncio.wait_for(asgi.push_app(scope, receive, send), None)

        tasks = [loop.create_task(page(m, s)) for m, s in pages]
        while received[0] < len(pages):  # each page's first event: its version
            await asyncio.sleep(0.05)
        hub = asgi.Hub.current()
        run = hub.db.run

        async def run_timed(fn: Any, *args: Any) -> Any:
            return await run(timed(fn), *args)

        hub.db.run = run_timed  # type: ignore[method-assign]

        async def ticker() -> None:
            while True:
                before = loop.time()
                await asyncio.sleep(0.01)
                late = loop.time() - before - 0.01
                if measuring.is_set():
                    lag["ticks"] += 1
                    lag["total"] += max(late, 0.0)
                    lag["worst"] = max(lag["worst"], late)

        tick = loop.create_task(ticker())
        await asyncio.sleep(3)  # a sweep or so, settled
        arrivals.clear()
        print("ready", flush=True)
        stdin = await loop.run_in_executor(None, sys.stdin.readline)  # "go"
        assert stdin.strip() == "go", stdin
        measuring.set()
        cpu, wall = time.process_time(), time.monotonic()
        await loop.run_in_executor(None, sys.stdin.readline)  # "stop"
        measuring.clear()
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        out_file.write_text(
            json.dumps(
                {
                    "pages": len(pages),
                    "cpu_s": cpu,
                    "wall_s": wall,
                    "jobs": jobs,
                    "loop_late_s": lag,
                    "arrivals": arrivals,
                }
            )
        )
        gone.set()
        tick.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    asyncio.run(main())


# -- The run --------------------------------------------------------------------------


def make_matches(count: int) -> None:
    """`count` running two-person Helium 3 matches, each person signed in."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from games import services
    from games.models import Match

    have = Match.objects.filter(status=Match.Status.RUNNING, title__startswith="fanout").count()
    if have >= count:
        return
    store = import_module(settings.SESSION_ENGINE).SessionStore
    start = time.monotonic()
    for i in range(have, count):
        a, b = User.objects.bulk_create(
            User(username=f"fanout-{i}-{s}", email="", password=make_password(None)) for s in "ab"
        )
        match = services.match_create(
            creator=a,
            seat_count=2,
            turn_seconds=24 * 3600,
            length_ms=3_600_000,
            title=f"fanout {i}",
        )
        services.seat_join(match_id=match.pk, user=b)
        for user in (a, b):
            session = store()
            session["_auth_user_id"] = str(user.pk)
            session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
            session["_auth_user_hash"] = user.get_session_auth_hash()
            session.set_expiry(30 * 24 * 3600)
            session.create()
            user.last_name = session.session_key or ""  # the page's cookie, kept with its user
            user.save(update_fields=["last_name"])
        if i % 100 == 99:
            print(f"made {i + 1} matches in {time.monotonic() - start:.0f} s", file=sys.stderr)


def play(match: Any) -> None:
    import engine
    from games import services
    from games.models import Seat

    match.refresh_from_db()
    assert match.state is not None
    for seat in Seat.objects.filter(match=match, number__in=engine.awaiting(match.state)):
        assert seat.user is not None
        passing = engine.default_orders(match.state, seat.number)
        services.orders_submit(
            match_id=match.pk,
            user=seat.user,
            turn=match.turn_number,
            orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
        )
    services.turn_resolve(match_id=match.pk, number=match.turn_number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000, help="two pages a match")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rings", type=float, default=60, help="rings a second, no change")
    parser.add_argument("--turns", type=float, default=4, help="timed turns a second")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout serving /push/")
    parser.add_argument("--fresh", action="store_true", help="drop the matches and make anew")
    parser.add_argument("--serve", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(*args.serve)
        return 0

    missing = _support.services_up()
    if missing:
        raise SystemExit(f"push_fanout: {missing}")
    folder = Path(tempfile.mkdtemp(prefix="helium3-push-fanout-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        redis_port = _support.free_port()
        procs.append(
            subprocess.Popen(
                [shutil.which("redis-server") or "redis-server", "--port", str(redis_port),
                 "--bind", "127.0.0.1", "--save", ""],
                stdout=subprocess.DEVNULL,
            )
        )  # fmt: skip
        env = _support.site_env(DATABASE, "push-fanout")
        env["PUSH_REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{redis_port}/1"  # nobody consumes it
        env["CACHE_URL"] = f"redis://127.0.0.1:{redis_port}/2"
        if args.fresh:
            _support.drop_database(DATABASE)
        _support.prepare_database(env)
        _support.use_env(env)
        from django.contrib.auth.models import User

        from games.models import Match, Seat
        from games.push import bell
        from games.push.reads import match_versions

        make_matches(args.matches)
        matches = list(
            Match.objects.filter(status=Match.Status.RUNNING, title__startswith="fanout").order_by(
                "pk"
            )[: args.matches]
        )
        ids = [m.pk for m in matches]
        sessions = dict(
            Seat.objects.filter(match_id__in=ids).values_list("user_id", "user__last_name")
        )
        pages = [
            (match_id, sessions[user_id])
            for match_id, user_id in Seat.objects.filter(match_id__in=ids).values_list(
                "match_id", "user_id"
            )
        ]
        assert len(pages) == 2 * len(ids) and all(s for _, s in pages)
        del User
        pages_file, out_file = folder / "pages.json", folder / "out.json"
        pages_file.write_text(json.dumps(pages))
        server = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", str(pages_file),
             str(out_file)],
            cwd=args.tree,
            env={**env, "PYTHONPATH": str(args.tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )  # fmt: skip
        procs.append(server)
        assert server.stdin is not None and server.stdout is not None
        connect = time.monotonic()
        line = server.stdout.readline()
        if line.strip() != b"ready":
            raise SystemExit(f"push_fanout: the push process said {line!r}")
        connect_s = time.monotonic() - connect

        rang: dict[int, float] = {}
        ring = bell.ring

        def timed_ring(match_id: int) -> None:
            rang[match_id] = time.monotonic()
            ring(match_id)

        bell.ring = timed_ring
        sent: list[tuple[int, str, float]] = []
        rng = random.Random(7)
        choose = random.Random(8)
        server.stdin.write(b"go\n")
        server.stdin.flush()
        start = time.monotonic()
        stop = threading.Event()
        rings = [0]

        def other_rings() -> None:  # on a thread of their own: paced whatever a turn takes
            at = time.monotonic()
            while not stop.is_set():
                ring(choose.choice(ids))  # not timed: nothing changed
                rings[0] += 1
                at += 1 / args.rings
                time.sleep(max(0.0, at - time.monotonic()))

        ringer = threading.Thread(target=other_rings, daemon=True)
        if args.rings:
            ringer.start()
        next_turn, turns = start, 0
        while time.monotonic() - start < args.seconds:
            if args.turns:
                match = rng.choice(matches)
                play(match)
                turns += 1
                version = match_versions({match.pk})[match.pk][0]
                sent.append((match.pk, version, rang[match.pk]))
                next_turn += 1 / args.turns
            time.sleep(max(0.0, min(next_turn, start + args.seconds) - time.monotonic()))
        stop.set()
        if args.rings:
            ringer.join()
        ring_count = rings[0]
        time.sleep(SETTLE)
        server.stdin.write(b"stop\n")
        server.stdin.flush()
        server.wait(60)
        out = json.loads(out_file.read_text())

        heard: dict[int, list[tuple[float, str]]] = {}
        for match_id, told, when in out["arrivals"]:
            heard.setdefault(match_id, []).append((when, told))
        times: list[float] = []
        lost = early = 0
        for match_id, version, at in sent:
            got = sorted(t for t, v in heard.get(match_id, []) if v == version)
            # Two pages a match: each one's arrival (a page's event comes once); one
            # before the ring was read by a sweep between the commit and the ring.
            lost += max(0, 2 - len(got))
            early += sum(t < at for t in got[:2])
            times += [t - at for t in got[:2] if t >= at]
        fanout = _support.percentiles(times)
        jobs = {
            name: {
                "count": n,
                "statements_each": round(statements / n, 2),
                "wall_ms_each": round(wall * 1000 / n, 2),
                "cpu_ms_each": round(cpu * 1000 / n, 2),
            }
            for name, (n, statements, wall, cpu) in out["jobs"].items()
        }
        lag = out["loop_late_s"]
        figures = {
            "tree": str(args.tree),
            "pages": out["pages"],
            "connect_s": round(connect_s, 1),
            "seconds": round(out["wall_s"], 1),
            "rings": ring_count,
            "turns": turns,
            "fanout_ms": fanout,
            "events_missing": lost,
            "events_before_ring": early,
            "push_cpu_ms_per_s": round(out["cpu_s"] * 1000 / out["wall_s"], 1),
            "push_cpu_ms_per_ring": round(out["cpu_s"] * 1000 / max(ring_count + turns, 1), 2),
            "reads": jobs,
            "loop_late_ms": {
                "total_per_s": round(lag["total"] * 1000 / out["wall_s"], 1),
                "worst": round(lag["worst"] * 1000, 1),
            },
            "load": os.getloadavg()[0],
        }
        reads = "; ".join(
            f"{name} x{j['count']}: {j['statements_each']} statements, "
            f"{j['cpu_ms_each']} ms CPU, {j['wall_ms_each']} ms wall"
            for name, j in jobs.items()
        )
        _support.emit(
            "push_fanout",
            figures,
            f"{out['pages']} pages, {turns} turns, {ring_count} other rings: ring -> event median "
            f"{fanout['median']} ms, p99 {fanout['p99']} ms, {lost} missing, {early} before"
            f" the ring; push CPU {figures['push_cpu_ms_per_s']} ms/s; loop held {figures['loop_late_ms']} ms; {reads}",
        )
        return 0
    finally:
        for proc in reversed(procs):
            _support.stop(proc)
        shutil.rmtree(folder, ignore_errors=True)


SETTLE = 3.0  # after the last turn, for its events (and a sweep) to arrive


if __name__ == "__main__":
    raise SystemExit(main())
