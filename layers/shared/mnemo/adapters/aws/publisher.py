"""The SNS publisher: each event goes to the topic as its JSON envelope, with its type as the `event_type`
message attribute, so that SQS subscriptions can filter on it (a filter policy on `event_type`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemo.ports.publisher import TopicEvent

EVENT_TYPE_ATTRIBUTE = "event_type"


class SnsPublisher:
    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic = topic_arn
        self._fifo = topic_arn.endswith(".fifo")

    def publish(self, event: TopicEvent) -> None:
        request: dict[str, Any] = {
            "TopicArn": self._topic,
            "Message": event.encoded(),
            "MessageAttributes": {EVENT_TYPE_ATTRIBUTE: {"DataType": "String", "StringValue": event.type}},
        }
        if self._fifo:
            request["MessageGroupId"] = event.type
            request["MessageDeduplicationId"] = event.id
        self._client.publish(**request)


def delivered_event(body: str | Mapping[str, Any]) -> TopicEvent:
    """The event in an SQS message body delivered from the topic: SNS's notification wrapper, or the bare
    envelope when the subscription uses raw message delivery."""
    raw: Any = json.loads(body) if isinstance(body, str) else body
    if isinstance(raw, Mapping) and raw.get("Type") == "Notification" and isinstance(raw.get("Message"), str):
        raw = json.loads(raw["Message"])
    return TopicEvent.from_envelope(raw)
