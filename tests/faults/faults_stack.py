"""The real parts the fault tests break: a private PostgreSQL server and a private
Redis on free loopback ports (so restarting them disturbs no other test run), and
the site's own processes (gunicorn, Celery workers, celery beat) started as
subprocesses against them, each in its own process group so SIGKILL takes all of it.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
DB_NAME = "helium3_faults"
# The queues of the site's workers (turns, emails): the stack sets no CELERY_QUEUE.
SITE_QUEUES = ("celery", "email")
# FAULTS_FRESH_PYTHONS=1: each process a Python started anew, not forked by the launcher.
FRESH_PYTHONS = os.environ.get("FAULTS_FRESH_PYTHONS", "").strip() in ("1", "true", "yes")
# A fixed CSRF secret: the cookie and the form field carry it, as Django accepts.
CSRF_SECRET = "faultsfaultsfaultsfaultsfaults12"


def unavailable(what: str) -> None:
    """Skip on a developer's machine; in CI a missing part is a failure, not a skip."""
    if IN_CI:
        pytest.fail(f"CI=true but the fault tests cannot run: {what}", pytrace=False)
    pytest.skip(f"fault tests need {what} (CI installs them: see .ci/run)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(step)


# --- PostgreSQL -------------------------------------------------------------------


def _postgres_bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True
    )
    for bindir in candidates:
        if all((bindir / name).exists() for name in ("initdb", "pg_ctl", "postgres", "createdb")):
            return bindir
    return None


class Postgres:
    """A throwaway PostgreSQL cluster in a temporary folder (as the postgres user
    when we are root: initdb refuses root)."""

    def __init__(self) -> None:
        bindir = _postgres_bindir()
        if bindir is None:
            unavailable("the PostgreSQL server (initdb, pg_ctl)")
        assert bindir is not None
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="helium3-faults-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.root, user="postgres", group="postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bindir / tool), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c max_connections=300 -c fsync=off -c log_connections=on"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "immediate") -> None:
        """`immediate`: every server process quits at once, as in a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, name: str = DB_NAME, application: str = "") -> str:
        query = f"?application_name={application}" if application else ""
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}{query}"

    def connections_made(self, application: str) -> int:
        """Connections opened so far by processes that gave this application name."""
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        return log.count(f"application_name={application}\n") + log.count(
            f"application_name={application} "
        )

    def destroy(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


# --- Redis ------------------------------------------------------------------------


class Redis:
    """A private redis-server without persistence: killing it wipes every queue."""

    def __init__(self, root: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("redis-server")
        self.binary = str(binary)
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 - the child keeps it
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],  # fmt: skip
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until(self.ping, 10, "redis-server to answer")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *words: str) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            parts = [f"*{len(words)}\r\n".encode()]
            for word in words:
                parts.append(f"${len(word.encode())}\r\n{word}\r\n".encode())
            sock.sendall(b"".join(parts))
            return sock.recv(65536)

    def integer(self, *words: str) -> int:
        reply = self.command(*words)
        assert reply.startswith(b":"), reply
        return int(reply[1:].split(b"\r\n")[0])

    def kill(self) -> None:
        """SIGKILL: no shutdown, no save. A restart comes back empty."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def restart_empty(self) -> None:
        self.kill()
        self.start()


# --- the site's processes ----------------------------------------------------------


class Forked:
    """A process the launcher forked (faults_launcher.py), told apart by its pidfd:
    the few calls of subprocess.Popen the tests make (it is not this process's child)."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self.returncode = -1  # ended; the launcher has its status
            os.close(self.pidfd)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            self.poll()
        assert self.returncode is not None
        return self.returncode


class Launcher:
    """This process's fork server (faults_launcher.py): it has imported the libraries
    the site's processes import, so that starting one costs a fork instead of a
    Python's start and those imports. Started on first use; it quits with us."""

    _running: Launcher | None = None

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="helium3-faults-launcher-"))
        self.path = str(self.root / "socket")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(self.root)),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
        }
        self.log = self.root / "launcher.log"
        with open(self.log, "ab") as out:
            self.popen = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("faults_launcher.py")), self.path],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        wait_until(self._up, 60, "the fault tests' launcher to start", step=0.02)

    def _up(self) -> bool:
        if self.popen.poll() is not None:
            raise AssertionError(f"the launcher exited:\n{self.log.read_text(errors='replace')}")
        return "ready" in self.log.read_text(errors="replace")

    @classmethod
    def get(cls) -> Launcher:
        if cls._running is None or cls._running.popen.poll() is not None:
            cls._running = cls()
            atexit.register(cls._running.close)
        return cls._running

    def start(self, args: list[str], env: dict[str, str], log: Path) -> Forked:
        assert args[0] == sys.executable, args
        request = {"argv": args[1:], "env": env, "cwd": str(ROOT), "log": str(log)}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(self.path)
            sock.sendall(json.dumps(request).encode() + b"\n")
            message, fds, _flags, _address = socket.recv_fds(sock, 4096, 1)
        assert len(fds) == 1, (message, fds)
        return Forked(int(json.loads(message)["pid"]), fds[0])

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


