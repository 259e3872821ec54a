"""The webhooks of a platform project: create, list, get, update, delete (OWNER manages, a READER may look),
and the operator's tools: the delivery log, a redelivery, a test event, a secret rotation.

Errors are answered as Mem0's platform answers them: a field that is missing or wrong is a 400 keyed by field
name (`FieldsError`); a project that is not the caller's is a 403 and a webhook that is not theirs (or none) a
404, each `{"error": message}`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import Role
from mnemo.domain.webhooks import (
    EVENT_TYPES,
    MAX_URL,
    MAX_WEBHOOKS_PER_PROJECT,
    TEST_EVENT,
    Delivery,
    DeliveryState,
    OutboundEvent,
    Webhook,
    new_secret,
)
from mnemo.errors import FieldsError, NotFoundError, PermissionDeniedError, ValidationError
from mnemo.ports.webhook_sender import WebhookSender
from mnemo.ports.webhook_store import WebhookStore
from mnemo.services.platform.tenancy.callers import PlatformCaller

NO_ACCESS = "You don't have access to this project"
NOT_FOUND = "Webhook not found"
OWNERS_ONLY = "Only a project OWNER can manage its webhooks; your role is READER."
DELIVERY_NOT_FOUND = "Delivery not found"
REQUIRED = "This field is required."
MAX_NAME = 255
# A test event's delivery is due to the webhook worker only this long after its request made it: its request sends it
# at once, and the worker must not find it due while that attempt is on its way (it would be sent twice). Should the
# request die before recording its attempt, the worker sends the test event then.
TEST_HELD = timedelta(minutes=15)


@dataclass(frozen=True, slots=True)
class WebhookSpec:
    """What a create or an update asks for (None: not sent)."""

    name: str | None = None
    url: str | None = None
    event_types: list[str] | None = None
    is_active: bool | None = None


@dataclass(frozen=True, slots=True)
class DeliveryPage:
    deliveries: list[Delivery]
    count: int


class WebhookService:
    def __init__(
        self,
        store: WebhookStore,
        sender: WebhookSender,
        send_now: Callable[[Delivery], Delivery],
        clock: Callable[[], datetime] = now,
    ) -> None:
        """`send_now`: one attempt of a delivery at once (the dispatcher's), for a test event."""
        self._store = store
        self._sender = sender
        self._send_now = send_now
        self._clock = clock

    # ---- the webhooks -----------------------------------------------------------------------------------

    def of_project(self, caller: PlatformCaller, project_id: str) -> list[Webhook]:
        self._own_project(caller, project_id)
        return self._store.webhooks_of_project(project_id)

    def create(self, caller: PlatformCaller, project_id: str, spec: WebhookSpec) -> Webhook:
        self._own_project(caller, project_id)
        self._manages(caller)
        problems = self._problems(spec, required=("name", "url", "event_types"))
        if problems:
            raise FieldsError(problems)
        if len(self._store.webhooks_of_project(project_id)) >= MAX_WEBHOOKS_PER_PROJECT:
            raise ValidationError(f"A project has at most {MAX_WEBHOOKS_PER_PROJECT} webhooks.").keyed("error")
        at = self._clock()
        assert spec.name is not None and spec.url is not None and spec.event_types is not None
        webhook = Webhook(
            id=new_id(),
            project_id=project_id,
            name=spec.name.strip(),
            url=spec.url.strip(),
            event_types=_unique(spec.event_types),
            owner=caller.user.email,
            secret=new_secret(),
            created_at=at,
            updated_at=at,
            is_active=True if spec.is_active is None else spec.is_active,
        )
        self._store.add_webhook(webhook)
        return webhook

    def get(self, caller: PlatformCaller, webhook_id: str) -> Webhook:
        return self._webhook_of(caller, webhook_id)

    def update(self, caller: PlatformCaller, webhook_id: str, spec: WebhookSpec) -> Webhook:
        """A PUT: `name` is required (Mem0's rule); the url and the event types are kept when not sent, and the
        event types sent replace the webhook's. Turning a webhook back on clears why it was turned off."""
        self._manages(caller)  # the key's role first, as every OWNER action of the platform
        webhook = self._webhook_of(caller, webhook_id)
        problems = self._problems(spec, required=("name",))
        if problems:
            raise FieldsError(problems)
        changes: dict[str, Any] = {"updated_at": self._clock()}
        if spec.name is not None:
            changes["name"] = spec.name.strip()
        if spec.url is not None:
            changes["url"] = spec.url.strip()
        if spec.event_types is not None:
            changes["event_types"] = _unique(spec.event_types)
        if spec.is_active is not None:
            changes["is_active"] = spec.is_active
            if spec.is_active:
                changes["deactivated_reason"] = None
        updated = webhook.changed(**changes)
        self._store.save_webhook(updated)
        return updated

    def delete(self, caller: PlatformCaller, webhook_id: str) -> None:
        self._manages(caller)  # the key's role first, as every OWNER action of the platform
        webhook = self._webhook_of(caller, webhook_id)
        self._store.delete_webhook(webhook.id)

    def rotate_secret(self, caller: PlatformCaller, webhook_id: str) -> Webhook:
        """A new signing secret; the old one keeps signing beside it for 24 hours (receivers can switch)."""
        self._manages(caller)  # the key's role first, as every OWNER action of the platform
        webhook = self._webhook_of(caller, webhook_id)
        rotated = webhook.rotated(self._clock())
        self._store.save_webhook(rotated)
        return rotated

    # ---- its deliveries ---------------------------------------------------------------------------------

    def deliveries(
        self, caller: PlatformCaller, webhook_id: str, state: DeliveryState | None, page: int, page_size: int
    ) -> DeliveryPage:
        webhook = self._webhook_of(caller, webhook_id)
        found = self._store.deliveries_of(webhook.id, state, page_size, (page - 1) * page_size)
        return DeliveryPage(found, self._store.count_deliveries(webhook.id, state))

    def redeliver(self, caller: PlatformCaller, webhook_id: str, delivery_id: str) -> Delivery:
        """Send a delivery again, whatever became of it (a dead-lettered one, a delivered one a receiver lost):
        it is pending again at once, in its place in the webhook's order, with the same `webhook-id`."""
        self._manages(caller)  # the key's role first, as every OWNER action of the platform
        webhook = self._webhook_of(caller, webhook_id)
        delivery = self._store.get_delivery(webhook.id, delivery_id)
        if delivery is None:
            raise NotFoundError(DELIVERY_NOT_FOUND).keyed("error")
        again = delivery.redelivered(self._clock())
        self._store.save_delivery(again)
        return again

    def send_test(self, caller: PlatformCaller, webhook_id: str) -> Delivery:
        """A `webhook_test` event sent at once, whatever the webhook subscribes to (it takes the webhook's next
        sequence number; it does not wait for earlier deliveries). Returns it after its first attempt. Its delivery
        is made due later (TEST_HELD): only this request attempts it first."""
        self._manages(caller)  # the key's role first, as every OWNER action of the platform
        webhook = self._webhook_of(caller, webhook_id)
        at = self._clock()
        payload = {"event_details": {"event": "TEST", "message": f"A test of the webhook {webhook.name!r}."}}
        event = OutboundEvent(new_id(), TEST_EVENT, webhook.project_id, payload, at)
        made = self._store.enqueue(webhook, [event], at, due=at + TEST_HELD)
        if not made:  # deleted meanwhile
            raise NotFoundError(NOT_FOUND).keyed("error")
        return self._send_now(made[0])

    # ---- rules ------------------------------------------------------------------------------------------

    def _own_project(self, caller: PlatformCaller, project_id: str) -> None:
        if project_id != caller.project_id:
            raise PermissionDeniedError(NO_ACCESS).keyed("error")

    def _manages(self, caller: PlatformCaller) -> None:
        if not caller.role.allows(Role.OWNER):
            raise PermissionDeniedError(OWNERS_ONLY).keyed("error")

    def _webhook_of(self, caller: PlatformCaller, webhook_id: str) -> Webhook:
        """The webhook, when it is one of the caller's project: any other is not found (its existence is not
        the caller's to learn)."""
        webhook = self._store.get_webhook(webhook_id)
        if webhook is None or webhook.project_id != caller.project_id:
            raise NotFoundError(NOT_FOUND).keyed("error")
        return webhook

    def _problems(self, spec: WebhookSpec, required: tuple[str, ...]) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}
        sent: Mapping[str, Any] = {"name": spec.name, "url": spec.url, "event_types": spec.event_types}
        for name in required:
            if sent[name] is None:
                problems[name] = [REQUIRED]
        if spec.name is not None and not spec.name.strip():
            problems["name"] = ["This field may not be blank."]
        elif spec.name is not None and len(spec.name) > MAX_NAME:
            problems["name"] = [f"Ensure this field has no more than {MAX_NAME} characters."]
        if spec.url is not None:
            problem = _url_problem(spec.url, self._sender)
            if problem:
                problems["url"] = [problem]
        if spec.event_types is not None:
            unknown = [t for t in spec.event_types if t not in EVENT_TYPES]
            if not spec.event_types:
                problems["event_types"] = ["This list may not be empty."]
            elif unknown:
                listed = ", ".join(EVENT_TYPES)
                problems["event_types"] = [f'"{t}" is not a valid choice (one of {listed}).' for t in unknown[:10]]
        return problems


def _url_problem(url: str, sender: WebhookSender) -> str | None:
    url = url.strip()
    if not url:
        return "This field may not be blank."
    if len(url) > MAX_URL:
        return f"Ensure this field has no more than {MAX_URL:,} characters."
    problem = sender.url_problem(url)
    return f"Enter a valid URL: {problem}" if problem else None


def _unique(event_types: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(event_types))
