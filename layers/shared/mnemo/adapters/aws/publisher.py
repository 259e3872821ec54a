"""The SNS publisher: each event goes to the topic as its JSON envelope (`TopicEvent`), with its type as the
`event_type` message attribute, so that SQS subscriptions can filter on it (a filter policy on `event_type`).

The composition root builds it for the webhook relay (mnemo.composition.platform); no service publishes through a
port, so the envelope is this adapter's own, and the webhook delivery function reads it back (`delivered_event`).

A webhook event (mnemo.domain.webhooks.OutboundEvent) travels as a TopicEvent of its own id, type and time, whose
data is its namespace (project), payload and outbox position (`topic_event`); `outbound_event` makes the same
OutboundEvent again from what a subscriber receives."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemo.domain.memory import new_id, now
from mnemo.domain.timefmt import from_iso, iso
from mnemo.ports.queue import json_text

if TYPE_CHECKING:  # imported on the first event read back: a function that only publishes never loads it
    from mnemo.domain.webhooks import OutboundEvent

EVENT_TYPE_ATTRIBUTE = "event_type"
MAX_BATCH = 10  # entries of one SNS PublishBatch
log = logging.getLogger("mnemo.sns")


@dataclass(frozen=True, slots=True)
class TopicEvent:
    """What the topic carries: an event of a type subscribers may filter on, and its JSON data."""

    type: str  # such as "memory.add"; subscribers may filter on it
    data: Mapping[str, Any]
    id: str = field(default_factory=new_id)
    occurred_at: datetime = field(default_factory=now)

    def envelope(self) -> dict[str, Any]:
        """The JSON object every subscriber receives."""
        return {"id": self.id, "type": self.type, "occurred_at": iso(self.occurred_at), "data": dict(self.data)}

    @classmethod
    def from_envelope(cls, raw: Mapping[str, Any]) -> TopicEvent:
        return cls(type=raw["type"], data=raw["data"], id=raw["id"], occurred_at=from_iso(raw["occurred_at"]))

    def encoded(self) -> str:
        """The envelope as JSON text; raises TypeError when the data is not JSON."""
        return json_text(self.envelope())


class PublishError(Exception):
    """SNS did not take some events for a reason that may pass (its fault, not the message's): publish them again."""


class SnsPublisher:
    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic = topic_arn
        self._fifo = topic_arn.endswith(".fifo")

    def publish(self, event: TopicEvent) -> None:
        """Deliver the event to every subscriber whose filter takes its type (all types without a filter). Raises
        TypeError, publishing nothing, when its data is not JSON."""
        self._client.publish(TopicArn=self._topic, **self._message(event))

    def publish_all(self, events: Sequence[TopicEvent]) -> None:
        """Every event, ten per PublishBatch call. An event SNS refuses as the sender's fault (one that could never
        be published: too large, malformed) is logged and skipped, so that it cannot hold back the events behind
        it; any other failure raises PublishError once every batch was tried (the caller publishes them again:
        subscribers see an event at least once)."""
        failed: list[str] = []
        for start in range(0, len(events), MAX_BATCH):
            batch = events[start : start + MAX_BATCH]
            entries = [{"Id": str(n), **self._message(e)} for n, e in enumerate(batch)]
            reply = self._client.publish_batch(TopicArn=self._topic, PublishBatchRequestEntries=entries)
            for failure in reply.get("Failed", []):
                event = batch[int(failure["Id"])]
                if failure.get("SenderFault"):
                    log.error("SNS refused event %s (%s): %s", event.id, failure.get("Code"), failure.get("Message"))
                else:
                    failed.append(event.id)
        if failed:
            raise PublishError(f"SNS did not take {len(failed)} event(s): {', '.join(failed[:5])}")

    def _message(self, event: TopicEvent) -> dict[str, Any]:
        message: dict[str, Any] = {
            "Message": event.encoded(),
            "MessageAttributes": {EVENT_TYPE_ATTRIBUTE: {"DataType": "String", "StringValue": event.type}},
        }
        if self._fifo:
            message["MessageGroupId"] = event.type
            message["MessageDeduplicationId"] = event.id
        return message


def delivered_event(body: str | Mapping[str, Any]) -> TopicEvent:
    """The event in an SQS message body delivered from the topic: SNS's notification wrapper, or the bare
    envelope when the subscription uses raw message delivery."""
    raw: Any = json.loads(body) if isinstance(body, str) else body
    if isinstance(raw, Mapping) and raw.get("Type") == "Notification" and isinstance(raw.get("Message"), str):
        raw = json.loads(raw["Message"])
    return TopicEvent.from_envelope(raw)


def topic_event(event: OutboundEvent) -> TopicEvent:
    """A webhook event as it travels on the topic (its type is the `event_type` a subscription filters on)."""
    data = {"namespace": event.namespace, "payload": dict(event.payload), "position": event.position}
    return TopicEvent(type=event.type, data=data, id=event.id, occurred_at=event.occurred_at)


def outbound_event(event: TopicEvent) -> OutboundEvent:
    """The webhook event a topic event carries (as `topic_event` made it); KeyError or TypeError when it is not
    one."""
    from mnemo.domain.webhooks import OutboundEvent

    data = event.data
    payload = data["payload"]
    if not isinstance(payload, Mapping) or not isinstance(data["namespace"], str):
        raise TypeError(f"Topic event {event.id} is not a webhook event.")
    return OutboundEvent(
        id=event.id,
        type=event.type,
        namespace=data["namespace"],
        payload=payload,
        occurred_at=event.occurred_at,
        position=int(data.get("position", 0)),
    )
