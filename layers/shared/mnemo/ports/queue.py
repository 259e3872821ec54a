"""The job queue port: slow work handed to a worker (SQS in the cloud, an in-process queue locally)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol


class MessageQueue(Protocol):
    def send(self, message: Mapping[str, Any], *, group: str | None = None, dedup_id: str | None = None) -> str:
        """Queue one JSON object and return its message id. Messages of one `group` are delivered in the order
        sent (FIFO queues); a message whose `dedup_id` was sent in the last five minutes is dropped (FIFO
        queues only: a standard queue refuses a dedup id with ValueError). A message that is not JSON raises
        TypeError, and nothing is sent."""
        ...


def json_text(message: Mapping[str, Any]) -> str:
    """A message as compact JSON text; TypeError when it is not JSON (NaN and infinities included)."""
    try:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise TypeError(f"Message is not JSON: {exc}") from exc
