"""The event publisher port: a topic that fans each event out to every subscriber (SNS → SQS in the cloud,
in-process queues locally), for example webhook deliveries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from mnemo.domain.memory import new_id, now
from mnemo.domain.timefmt import from_iso, iso
from mnemo.ports.queue import json_text


@dataclass(frozen=True, slots=True)
class TopicEvent:
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


class EventPublisher(Protocol):
    def publish(self, event: TopicEvent) -> None:
        """Deliver the event to every subscriber whose event types include its type (all types when a
        subscriber names none). Raises TypeError, publishing nothing, when its data is not JSON."""
        ...
