"""The MessageQueue contract: the in-process queue and SQS (standard and FIFO, under moto) pass one suite.

Each adapter comes with a way to take what was sent (what a worker would receive). FIFO semantics (order within
a group, deduplication) hold for the in-process queue and FIFO SQS queues only; a standard queue refuses a
dedup id.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.aws.queue import SqsQueue
from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.ports.queue import MessageQueue
from tests.support import moto_aws


@dataclass
class Received:
    id: str
    body: dict[str, Any]
    group: str | None


@dataclass
class QueueUnderTest:
    queue: MessageQueue
    take: Callable[[], list[Received]]


@contextmanager
def _in_process() -> Iterator[QueueUnderTest]:
    queue = InProcessQueue()
    yield QueueUnderTest(queue, lambda: [Received(m.id, m.body, m.group) for m in queue.receive(1000)])


def _sqs(fifo: bool) -> Callable[[], AbstractContextManager[QueueUnderTest]]:
    @contextmanager
    def build() -> Iterator[QueueUnderTest]:
        with mock_aws():
            client = moto_aws.client("sqs")
            attributes = {"FifoQueue": "true"} if fifo else {}
            url = client.create_queue(QueueName="jobs.fifo" if fifo else "jobs", Attributes=attributes)["QueueUrl"]

            def take() -> list[Received]:
                out: list[Received] = []
                while True:
                    reply = client.receive_message(
                        QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0, MessageSystemAttributeNames=["All"]
                    )
                    messages = reply.get("Messages", [])
                    if not messages:
                        return out
                    for message in messages:
                        group = message.get("Attributes", {}).get("MessageGroupId")
                        out.append(Received(message["MessageId"], json.loads(message["Body"]), group))
                        client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

            yield QueueUnderTest(SqsQueue(client, url), take)

    return build


ADAPTERS: dict[str, Callable[[], AbstractContextManager[QueueUnderTest]]] = {
    "in-process": _in_process,
    "sqs": _sqs(fifo=False),
    "sqs-fifo": _sqs(fifo=True),
}
FIFO_ADAPTERS = ["in-process", "sqs-fifo"]


@pytest.fixture(params=list(ADAPTERS))
def subject(request: pytest.FixtureRequest) -> Iterator[QueueUnderTest]:
    with ADAPTERS[request.param]() as built:
        yield built


@pytest.fixture(params=FIFO_ADAPTERS)
def fifo(request: pytest.FixtureRequest) -> Iterator[QueueUnderTest]:
    with ADAPTERS[request.param]() as built:
        yield built


def test_given_messages_when_sent_then_each_arrives_once_with_the_same_json(subject: QueueUnderTest):
    messages: list[dict[str, Any]] = [
        {"job": "extract", "memory_ids": ["a", "b"], "attempt": 1},
        {"job": "webhook", "payload": {"text": "Ana’s café ☕", "score": 0.25, "ok": True, "none": None}},
        {"job": "profile", "user_id": "alice"},
    ]

    ids = [subject.queue.send(m) for m in messages]

    received = subject.take()
    assert sorted(json.dumps(r.body, sort_keys=True) for r in received) == sorted(
        json.dumps(m, sort_keys=True) for m in messages
    )
    assert len(set(ids)) == 3 and {r.id for r in received} == set(ids)
    assert subject.take() == []


@pytest.mark.parametrize("bad", [{"when": object()}, {"values": {1, 2}}, {"score": math.nan}])
def test_given_a_message_that_is_not_json_when_sent_then_type_error_and_nothing_is_queued(
    subject: QueueUnderTest, bad: dict[str, Any]
):
    with pytest.raises(TypeError):
        subject.queue.send(bad)

    assert subject.take() == []


def test_given_a_group_when_messages_are_sent_then_they_arrive_in_order_with_their_group(fifo: QueueUnderTest):
    for i in range(12):
        fifo.queue.send({"n": i}, group="user-alice" if i % 2 else "user-bob")

    received = fifo.take()

    assert [r.body["n"] for r in received if r.group == "user-bob"] == [0, 2, 4, 6, 8, 10]
    assert [r.body["n"] for r in received if r.group == "user-alice"] == [1, 3, 5, 7, 9, 11]
    assert len(received) == 12


def test_given_groups_of_any_text_when_messages_are_sent_then_each_group_keeps_its_order(fifo: QueueUnderTest):
    """Groups are owners' ids: accented, or longer than the 128 ASCII characters SQS takes as a group id."""
    groups = ["user:" + "é" * 250, "user:" + "é" * 249 + "e", "user:" + "a" * 200, "user:ok"]
    for i in range(12):
        fifo.queue.send({"n": i}, group=groups[i % 4], dedup_id=f"m-{i}")
    received = fifo.take()
    assert sorted(r.body["n"] for r in received) == list(range(12))
    by_group: dict[str | None, list[int]] = {}
    for r in received:
        by_group.setdefault(r.group, []).append(r.body["n"])
    assert sorted(by_group.values()) == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]


def test_given_a_dedup_id_when_the_same_message_is_sent_again_then_it_arrives_once(fifo: QueueUnderTest):
    first = fifo.queue.send({"job": "extract", "event": "e-1"}, group="alice", dedup_id="e-1")
    fifo.queue.send({"job": "extract", "event": "e-1"}, group="alice", dedup_id="e-1")
    fifo.queue.send({"job": "extract", "event": "e-2"}, group="alice", dedup_id="e-2")
    fifo.queue.send({"job": "extract", "event": "no dedup id"}, group="alice")
    fifo.queue.send({"job": "extract", "event": "no dedup id"}, group="alice")

    received = fifo.take()

    assert [r.body["event"] for r in received] == ["e-1", "e-2", "no dedup id", "no dedup id"]
    assert received[0].id == first


class SentRequests:
    """An SQS client that keeps every SendMessage request (moto does not check group ids as SQS does)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **request: Any) -> dict[str, Any]:
        self.sent.append(request)
        return {"MessageId": str(len(self.sent))}


def test_given_groups_sqs_would_refuse_when_sent_then_sqs_gets_a_valid_stable_group_id() -> None:
    client = SentRequests()
    queue = SqsQueue(client, "https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo")
    for group in ("user:" + "é" * 250, "user:" + "é" * 250, "user:" + "a" * 200, "user:ok", "run:a b"):
        queue.send({"n": 1}, group=group, dedup_id=group)
    ids = [request["MessageGroupId"] for request in client.sent]
    valid = re.compile(r"^[!-~]{1,128}$")  # SQS: 1-128 printable ASCII characters, no space
    assert all(valid.match(i) for i in ids) and all(valid.match(r["MessageDeduplicationId"]) for r in client.sent)
    assert ids[0] == ids[1] and len(set(ids)) == 4
    assert ids[3] == "user:ok"  # a valid group is sent as it is
