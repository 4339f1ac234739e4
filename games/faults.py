"""Test-only pause points: where the fault tests (tests/faults/) stop a process.

The services call ``fault_point("name")`` at the named steps of an order's and a
turn's life. In production ``FAULT_PAUSE_AT`` (env ``HELIUM3_FAULT_PAUSE_AT``) is
empty and a call costs one attribute read and a comparison.

When a fault test starts a web or worker process with ``HELIUM3_FAULT_PAUSE_AT``
naming a step and ``HELIUM3_FAULT_DIR`` naming a folder, the first process of the
whole deployment to reach that step creates ``<dir>/<step>.paused`` (its pid
inside) and blocks there, with whatever transaction and row locks it holds,
until the test either kills it with SIGKILL or creates ``<dir>/<step>.release``.
Later arrivals at the step do not pause: the file is created exclusively.
With ``HELIUM3_FAULT_PAUSE_AT=*`` the step is whatever ``<dir>/pause_at`` names at
the moment, so one long-lived process can be paused at one step after another.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.conf import settings
from django.db import transaction

# Every named step, in the order a turn meets them.
STEPS = (
    # orders_submit (web): the match row is locked, nothing decided yet.
    "submit_locked",
    # turn_pass_on_deadline (worker, the sweeper): locked, the turn is still waiting.
    "pass_locked",
    # turn_resolve (worker).
    "resolve_locked",  # the match row is locked (on PostgreSQL the turn's claim went
    # with the lock, uncommitted: no other process sees it before the commit)
    "resolve_claimed",  # the turn is claimed (uncommitted)
    "resolve_applied",  # the resolution and the new state are written (uncommitted)
    "resolve_next_turn",  # the next turn is begun: bot orders, emails (uncommitted)
    "resolve_committed",  # committed; nothing queued after the commit yet
    "resolve_done",  # everything queued; the task has not returned (not acked)
    # notification_send (worker).
    "email_claimed",  # the row is claimed (sending), the email not sent yet
    "email_sent",  # the email is sent, the row not marked sent yet
)

# A forgotten pause must not hang a process for ever.
MAX_PAUSE_SECONDS = 120.0


def fault_point(step: str) -> None:
    """Pause here if a fault test asked for this step (see the module docstring)."""
    if settings.FAULT_PAUSE_AT and step == _target():
        _pause(step)


def fault_point_on_commit(step: str) -> None:
    """A pause point right after the current transaction commits, before the
    callbacks registered after this call (the task and email queueing) run."""
    if settings.FAULT_PAUSE_AT and step == _target():
        transaction.on_commit(lambda: _pause(step))


def _target() -> str:
    if settings.FAULT_PAUSE_AT != "*":
        return str(settings.FAULT_PAUSE_AT)
    try:
        return (Path(settings.FAULT_DIR) / "pause_at").read_text().strip()
    except FileNotFoundError:
        return ""


def _pause(step: str) -> None:
    if step not in STEPS:
        raise ValueError(f"unknown fault step {step!r}; known: {', '.join(STEPS)}")
    folder = Path(settings.FAULT_DIR or ".")
    try:
        fd = os.open(folder / f"{step}.paused", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return  # another process (or an earlier call) paused here already
    with os.fdopen(fd, "w") as marker:
        marker.write(str(os.getpid()))
    release = folder / f"{step}.release"
    deadline = time.monotonic() + MAX_PAUSE_SECONDS
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
