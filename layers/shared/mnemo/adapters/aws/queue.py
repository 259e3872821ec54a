"""The SQS queue: standard or FIFO (a queue URL ending in .fifo). The boto3 SQS client is passed in."""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mnemo.ports.queue import json_text

log = logging.getLogger("mnemo.sqs")

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

    def send(
        self,
        message: Mapping[str, Any],
        *,
        group: str | None = None,
        dedup_id: str | None = None,
        delay_seconds: int = 0,
    ) -> str:
        """`delay_seconds` (a standard queue only, 0 to 900): the message is received no sooner."""
        if dedup_id is not None and not self.fifo:
            raise ValueError("Deduplication needs a FIFO queue; this SQS queue is a standard one.")
        request: dict[str, Any] = {"QueueUrl": self._url, "MessageBody": json_text(message)}
        if delay_seconds:
            if self.fifo:
                raise ValueError("A FIFO queue delays the whole queue, not one message.")
            request["DelaySeconds"] = max(0, min(int(delay_seconds), MAX_RETRY_SECONDS))
        if self.fifo:
            # Every FIFO message needs a group and a deduplication id; without one, the message is its own.
            request["MessageGroupId"] = sqs_id(group or DEFAULT_GROUP)
            request["MessageDeduplicationId"] = sqs_id(dedup_id or str(uuid.uuid4()))
        elif group is not None:
            request["MessageGroupId"] = sqs_id(group)  # a fair queue: groups share the consumers fairly
        message_id: str = self._client.send_message(**request)["MessageId"]
        return message_id


def queue_url(queue_arn: str) -> str:
    """arn:<partition>:sqs:<region>:<account>:<name> as the queue's URL."""
    _, partition, _, region, account, name = queue_arn.split(":", 5)
    domain = "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
    return f"https://sqs.{region}.{domain}/{account}/{name}"


@dataclass(frozen=True, slots=True)
class FailedMessage:
    """A received message its consumer failed: where it came from, and how often it was received."""

    queue_arn: str
    receipt_handle: str
    group: str | None
    receive_count: int


MAX_RETRY_SECONDS = 900  # the longest visibility SQS lets a failed message wait before it comes back here


def retry_soon(client: Any, failed: Iterable[FailedMessage], first_delay: float) -> int:
    """Bring failed messages back after a short backoff (`first_delay` doubled per receive, at most 15 minutes)
    instead of the queue's visibility timeout (six times the function's): a throttled add, and the adds behind it
    in its group, wait seconds, not half an hour. The messages of one group come back together, after its first
    failed message's delay (the others wait on it). A message whose visibility cannot be changed keeps the
    queue's. Returns how many were shortened."""
    delays: dict[str | None, int] = {}
    shortened = 0
    for message in failed:
        own = int(min(first_delay * 2 ** max(message.receive_count - 1, 0), MAX_RETRY_SECONDS))
        delay = delays.setdefault(message.group, own)
        try:
            client.change_message_visibility(
                QueueUrl=queue_url(message.queue_arn), ReceiptHandle=message.receipt_handle, VisibilityTimeout=delay
            )
        except (BotoCoreError, ClientError, ValueError):  # the message still comes back, later
            log.warning("could not shorten the visibility of a failed message", exc_info=True)
            continue
        shortened += 1
    return shortened
