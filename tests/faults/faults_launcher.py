"""A fork server for the fault tests' processes (`python faults_launcher.py SOCKET`).

Each fault test starts real Celery workers, celery beat and gunicorn, several times
over, and every start used to be a new Python that imported Django, Celery, kombu,
gunicorn, aiohttp and the rest again: most of the fault stage's CPU. This server
imports those libraries once (never the site's own modules, nor its settings, which
read the environment a process starts with) and, asked on its Unix socket, forks a
child that becomes the process asked for: a new session (its own process group, as
`start_new_session`), the environment given and nothing else, the working directory,
stdin from /dev/null, stdout and stderr appended to the log file, then
`python -m MODULE ARGS` or `python SCRIPT ARGS` run in it as Python would run them.
The asker gets the child's pid and a pidfd of it, which tells when it has ended.

The server quits when the process that started it is gone.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import traceback
from typing import Any

# Libraries only: importing them reads no setting and starts no thread.
PRELOAD = (
    "django.db.models",
    "django.http",
    "django.urls",
    "django.forms",
    "django.template.loader",
    "django.core.handlers.wsgi",
    "django.core.management",
    "django.contrib.auth.base_user",
    "django.db.backends.postgresql.base",
    "psycopg",
    "redis",
    "kombu",
    "kombu.transport.redis",
    "celery",
    "celery.bin.celery",
    "celery.app.base",
    "celery.apps.worker",
    "celery.apps.beat",
    "celery.worker.consumer",
    "celery.concurrency.prefork",
    "celery.beat",
    "gunicorn.app.wsgiapp",
    "gunicorn.arbiter",
    "gunicorn.workers.gthread",
    "aiohttp",
    "pywebpush",
    "environ",
    "whitenoise",
    # django-ninja's schemas and the ratings' arithmetic: 0.06 s of CPU a child
    # imported these anew (ninja itself reads settings when imported: not here).
    "pydantic.main",
    "pydantic.fields",
    "openskill.models",
)


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def become(request: dict[str, Any]) -> int:
    """In the forked child: turn into the process asked for; its exit status."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv = list(request["argv"])
    try:
        if argv[0] == "-m":
            # As `python -m`: the working directory first on the path.
            sys.path[0] = os.getcwd()
            sys.argv = [argv[1], *argv[2:]]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            sys.argv = argv
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def reap(signum: int, frame: Any) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def serve(path: str) -> None:
    parent = os.getppid()
    preload()
    signal.signal(signal.SIGCHLD, reap)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    listener.settimeout(1.0)
    print("ready", flush=True)
    while os.getppid() == parent:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        with conn:
            conn.settimeout(None)
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            request = json.loads(data)
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    listener.close()
                    conn.close()
                    code = become(request)
                finally:
                    with contextlib.suppress(Exception):
                        sys.stdout.flush()
                        sys.stderr.flush()
                    os._exit(code)
            pidfd = os.pidfd_open(pid)
            try:
                socket.send_fds(conn, [json.dumps({"pid": pid}).encode()], [pidfd])
            finally:
                os.close(pidfd)


if __name__ == "__main__":
    serve(sys.argv[1])
