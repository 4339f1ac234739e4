"""The embedded broker writes each message aside and renames it into place, so a
worker reading the queue folder never meets a message that is half written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection

from helium3_site import broker


def _connection(folder: Path) -> Connection:
    return Connection(
        "filesystem://",
        transport="helium3_site.broker:Transport",
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),
            "store_processed": False,
        },
    )


def test_the_site_uses_the_renaming_transport_for_its_embedded_broker() -> None:
    from helium3_site.celery import app

    if not app.conf.broker_url.startswith("filesystem://"):
        pytest.skip("the broker here is not the embedded one")
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, broker.Transport)


def test_a_message_appears_in_the_queue_only_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen_before_rename: list[list[str]] = []
    real_replace = os.replace

    def replace(source: Any, target: Any) -> None:
        # At the moment of the rename: the whole message is written aside, and no
        # file a reader would take is in the folder yet.
        seen_before_rename.append(sorted(n for n in os.listdir(tmp_path) if n.endswith(".msg")))
        assert Path(source).read_bytes().endswith(b"}")
        real_replace(source, target)

    monkeypatch.setattr(broker.os, "replace", replace)
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("turns")
        queue.put({"match": 7, "turn": 3})
        assert seen_before_rename == [[]]
        assert [n for n in os.listdir(tmp_path) if n.endswith(".part")] == []
        message = queue.get(timeout=2)
        assert message.payload == {"match": 7, "turn": 3}
        message.ack()
        queue.close()


def test_a_folder_that_cannot_be_written_is_a_channel_error(tmp_path: Path) -> None:
    from kombu.exceptions import ChannelError

    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("turns")
        channel = queue.channel
        channel.data_folder_out = str(tmp_path / "missing")
        with pytest.raises(ChannelError):
            channel._put("turns", {"x": 1})
        queue.close()
