"""The publisher contract: SNS fanning out to SQS queues (under moto, with and without raw message delivery) and
the in-process topic of the tests (tests/support/inprocess_publisher.py) pass one suite. Subscribers are queues,
optionally filtered by event type."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import pytest
from moto import mock_aws

from mnemo.adapters.aws.publisher import EVENT_TYPE_ATTRIBUTE, SnsPublisher, TopicEvent, delivered_event
from mnemo.adapters.inprocess.queue import InProcessQueue
from tests.support import moto_aws
from tests.support.inprocess_publisher import InProcessPublisher

Inbox = Callable[[], list[TopicEvent]]


class EventPublisher(Protocol):
    def publish(self, event: TopicEvent) -> None: ...


@dataclass
class TopicUnderTest:
    publisher: EventPublisher
    subscribe: Callable[[set[str] | None], Inbox]  # a new subscriber queue, filtered to these types when given


@contextmanager
def _in_process() -> Iterator[TopicUnderTest]:
    publisher = InProcessPublisher()

    def subscribe(types: set[str] | None) -> Inbox:
        queue = InProcessQueue()
        publisher.subscribe(queue, types)
        return lambda: [TopicEvent.from_envelope(m.body) for m in queue.receive(1000)]

    yield TopicUnderTest(publisher, subscribe)


def _sns(raw_delivery: bool) -> Callable[[], AbstractContextManager[TopicUnderTest]]:
    @contextmanager
    def build() -> Iterator[TopicUnderTest]:
        with mock_aws():
            sns, sqs = moto_aws.client("sns"), moto_aws.client("sqs")
            topic = sns.create_topic(Name="mnemo-events")["TopicArn"]
            count = iter(range(100))

            def subscribe(types: set[str] | None) -> Inbox:
                url = sqs.create_queue(QueueName=f"subscriber-{next(count)}")["QueueUrl"]
                arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
                attributes = {"RawMessageDelivery": "true" if raw_delivery else "false"}
                if types is not None:
                    attributes["FilterPolicy"] = json.dumps({EVENT_TYPE_ATTRIBUTE: sorted(types)})
                sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes=attributes)

                def inbox() -> list[TopicEvent]:
                    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
                    for message in messages:
                        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
                    return [delivered_event(m["Body"]) for m in messages]

                return inbox

            yield TopicUnderTest(SnsPublisher(sns, topic), subscribe)

    return build


ADAPTERS: dict[str, Callable[[], AbstractContextManager[TopicUnderTest]]] = {
    "in-process": _in_process,
    "sns-to-sqs": _sns(raw_delivery=False),
    "sns-to-sqs-raw": _sns(raw_delivery=True),
}


@pytest.fixture(params=list(ADAPTERS))
def topic(request: pytest.FixtureRequest) -> Iterator[TopicUnderTest]:
    with ADAPTERS[request.param]() as built:
        yield built


ADDED = TopicEvent(
    "memory.add",
    {"memory_id": "m-1", "text": "Ana’s café ☕", "user_id": "alice", "score": 0.5},
    id="evt-1",
    occurred_at=datetime(2024, 5, 8, 14, 30, 0, 123456, tzinfo=UTC),
)
DELETED = TopicEvent("memory.delete", {"memory_id": "m-2"})


def test_given_two_subscribers_when_an_event_is_published_then_each_receives_it_whole(topic: TopicUnderTest):
    first, second = topic.subscribe(None), topic.subscribe(None)

    topic.publisher.publish(ADDED)

    assert first() == [ADDED]
    assert second() == [ADDED]


def test_given_a_subscriber_of_some_event_types_when_events_are_published_then_it_receives_only_those(
    topic: TopicUnderTest,
):
    deletions, everything = topic.subscribe({"memory.delete", "memory.reset"}), topic.subscribe(None)

    topic.publisher.publish(ADDED)
    topic.publisher.publish(DELETED)

    assert deletions() == [DELETED]
    assert sorted(e.type for e in everything()) == ["memory.add", "memory.delete"]


def test_given_data_that_is_not_json_when_published_then_type_error_and_nothing_is_delivered(topic: TopicUnderTest):
    inbox = topic.subscribe(None)

    with pytest.raises(TypeError):
        topic.publisher.publish(TopicEvent("memory.add", {"score": math.inf}))

    assert inbox() == []
