"""games/queue.py publishes what Celery's send_task would, on a connection of its
process kept between messages, and starts again after an error or a fork."""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from kombu import Exchange, Queue
from kombu.exceptions import OperationalError

from games import queue as task_queue
from helium3_site.celery import app


@pytest.fixture
def private_queue(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every task routed to a queue of this test's own (no worker consumes it)."""
    name = f"test-queue-{uuid.uuid4().hex[:12]}"
    routed = Queue(name, Exchange(name), routing_key=name)

    def route(options: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**options, "queue": routed}

    monkeypatch.setattr(app.amqp.router, "route", route)
    yield name
    _take(name, 100, wait=0.0)  # what a failed test left


def _take(name: str, count: int, wait: float = 10.0) -> list[Any]:
    """Up to `count` messages of queue `name`, in the order published."""
    taken: list[Any] = []
    with app.connection_for_read() as connection:
        channel = connection.default_channel
        deadline = time.monotonic() + wait
        while len(taken) < count:
            message = channel.basic_get(name, no_ack=True)
            if message is not None:
                taken.append(message)
            elif time.monotonic() >= deadline:
                break
            else:
                time.sleep(0.02)
    return taken


def _comparable(message: Any) -> dict[str, Any]:
    """The message without what differs from one message to the next."""
    headers = {k: v for k, v in message.headers.items() if k not in ("id", "root_id")}
    properties = {
        k: v for k, v in message.properties.items() if k not in ("correlation_id", "delivery_tag")
    }
    assert message.headers["root_id"] == message.headers["id"]
    return {"headers": headers, "properties": properties, "body": message.decode()}


def test_each_task_is_published_as_send_task_publishes_it(private_queue: str) -> None:
    deadline = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    calls = [
        (task_queue.TURN_RESOLVE, (12, 34), None, lambda: task_queue.turn_resolve_queue(12, 34)),
        (
            task_queue.NOTIFICATION_SEND,
            (56,),
            None,
            lambda: task_queue.notification_send_queue(56),
        ),
        (
            task_queue.TURN_DEADLINE,
            (12, 35),
            deadline,
            lambda: task_queue.turn_deadline_queue(12, 35, deadline),
        ),
    ]
    for name, args, eta, ours in calls:
        app.send_task(name, args=args, eta=eta)
        ours()
        theirs_message, our_message = _take(private_queue, 2)
        theirs, mine = _comparable(theirs_message), _comparable(our_message)
        assert mine == theirs
        assert mine["headers"]["task"] == name
        assert mine["body"][0] == list(args)
        assert mine["headers"]["eta"] == (eta.isoformat() if eta else None)
        assert mine["properties"]["delivery_info"]["routing_key"] == private_queue


def test_the_connection_is_kept_and_shared_by_threads(private_queue: str) -> None:
    task_queue.turn_resolve_queue(1, 1)
    kept = task_queue._state.connection
    task_queue.turn_resolve_queue(1, 2)
    assert task_queue._state.connection is kept

    other: list[Any] = []

    def publish() -> None:
        task_queue.turn_resolve_queue(1, 3)
        other.append(task_queue._state.connection)

    thread = threading.Thread(target=publish)
    thread.start()
    thread.join(30)
    assert other == [kept]
    numbers = [message.decode()[0][1] for message in _take(private_queue, 3)]
    assert sorted(numbers) == [1, 2, 3]


def test_a_failed_publish_raises_and_the_next_one_starts_again(
    private_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_queue.turn_resolve_queue(2, 1)
    broken = task_queue._state.producer

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("the broker went away")

    monkeypatch.setattr(broken, "publish", refuse)
    with pytest.raises(OperationalError):
        task_queue.turn_resolve_queue(2, 2)
    assert task_queue._state.producer is None
    task_queue.turn_resolve_queue(2, 3)
    assert task_queue._state.producer is not broken
    numbers = [message.decode()[0][1] for message in _take(private_queue, 3, wait=2.0)]
    assert numbers == [1, 3]


def _publish_in_child(done: Any) -> None:
    task_queue.turn_resolve_queue(3, 2)
    # The parent's connection is still in this copy of its memory, at the same
    # address: a new connection's id differs from it.
    done.put((task_queue._state.pid, id(task_queue._state.connection)))


def test_a_forked_child_publishes_on_a_connection_of_its_own(private_queue: str) -> None:
    task_queue.turn_resolve_queue(3, 1)
    parent_pid, parent_connection = task_queue._state.pid, task_queue._state.connection
    context = multiprocessing.get_context("fork")
    done = context.Queue()
    child = context.Process(target=_publish_in_child, args=(done,))
    child.start()
    child_pid, child_connection = done.get(timeout=30)
    child.join(30)
    assert child.exitcode == 0
    assert child_pid == child.pid != parent_pid
    assert child_connection != id(parent_connection)
    assert task_queue._state.pid == parent_pid
    # The parent's connection is still its own and still works.
    task_queue.turn_resolve_queue(3, 3)
    assert task_queue._state.connection is parent_connection
    numbers = [message.decode()[0][1] for message in _take(private_queue, 3)]
    assert sorted(numbers) == [1, 2, 3]
