"""The SQS queue: standard or FIFO (a queue URL ending in .fifo). The boto3 SQS client is passed in."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from typing import Any

from mnemo.ports.queue import json_text

DEFAULT_GROUP = "default"
_SQS_ID = re.compile(r"^[!-~]{1,128}$")  # what SQS takes as a message group or deduplication id


def sqs_id(value: str) -> str:
    """`value` when SQS takes it as a group or deduplication id, else its SHA-256 (the same value, the same id):
    a user id with an accent, or 255 characters long, still groups its jobs."""
    return value if _SQS_ID.match(value) else "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


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
            request["MessageGroupId"] = sqs_id(group or DEFAULT_GROUP)
            request["MessageDeduplicationId"] = sqs_id(dedup_id or str(uuid.uuid4()))
        elif group is not None:
            request["MessageGroupId"] = sqs_id(group)  # a fair queue: groups share the consumers fairly
        message_id: str = self._client.send_message(**request)["MessageId"]
        return message_id
