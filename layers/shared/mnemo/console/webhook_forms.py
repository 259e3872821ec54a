"""What the webhook pages share: the project's webhooks as the signed-in person may manage them (the platform's
`SignedInWebhooks` over the API's own service, so the console follows the API's role rules), the form of a webhook
read into the service's `WebhookSpec`, and the service's field errors kept for the form they came from.

A webhook's event types are one checkbox each (`event_<type>`): a form keeps one value a name, and a name per type
also lets an unknown type sent by hand reach the service, which refuses it with the API's message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mnemo.console.projects import ProjectView, project_view
from mnemo.console.visits import Visit
from mnemo.domain.webhooks import EVENT_TYPES
from mnemo.errors import UnavailableError
from mnemo.services.platform.unavailable import Unavailable
from mnemo.services.platform.webhooks.service import WebhookSpec
from mnemo.services.platform.webhooks.signed_in import ProjectWebhooks, SignedInWebhooks

SECTION = "webhooks"
EVENT_FIELD = "event_"
MAX_ID = 64  # characters of a webhook's or a delivery's id in a path, as the API bounds them


@dataclass(frozen=True, slots=True)
class WebhookForm:
    """A webhook form as the page shows it: the values to fill it with and each field's refusal."""

    name: str = ""
    url: str = ""
    event_types: tuple[str, ...] = ()
    is_active: bool = True
    errors: Mapping[str, list[str]] = field(default_factory=dict)

    def spec(self) -> WebhookSpec:
        return WebhookSpec(name=self.name, url=self.url, event_types=list(self.event_types), is_active=self.is_active)


def hooks_of(visit: Visit) -> tuple[ProjectView, ProjectWebhooks]:
    """The project's view and its webhooks for the signed-in person; UnavailableError (503) on a backend without
    webhooks."""
    view = project_view(visit, SECTION)
    service = visit.platform.webhooks
    if isinstance(service, Unavailable):
        raise UnavailableError(service.reason)
    hooks = SignedInWebhooks(visit.platform.tenancy, service).of(
        view.org_id, view.details.project.id, visit.session.user
    )
    return view, hooks


def posted_form(visit: Visit) -> WebhookForm:
    """The webhook the form posts, as said (the service checks every field)."""
    chosen = tuple(name.removeprefix(EVENT_FIELD) for name in visit.form if name.startswith(EVENT_FIELD))
    return WebhookForm(
        name=visit.field("name"),
        url=visit.field("url"),
        event_types=chosen,
        is_active=visit.form.get("is_active") == "on",
    )


def event_choices() -> tuple[str, ...]:
    return EVENT_TYPES
