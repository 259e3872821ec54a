"""A project's webhooks: the list, creating one (its signing secret shown this once, with a copy button), one
webhook's page (its settings to edit, the operator's tools, and its delivery log with each attempt), and deleting one
after a confirmation. A READER sees the webhooks and their log, and no write control; the service refuses their
writes whatever the page showed. A form the service refuses comes back filled in, each field with the API's
message."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.console.projects import PROJECT
from mnemo.console.visits import Visit, signed_in
from mnemo.console.webhook_forms import MAX_ID, WebhookForm, event_choices, hooks_of, posted_form
from mnemo.console.webhook_log import DeliveryQuery, delivery_query, response_text, status_text
from mnemo.domain.webhooks import DeliveryState, Webhook
from mnemo.errors import FieldsError, NotFoundError, PermissionDeniedError
from mnemo.services.platform.webhooks.service import OWNERS_ONLY

WEBHOOKS = PROJECT + "/webhooks"
WEBHOOK = WEBHOOKS + "/{webhook_id}"


def _list_page(visit: Visit, form: WebhookForm | None = None, created: Webhook | None = None) -> Response:
    view, hooks = hooks_of(visit)
    found = sorted(hooks.all(), key=lambda hook: hook.created_at, reverse=True)
    return visit.page(
        "webhooks.html",
        400 if form and form.errors else 200,
        project=view,
        hooks=found,
        manages=hooks.manages,
        form=form or WebhookForm(),
        choices=event_choices(),
        created=created,
    )


def _list(visit: Visit) -> Response:
    return _list_page(visit)


def _create(visit: Visit) -> Response:
    _view, hooks = hooks_of(visit)
    form = posted_form(visit)
    try:
        made = hooks.create(form.spec())
    except FieldsError as exc:
        return _list_page(visit, WebhookForm(form.name, form.url, form.event_types, form.is_active, exc.fields))
    return _list_page(visit, created=made)


def webhook_id(visit: Visit) -> str:
    found = visit.param("webhook_id")
    if len(found) > MAX_ID:
        raise NotFoundError("Webhook not found")
    return found


def detail_page(
    visit: Visit, form: WebhookForm | None = None, secret: Webhook | None = None, status: int = 200
) -> Response:
    """One webhook's page: `form` refused (shown as sent, with its errors), `secret` just rotated (shown once)."""
    view, hooks = hooks_of(visit)
    hook = hooks.get(webhook_id(visit))
    query: DeliveryQuery = delivery_query(visit.request.query_params)
    log = hooks.deliveries(hook.id, query.state, query.page, query.page_size)
    shown = form or WebhookForm(hook.name, hook.url, hook.event_types, hook.is_active)
    return visit.page(
        "webhook.html",
        status,
        project=view,
        hook=hook,
        manages=hooks.manages,
        form=shown,
        choices=event_choices(),
        rotated=secret,
        log=log,
        query=query,
        states=[state.value for state in DeliveryState],
        status_text=status_text,
        response_text=response_text,
    )


def _detail(visit: Visit) -> Response:
    return detail_page(visit)


def _update(visit: Visit) -> Response:
    view, hooks = hooks_of(visit)
    hook_id = webhook_id(visit)
    form = posted_form(visit)
    try:
        hooks.update(hook_id, form.spec())
    except FieldsError as exc:
        refused = WebhookForm(form.name, form.url, form.event_types, form.is_active, exc.fields)
        return detail_page(visit, form=refused, status=400)
    return visit.done(f"{view.base}/webhooks/{hook_id}", "Webhook saved.")


def _delete(visit: Visit) -> Response:
    view, hooks = hooks_of(visit)
    hook = hooks.get(webhook_id(visit))
    if visit.request.method == "GET":
        if not hooks.manages:
            raise PermissionDeniedError(OWNERS_ONLY)
        return visit.page("confirm_delete_webhook.html", project=view, hook=hook)
    hooks.delete(hook.id)
    return visit.done(f"{view.base}/webhooks", f"Webhook {hook.name} deleted, with its delivery log.")


ROUTES = [
    Route(WEBHOOKS, signed_in(_list), methods=["GET"]),
    Route(WEBHOOKS, signed_in(_create), methods=["POST"]),
    Route(WEBHOOK, signed_in(_detail), methods=["GET"]),
    Route(WEBHOOK, signed_in(_update), methods=["POST"]),
    Route(WEBHOOK + "/delete", signed_in(_delete), methods=["GET", "POST"]),
]
