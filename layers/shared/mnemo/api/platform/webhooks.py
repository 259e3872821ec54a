"""Platform webhooks: Mem0's routes (list, create, get, update, delete; the clients' `get_webhooks`,
`create_webhook`, `update_webhook`, `delete_webhook`) and ours for operators (the delivery log, a redelivery, a
test event, a secret rotation). Errors in Mem0's shapes: `{"field": ["message"]}` for a field (400),
`{"error": "..."}` for access (403) and a webhook that is not the caller's (404)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.limits import MAX_PAGE, MAX_PAGE_SIZE
from mnemo.api.platform.dependencies import WebhookServiceDep
from mnemo.api.platform.responses.common import Page
from mnemo.api.platform.responses.webhooks import (
    DeliveryOut,
    SecretRotatedOut,
    WebhookCreatedOut,
    WebhookMessageOut,
    WebhookOut,
)
from mnemo.api.platform.security import Caller
from mnemo.api.responses import MessageErrorOut, errors
from mnemo.api.routing import FieldErrorsRoute
from mnemo.domain.webhooks import EVENT_TYPES, MAX_URL, DeliveryState
from mnemo.errors import FieldsError
from mnemo.services.platform.webhooks.service import MAX_NAME, WebhookSpec

router = APIRouter(
    route_class=FieldErrorsRoute,
    tags=["platform: webhooks"],
    responses=errors(503),  # a backend without webhooks (AWS without the events topic)
)

MAX_EVENT_TYPES = 20
PREFIX = "/api/v1/webhooks"
ONE = PREFIX + "/{webhook_id}/"

WebhookId = Annotated[str, Path(max_length=64, description="The webhook's id.")]
ProjectId = Annotated[str, Path(max_length=64, description="The project's id: the project of the key.")]


def _refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The 403 and 404 of these routes: `{"error": ...}`, as Mem0's."""
    described = {
        401: None,
        403: "The project is not the key's, or the key is a READER's (which may only look).",
        404: "No such webhook in the key's project.",
    }
    out = errors(*[c for c in codes if c == 401])
    for code in codes:
        if code in (403, 404):
            out[code] = {"model": MessageErrorOut, "description": described[code]}
    return out


