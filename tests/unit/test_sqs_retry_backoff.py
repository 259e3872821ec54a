"""The backoff of failed SQS messages (mnemo.adapters.aws.queue.retry_soon): the first retry delay doubled per
receive, 15 minutes at most, one delay for a whole message group; a message whose visibility cannot be changed
keeps the queue's, and the others are still shortened."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.aws.queue import FailedMessage, queue_url, retry_soon

ARN = "arn:aws:sqs:eu-west-1:123456789012:mnemo-ingest.fifo"


class RecordingSqs:
    def __init__(self, refuse: set[str] | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.refuse = refuse or set()

    def change_message_visibility(self, **request: Any) -> None:
        if request["ReceiptHandle"] in self.refuse:
            raise ClientError({"Error": {"Code": "ReceiptHandleIsInvalid", "Message": "gone"}}, "ChangeVisibility")
        self.calls.append(request)


def failed(handle: str, group: str | None, receives: int, arn: str = ARN) -> FailedMessage:
    return FailedMessage(queue_arn=arn, receipt_handle=handle, group=group, receive_count=receives)


def test_the_delay_doubles_per_receive_and_stops_at_fifteen_minutes() -> None:
    sqs = RecordingSqs()
    messages = [failed(f"h{n}", f"g{n}", n) for n in (1, 2, 3, 7)]
    assert retry_soon(sqs, messages, first_delay=30) == 4
    assert [c["VisibilityTimeout"] for c in sqs.calls] == [30, 60, 120, 900]
    assert {c["QueueUrl"] for c in sqs.calls} == {"https://sqs.eu-west-1.amazonaws.com/123456789012/mnemo-ingest.fifo"}


def test_a_group_comes_back_together_after_its_first_failed_messages_delay() -> None:
    sqs = RecordingSqs()
    retry_soon(sqs, [failed("a", "alice", 3), failed("b", "alice", 1), failed("c", "bob", 1)], first_delay=10)
    assert [(c["ReceiptHandle"], c["VisibilityTimeout"]) for c in sqs.calls] == [("a", 40), ("b", 40), ("c", 10)]


def test_a_refused_or_unparseable_message_keeps_the_queues_delay_and_the_others_are_shortened() -> None:
    sqs = RecordingSqs(refuse={"gone"})
    messages = [failed("gone", "g", 1), failed("odd", "h", 1, arn="not-an-arn"), failed("ok", "i", 1)]
    assert retry_soon(sqs, messages, first_delay=30) == 1
    assert [c["ReceiptHandle"] for c in sqs.calls] == ["ok"]


def test_queue_urls_of_the_china_partition() -> None:
    assert queue_url("arn:aws-cn:sqs:cn-north-1:1:q") == "https://sqs.cn-north-1.amazonaws.com.cn/1/q"
