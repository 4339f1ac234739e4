"""Celery's embedded broker (kombu's filesystem transport), made safe for a worker
that reads while a producer writes.

kombu writes a message straight into the queue folder, and its reader moves and
reads any file there without waiting for the writer: a worker that lists the folder
between a file's creation and its write reads it empty and stops for good
("Unrecoverable error: JSONDecodeError"). A burst of quick turns (a Halite match
between bots, a hundred turns in seconds) meets that. Here a message is written
under a name no queue reads and renamed into place, which is atomic on one file
system: a reader sees the whole message or none of it.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu's own stubs disagree on the parameter's name; the signature is the filesystem one.
    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot and no ".msg" ending: no queue's reader picks it up.
        aside = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(aside, "wb") as handle:
                handle.write(dumps(payload).encode())  # type: ignore[no-untyped-call]
            os.replace(aside, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