class WebhookBody(BaseModel):
    """A webhook as create and update send it. On create `name`, `url` and `event_types` are required; on update
    `name` is (Mem0's rule), and what is not sent is kept."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, max_length=MAX_NAME, examples=["memory changes"])
    url: str | None = Field(
        default=None,
        max_length=MAX_URL,
        description="http(s); not a loopback, private, link-local or otherwise internal address.",
        examples=["https://example.com/hooks/mnemo"],
    )
    event_types: list[str] | None = Field(
        default=None,
        max_length=MAX_EVENT_TYPES,
        description="What it receives: " + ", ".join(EVENT_TYPES) + ". An update replaces the list.",
        examples=[["memory_add", "memory_update"]],
    )
    is_active: bool | None = Field(default=None, description="False: nothing is sent to it. Default true.")
    project_id: str | None = Field(
        default=None,
        max_length=64,
        description="The project, as the clients may send it: the path's (or the webhook's) own, else a 400.",
    )

    def spec(self, project_id: str) -> WebhookSpec:
        """What to create or change in `project_id`; a body that names another project is a 400 (a webhook never
        lands anywhere but the project it is sent for)."""
        if self.project_id is not None and self.project_id != project_id:
            message = f"The body's project_id ({self.project_id}) is not this webhook's project ({project_id})."
            raise FieldsError({"project_id": [message]})
        return WebhookSpec(name=self.name, url=self.url, event_types=self.event_types, is_active=self.is_active)


@router.get(
    PREFIX + "/projects/{project_id}/",
    summary="The project's webhooks",
    responses=_refusals(401, 403),
)
def list_webhooks(project_id: ProjectId, caller: Caller, webhooks: WebhookServiceDep) -> list[WebhookOut]:
    return [WebhookOut.of(w) for w in webhooks.of_project(caller, project_id)]


@router.post(
    PREFIX + "/projects/{project_id}/",
    status_code=201,
    summary="Create a webhook; its signing secret is in this answer only",
    responses=_refusals(401, 403),
)
def create_webhook(
    project_id: ProjectId, body: WebhookBody, caller: Caller, webhooks: WebhookServiceDep
) -> WebhookCreatedOut:
    return WebhookCreatedOut.created(webhooks.create(caller, project_id, body.spec(project_id)))


@router.get(ONE, summary="One webhook", responses=_refusals(401, 404))
def get_webhook(webhook_id: WebhookId, caller: Caller, webhooks: WebhookServiceDep) -> WebhookOut:
    return WebhookOut.of(webhooks.get(caller, webhook_id))


@router.put(ONE, summary="Update a webhook (name required; event_types replaced)", responses=_refusals(401, 403, 404))
@router.put(
    ONE + "webhook/", summary="Update a webhook (the documented second form)", responses=_refusals(401, 403, 404)
)
def update_webhook(
    webhook_id: WebhookId, body: WebhookBody, caller: Caller, webhooks: WebhookServiceDep
) -> WebhookMessageOut:
    webhooks.update(caller, webhook_id, body.spec(caller.project_id))
    return WebhookMessageOut(message="Webhook updated successfully")


@router.delete(ONE, summary="Delete a webhook and its delivery log", responses=_refusals(401, 403, 404))
@router.delete(
    ONE + "webhook/", summary="Delete a webhook (the documented second form)", responses=_refusals(401, 403, 404)
)
def delete_webhook(webhook_id: WebhookId, caller: Caller, webhooks: WebhookServiceDep) -> WebhookMessageOut:
    webhooks.delete(caller, webhook_id)
    return WebhookMessageOut(message="Webhook deleted successfully")


# ---- ours: the delivery log and the operator's tools ----------------------------------------------------


@router.get(
    ONE + "deliveries/",
    summary="The webhook's deliveries, newest first (each with its attempts)",
    responses=_refusals(401, 404),
)
def list_deliveries(
    request: Request,
    webhook_id: WebhookId,
    caller: Caller,
    webhooks: WebhookServiceDep,
    status: Annotated[DeliveryState | None, Query(description="Only deliveries in this state.")] = None,
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = 50,
) -> Page[DeliveryOut]:
    found = webhooks.deliveries(caller, webhook_id, status, page, page_size)
    return Page[DeliveryOut].of(request, [DeliveryOut.of(d) for d in found.deliveries], found.count, page, page_size)


@router.post(
    ONE + "deliveries/{delivery_id}/redeliver/",
    status_code=202,
    summary="Send a delivery again (a dead-lettered one, or one a receiver lost), in its place in the order",
    responses=_refusals(401, 403, 404),
)
def redeliver(
    webhook_id: WebhookId,
    delivery_id: Annotated[str, Path(max_length=64)],
    caller: Caller,
    webhooks: WebhookServiceDep,
) -> DeliveryOut:
    return DeliveryOut.of(webhooks.redeliver(caller, webhook_id, delivery_id))


@router.post(
    ONE + "test/",
    summary="Send a `webhook_test` event at once; the answer is the delivery after its first attempt",
    responses=_refusals(401, 403, 404),
)
def send_test(webhook_id: WebhookId, caller: Caller, webhooks: WebhookServiceDep) -> DeliveryOut:
    return DeliveryOut.of(webhooks.send_test(caller, webhook_id))


@router.post(
    ONE + "rotate-secret/",
    summary="A new signing secret; the old one keeps signing beside it for 24 hours",
    responses=_refusals(401, 403, 404),
)
def rotate_secret(webhook_id: WebhookId, caller: Caller, webhooks: WebhookServiceDep) -> SecretRotatedOut:
    return SecretRotatedOut.of(webhooks.rotate_secret(caller, webhook_id))
