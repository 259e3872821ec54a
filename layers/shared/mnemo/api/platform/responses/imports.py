"""Answers of POST /v1/memories/import/ (ours): the import queued, and the items refused before it was."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.services.platform.jobs.import_request import ImportRequest


class ImportRefusedOut(BaseModel):
    """An item that cannot be added (it is not queued); the event's results list it too."""

    index: int = Field(description="Its place in what was sent (from 0).", examples=[3])
    status: Literal["REFUSED"]
    reason: str = Field(examples=["messages[0].content must be text: multimodal content is not supported."])


class ImportQueuedOut(BaseModel):
    """An import queued for the worker, as an asynchronous add is: follow it at GET /v1/event/{event_id}/ (its
    `progress`, then its results per item)."""

    event_id: str = Field(description="The import's event.", examples=["5c1e6b0e-8a57-4e8f-9d1a-3b2f4c6d7e8f"])
    status: Literal[EventStatus.PENDING] = Field(description="PENDING.")
    format: Literal["items", "mnemo", "mem0"] = Field(description="How `items` was read.", examples=["items"])
    total: int = Field(description="The items sent.", examples=[500])
    queued: int = Field(description="The items to import (the others were refused).", examples=[498])
    refused: list[ImportRefusedOut] = Field(description="The items refused, with the reason.")

    @classmethod
    def of(cls, event: PlatformEvent, request: ImportRequest) -> ImportQueuedOut:
        return cls(
            event_id=event.id,
            status=EventStatus.PENDING,
            format=request.format,
            total=request.total,
            queued=len(request.items),
            refused=[ImportRefusedOut(index=r["index"], status="REFUSED", reason=r["reason"]) for r in request.refused],
        )
