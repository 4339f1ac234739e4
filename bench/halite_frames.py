"""Frame times of Halite's board while a turn animates, in this machine's headless Chromium.

    python bench/halite_frames.py [--size 50] [--seats 6] [--turns 40] [--movies 8]
                                  [--viewport 1280x900] [--runs 1] [--trace FILE]

A match of `--seats` grower bots on a `--size` x `--size` map (seed 3) is played to
turn `--turns` through the services, into a SQLite database of its own in a temporary
folder. Django's threaded development server serves the site on 127.0.0.1 (a free
port) and /usr/bin/chromium (headless, never a downloaded browser) opens the match
page as its creator, a spectator of the bots. Each of the last `--movies` turns is
then played on the board at 1x by the history's Replay button (the same Stage that
plays the live turns and the replay page's), and every requestAnimationFrame delta
while the board plays is kept. Printed for each run (`--runs`, each in a browser of its
own, the 1-minute load average before and after it): the median, p90, p99 and worst
delta, the frames counted and the frames over 20 ms (under 50 frames a second); from a
trace of the same movies, each frame's CPU (from one BeginMainFrame of the page's main
thread to the next, between the page's marks where the turns start and end): of the
main thread and of every thread that draws, median, p90, p99 and worst (thread time,
which a busy shared machine inflates far less than the frames' wall time); the board's
width in CSS pixels and per cell. `--trace FILE` also keeps the last run's trace, with
Chromium's timeline (each style recalculation, layout, paint and script task, as
DevTools shows them; it costs a little of the frames' time), for a look at the slowest
frames in DevTools' Performance panel, and prints the element counts of the largest
style recalculations while the turns play.
Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import emit  # noqa: E402

CHROMIUM = os.environ.get("HELIUM3_CHROMIUM", "/usr/bin/chromium")
DRAWING = ("CrRendererMain", "Compositor", "ThreadPoolForegroundWorker", "VizCompositorThread")
SEED = 3

# Kept in the page: every rAF delta while the board plays a movie.
RECORDER = """() => {
  window.hlFrames = [];
  let last = null;
  function loop(now) {
    if (window.matchPage && window.matchPage.playing()) {
      if (last !== null) window.hlFrames.push(now - last);
      else performance.mark("hl-play-start");
      last = now;
    } else {
      if (last !== null) performance.mark("hl-play-end");
      last = null;
    }
    requestAnimationFrame(loop);
  }
  requestAnimationFrame(loop);
}"""
BOARD_SIZE = """() => {
  const svg = document.querySelector('#board-wrap svg.board'), box = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  return {width: box.width, cell: box.width / vb.width * +svg.dataset.cell};
}"""


def _setup(folder: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="helium3_site.settings",
        DATABASE_URL=f"sqlite:///{folder / 'bench.sqlite3'}",
        CELERY_FILESYSTEM_DIR=str(folder / "celery"),
        CACHE_URL="locmem://",
        DJANGO_ALLOW_ASYNC_UNSAFE="true",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _match(size: int, seats: int, turns: int) -> tuple[Any, Any]:
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Match, Turn

    services.matches.secrets.randbelow = lambda _n: SEED  # type: ignore[attr-defined]
    # One turn a resolution, so the match stops at `turns` (a resolution may also resolve
    # the bots' turns that follow it, up to the service's CHAIN_MAX).
    from games.services import resolution

    if hasattr(resolution, "CHAIN_MAX"):
        setattr(resolution, "CHAIN_MAX", 0)  # noqa: B010 - a name only some trees have
    user = get_user_model().objects.create_user("bench", password="bench-only-password")
    match = services.match_create(
        creator=user,
        seat_count=seats,
        bots=["grower"] * seats,
        ruleset="halite",
        options={"width": size, "height": size},
    )
    for _ in range(turns):
        turn = Turn.objects.filter(match=match, status=Turn.Status.ACCEPTED).first()
        if turn is None or services.turn_resolve(match_id=match.pk, number=turn.number) is None:
            break
    match = Match.objects.get(pk=match.pk)
    return match, user


def _serve() -> tuple[Any, str]:
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet)
    server.set_app(StaticFilesHandler(get_wsgi_application()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


# Top-level tasks: their thread time (tdur) is CPU, which waiting for a shared CPU does
# not inflate as it does the frames' wall times.
TASKS = ("ThreadControllerImpl::RunTask", "ThreadPool_RunTask")


def cpu_by_thread(trace: bytes) -> dict[str, float]:
    """Milliseconds of CPU of the browser's top-level tasks, by thread name."""
    loaded = json.loads(trace)
    events = loaded["traceEvents"] if isinstance(loaded, dict) else loaded
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    cpu: collections.Counter[str] = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("name") in TASKS and "tdur" in e:
            cpu[names.get((e["pid"], e["tid"]), "?")] += e["tdur"] / 1000
    return dict(cpu)


