"""The worker of `bench/turn_latency.py --hops`: production's Celery app
(helium3_site.celery) with timestamps of a turn's task on its way through the worker.

Each line of HELIUM3_HOP_LOG is `<where> <match> <turn> <wall clock>`: `received` when
the worker's consumer has the message from Redis (its main process), `prerun` when
the pool's process starts the task, before the task's own code. The benchmark adds
its own (publish) and the turn row's (accepted, claimed). One short write per task.
"""

from __future__ import annotations

import os
import time
from typing import Any

from celery.signals import task_prerun, task_received

from helium3_site.celery import app

__all__ = ["app"]

_TASK = "games.tasks.turn_resolve_task"
_LOG = os.environ.get("HELIUM3_HOP_LOG", "")


def _note(where: str, args: Any) -> None:
    if _LOG and args and len(args) == 2:
        line = f"{where} {int(args[0])} {int(args[1])} {time.time():.6f}\n"
        fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


@task_received.connect(weak=False)
def _received(request: Any = None, **kwargs: Any) -> None:
    if request is not None and request.name == _TASK:
        _note("received", request.args)


@task_prerun.connect(weak=False)
def _prerun(task: Any = None, args: Any = None, **kwargs: Any) -> None:
    if task is not None and task.name == _TASK:
        _note("prerun", args)
