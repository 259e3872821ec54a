"""The SQS queue: standard or FIFO (a queue URL ending in .fifo). The boto3 SQS client is passed in."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from mnemo.ports.queue import json_text

DEFAULT_GROUP = "default"


class SqsQueue:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url
        self.fifo = queue_url.endswith(".fifo")

    def send(self, message: Mapping[str, Any], *, group: str | None = None, dedup_id: str | None = None) -> str:
        if dedup_id is not None and not self.fifo:
            raise ValueError("Deduplication needs a FIFO queue; this SQS queue is a standard one.")
        request: dict[str, Any] = {"QueueUrl": self._url, "MessageBody": json_text(message)}
        if self.fifo:
            # Every FIFO message needs a group and a deduplication id; without one, the message is its own.
            request["MessageGroupId"] = group or DEFAULT_GROUP
            request["MessageDeduplicationId"] = dedup_id or str(uuid.uuid4())
        elif group is not None:
            request["MessageGroupId"] = group  # a fair queue: groups share the consumers fairly
        message_id: str = self._client.send_message(**request)["MessageId"]
        return message_id
