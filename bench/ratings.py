"""Ratings at scale: a game's leaderboard page and the ratings API over 100,000 rated
accounts and 1,000,000 rating changes in PostgreSQL.

    python bench/ratings.py                          # 100,000 accounts, 1,000,000 changes
    python bench/ratings.py --accounts 1000 --changes 10000 --requests 5   # a quick look

The data is bulk-loaded once with COPY into a database of its own
(`helium3_bench_ratings`, kept between runs; `--fresh` loads it again, `--drop`
drops it at the end): the accounts (people and a few API bots), each with its
rating in one game (`--game`, Helium 3) and its changes, every change a seat of a
finished rated match of four. Each account plays `changes / accounts` matches over
a window of 150 days, with its own pace of settling (sigma shrinking 1% to 18% a
match), so about a third of the ratings are still provisional and a third were
last played more than RATING_ACTIVE_DAYS (90) ago: off the leaderboards, as on a
real site. Then VACUUM ANALYZE, as autovacuum would.

Each page and endpoint is asked through Django's test client in this process with
production settings (DEBUG off, Redis for the cache and the API's rate limits):
`--requests` times after three warm-up requests, median and p90 of the server's
wall time and of this thread's CPU (the Python side), the SQL queries of one
request and their plans (EXPLAIN ANALYZE, BUFFERS, FORMAT JSON): every table each
query reads and how (index scan, index only scan, bitmap scan, sequential scan), the
database's own time and the 8 KB pages it read (the work, whatever the machine's
load). It exits 1 if a query reads one of the big tables (accounts, ratings,
changes, matches) with a sequential scan (`--plans-as-if-large`: plans with
sequential scans priced out, for a small run, whose tables PostgreSQL rightly reads
whole). The viewer is an account near the middle of the leaderboard, so its own row
is below the page and its rank is counted.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _support  # noqa: E402

BIG_TABLES = ("auth_user", "compete_rating", "compete_ratingchange", "games_match")
SEATS = 4
WINDOW_DAYS = 150
MU, SIGMA = 25.0, 25.0 / 3
API_BOT_SHARE = 0.05


def _copy(cursor: Any, table: str, columns: list[str], rows: Any) -> None:
    """COPY rows (tuples of text-ready values) into `table`, in 50,000-row chunks."""
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with cursor.copy(sql) as copy:
        buffer = io.StringIO()
        for n, row in enumerate(rows, start=1):
            buffer.write("\t".join("\\N" if v is None else str(v) for v in row))
            buffer.write("\n")
            if n % 50_000 == 0:
                copy.write(buffer.getvalue())
                buffer = io.StringIO()
        copy.write(buffer.getvalue())


def _stamp(moment: datetime) -> str:
    return moment.isoformat()


def load(accounts: int, changes: int, game: str, seed: int) -> dict[str, Any]:
    """Bulk-load the accounts, their ratings, the matches and every change (COPY)."""
    from django.db import connection

    import engine
    from games.compete.rating import PROVISIONAL_SIGMA

    rng = random.Random(seed)
    now = datetime.now(UTC)
    per_account = max(1, changes // accounts)
    started = time.perf_counter()
    # Each account: when it started, how fast it plays and settles, how good it is.
    plays = []
    for a in range(accounts):
        first = rng.uniform(0, WINDOW_DAYS - 1)
        span = rng.uniform(1, 30)
        days = sorted(min(WINDOW_DAYS, first + rng.uniform(0, span)) for _ in range(per_account))
        for day in days:
            plays.append((day, a))
    plays.sort()
    matches = -(-len(plays) // SEATS)
    decay = [rng.uniform(0.82, 0.99) for _ in range(accounts)]
    talent = [rng.gauss(0, 6) for _ in range(accounts)]
    mu = [MU] * accounts
    sigma = [SIGMA] * accounts
    count = [0] * accounts
    last = [now] * accounts
    change_rows = []
    match_times = []
    for k, (day, a) in enumerate(plays):
        m = k // SEATS
        when = now - timedelta(days=WINDOW_DAYS - day)
        if k % SEATS == 0:
            match_times.append(when)
        when = match_times[m]
        before_mu, before_sigma = mu[a], sigma[a]
        after_sigma = max(0.8, before_sigma * decay[a])
        after_mu = before_mu + (talent[a] - before_mu + MU) * 0.1 + rng.gauss(0, after_sigma / 3)
        mu[a], sigma[a], count[a], last[a] = after_mu, after_sigma, count[a] + 1, when
        place = rng.randint(1, SEATS)
        change_rows.append(
            (k + 1, k % SEATS + 1, place, before_mu, before_sigma, after_mu, after_sigma,
             _stamp(when), m + 1, a + 1)
        )  # fmt: skip
    generated = time.perf_counter() - started
    state = '{"ruleset": "%s", "over": true}' % game  # noqa: UP031
    with connection.cursor() as cursor:
        raw = cursor.cursor
        _copy(
            raw,
            "auth_user",
            ["id", "password", "is_superuser", "username", "first_name", "last_name", "email",
             "is_staff", "is_active", "date_joined"],
            ((a + 1, "!", "f", f"p{a + 1:06d}", "", "", "", "f", "t", _stamp(now))
             for a in range(accounts)),
        )  # fmt: skip
        _copy(
            raw,
            "compete_rating",
            ["id", "game", "user_id", "bot", "kind", "mu", "sigma", "conservative", "matches",
             "last_played_at"],
            ((a + 1, game, a + 1, "", "api_bot" if a % int(1 / API_BOT_SHARE) == 7 else "person",
              mu[a], sigma[a], mu[a] - 3 * sigma[a], count[a], _stamp(last[a]))
             for a in range(accounts)),
        )  # fmt: skip
        bots = engine.bot_names(game)
        _copy(
            raw,
            "compete_rating",
            ["id", "game", "user_id", "bot", "kind", "mu", "sigma", "conservative", "matches",
             "last_played_at"],
            ((accounts + i + 1, game, None, bot, "builtin_bot", MU + i, 2.0, MU + i - 6.0, 500,
              _stamp(now)) for i, bot in enumerate(bots)),
        )  # fmt: skip
        _copy(
            raw,
            "games_match",
            ["id", "created_at", "started_at", "finished_at", "status", "seat_count",
             "turn_seconds", "length_ms", "ruleset", "seed", "state", "turn_number", "winners",
             "public", "title", "options", "rated"],
            ((m + 1, _stamp(t - timedelta(hours=2)), _stamp(t - timedelta(hours=2)), _stamp(t),
              "finished", SEATS, 3600, 600000, game, m + 1, state, 40, "[1]", "t", "", "{}", "t")
             for m, t in enumerate(match_times)),
        )  # fmt: skip
        _copy(
            raw,
            "compete_ratingchange",
            ["id", "seat", "place", "mu_before", "sigma_before", "mu_after", "sigma_after",
             "created_at", "match_id", "rating_id"],
            iter(change_rows),
        )  # fmt: skip
        for table in ("auth_user", "compete_rating", "games_match", "compete_ratingchange"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
    loaded = time.perf_counter() - started
    settled = sum(1 for s in sigma if s <= PROVISIONAL_SIGMA)
    return {
        "accounts": accounts,
        "builtin_bots": len(bots),
        "changes": len(change_rows),
        "matches": matches,
        "settled_ratings": settled,
        "generate_s": round(generated, 1),
        "load_s": round(loaded, 1),
    }


def loaded_sizes(game: str) -> tuple[int, int]:
    from games.compete.models import Rating, RatingChange

    people = Rating.objects.filter(game=game, user__isnull=False).count()
    return people, RatingChange.objects.filter(rating__game=game).count()


def plan_of(sql: str, *, as_if_large: bool = False) -> tuple[list[dict[str, Any]], float, int]:
    """The plan's scan nodes, [{"node", "table", "index"}], the database's own
    execution time in ms and the 8 KB pages it read (EXPLAIN (ANALYZE, BUFFERS,
    FORMAT JSON); a SELECT only).

    `as_if_large`: plan with sequential scans priced out (enable_seqscan off), as a
    small database's tables would be read were they large: a table still read
    sequentially then has no index for the query.
    """
    import json

    from django.db import connection

    with connection.cursor() as cursor:
        if as_if_large:
            cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
        finally:
            if as_if_large:
                cursor.execute("RESET enable_seqscan")
    if isinstance(plan, str):
        plan = json.loads(plan)
    scans: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        if "Relation Name" in node or "Index Name" in node:
            scans.append(
                {
                    "node": node["Node Type"],
                    "table": node.get("Relation Name", ""),
                    "index": node.get("Index Name", ""),
                }
            )
        for child in node.get("Plans", []):
            walk(child)

    top = plan[0]["Plan"]
    walk(top)
    # Pages of 8 KB read (from the cache or the disk): the work, whatever the load.
    blocks = int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))
    return scans, float(plan[0]["Execution Time"]), blocks


def measure(
    client: Any, url: str, requests: int, headers: dict[str, str], *, as_if_large: bool = False
) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        assert client.get(url, headers=headers).status_code == 200, url
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers)
    assert response.status_code == 200, (url, response.status_code)
    queries = list(captured.captured_queries)
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(requests):
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(url, headers=headers)
        cpu.append(time.thread_time() - start_cpu)
        times.append(time.perf_counter() - start)
    plans: list[dict[str, Any]] = []
    for q in queries:
        sql = q["sql"]
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        scans, executed, blocks = plan_of(sql, as_if_large=as_if_large)
        plans.append(
            {
                "sql": sql[:160],
                "sql_ms": float(q["time"]) * 1000,
                "db_exec_ms": round(executed, 3),
                "db_blocks": blocks,
                "scans": scans,
            }
        )
    seq = sorted(
        {s["table"] for p in plans for s in p["scans"] if s["node"] == "Seq Scan"} & set(BIG_TABLES)
    )
    pct = _support.percentiles(times)
    return {
        "url": url,
        "server_ms_median": pct["median"],
        "server_ms_p90": pct["p90"],
        "server_cpu_ms_median": round(statistics.median(cpu) * 1000, 3),
        "queries": len(queries),
        "sql_ms": round(sum(float(q["time"]) for q in queries) * 1000, 3),
        # The database's own time for the page's SELECTs, by EXPLAIN ANALYZE (once).
        "db_exec_ms": round(sum(p["db_exec_ms"] for p in plans), 3),
        "db_blocks": sum(p["db_blocks"] for p in plans),
        "bytes": len(response.content),
        "seq_scans_on_big_tables": seq,
        "plans": plans,
    }


def run(args: argparse.Namespace) -> int:
    from django.test import Client

    from games.compete import selectors
    from games.compete.models import Rating
    from games.services.tokens import token_create

    figures: dict[str, Any] = {"database": args.database, "game": args.game}
    people, changes = loaded_sizes(args.game)
    if args.fresh or (people, changes) != (
        args.accounts,
        args.accounts * (args.changes // args.accounts),
    ):
        if people or changes:
            raise SystemExit(
                f"ratings: {args.database} holds {people} accounts and {changes} changes; "
                "run with --fresh to load it again"
            )
        figures["load"] = load(args.accounts, args.changes, args.game, args.seed)
    else:
        figures["load"] = {"accounts": people, "changes": changes, "reused": True}
    figures["vacuum_s"] = _support.vacuum_analyze(args.database, BIG_TABLES)
    board = selectors.leaderboard(args.game)
    ranked = board.count()
    # A person near the middle of the leaderboard: its own row is below the page.
    viewer_rating = board.filter(user__isnull=False)[ranked // 2]
    viewer = viewer_rating.user
    assert viewer is not None
    figures["ranked"] = ranked
    figures["viewer_rank"] = selectors.leaderboard_rank(viewer_rating)
    figures["ratings_rows"] = Rating.objects.filter(game=args.game).count()

    _, raw = token_create(user=viewer, name=f"bench-{time.monotonic_ns()}")
    bearer = {"Authorization": f"Bearer {raw}"}
    anonymous, signed_in = Client(), Client()
    signed_in.force_login(viewer)
    g = args.game
    name = viewer.get_username()
    cases = [
        ("leaderboard, first page, anonymous", anonymous, f"/games/{g}/leaderboard/", {}),
        ("leaderboard, first page, signed in (own row below)", signed_in, f"/games/{g}/leaderboard/", {}),
        ("leaderboard, page 200", anonymous, f"/games/{g}/leaderboard/?page=200", {}),
        ("leaderboard, people", signed_in, f"/games/{g}/leaderboard/?show=people", {}),
        ("leaderboard, API bots", signed_in, f"/games/{g}/leaderboard/?show=api-bots", {}),
        ("API ratings (limit 100)", anonymous, f"/api/v1/ratings/{g}/", bearer),
        ("API ratings, limit 500", anonymous, f"/api/v1/ratings/{g}/?limit=500", bearer),
        ("API ratings, kind=api_bot", anonymous, f"/api/v1/ratings/{g}/?kind=api_bot", bearer),
        ("API player", anonymous, f"/api/v1/players/{name}/", bearer),
        ("player page (ratings and chart)", anonymous, f"/players/{name}/", {}),
    ]  # fmt: skip
    results = {}
    for label, client, url, headers in cases:
        results[label] = measure(
            client, url, args.requests, headers, as_if_large=args.plans_as_if_large
        )
    figures["pages"] = results
    bad = {
        label: r["seq_scans_on_big_tables"]
        for label, r in results.items()
        if r["seq_scans_on_big_tables"]
    }
    figures["seq_scans"] = bad
    summary = "; ".join(
        f"{label}: {r['server_ms_median']} ms, {r['queries']} q" for label, r in results.items()
    )
    _support.emit("ratings", figures, summary + ("; SEQ SCANS: " + str(bad) if bad else ""))
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--changes", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--game", default="helium3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="helium3_bench_ratings")
    parser.add_argument("--fresh", action="store_true", help="drop and load the data again")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    parser.add_argument(
        "--plans-as-if-large",
        action="store_true",
        help="plan with sequential scans priced out (a small run's check that every "
        "query has its index)",
    )
    args = parser.parse_args(argv)

    missing = _support.services_up()
    if missing:
        print(f"ratings: skipped, {missing}", file=sys.stderr)
        return 2
    if args.fresh:
        _support.drop_database(args.database)
    env = _support.site_env(args.database, f"bench-ratings-{os.getpid()}")
    # The API's rate limit is for programs, not for a benchmark's loop.
    env["API_RATE_LIMIT"] = "1000000"
    _support.prepare_database(env)
    _support.use_env(env)
    try:
        return run(args)
    finally:
        from django.db import connections

        connections.close_all()
        if args.drop:
            _support.drop_database(args.database)


if __name__ == "__main__":
    sys.exit(main())
