"""The webhooks of a project as a signed-in person manages them (the console's adapter over the API's webhook
service): the person's role in the project is the caller's, so an OWNER manages, a READER (of the project, or of
its organization) reads the webhooks and their log and nothing more, and someone without a role finds no project."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.adapters.sqlite.webhook_store import SqliteWebhookStore
from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformUser, Role
from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState
from mnemo.errors import FieldsError, NotFoundError, PermissionDeniedError
from mnemo.ports.webhook_sender import SendResult
from mnemo.services.platform.tenancy.callers import Bootstrapped
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.webhooks.service import WebhookService, WebhookSpec
from mnemo.services.platform.webhooks.signed_in import SignedInWebhooks

URL = "https://hooks.example.com/in"


class Sender:
    """The URL rule of a sender (https only); nothing is sent through it here (the test attempts are `_send_now`)."""

    def url_problem(self, url: str) -> str | None:
        return None if url.startswith("https://") else "not https"

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        raise AssertionError("a test event is sent by send_now")


@dataclass
class World:
    tenancy: TenancyService
    hooks: SignedInWebhooks
    owner: Bootstrapped
    sent: list[str]


def _send_now(store: SqliteWebhookStore, sent: list[str]) -> Callable[[Delivery], Delivery]:
    """The dispatcher's one attempt, answered 200 at once; `sent` gets each delivery's event type."""

    def attempt(delivery: Delivery) -> Delivery:
        sent.append(delivery.event.type)
        done = delivery.tried(Attempt(now(), 200, None, 1.0), DeliveryState.DELIVERED, None)
        store.save_delivery(done)
        return done

    return attempt


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    database = Database(tmp_path / "main.sqlite3")
    tenancy = TenancyService(SqliteTenancyStore(database), lambda _namespace: None)
    store = SqliteWebhookStore(database)
    sent: list[str] = []
    service = WebhookService(store, Sender(), _send_now(store, sent))
    owner = tenancy.bootstrap("owner@example.com", "Acme")
    yield World(tenancy, SignedInWebhooks(tenancy, service), owner, sent)
    database.close()


def _member(w: World, email: str, role: Role, *, of_org: bool = False) -> PlatformUser:
    """A known user made a member of the owner's project, or of its organization (`of_org`), with `role`."""
    user = w.tenancy.bootstrap(email, "their own").user
    if of_org:
        w.tenancy.add_org_member(w.owner.org.id, w.owner.user, email, role.value)
    else:
        w.tenancy.add_project_member(w.owner.org.id, w.owner.project.id, w.owner.user, email, role.value)
    return user


SPEC = WebhookSpec(name="orders", url=URL, event_types=["memory_add"])


def test_given_an_owner_then_they_manage_the_projects_webhooks(w: World) -> None:
    hooks = w.hooks.of(w.owner.org.id, w.owner.project.id, w.owner.user)
    made = hooks.create(SPEC)
    assert hooks.manages and hooks.role is Role.OWNER
    assert made.owner == "owner@example.com" and made.project_id == w.owner.project.id
    hooks.update(made.id, WebhookSpec(name="renamed", is_active=False))
    assert [(h.name, h.is_active) for h in hooks.all()] == [("renamed", False)]
    rotated = hooks.rotate_secret(made.id)
    assert rotated.secret != made.secret and rotated.previous_secret == made.secret
    sent = hooks.send_test(made.id)
    assert sent.state is DeliveryState.DELIVERED and w.sent == ["webhook_test"]
    assert hooks.redeliver(made.id, sent.id).state is DeliveryState.PENDING
    assert hooks.deliveries(made.id, None, 1, 10).count == 1
    hooks.delete(made.id)
    assert hooks.all() == []


def test_given_the_services_field_rules_then_a_refusal_names_each_field(w: World) -> None:
    hooks = w.hooks.of(w.owner.org.id, w.owner.project.id, w.owner.user)
    with pytest.raises(FieldsError) as refused:
        hooks.create(WebhookSpec(name=" ", url="http://plain", event_types=[]))
    assert set(refused.value.fields) == {"name", "url", "event_types"}


@pytest.mark.parametrize("of_org", [False, True])
def test_given_a_reader_then_they_read_and_every_write_is_refused(w: World, of_org: bool) -> None:
    owners = w.hooks.of(w.owner.org.id, w.owner.project.id, w.owner.user)
    made = owners.create(SPEC)
    delivery = owners.send_test(made.id)
    reader = _member(w, "reader@example.com", Role.READER, of_org=of_org)
    hooks = w.hooks.of(w.owner.org.id, w.owner.project.id, reader)
    assert not hooks.manages and hooks.role is Role.READER
    assert [h.id for h in hooks.all()] == [made.id] and hooks.get(made.id).name == "orders"
    assert hooks.deliveries(made.id, None, 1, 10).count == 1
    writes: list[Callable[[], object]] = [
        lambda: hooks.create(SPEC),
        lambda: hooks.update(made.id, WebhookSpec(name="x")),
        lambda: hooks.delete(made.id),
        lambda: hooks.rotate_secret(made.id),
        lambda: hooks.send_test(made.id),
        lambda: hooks.redeliver(made.id, delivery.id),
    ]
    for write in writes:
        with pytest.raises(PermissionDeniedError):
            write()
    assert owners.get(made.id).secret == made.secret and len(w.sent) == 1


def test_given_no_role_in_the_project_then_it_is_not_found(w: World) -> None:
    stranger = w.tenancy.bootstrap("stranger@example.com", "Other")
    with pytest.raises(NotFoundError):
        w.hooks.of(w.owner.org.id, w.owner.project.id, stranger.user)
    with pytest.raises(NotFoundError):  # their own project, with another's organization id
        w.hooks.of(w.owner.org.id, stranger.project.id, stranger.user)


def test_given_another_projects_webhook_then_it_is_not_found(w: World) -> None:
    theirs = w.hooks.of(w.owner.org.id, w.owner.project.id, w.owner.user).create(SPEC)
    stranger = w.tenancy.bootstrap("stranger@example.com", "Other")
    mine = w.hooks.of(stranger.org.id, stranger.project.id, stranger.user)
    with pytest.raises(NotFoundError):
        mine.get(theirs.id)
    with pytest.raises(NotFoundError):
        mine.delete(theirs.id)
