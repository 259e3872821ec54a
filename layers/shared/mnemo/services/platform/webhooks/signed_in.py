"""A project's webhooks as a signed-in person manages them (the web console), through the same WebhookService the
API uses.

The service authorizes a *key's* caller: a project API key names its user, its project and that user's role there.
A person signed in to the console holds no key, so this adapter makes the caller from what they hold instead: their
membership of the project, read by the tenancy service (no role in it: not found; the role it gives: what they may
do). Every rule stays the service's own, as the API applies it: a READER lists and reads the webhooks and their
delivery log; creating, changing, deleting, testing, rotating a secret and redelivering are an OWNER's; a webhook of
another project is not found.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.domain.tenancy import PlatformUser, Role
from mnemo.domain.webhooks import Delivery, DeliveryState, Webhook
from mnemo.services.platform.tenancy.callers import PlatformCaller
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.webhooks.service import DeliveryPage, WebhookService, WebhookSpec

SIGNED_IN = "console-session"  # the caller's key id: none, the person signed in


@dataclass(frozen=True, slots=True)
class ProjectWebhooks:
    """The webhooks of one project, for one person with their role in it."""

    caller: PlatformCaller
    service: WebhookService

    @property
    def role(self) -> Role:
        return self.caller.role

    @property
    def manages(self) -> bool:
        return self.caller.role.allows(Role.OWNER)

    def all(self) -> list[Webhook]:
        return self.service.of_project(self.caller, self.caller.project_id)

    def create(self, spec: WebhookSpec) -> Webhook:
        return self.service.create(self.caller, self.caller.project_id, spec)

    def get(self, webhook_id: str) -> Webhook:
        return self.service.get(self.caller, webhook_id)

    def update(self, webhook_id: str, spec: WebhookSpec) -> Webhook:
        return self.service.update(self.caller, webhook_id, spec)

    def delete(self, webhook_id: str) -> None:
        self.service.delete(self.caller, webhook_id)

    def rotate_secret(self, webhook_id: str) -> Webhook:
        return self.service.rotate_secret(self.caller, webhook_id)

    def send_test(self, webhook_id: str) -> Delivery:
        return self.service.send_test(self.caller, webhook_id)

    def deliveries(self, webhook_id: str, state: DeliveryState | None, page: int, page_size: int) -> DeliveryPage:
        return self.service.deliveries(self.caller, webhook_id, state, page, page_size)

    def redeliver(self, webhook_id: str, delivery_id: str) -> Delivery:
        return self.service.redeliver(self.caller, webhook_id, delivery_id)


class SignedInWebhooks:
    def __init__(self, tenancy: TenancyService, webhooks: WebhookService) -> None:
        self._tenancy = tenancy
        self._webhooks = webhooks

    def of(self, org_id: str, project_id: str, user: PlatformUser) -> ProjectWebhooks:
        """The project's webhooks as `user` may manage them: NotFoundError unless they have a role in the project
        (directly, or through its organization)."""
        details = self._tenancy.project(org_id, project_id, user)
        caller = PlatformCaller(user=user, project=details.project, role=details.role, key_id=SIGNED_IN)
        return ProjectWebhooks(caller, self._webhooks)
