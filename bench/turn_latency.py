"""Turn latency: from a player's accepted orders POST to the resolved turn visible to
the next player, through Redis and a real Celery worker process.

    python bench/turn_latency.py [--turns 200] [--pool prefork] [--concurrency 2] [--hops]

Production settings (DEBUG off) on this machine's PostgreSQL (database
`helium3_bench` unless --database) and Redis, and a real worker started with the
README's command (`celery -A helium3_site worker`) on a queue of this run's own.
Two people play a two-seat match; in turn each POSTs orders (a pass) through the
real view, in this process. Two clocks stop when the next player's turn is waiting
for them in the database (polled every `--poll-ms`), which is what their next page
view shows; one page view per turn checks that it does show them the orders form.
The goal's clock starts at the POST's answer, when the orders are accepted
(committed, the task queued); the other starts when the POST starts, so it adds the
POST's own time (its CPU time in this process is noted too: steadier on a shared
machine). The breakdown uses the turn row's own timestamps: accepted (in the
POST) to the worker's claim, then the claim to the next turn visible. With `--hops`
the worker is production's app with two timestamps more (bench/_hop_probe.py) and
this process notes when it publishes the task, which splits the hop from accepted to
the claim into the POST's tail (its statements after the acceptance and its commit),
the publish to Redis, Redis to the worker's consumer, the pool's hand-off to its
process, and the task's start to the claim (its connection and its first statement).
Goal: from an accepted POST, median under 25 ms.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _support  # noqa: E402

GOAL_MS = 25.0


def new_match(alice: Any, bob: Any) -> Any:
    from games import services
    from games.models import Match

    match = services.match_create(
        creator=alice, seat_count=2, turn_seconds=3600, length_ms=3_600_000
    )
    services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--pool", default="prefork")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--poll-ms", type=float, default=0.5)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for one turn")
    parser.add_argument(
        "--no-email",
        action="store_true",
        help="the players switch the your-turn email off (no email task per turn)",
    )
    parser.add_argument(
        "--hops", action="store_true", help="split the hop through the queue by timestamps"
    )
    parser.add_argument("--database", default="helium3_bench")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    args = parser.parse_args(argv)

    missing = _support.services_up()
    if missing:
        print(f"turn_latency: skipped, {missing}", file=sys.stderr)
        return 2
    env = _support.site_env(args.database, f"bench-latency-{os.getpid()}")
    app = "helium3_site"
    if args.hops:
        args.hop_log = Path(env["HELIUM3_VAR_DIR"]) / f"hops-{time.monotonic_ns()}.log"
        env["HELIUM3_HOP_LOG"] = str(args.hop_log)
        app = "bench._hop_probe"
    _support.prepare_database(env)
    _support.use_env(env)
    _support.purge_queue(env)
    try:
        with _support.celery_worker(env, concurrency=args.concurrency, pool=args.pool, app=app):
            run(args)
        return 0
    finally:
        _support.purge_queue(env)
        from django.db import connections

        connections.close_all()
        if args.drop:
            _support.drop_database(args.database)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from games.models import Match, NotificationSettings, Turn

    assert not settings.DEBUG
    publish = _publish_times() if args.hops else {}
    measured: list[tuple[int, int, float, float]] = []  # match, turn, accepted, claimed
    tag = f"{os.getpid()}-{time.time_ns()}"
    users = [
        User.objects.create_user(f"bench-{name}-{tag}", f"{name}{tag}@example.org")
        for name in ("alice", "bob")
    ]
    if args.no_email:
        for user in users:
            NotificationSettings.objects.update_or_create(user=user, defaults={"your_turn": False})
    clients: dict[int, Client] = {}
    for user in users:
        clients[user.pk] = Client()
        clients[user.pk].force_login(user)
    match = new_match(*users)
    seat_user = {s.number: s.user for s in match.seats.select_related("user")}

    latencies: list[float] = []
    after_post: list[float] = []
    posts: list[float] = []
    post_cpu: list[float] = []
    parts: dict[str, list[float]] = {
        "post_to_accepted": [],
        "accepted_to_claim": [],
        "claim_to_visible": [],
    }
    shown = 0
    poll = args.poll_ms / 1000
    query = "SELECT status FROM games_turn WHERE match_id = %s AND number = %s"
    warmup = 3
    for i in range(args.turns + warmup):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            match = new_match(*users)
            seat_user = {s.number: s.user for s in match.seats.select_related("user")}
        number, seat = match.turn_number, match.to_move
        assert seat is not None
        mover, url = seat_user[seat], f"/matches/{match.pk}/"
        wall = time.time()
        start, cpu = time.perf_counter(), time.process_time()
        response = clients[mover.pk].post(f"{url}orders/", {"turn": number, "actions_json": "[]"})
        posted, cpu = time.perf_counter(), time.process_time() - cpu
        assert response.status_code == 302, (response.status_code, response.content[:500])
        deadline = posted + args.timeout
        with connection.cursor() as cursor:
            while True:
                cursor.execute(query, [match.pk, number + 1])
                row = cursor.fetchone()
                if row and row[0] == Turn.Status.WAITING:
                    break
                # The match may end on this turn: then its status is the sign.
                cursor.execute("SELECT status FROM games_match WHERE id = %s", [match.pk])
                if cursor.fetchone()[0] == Match.Status.FINISHED:
                    break
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"turn {number} of match {match.pk} not resolved in time")
                time.sleep(poll)
        visible = time.perf_counter()
        visible_wall = wall + (visible - start)
        turn = Turn.objects.get(match=match, number=number)
        match.refresh_from_db()
        if match.status == Match.Status.RUNNING:
            page = clients[seat_user[match.to_move].pk].get(url)
            shown += b'name="turn"' in page.content
        if i < warmup:
            continue
        latencies.append(visible - start)
        after_post.append(visible - posted)
        posts.append(posted - start)
        post_cpu.append(cpu)
        assert turn.accepted_at is not None and turn.resolved_at is not None
        # The same machine's wall clock in this process and the worker.
        accepted, claimed = turn.accepted_at.timestamp(), turn.resolved_at.timestamp()
        parts["post_to_accepted"].append(accepted - wall)
        parts["accepted_to_claim"].append(claimed - accepted)
        parts["claim_to_visible"].append(visible_wall - claimed)
        measured.append((match.pk, number, accepted, claimed))

    lat = _support.percentiles(latencies)
    after = _support.percentiles(after_post)
    figures: dict[str, Any] = {
        "turns": len(latencies),
        "latency_ms": lat,
        "after_post_ms": after,
        "post_ms": _support.percentiles(posts),
        # This process's CPU time in the POST (the view, the commit, the publish):
        # steadier than its wall time on a shared machine.
        "post_cpu_ms": _support.percentiles(post_cpu),
        "breakdown_median_ms": {
            name: _support.percentiles(values)["median"] for name, values in parts.items()
        },
        "next_player_saw_form": shown,
        "worker": {"pool": args.pool, "concurrency": args.concurrency},
        "your_turn_email": not args.no_email,
        "poll_ms": args.poll_ms,
        # The goal's clock starts when the orders are accepted: the POST's answer.
        "goal_median_under_25_ms": after["median"] is not None and after["median"] < GOAL_MS,
        "mean_ms": round(statistics.mean(latencies) * 1000, 3),
    }
    if args.hops:
        figures["hop_median_ms"] = hop_parts(measured, publish, args.hop_log)
    _support.emit(
        "turn_latency",
        figures,
        f"{len(latencies)} turns: from the accepted POST's answer to the next player's "
        f"turn median {after['median']} ms, p90 {after['p90']} ms, p99 {after['p99']} ms "
        f"(goal: median under {GOAL_MS:g} ms); from the POST's start median "
        f"{lat['median']} ms, p90 {lat['p90']} ms, p99 {lat['p99']} ms (the POST itself "
        f"{figures['post_ms']['median']} ms, its CPU {figures['post_cpu_ms']['median']} ms); "
        "medians of the parts: "
        + ", ".join(f"{k} {v} ms" for k, v in figures["breakdown_median_ms"].items())
        + (
            "; the hop's parts: "
            + ", ".join(f"{k} {v} ms" for k, v in figures["hop_median_ms"].items())
            if args.hops
            else ""
        ),
    )
    return figures


TURN_TASK = "games.tasks.turn_resolve_task"


def _publish_times() -> dict[tuple[int, int], list[float]]:
    """(match, turn) -> [before, after] publishing its task, noted in this process
    (the POST's on-commit callback publishes it)."""
    from celery.signals import after_task_publish, before_task_publish

    times: dict[tuple[int, int], list[float]] = {}

    def key(body: Any) -> tuple[int, int]:
        args = body[0]  # the message protocol 2: (args, kwargs, embed)
        return int(args[0]), int(args[1])

    def before(sender: Any = None, body: Any = None, **kwargs: Any) -> None:
        if sender == TURN_TASK:
            times[key(body)] = [time.time()]

    def after(sender: Any = None, body: Any = None, **kwargs: Any) -> None:
        if sender == TURN_TASK:
            times.setdefault(key(body), [math.nan]).append(time.time())

    before_task_publish.connect(before, weak=False)
    after_task_publish.connect(after, weak=False)
    return times


def hop_parts(
    measured: list[tuple[int, int, float, float]],
    publish: dict[tuple[int, int], list[float]],
    log: Path,
) -> dict[str, float | None]:
    """Medians of the hop's parts, from accepted to the worker's claim, in ms."""
    worker: dict[tuple[str, int, int], float] = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        where, match, number, at = line.split()
        worker.setdefault((where, int(match), int(number)), float(at))  # first delivery
    names = ("post_tail", "publish", "redis_to_consumer", "pool_hand_off", "task_start_to_claim")
    parts: dict[str, list[float]] = {name: [] for name in names}
    for match, number, accepted, claimed in measured:
        before, after = (publish.get((match, number)) or [math.nan, math.nan])[:2]
        received = worker.get(("received", match, number), math.nan)
        prerun = worker.get(("prerun", match, number), math.nan)
        marks = [accepted, before, after, received, prerun, claimed]
        if any(math.isnan(mark) for mark in marks):
            continue
        for name, start, end in zip(names, marks, marks[1:], strict=False):
            parts[name].append(end - start)
    return {name: _support.percentiles(values)["median"] for name, values in parts.items()}


if __name__ == "__main__":
    sys.exit(main())