def cpu_by_frame(trace: bytes) -> tuple[list[float], list[float]]:
    """The CPU of each frame while a turn plays, in milliseconds: of the page's main
    thread, and of every thread that draws. A frame is the page's main thread's
    BeginMainFrame (its animation callbacks, style, layout and paint) with every task
    since the one before (a board put in by a fetch's answer counts in the frame that
    shows it). The turns play from the frame whose callback marks hl-play-start to
    hl-play-end."""
    loaded = json.loads(trace)
    events = loaded["traceEvents"] if isinstance(loaded, dict) else loaded
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    main = {k for k, v in names.items() if v == "CrRendererMain"}
    starts = sorted(
        e["ts"]
        for e in events
        if e.get("name") == "ProxyMain::BeginMainFrame"
        and e.get("ph") == "X"
        and (e["pid"], e["tid"]) in main
    )
    marks = sorted((e["ts"], e["name"]) for e in events if e.get("name") in PLAY_MARKS)
    chosen: set[int] = set()
    begun: int | None = None
    for ts, name in marks:
        if name == "hl-play-start":
            begun = max(0, bisect.bisect_right(starts, ts) - 1)  # the frame marking it
        elif begun is not None:
            chosen.update(range(begun, bisect.bisect_right(starts, ts)))
            begun = None
    main_cpu: dict[int, float] = dict.fromkeys(chosen, 0.0)
    drawing: dict[int, float] = dict.fromkeys(chosen, 0.0)
    for e in events:
        if e.get("ph") != "X" or e.get("name") not in TASKS or "tdur" not in e:
            continue
        frame = bisect.bisect_left(starts, e["ts"])  # the first frame starting after it
        if frame not in chosen:
            continue
        ident = (e["pid"], e["tid"])
        if ident in main:
            main_cpu[frame] += e["tdur"] / 1000
        if names.get(ident, "?").startswith(DRAWING):
            drawing[frame] += e["tdur"] / 1000
    return [main_cpu[i] for i in sorted(chosen)], [drawing[i] for i in sorted(chosen)]


PLAY_MARKS = ("hl-play-start", "hl-play-end")


def restyles(trace: bytes) -> list[int]:
    """The elements each style recalculation restyled while the turns played (the
    timeline's UpdateLayoutTree, in a trace taken with --trace)."""
    loaded = json.loads(trace)
    events = loaded["traceEvents"] if isinstance(loaded, dict) else loaded
    marks = sorted((e["ts"], e["name"]) for e in events if e.get("name") in PLAY_MARKS)
    spans, begun = [], None
    for ts, name in marks:
        if name == "hl-play-start":
            begun = ts
        elif begun is not None:
            spans.append((begun, ts))
            begun = None
    return [
        int(e["args"]["elementCount"])
        for e in events
        if e.get("name") == "UpdateLayoutTree"
        and e.get("ph") == "X"
        and "elementCount" in e.get("args", {})
        and any(a <= e["ts"] <= b for a, b in spans)
    ]


