"""Platform webhooks end to end on the AWS backend: the same scenarios as test_webhooks.py (the embedded backend's),
against the AWS composition under moto — the platform served over HTTP, the memory stores and the tenancy store
writing their DynamoDB outboxes, each write's events published to SNS after its commit, SNS delivering them to the
webhook delivery queue, and the delivery function's Lambda handler pumped from that queue and from its schedule
(tests/support/webhook_aws.py), sending to real loopback receivers.

The scenarios are test_webhooks.py's own functions, collected here again with this module's `server` and `tenant`
fixtures; the retry schedule is the same (0.2 s between four attempts)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mnemo.adapters.dynamodb.webhook_store import DynamoWebhookStore
from tests.e2e.platform import test_webhooks as embedded
from tests.e2e.platform.conftest import Server, Tenant, new_tenant, serving
from tests.e2e.platform.test_webhooks import add_verbatim, create, verify
from tests.support import moto_aws
from tests.support.waits import HTTP_TIMEOUT
from tests.support.webhook_aws import aws_webhook_backend
from tests.support.webhook_receiver import receiving

# The embedded backend's scenarios, collected again here with this module's fixtures (the AWS backend).
test_410_gone_turns_the_webhook_off = embedded.test_410_gone_turns_the_webhook_off
test_a_receiver_that_fails_for_a_while_gets_every_event_in_order = (
    embedded.test_a_receiver_that_fails_for_a_while_gets_every_event_in_order
)
test_a_webhook_gets_only_its_types_and_only_its_projects_events = (
    embedded.test_a_webhook_gets_only_its_types_and_only_its_projects_events
)
test_an_asynchronous_add_is_an_ingest_job = embedded.test_an_asynchronous_add_is_an_ingest_job
test_dead_letters_are_kept_and_redeliverable = embedded.test_dead_letters_are_kept_and_redeliverable
test_every_memory_event_from_every_path_reaches_the_receiver_signed = (
    embedded.test_every_memory_event_from_every_path_reaches_the_receiver_signed
)
test_the_sync_clients_webhook_methods = embedded.test_the_sync_clients_webhook_methods
test_the_test_event_and_a_rotated_secret = embedded.test_the_test_event_and_a_rotated_secret
test_the_async_clients_webhook_methods = embedded.test_the_async_clients_webhook_methods
test_errors_have_mem0s_shapes = embedded.test_errors_have_mem0s_shapes
test_a_reader_may_look_but_not_manage = embedded.test_a_reader_may_look_but_not_manage


@pytest.fixture(scope="module")
def server(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("webhooks-aws")
    with aws_webhook_backend(embedder, root) as container, serving(container) as url:
        yield Server(url, container, "aws")


@pytest.fixture
def tenant(server: Server) -> Tenant:
    return new_tenant(server, "hooks")


def test_a_deleted_project_takes_its_webhooks_and_their_deliveries(server: Server, tenant: Tenant) -> None:
    with receiving() as receiver:
        hook = create(server, tenant, receiver.url, ["memory_add"])
        add_verbatim(server, tenant, "I keep bees.")
        (got,) = receiver.wait_for_count(1)
        assert verify(got, hook["secret"])["event_type"] == "memory_add"
    store = DynamoWebhookStore(moto_aws.client("dynamodb"), os.environ["MNEMO_ACCOUNTS_TABLE"])
    assert store.count_deliveries(hook["webhook_id"], None) == 1
    project = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    assert httpx.delete(project, headers=tenant.headers, timeout=HTTP_TIMEOUT).status_code < 300
    assert store.get_webhook(hook["webhook_id"]) is None
    assert store.webhooks_of_project(tenant.project_id) == []
    assert store.count_deliveries(hook["webhook_id"], None) == 0
    assert store.deliveries_of(hook["webhook_id"], None, 10, 0) == []
