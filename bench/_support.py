"""What the site benchmarks share: a production-like environment on this machine
(DEBUG off, PostgreSQL, Redis, dummy email), its database, gunicorn and Celery worker
processes, percentiles, and printing the figures.

Everything listens on and talks to 127.0.0.1 only. Every process started here is
stopped by the script that started it (by its own pid), also on errors.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# Names of the processes' files, unique also for processes started in the same
# nanosecond by threads of their own (enter_together).
_SERIAL = itertools.count()


def _pg_server() -> str:
    """The PostgreSQL server (no database): BENCH_PG, else DATABASE_URL's when that is
    PostgreSQL, else the loopback with the password CI sets (ignored under trust)."""
    if os.environ.get("BENCH_PG"):
        return os.environ["BENCH_PG"].rstrip("/")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return url.rsplit("/", 1)[0]
    return "postgres://postgres:postgres@127.0.0.1:5432"


def _loopback(url: str) -> str:
    """Benchmark traffic stays on this machine: refuse any other host."""
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"bench: {url!r} is not on the loopback; benchmarks stay on 127.0.0.1")
    return url


PG = _loopback(_pg_server())
REDIS = _loopback(os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/13"))
REDIS_CACHE = _loopback(os.environ.get("BENCH_REDIS_CACHE", "redis://127.0.0.1:6379/12"))

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def site_env(database: str, queue: str) -> dict[str, str]:
    """Production settings (README "Production") pointed at this machine's services.

    Only the TLS parts are off: there is no TLS proxy on the loopback.
    """
    var = Path(tempfile.gettempdir()) / f"helium3-bench-{os.getpid()}"
    var.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="helium3_site.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        SITE_URL="http://127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        SECURE_HSTS_SECONDS="0",
        DATABASE_URL=f"{PG}/{database}",
        CELERY_BROKER_URL=REDIS,
        CELERY_QUEUE=queue,
        EMAIL_URL="dummymail://",
        # Production's shared cache (README "Production"): rate limits, match pages.
        CACHE_URL=REDIS_CACHE,
        LOG_LEVEL="WARNING",
        HELIUM3_VAR_DIR=str(var),
        PYTHONUNBUFFERED="1",
    )
    return env


def use_env(env: dict[str, str]) -> None:
    """Configure this process with `env` and set Django up (call before any ORM use)."""
    os.environ.update(env)
    import django

    django.setup()


def services_up() -> str | None:
    """None when PostgreSQL and Redis answer on the loopback, else what is missing."""
    for name, port in (("PostgreSQL", 5432), ("Redis", 6379)):
        with socket.socket() as sock:
            sock.settimeout(1)
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return f"{name} is not listening on 127.0.0.1:{port}"
    return None


def prepare_database(env: dict[str, str]) -> None:
    """Create the benchmark's database if it is missing and migrate it (quick when it is
    up to date)."""
    import psycopg

    name = env["DATABASE_URL"].rsplit("/", 1)[1]
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    if exists and os.environ.get("BENCH_MIGRATED") == name:
        return  # the caller (the smoke test) migrated it already: save Django's start-up
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=REPO,
        env=env,
        check=True,
    )


def vacuum_analyze(name: str, tables: Sequence[str] = ()) -> float:
    """VACUUM ANALYZE `tables` of database `name` (all of them when none is named):
    the statistics and visibility maps that autovacuum keeps on a running site,
    made now for tables just filled (a server with autovacuum off, or one that has
    not got to them yet, would plan every query for the empty tables of before).
    Returns the seconds it took."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(f"{PG}/{name}", autocommit=True) as conn:
        for table in tables or [""]:
            conn.execute(f"VACUUM ANALYZE {table}".rstrip())
    return round(time.perf_counter() - started, 1)


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(proc: subprocess.Popen[bytes], ready: Any, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} while starting")
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {timeout} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop one process this script started: SIGTERM, then SIGKILL after 15 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@contextlib.contextmanager
def gunicorn(env: dict[str, str], *, workers: int, port: int) -> Iterator[str]:
    """gunicorn serving the site on 127.0.0.1:port; yields the base URL."""
    log = open(Path(env["HELIUM3_VAR_DIR"]) / f"gunicorn-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "helium3_site.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    try:
        _wait(proc, ready, "gunicorn", 60)
        yield base
        errors = log_errors(Path(log.name))
        if errors:
            print(f"gunicorn log: {len(errors)} error lines, first: {errors[0]}", file=sys.stderr)
    finally:
        stop(proc)
        log.close()


@contextlib.contextmanager
def celery_worker(
    env: dict[str, str], *, concurrency: int = 1, pool: str = "prefork", app: str = "helium3_site"
) -> Iterator[Path]:
    """A real Celery worker process (the README's command) on the benchmark's queue;
    yields its log file."""
    path = Path(env["HELIUM3_VAR_DIR"]) / f"worker-{time.monotonic_ns()}-{next(_SERIAL)}.log"
    log = open(path, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            app,
            "worker",
            "--loglevel=INFO",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"bench-{os.getpid()}-{path.stem}@%h",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait(proc, lambda: b"ready." in path.read_bytes(), "celery worker", 60)
        yield path
    finally:
        stop(proc)
        log.close()


@contextlib.contextmanager
def celery_beat(env: dict[str, str]) -> Iterator[Path]:
    """The one celery beat (the clock sweep), as in production; yields its log file."""
    var = Path(env["HELIUM3_VAR_DIR"])
    path = var / f"beat-{time.monotonic_ns()}.log"
    log = open(path, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            "helium3_site",
            "beat",
            "--loglevel=INFO",
            "-s",
            str(var / f"beat-schedule-{time.monotonic_ns()}"),
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait(proc, lambda: b"beat: Starting" in path.read_bytes(), "celery beat", 60)
        yield path
    finally:
        stop(proc)
        log.close()


def enter_together(stack: contextlib.ExitStack, managers: Sequence[Any]) -> list[Any]:
    """Enter the context managers (each starting a process and waiting until it is
    ready) at once, each in a thread: the processes start side by side rather than
    each after the one before is ready, and stop side by side too. Each one entered
    is left when `stack` is, also when another failed to start; returns what each
    yielded, in order."""
    size = max(1, len(managers))
    with concurrent.futures.ThreadPoolExecutor(size) as pool:
        futures = [pool.submit(manager.__enter__) for manager in managers]
        concurrent.futures.wait(futures)
    entered = [m for m, f in zip(managers, futures, strict=True) if f.exception() is None]

    def leave(*exc: Any) -> None:
        with concurrent.futures.ThreadPoolExecutor(size) as pool:
            left = [pool.submit(manager.__exit__, *exc) for manager in entered]
        for future in left:
            future.result()  # a failure to stop is raised here

    stack.push(leave)
    failures = [f.exception() for f in futures if f.exception() is not None]
    if failures:
        raise failures[0]  # type: ignore[misc]
    return [future.result() for future in futures]


def log_errors(path: Path) -> list[str]:
    """The ERROR / CRITICAL lines and tracebacks of a process's log."""
    if not path.exists():
        return []
    lines = path.read_text(errors="replace").splitlines()
    return [
        line
        for line in lines
        if "ERROR" in line or "CRITICAL" in line or line.startswith("Traceback")
    ]


def purge_queue(env: dict[str, str]) -> None:
    """Drop messages a previous run of this benchmark left on its queue."""
    import redis

    client = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    # And its email queue (settings: CELERY_QUEUE + "-email").
    client.delete(env["CELERY_QUEUE"], env["CELERY_QUEUE"] + "-email")
    client.close()


def percentiles(values: Sequence[float], scale: float = 1000.0) -> dict[str, float | None]:
    """Median, p90, p99 and max of `values` (seconds), in milliseconds by default."""
    if not values:
        return {"median": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * scale, 3)

    return {
        "median": round(statistics.median(ordered) * scale, 3),
        "p90": at(0.90),
        "p99": at(0.99),
        "max": round(ordered[-1] * scale, 3),
    }


def machine() -> dict[str, Any]:
    """Where the figures come from."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


def emit(name: str, figures: dict[str, Any], line: str) -> None:
    """The figures: one JSON object on a line, then one line for people."""
    figures = {"bench": name, **figures, "machine": machine()}
    print(json.dumps(figures, sort_keys=False))
    print(f"{name}: {line}")
    sys.stdout.flush()