def lowest_rate(frames: list[float], window_ms: float = 1000.0) -> float | None:
    """The fewest frames a second over any second of play: each run of consecutive
    frame deltas that first adds up to `window_ms`, its frames over its time."""
    lowest = None
    for start in range(len(frames)):
        total = 0.0
        for count, delta in enumerate(frames[start:], 1):
            total += delta
            if total >= window_ms:
                rate = count * 1000.0 / total
                lowest = rate if lowest is None else min(lowest, rate)
                break
    return None if lowest is None else round(lowest, 1)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(args: argparse.Namespace, match: Any, user: Any) -> dict[str, Any]:
    from django.conf import settings
    from django.test import Client
    from playwright.sync_api import sync_playwright

    server, base = _serve()
    width, height = (int(v) for v in args.viewport.split("x"))
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    frames: list[float] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=["--no-sandbox", "--disable-background-networking", "--no-first-run"],
            )
            context = browser.new_context(viewport={"width": width, "height": height})
            context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
            page = context.new_page()
            page.goto(f"{base}/matches/{match.pk}/")
            page.wait_for_selector("#board-wrap svg.board .hl-piece", state="attached")
            page.wait_for_function("() => window.matchPage && !window.matchPage.playing()")
            page.evaluate("() => { const s = document.querySelector('#speed'); s.value = '1'; }")
            size = page.evaluate(BOARD_SIZE)
            page.evaluate(RECORDER)
            categories = ["toplevel", "cc", "blink.user_timing"]
            if args.trace:
                categories += ["devtools.timeline", "disabled-by-default-devtools.timeline"]
            browser.start_tracing(page=page, categories=categories)
            last = int(match.state["turn"]) - 1
            for number in range(max(0, last - args.movies + 1), last + 1):
                button = f'.replay-turn[data-turn="{number}"]'
                if not page.locator(button).count():
                    continue
                page.evaluate(f"() => document.querySelector('{button}').click()")
                page.wait_for_function("() => window.matchPage.playing()", timeout=30_000)
                page.wait_for_function("() => !window.matchPage.playing()", timeout=60_000)
            trace = browser.stop_tracing()
            restyled = restyles(trace) if args.trace else []
            if args.trace:
                Path(args.trace).write_bytes(trace)
            cpu = cpu_by_thread(trace)
            main_frames, drawing_frames = cpu_by_frame(trace)
            frames = page.evaluate("() => window.hlFrames")
            browser.close()
    finally:
        server.shutdown()
    if not frames:
        raise SystemExit("bench: no frame was recorded (did a movie play?)")
    return {
        "size": f"{match.state['width']}x{match.state['height']}",
        "seats": args.seats,
        "turn": match.state["turn"],
        "viewport": args.viewport,
        "board_css_px": round(size["width"]),
        "cell_css_px": round(size["cell"], 1),
        "frames": len(frames),
        "median_ms": round(statistics.median(frames), 1),
        "p90_ms": round(_percentile(frames, 0.9), 1),
        "p99_ms": round(_percentile(frames, 0.99), 1),
        "worst_ms": round(max(frames), 1),
        "over_20_ms": sum(1 for f in frames if f > 20),
        "lowest_fps_1s": lowest_rate(frames),
        # CPU a frame: the page's main thread, and every thread that draws (main,
        # compositor, raster workers, the display compositor), over the movies' frames.
        "main_cpu_ms_per_frame": round(cpu.get("CrRendererMain", 0) / len(frames), 2),
        "drawing_cpu_ms_per_frame": round(
            sum(v for k, v in cpu.items() if k.startswith(DRAWING)) / len(frames), 2
        ),
        # The same frame by frame (a frame: one BeginMainFrame to the next while a turn
        # plays): the CPU the page's main thread spent on it, which a CPU shared with
        # other work does not inflate as it does the frame's wall time.
        "frames_traced": len(main_frames),
        "main_cpu_frame_ms": _spread(main_frames),
        "drawing_cpu_frame_ms": _spread(drawing_frames),
        # With --trace: the elements the largest style recalculations restyled while
        # the turns played (the page holds about 1,100).
        "most_restyled": sorted(restyled, reverse=True)[:5],
    }


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "median": round(statistics.median(values), 2),
        "p90": round(_percentile(values, 0.9), 2),
        "p99": round(_percentile(values, 0.99), 2),
        "worst": round(max(values), 2),
    }


def _load() -> float:
    """The 1-minute load average (the CPUs' queue: other work the frames wait behind)."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--movies", type=int, default=8)
    parser.add_argument("--viewport", default="1280x900")
    parser.add_argument("--runs", type=int, default=1, help="measure this many times")
    parser.add_argument("--trace", help="keep the last run's trace, with the timeline, here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="halite-frames-") as folder:
        _setup(Path(folder))
        match, user = _match(args.size, args.seats, args.turns)
        for run in range(1, args.runs + 1):
            before = _load()
            figures = measure(args, match, user)
            figures.update(run=run, load_before=before, load_after=_load())
            main_cpu, drawing = figures["main_cpu_frame_ms"], figures["drawing_cpu_frame_ms"]
            emit(
                "halite_frames",
                figures,
                f"Halite {figures['size']}, {figures['seats']} seats, turn {figures['turn']}, "
                f"run {run} (load {before} to {figures['load_after']}): frame median "
                f"{figures['median_ms']} ms, p90 {figures['p90_ms']} ms, p99 "
                f"{figures['p99_ms']} ms, worst {figures['worst_ms']} ms over "
                f"{figures['frames']} frames ({figures['over_20_ms']} over 20 ms), "
                f"fewest frames in any second {figures['lowest_fps_1s']}; CPU of a "
                f"frame, main thread: median {main_cpu.get('median')} ms, p99 "
                f"{main_cpu.get('p99')} ms, worst {main_cpu.get('worst')} ms; every thread "
                f"that draws: median {drawing.get('median')} ms, worst {drawing.get('worst')} "
                f"ms; board {figures['board_css_px']} px, {figures['cell_css_px']} px a cell"
                + (
                    f"; most elements restyled at once: {figures['most_restyled']}"
                    if args.trace
                    else ""
                ),
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
