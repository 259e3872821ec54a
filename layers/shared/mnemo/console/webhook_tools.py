"""The operator's tools on one webhook's page, each an OWNER's, as in the API: send a test event at once and say how
it went; rotate the signing secret (the new one shown this once, with a copy button, and the old one signing beside
it a while); send a delivery of the log again."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.console.visits import Visit, signed_in
from mnemo.console.webhook_forms import MAX_ID, hooks_of
from mnemo.console.webhook_log import outcome
from mnemo.console.webhooks import WEBHOOK, detail_page, webhook_id
from mnemo.errors import NotFoundError
from mnemo.services.platform.webhooks.service import DELIVERY_NOT_FOUND


def _test(visit: Visit) -> Response:
    view, hooks = hooks_of(visit)
    hook_id = webhook_id(visit)
    sent = hooks.send_test(hook_id)
    return visit.done(f"{view.base}/webhooks/{hook_id}", outcome(sent))


def _rotate(visit: Visit) -> Response:
    _view, hooks = hooks_of(visit)
    rotated = hooks.rotate_secret(webhook_id(visit))
    return detail_page(visit, secret=rotated)


def _redeliver(visit: Visit) -> Response:
    view, hooks = hooks_of(visit)
    hook_id = webhook_id(visit)
    delivery_id = visit.param("delivery_id")
    if len(delivery_id) > MAX_ID:
        raise NotFoundError(DELIVERY_NOT_FOUND)
    again = hooks.redeliver(hook_id, delivery_id)
    return visit.done(f"{view.base}/webhooks/{hook_id}", f"Delivery {again.sequence} is queued to be sent again.")


ROUTES = [
    Route(WEBHOOK + "/test", signed_in(_test), methods=["POST"]),
    Route(WEBHOOK + "/rotate-secret", signed_in(_rotate), methods=["POST"]),
    Route(WEBHOOK + "/deliveries/{delivery_id}/redeliver", signed_in(_redeliver), methods=["POST"]),
]
