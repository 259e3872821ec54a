"""The answers of the webhook routes: Mem0's webhook object (and, ours, its secret once), the delivery log."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, Field

from mnemo.api.responses import Timestamp
from mnemo.domain.webhooks import Attempt, Delivery, Webhook


class WebhookOut(BaseModel):
    webhook_id: str = Field(description="The webhook's id (a UUID).")
    name: str
    url: str = Field(description="Where the events are POSTed.")
    event_types: list[str] = Field(description="The event types it receives.")
    owner: str = Field(description="The email of whoever created it.")
    is_active: bool = Field(description="False: no event is sent to it (turned off, or its receiver answered 410).")
    project: str = Field(description="The project's id.")
    created_at: Timestamp
    updated_at: Timestamp
    deactivated_reason: str | None = Field(default=None, description="Why it was turned off by the service.")

    @classmethod
    def of(cls, webhook: Webhook) -> Self:
        return cls(
            webhook_id=webhook.id,
            name=webhook.name,
            url=webhook.url,
            event_types=list(webhook.event_types),
            owner=webhook.owner,
            is_active=webhook.is_active,
            project=webhook.project_id,
            created_at=webhook.created_at,
            updated_at=webhook.updated_at,
            deactivated_reason=webhook.deactivated_reason,
        )


class WebhookCreatedOut(WebhookOut):
    secret: str = Field(
        description="The signing secret (Standard Webhooks, `whsec_…`): shown here once. Every delivery carries "
        "`webhook-id`, `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 of `id.timestamp.body`)."
    )

    @classmethod
    def created(cls, webhook: Webhook) -> Self:
        return cls(**WebhookOut.of(webhook).model_dump(), secret=webhook.secret)


class SecretRotatedOut(BaseModel):
    webhook_id: str
    secret: str = Field(description="The new signing secret, shown once.")
    previous_secret_expires_at: Timestamp = Field(
        description="Until then the old secret signs too (a second signature in `webhook-signature`)."
    )

    @classmethod
    def of(cls, webhook: Webhook) -> Self:
        assert webhook.previous_secret_expires_at is not None
        return cls(
            webhook_id=webhook.id,
            secret=webhook.secret,
            previous_secret_expires_at=webhook.previous_secret_expires_at,
        )


class WebhookMessageOut(BaseModel):
    message: str


class AttemptOut(BaseModel):
    at: Timestamp
    status_code: int | None = Field(description="The receiver's HTTP status; null when there was no answer.")
    error: str | None = Field(description="What went wrong (a timeout, a refused connection, a redirect, ...).")
    latency_ms: float
    response: str | None = Field(
        default=None,
        description="The start of the receiver's answer body (printable, at most 200 characters); null when it sent "
        "none, or once a delete erased a memory the delivery named.",
    )

    @classmethod
    def of(cls, attempt: Attempt) -> Self:
        return cls(
            at=attempt.at,
            status_code=attempt.status_code,
            error=attempt.error,
            latency_ms=attempt.latency_ms,
            response=attempt.response,
        )


class DeliveryOut(BaseModel):
    id: str = Field(description="The delivery's id: the `webhook-id` header of each of its attempts.")
    webhook_id: str
    sequence: int = Field(description="Its place in the webhook's order (1, 2, ...).")
    event_id: str
    event_type: str
    state: str = Field(description="pending, delivered, dead (every attempt failed) or cancelled.")
    attempts: list[AttemptOut]
    next_attempt_at: Timestamp | None = Field(description="When it is tried next; null once it is final.")
    created_at: Timestamp
    finished_at: Timestamp | None = Field(description="When it was delivered or given up; null while pending.")
    payload: dict[str, Any] = Field(description="The body sent.")

    @classmethod
    def of(cls, delivery: Delivery) -> Self:
        return cls(
            id=delivery.id,
            webhook_id=delivery.webhook_id,
            sequence=delivery.sequence,
            event_id=delivery.event.id,
            event_type=delivery.event.type,
            state=delivery.state.value,
            attempts=[AttemptOut.of(a) for a in delivery.attempts],
            next_attempt_at=delivery.next_attempt_at,
            created_at=delivery.created_at,
            finished_at=delivery.finished_at,
            payload=delivery.body(),
        )