class Proc:
    """A process of the site in its own process group, its output in a log file; forked
    by the launcher (a Python started as `args` would be, in every way the tests see)."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.log = log
        self.popen: subprocess.Popen[bytes] | Forked
        if FRESH_PYTHONS:
            with open(log, "ab") as out:
                self.popen = subprocess.Popen(
                    args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
        else:
            self.popen = Launcher.get().start(args, env, log)
        self.pid = self.popen.pid
        # Until it is up: what says it is (Stack.wait_ready), then None.
        self.ready: Callable[[], bool] | None = None

    def printed(self, text: str) -> bool:
        return text in self.output()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL to the whole process group: the main process and its pool."""
        self.signal_group(signal.SIGKILL)
        self.popen.wait(timeout=30)

    def stop(self) -> None:
        """At the end of a test: the whole group, at once (nothing of it matters now)."""
        self.signal_group(signal.SIGKILL)
        self.popen.wait(timeout=30)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output().splitlines()[-lines:])


@dataclass
class Answer:
    status: int  # 0: no answer (the connection failed)
    location: str = ""
    body: str = ""
    error: str = ""
    at: float = 0.0  # time.monotonic() when the answer came


@dataclass
class Browser:
    """A signed-in visitor speaking plain HTTP to the real web server."""

    port: int
    session: str
    timeout: float = 60.0
    extra_headers: dict[str, str] = field(default_factory=dict)

    def _cookies(self) -> str:
        return f"sessionid={self.session}; csrftoken={CSRF_SECRET}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        all_headers = {"Cookie": self._cookies(), "Host": "127.0.0.1", **self.extra_headers}
        all_headers |= headers or {}
        try:
            conn.request(method, path, body=body, headers=all_headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", errors="replace")
            return Answer(
                response.status, response.getheader("Location") or "", text, at=time.monotonic()
            )
        except (OSError, http.client.HTTPException) as error:
            return Answer(0, error=repr(error), at=time.monotonic())
        finally:
            conn.close()

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, data: dict[str, Any]) -> Answer:
        form = {"csrfmiddlewaretoken": CSRF_SECRET, **{k: str(v) for k, v in data.items()}}
        return self.request(
            "POST",
            path,
            urllib.parse.urlencode(form).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )


