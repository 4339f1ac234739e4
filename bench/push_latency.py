"""Push latency: a resolved turn reaching a watching browser through the push channel.

    python bench/push_latency.py [--turns 200] [--pace-ms 250] [--bell file|redis]

The embedded setup of `make run` in a folder of its own (SQLite, HELIUM3_VAR_DIR):
the site served by uvicorn (helium3_site.asgi, a process of its own), and Debian's
Chromium (Playwright) watching a public two-person match as a spectator, as a
visitor's browser would. This process plays the match: each turn both seats pass
(services.orders_submit) and the turn is resolved as the worker resolves it
(services.turn_resolve); the commit rings the doorbell (the file bell, or with
--bell redis a redis-server started for the run). The clock starts when the ring
is sent, after the commit, and stops when the page hears the turn event
(`h3:push-turn`, Date.now() in the page: one machine, one clock). A second figure
stops when the page has its own view of that turn (the poll's answer swapped in).
Goal: median <= 100 ms, p99 <= 250 ms to the push.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import _support  # noqa: E402

CHROMIUM = os.environ.get("HELIUM3_CHROMIUM", "/usr/bin/chromium")
GOAL_MEDIAN_MS, GOAL_P99_MS = 100.0, 250.0

RECORD = """(() => {
  window.h3Got = []; window.h3Viewed = [];
  document.addEventListener('h3:push-turn', e => window.h3Got.push([Date.now(), e.detail.version]));
  document.addEventListener('htmx:afterSettle', () => {
    const poll = document.getElementById('poll'), url = poll && poll.getAttribute('hx-get');
    const v = /[?&]v=([^&]*)/.exec(url || '');
    if (v) window.h3Viewed.push([Date.now(), decodeURIComponent(v[1]).split('.').slice(0, 3).join('.')]);
  });
})()"""


def wait_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{what} ended early")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--pace-ms", type=int, default=250, help="between two turns")
    parser.add_argument("--bell", choices=["file", "redis"], default="file")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="helium3-push-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    env = {
        **os.environ,
        "HELIUM3_VAR_DIR": str(folder),
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "PUSH_REDIS_URL": "file",
        "DJANGO_SETTINGS_MODULE": "helium3_site.settings",
    }
    try:
        if args.bell == "redis":
            redis_port = _support.free_port()
            procs.append(
                subprocess.Popen(
                    [shutil.which("redis-server") or "redis-server", "--port", str(redis_port),
                     "--bind", "127.0.0.1", "--save", ""],
                    stdout=subprocess.DEVNULL,
                )
            )  # fmt: skip
            wait_port(redis_port, procs[-1], "redis-server")
            env["PUSH_REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        os.environ.update(env)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        import django

        django.setup()
        from django.contrib.auth import get_user_model

        from games import services
        from games.models import Match, Seat
        from games.push import bell
        from games.push.reads import match_versions

        rang: dict[int, float] = {}
        ring = bell.ring

        def timed_ring(match_id: int) -> None:
            rang[match_id] = time.time()
            ring(match_id)

        bell.ring = timed_ring  # the clock starts as the bell is rung, after the commit

        users = get_user_model()
        alice = users.objects.create_user("alice", "alice@example.com", "x")
        bob = users.objects.create_user("bob", "bob@example.com", "x")

        def new_match() -> Any:
            match = services.match_create(
                creator=alice, seat_count=2, turn_seconds=3600, length_ms=3_600_000
            )
            services.seat_join(match_id=match.pk, user=bob)
            match.refresh_from_db()
            return match

        port = _support.free_port()
        procs.append(
            subprocess.Popen(
                [str(Path(sys.executable).parent / "uvicorn"), "helium3_site.asgi:application",
                 "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                cwd=ROOT,
                env=env,
            )
        )  # fmt: skip
        wait_port(port, procs[-1], "uvicorn")

        from playwright.sync_api import sync_playwright

        import engine

        # Playwright's sync API keeps an event loop in this thread, beside the ORM's calls.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        pushed: list[float] = []
        viewed: list[float] = []
        missing = 0
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
            )
            page = browser.new_page()
            page.add_init_script(RECORD)
            match = None
            sent: dict[str, float] = {}
            done = 0
            while done < args.turns:
                if match is None or match.status != Match.Status.RUNNING:
                    if match is not None:
                        pushed_, viewed_, missing_ = _collect(page, sent)
                        pushed += pushed_
                        viewed += viewed_
                        missing += missing_
                        sent = {}
                    match = new_match()
                    page.goto(f"http://127.0.0.1:{port}/matches/{match.pk}/")
                    page.wait_for_function(
                        "() => window.h3Push && window.h3Push.up", timeout=30_000
                    )
                assert match.state is not None
                for seat in Seat.objects.filter(
                    match=match, number__in=engine.awaiting(match.state)
                ):
                    passing = engine.default_orders(match.state, seat.number)
                    services.orders_submit(
                        match_id=match.pk,
                        user=seat.user,
                        turn=match.turn_number,
                        orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
                    )
                time.sleep(0.05)  # the "orders in" change told apart from the turn's
                services.turn_resolve(match_id=match.pk, number=match.turn_number)
                version = match_versions({match.pk})[match.pk][0]
                sent[version] = rang[match.pk]
                match.refresh_from_db()
                done += 1
                page.wait_for_timeout(args.pace_ms)
            pushed_, viewed_, missing_ = _collect(page, sent)
            pushed += pushed_
            viewed += viewed_
            missing += missing_
            browser.close()
        push_ms = _support.percentiles(pushed)
        view_ms = _support.percentiles(viewed)
        met = (
            push_ms["median"] is not None
            and push_ms["median"] <= GOAL_MEDIAN_MS
            and (push_ms["p99"] or 0) <= GOAL_P99_MS
        )
        _support.emit(
            "push_latency",
            {
                "turns": args.turns,
                "bell": args.bell,
                "pace_ms": args.pace_ms,
                "resolved_to_push_ms": push_ms,
                "resolved_to_view_ms": view_ms,
                "turns_not_heard": missing,
                "goal_met": met,
            },
            f"{len(pushed)} turns, resolved -> pushed to the page: median {push_ms['median']} ms,"
            f" p99 {push_ms['p99']} ms; -> the page's own view: median {view_ms['median']} ms,"
            f" p99 {view_ms['p99']} ms; not heard: {missing}"
            f" (goal <= {GOAL_MEDIAN_MS:.0f} / {GOAL_P99_MS:.0f} ms: {'met' if met else 'NOT met'})",
        )
        return 0 if missing == 0 else 1
    finally:
        for proc in reversed(procs):
            _support.stop(proc)
        shutil.rmtree(folder, ignore_errors=True)


def _collect(page: Any, sent: dict[str, float]) -> tuple[list[float], list[float], int]:
    """Each resolved turn's time to the push and to the page's view (seconds): the
    first event (or view) of that turn or a later one after the ring. A doorbell
    may fold two changes into one event (the next orders already in when it is
    read): the newest is told, and the turn reached the page with it."""
    page.wait_for_timeout(1500)  # the last turn's answers
    got = sorted(page.evaluate("() => window.h3Got"))
    seen = sorted(page.evaluate("() => window.h3Viewed"))

    def turn(version: str) -> int:
        status, number = version.split(".")[:2]
        return 10**9 if status == "finished" else int(number)

    def first(heard: list[list[Any]], version: str, at: float) -> float | None:
        for when, told in heard:
            if when / 1000 >= at - 0.005 and turn(told) >= turn(version):
                return when / 1000 - at
        return None

    pushed, viewed, missing = [], [], 0
    for version, at in sent.items():
        took = first(got, version, at)
        if took is None:
            missing += 1
        else:
            pushed.append(took)
        took = first(seen, version, at)
        if took is not None:
            viewed.append(took)
    return pushed, viewed, missing


if __name__ == "__main__":
    raise SystemExit(main())
