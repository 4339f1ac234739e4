"""Queueing the worker's tasks, for the services.

The services queue tasks and the tasks (games/tasks.py) call the services: if the
services imported the tasks, each would import the other. They queue by the task's
name instead, through this module, which imports no service and no task; the
broker's routes (settings.CELERY_TASK_ROUTES) apply to a name as to a task.

A turn's task is published on the path of the player's orders POST, after its
commit and before its answer (bench/turn_latency.py), so this module publishes
with less than `current_app.send_task`: the same message (Celery's own
`amqp.create_task_message`), the same route, the same publish retry policy and
signals, but through one connection and producer per process kept between
messages, for one thread at a time (send_task takes one from Celery's pool each
time and binds its queue again). It takes about a third of send_task's CPU time;
tests/games/test_queue.py checks that the messages are the same.
"""

from __future__ import annotations

import contextlib
import os
import threading
from datetime import datetime
from typing import Any

from celery import current_app
from celery.signals import after_task_publish, before_task_publish
from kombu.messaging import Producer
from kombu.utils.uuid import uuid

TURN_RESOLVE = "games.tasks.turn_resolve_task"
NOTIFICATION_SEND = "games.tasks.notification_send_task"
TURN_DEADLINE = "games.tasks.turn_deadline_task"


def turn_resolve_queue(match_id: int, number: int) -> None:
    """Queue the resolution of turn `number` of match `match_id` (now: the caller
    defers it to the commit)."""
    publish(TURN_RESOLVE, (match_id, number))


def notification_send_queue(notification_id: int) -> None:
    """Queue the sending of one notification (on the email queue, by its route)."""
    publish(NOTIFICATION_SEND, (notification_id,))


def turn_deadline_queue(match_id: int, number: int, deadline: datetime) -> None:
    """Queue the pass of turn `number` of match `match_id` for its deadline (a task
    with an ETA: the worker holds it until then)."""
    publish(TURN_DEADLINE, (match_id, number), eta=deadline)


def publish(name: str, args: tuple[Any, ...], eta: datetime | None = None) -> str:
    """Publish task `name` with `args` as `current_app.send_task(name, args=args,
    eta=eta)` does (its message, route, retries and signals); returns the task's id.

    A connection error that outlasts the retry policy raises, as send_task's does, and
    the next publish starts on a new connection.
    """
    app = current_app._get_current_object()
    if _state.pid != os.getpid():
        _forked()  # a child that did not fork through os.fork (register_at_fork)
    with _lock:
        state = _state
        # Celery's pool is new after app.close() or a fork: its connections'
        # settings may be new too.
        if state.producer is None or state.app is not app or state.pool is not app.pool:
            _open(state, app)
        try:
            return _publish(state, app, name, args, eta)
        except BaseException:
            _drop(state)
            raise


class _State:
    """The process's publishing connection and producer, for `app` in process `pid`,
    used by one thread at a time (_lock)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.app: Any = None
        self.pool: Any = None
        self.connection: Any = None
        self.producer: Any = None
        self.declared: frozenset[str] = frozenset()
        self.retry = True
        self.retry_policy: dict[str, Any] = {}
        self.serializer = "json"
        self.sent_event = False
        self.delivery_mode: Any = 2


_lock = threading.RLock()  # a signal's receiver may publish too
_state = _State()


def _forked() -> None:
    """A forked child starts with no connection and a lock of its own: it must not
    write on its parent's socket, nor wait for a lock a thread of its parent held."""
    global _lock, _state
    _lock, _state = threading.RLock(), _State()


os.register_at_fork(after_in_child=_forked)


def _open(state: _State, app: Any) -> None:
    _drop(state)
    conf = app.conf
    connection = app.connection_for_write()
    state.app, state.pool, state.connection = app, app.pool, connection
    state.producer = Producer(connection.default_channel, auto_declare=False)  # type: ignore[no-untyped-call]
    state.declared = frozenset()
    state.retry = bool(conf.task_publish_retry)
    state.retry_policy = dict(conf.task_publish_retry_policy or {})
    state.serializer = conf.task_serializer
    state.sent_event = bool(conf.task_send_sent_event)
    state.delivery_mode = conf.task_default_delivery_mode


def _drop(state: _State) -> None:
    connection, state.connection, state.producer = state.connection, None, None
    if connection is not None:
        # A broken connection is dropped all the same.
        with contextlib.suppress(Exception):
            connection.release()


def _publish(
    state: _State, app: Any, name: str, args: tuple[Any, ...], eta: datetime | None
) -> str:
    amqp = app.amqp
    options = amqp.router.route({}, name, args, {})
    queue = options.pop("queue", None)
    direct = getattr(queue.exchange, "type", "direct") == "direct" if queue is not None else False
    if options or not direct or state.sent_event:
        # A route that is more than one of the site's direct queues, or task-sent
        # events wanted (send_task sends them): Celery's own way.
        return str(app.send_task(name, args=args, eta=eta).id)
    task_id = uuid()
    parent = app.current_worker_task
    root_id = parent_id = None
    if parent:
        root_id = parent.request.root_id or parent.request.id
        parent_id = parent.request.id
    message = amqp.create_task_message(
        task_id,
        name,
        args,
        {},
        eta=eta,
        reply_to=app.thread_oid,
        ignore_result=None,  # as send_task's: the task's own setting applies
        root_id=root_id,
        parent_id=parent_id,
        argsrepr=repr(args),
        kwargsrepr="{}",
    )
    headers, properties, body, _ = message
    producer = state.producer
    if queue.name not in state.declared:
        # Once per connection, as send_task's maybe_declare (its cache is the
        # connection's); the message goes to the queue's list by its name.
        queue(producer.channel).declare()
        state.declared |= {queue.name}
    delivery_mode = getattr(queue.exchange, "delivery_mode", None) or state.delivery_mode
    before_task_publish.send(
        sender=name,
        body=body,
        exchange="",
        routing_key=queue.name,
        declare=[queue],
        headers=headers,
        properties=properties,
        retry_policy=state.retry_policy,
    )
    producer.publish(
        body,
        exchange="",
        routing_key=queue.name,
        serializer=state.serializer,
        retry=state.retry,
        retry_policy=state.retry_policy,
        delivery_mode=delivery_mode,
        headers=headers,
        **properties,
    )
    after_task_publish.send(
        sender=name, body=body, headers=headers, exchange="", routing_key=queue.name
    )
    return task_id