class Stack:
    """One test's processes: they share the private servers and this test's folders."""

    def __init__(self, root: Path, postgres: Postgres, redis: Redis, secret_key: str) -> None:
        self.root = root
        self.postgres = postgres
        self.redis = redis
        self.secret_key = secret_key
        self.var = root / "var"
        self.fault_dir = root / "fault"
        self.mail_dir = self.var / "mail"
        for folder in (self.var, self.fault_dir, self.mail_dir):
            folder.mkdir(parents=True, exist_ok=True)
        self.procs: list[Proc] = []
        self.web_port = 0

    def env(self, **extra: str) -> dict[str, str]:
        """Production settings (DEBUG=0) but plain HTTP on the loopback, and short
        clock periods; nothing inherited but PATH and HOME."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(self.root)),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "helium3_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": self.secret_key,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0",
            "DATABASE_URL": self.postgres.url(),
            "CELERY_BROKER_URL": self.redis.url(),
            "HELIUM3_VAR_DIR": str(self.var),
            "HELIUM3_FAULT_DIR": str(self.fault_dir),
            "SITE_URL": "http://127.0.0.1",
            "CLOCK_SWEEP_SECONDS": "1",
            "RESOLVE_GRACE_SECONDS": "1",
            "LOG_LEVEL": "INFO",
        }
        env.update(extra)
        return env

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> Proc:
        proc = Proc(name, args, env, self.root / f"{name}.log")
        self.procs.append(proc)
        return proc

    def worker(
        self,
        name: str,
        *,
        concurrency: int = 1,
        acks_late: bool = True,
        pause_at: str = "",
        wait: bool = True,
        test_rulesets: bool = False,
        standby: bool = False,
        **env: str,
    ) -> Proc:
        """A real `celery worker` (prefork pool) against the private Redis and PostgreSQL.

        `test_rulesets`: with the test rulesets of tests/engine registered (faults_celery).
        `standby`: it consumes only a queue no task goes to until `take_over`, so that a
        test can have the worker that replaces a killed one booted beforehand (a worker
        takes seconds to start, as long as the rest of a kill-and-recover step)."""
        command = "worker --loglevel=INFO --pool=prefork --without-gossip --without-mingle"
        command += f" --without-heartbeat --concurrency={concurrency} -n {name}@faults"
        if standby:
            command += f" -Q {name}-standby"
        celery = (
            [str(ROOT / "tests" / "faults" / "faults_celery.py")]
            if test_rulesets
            else [
                "-m",
                "celery",
            ]
        )
        proc = self._start(
            name,
            [sys.executable, *celery, "-A", "helium3_site", *command.split()],
            self.env(
                CELERY_TASK_ACKS_LATE="1" if acks_late else "0",
                HELIUM3_FAULT_PAUSE_AT=pause_at,
                # Named, so that the server's log tells its connections apart.
                DATABASE_URL=self.postgres.url(application=name),
                **env,
            ),
        )
        proc.ready = lambda: proc.printed("ready.")
        if wait:
            self.wait_ready()
        return proc

    def take_over(self, spare: Proc) -> Proc:
        """A standby worker starts consuming the site's queues, as a worker started
        now would (remote control's add_consumer, until its log says so); it."""
        from helium3_site.celery import app

        self.wait_ready()
        deadline = time.monotonic() + 30
        for queue in SITE_QUEUES:
            started = partial(spare.printed, f"Started consuming from {queue}\n")
            while not started():
                assert spare.alive(), f"{spare.name} exited:\n{spare.tail()}"
                assert time.monotonic() < deadline, f"{spare.name} never consumed {queue}"
                # Asked again until it does: a broadcast sent before the worker
                # subscribed to its control channel (just after "ready.") is lost.
                app.control.add_consumer(queue, destination=[f"{spare.name}@faults"])
                with contextlib.suppress(AssertionError):
                    wait_until(started, 1.0, f"{spare.name} to consume {queue}")
        return spare

    def beat(self, *, period: float = 1.0, wait: bool = True) -> Proc:
        """`celery beat`: it emits the clock sweep every `period` seconds."""
        schedule = self.var / "celerybeat-schedule"
        proc = self._start(
            "beat",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "helium3_site",
                "beat",
                "--loglevel=INFO",
                "-s",
                str(schedule),
            ],  # fmt: skip
            self.env(CLOCK_SWEEP_SECONDS=str(period)),
        )
        proc.ready = lambda: proc.printed("beat: Starting")
        if wait:
            self.wait_ready()
        return proc

    def web(
        self,
        *,
        workers: int = 2,
        threads: int = 8,
        pause_at: str = "",
        wait: bool = True,
        test_rulesets: bool = False,
    ) -> Proc:
        """gunicorn with gthread workers, as in production (`test_rulesets`: see worker)."""
        self.web_port = port = free_port()
        options = f"--bind 127.0.0.1:{port} --workers {workers} --threads {threads}"
        options += " --worker-class gthread --timeout 120 --graceful-timeout 2 --backlog 256"
        gunicorn = (
            [str(ROOT / "tests" / "faults" / "faults_celery.py"), "gunicorn"]
            if test_rulesets
            else ["-m", "gunicorn"]
        )
        proc = self._start(
            "web",
            [sys.executable, *gunicorn, "helium3_site.wsgi", *options.split()],
            self.env(HELIUM3_FAULT_PAUSE_AT=pause_at),
        )
        proc.ready = lambda: Browser(port, "", timeout=2).get("/healthz").status == 200
        if wait:
            self.wait_ready()
        return proc

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until every process started so far is up (they start in parallel)."""

        def up() -> bool:
            for proc in self.procs:
                if not proc.alive() and proc.ready is not None:
                    raise AssertionError(f"{proc.name} exited early:\n{proc.tail()}")
            return all(proc.ready() for proc in self.procs if proc.ready is not None)

        wait_until(up, timeout, "the processes to start", step=0.1)
        for proc in self.procs:
            proc.ready = None

    def browser(self, session: str) -> Browser:
        assert self.web_port, "start the web server first"
        return Browser(self.web_port, session)

    # --- pause points (games/faults.py) ---

    def wait_paused(self, step: str, timeout: float = 30) -> int:
        """Wait until a process paused at `step`; its pid."""
        marker = self.fault_dir / f"{step}.paused"

        def pid() -> int:
            try:
                text = marker.read_text().strip()
            except FileNotFoundError:
                return 0
            return int(text) if text else 0

        return int(wait_until(pid, timeout, f"a process to pause at {step!r}"))

    def arm(self, step: str) -> None:
        """Name the step where processes started with pause_at="*" pause next."""
        (self.fault_dir / "pause_at").write_text(step)

    def release(self, step: str) -> None:
        (self.fault_dir / f"{step}.release").touch()

    def close(self, show_logs: bool) -> None:
        for proc in reversed(self.procs):
            proc.stop()
        if show_logs:
            for proc in self.procs:
                print(f"----- {proc.name} (pid {proc.pid}) -----\n{proc.tail(80)}")
