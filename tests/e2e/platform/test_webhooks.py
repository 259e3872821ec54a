"""Platform webhooks end to end: the real `mem0ai` clients' four methods, Mem0's error shapes, every event type
from every path that makes it (reaching a real loopback receiver, signed as Standard Webhooks says), a receiver
that fails for a while, the delivery log and the operator's tools."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mem0 import AsyncMemoryClient, MemoryClient
from pydantic import SecretStr
from standardwebhooks import Webhook as StandardWebhook

from mnemo.composition.container import Container, build_container
from mnemo.domain.webhooks import EVENT_TYPES
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, serving, wait_for_event
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT, seconds
from tests.support.webhook_receiver import Received, Receiver, receiving

MEMORY_TYPES = ["memory_add", "memory_update", "memory_delete", "memory_categorize"]


def container_for(embedder: Any, root: Path, **settings: Any) -> Container:
    return build_container(
        Settings(
            data_dir=root / "data",
            jwt_secret=SecretStr("x" * 40),
            argon2_memory_kib=64,
            argon2_time_cost=1,
            webhook_allow_private_urls=True,
            webhook_retry_schedule=(0.2, 0.2, 0.2),
            **settings,
        ),
        CachedModelRegistry(embedder),
    )


@pytest.fixture(scope="module")
def server(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    container = container_for(embedder, tmp_path_factory.mktemp("webhooks"), reflection_min_memories=4)
    try:
        with serving(container) as url:
            yield Server(url, container)
    finally:
        container.close()


@pytest.fixture
def tenant(server: Server) -> Tenant:
    return new_tenant(server, "hooks")


def hooks_url(server: Server, tenant: Tenant) -> str:
    return f"{server.url}/api/v1/webhooks/projects/{tenant.project_id}/"


def create(server: Server, tenant: Tenant, url: str, event_types: list[str] | None = None) -> dict[str, Any]:
    body = {"name": "hook", "url": url, "event_types": event_types or list(EVENT_TYPES)}
    answer = httpx.post(hooks_url(server, tenant), json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def verify(received: Received, secret: str) -> dict[str, Any]:
    """The body, once `standardwebhooks` has verified its signature (it raises otherwise)."""
    verified: dict[str, Any] = StandardWebhook(secret).verify(received.raw, received.headers)
    return verified


def add_verbatim(server: Server, tenant: Tenant, text: str, **extra: Any) -> str:
    body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False, **extra}
    answer = httpx.post(
        f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    assert answer["status"] == "SUCCEEDED", answer
    return str(answer["results"][0]["id"])


# ---- the clients --------------------------------------------------------------------------------------


def test_the_sync_clients_webhook_methods(server: Server, tenant: Tenant) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    made = client.create_webhook(
        url="https://example.com/hook", name="first", project_id=tenant.project_id, event_types=["memory_add"]
    )
    assert made["name"] == "first" and made["url"] == "https://example.com/hook" and made["is_active"] is True
    assert made["event_types"] == ["memory_add"] and made["project"] == tenant.project_id
    assert made["owner"] == tenant.email and made["secret"].startswith("whsec_")
    assert set(made) >= {"webhook_id", "created_at", "updated_at"}
    listed = client.get_webhooks(project_id=tenant.project_id)
    assert [w["webhook_id"] for w in listed] == [made["webhook_id"]]
    assert "secret" not in listed[0]  # shown once, at creation
    updated = client.update_webhook(made["webhook_id"], name="renamed", event_types=["memory_delete"])
    assert updated == {"message": "Webhook updated successfully"}
    (after,) = client.get_webhooks(project_id=tenant.project_id)
    assert (after["name"], after["event_types"], after["url"]) == ("renamed", ["memory_delete"], made["url"])
    assert client.delete_webhook(made["webhook_id"]) == {"message": "Webhook deleted successfully"}
    assert client.get_webhooks(project_id=tenant.project_id) == []


def test_the_async_clients_webhook_methods(server: Server, tenant: Tenant) -> None:
    async def scenario() -> None:
        client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
        made = await client.create_webhook(
            url="https://example.com/a", name="a", project_id=tenant.project_id, event_types=["memory_update"]
        )
        assert [w["name"] for w in await client.get_webhooks(project_id=tenant.project_id)] == ["a"]
        updated = await client.update_webhook(made["webhook_id"], name="b", url="https://example.com/b")
        assert updated == {"message": "Webhook updated successfully"}
        (after,) = await client.get_webhooks(project_id=tenant.project_id)
        assert (after["name"], after["url"], after["event_types"]) == ("b", "https://example.com/b", ["memory_update"])
        assert await client.delete_webhook(made["webhook_id"]) == {"message": "Webhook deleted successfully"}
        assert await client.get_webhooks(project_id=tenant.project_id) == []

    asyncio.run(scenario())


# ---- Mem0's error shapes ------------------------------------------------------------------------------


def test_errors_have_mem0s_shapes(server: Server, tenant: Tenant) -> None:
    made = create(server, tenant, "https://example.com/hook")
    one = f"{server.url}/api/v1/webhooks/{made['webhook_id']}/"
    missing_name = httpx.put(one, json={"url": "https://example.com/x"}, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert (missing_name.status_code, missing_name.json()) == (400, {"name": ["This field is required."]})
    missing_all = httpx.post(hooks_url(server, tenant), json={}, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert missing_all.status_code == 400
    assert missing_all.json() == {f: ["This field is required."] for f in ("name", "url", "event_types")}
    wrong_type = httpx.post(
        hooks_url(server, tenant),
        json={"name": "x", "url": "https://e.com", "event_types": "memory_add"},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert wrong_type.status_code == 400 and list(wrong_type.json()) == ["event_types"]
    unknown_type = httpx.put(
        one, json={"name": "x", "event_types": ["memory_ad"]}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert unknown_type.status_code == 400 and "memory_ad" in unknown_type.json()["event_types"][0]
    not_url = httpx.put(
        one, json={"name": "x", "url": "ftp://example.com/"}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert not_url.status_code == 400 and list(not_url.json()) == ["url"]

    unknown = httpx.put(
        f"{server.url}/api/v1/webhooks/nope/", json={"name": "x"}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert (unknown.status_code, unknown.json()) == (404, {"error": "Webhook not found"})
    other = new_tenant(server, "other")
    theirs = httpx.put(one, json={"name": "mine now"}, headers=other.headers, timeout=HTTP_TIMEOUT)
    assert (theirs.status_code, theirs.json()) == (404, {"error": "Webhook not found"})  # not theirs to see
    not_their_project = httpx.get(hooks_url(server, tenant), headers=other.headers, timeout=HTTP_TIMEOUT)
    assert (not_their_project.status_code, not_their_project.json()) == (
        403,
        {"error": "You don't have access to this project"},
    )
    assert httpx.get(one, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["name"] == "hook"  # nothing changed


def test_a_reader_may_look_but_not_manage(server: Server, tenant: Tenant) -> None:
    made = create(server, tenant, "https://example.com/hook")
    owner = tenant.headers
    project = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}"
    member = {"email": known_user(server, "reader-hooks@example.com"), "role": "READER"}
    assert httpx.post(f"{project}/members/", json=member, headers=owner, timeout=HTTP_TIMEOUT).status_code == 200
    key = httpx.post(
        f"{project}/api-keys/", json={"email": member["email"], "label": "r"}, headers=owner, timeout=HTTP_TIMEOUT
    ).json()
    reader = {"Authorization": f"Token {key['api_key']}"}
    listed = httpx.get(hooks_url(server, tenant), headers=reader, timeout=HTTP_TIMEOUT)
    assert listed.status_code == 200 and [w["webhook_id"] for w in listed.json()] == [made["webhook_id"]]
    one = f"{server.url}/api/v1/webhooks/{made['webhook_id']}/"
    assert httpx.get(one, headers=reader, timeout=HTTP_TIMEOUT).status_code == 200
    for method, path, body in [
        ("POST", hooks_url(server, tenant), {"name": "x", "url": "https://e.com", "event_types": ["memory_add"]}),
        ("PUT", one, {"name": "x"}),
        ("DELETE", one, None),
        ("POST", one + "rotate-secret/", None),
        ("POST", one + "test/", None),
    ]:
        refused = httpx.request(method, path, json=body, headers=reader, timeout=HTTP_TIMEOUT)
        assert refused.status_code == 403 and set(refused.json()) == {"error"}, (method, path, refused.text)
    assert httpx.get(one, headers=owner, timeout=HTTP_TIMEOUT).json()["name"] == "hook"


# ---- events -------------------------------------------------------------------------------------------


def events_of(receiver: Receiver, secret: str, count: int) -> list[dict[str, Any]]:
    return [verify(r, secret) for r in receiver.wait_for_count(count)]


def test_every_memory_event_from_every_path_reaches_the_receiver_signed(server: Server, tenant: Tenant) -> None:
    with receiving() as receiver, receiving() as filing:
        hook = create(server, tenant, receiver.url, ["memory_add", "memory_update", "memory_delete"])
        filed = create(server, tenant, filing.url, ["memory_categorize"])
        secret = hook["secret"]
        base, h = server.url, tenant.headers
        tea = add_verbatim(server, tenant, "I drink green tea.")
        (added,) = events_of(receiver, secret, 1)
        assert added["event_type"] == "memory_add" and added["event_details"] == {
            "id": tea,
            "data": {"memory": "I drink green tea."},
            "event": "ADD",
        }
        assert (added["user_id"], added["project_id"], added["sequence"]) == ("alice", tenant.project_id, 1)
        assert added["event_id"] and added["occurred_at"] and added["webhook_id"] == hook["webhook_id"]

        httpx.put(
            f"{base}/v1/memories/{tea}/", json={"text": "I drink oolong tea."}, headers=h, timeout=HTTP_TIMEOUT
        ).raise_for_status()
        updated = events_of(receiver, secret, 2)[1]
        assert updated["event_type"] == "memory_update"
        assert updated["event_details"] == {"id": tea, "data": {"memory": "I drink oolong tea."}, "event": "UPDATE"}

        batch = {"memories": [{"memory_id": tea, "text": "I drink black tea."}]}
        httpx.put(f"{base}/v1/batch/", json=batch, headers=h, timeout=HTTP_TIMEOUT).raise_for_status()
        assert events_of(receiver, secret, 3)[2]["event_details"]["data"]["memory"] == "I drink black tea."

        httpx.delete(f"{base}/v1/memories/{tea}/", headers=h, timeout=HTTP_TIMEOUT).raise_for_status()
        deleted = events_of(receiver, secret, 4)[3]
        assert deleted["event_type"] == "memory_delete" and deleted["event_details"]["id"] == tea
        assert deleted["event_details"]["event"] == "DELETE" and deleted["user_id"] == "alice"
        assert deleted["event_details"]["data"] == {"memory": ""}  # named, not quoted: a delete erases

        ids = [add_verbatim(server, tenant, f"Fact number {n} about me.") for n in range(3)]
        events_of(receiver, secret, 7)
        httpx.request(
            "DELETE", f"{base}/v1/batch/", json={"memories": [{"memory_id": ids[0]}]}, headers=h, timeout=HTTP_TIMEOUT
        )
        httpx.delete(
            f"{base}/v1/memories/", params={"user_id": "alice"}, headers=h, timeout=HTTP_TIMEOUT
        ).raise_for_status()
        got = events_of(receiver, secret, 10)
        assert [e["event_type"] for e in got[7:]] == ["memory_delete"] * 3
        assert {e["event_details"]["id"] for e in got[7:]} == set(ids)

        bob = add_verbatim(server, tenant, "Bob likes chess.", user_id="bob")
        events_of(receiver, secret, 11)
        httpx.delete(f"{base}/v2/entities/user/bob/", headers=h, timeout=HTTP_TIMEOUT).raise_for_status()
        assert events_of(receiver, secret, 12)[11]["event_details"]["id"] == bob

        categories = [{"hobbies": "hobbies, gardening, sports, chess"}]
        garden = add_verbatim(server, tenant, "I love gardening on weekends.", custom_categories=categories)
        got = events_of(receiver, secret, 13)
        assert got[12]["event_type"] == "memory_add"
        assert [e["sequence"] for e in got] == list(range(1, 14))  # in order, each once
        # every add files its memory under a category (the defaults, or the add's own): a categorize event each
        assert filing.wait_for(
            lambda g: any(verify(r, filed["secret"])["event_details"]["memory_id"] == garden for r in g)
        )
        categorized = {
            e["event_details"]["memory_id"]: e["event_details"]["categories"]
            for e in (verify(r, filed["secret"]) for r in filing.received)
        }
        assert categorized[garden] == ["hobbies"] and set(categorized) >= {tea, garden, bob, *ids}
        assert {e["event_type"] for e in (verify(r, filed["secret"]) for r in filing.received)} == {"memory_categorize"}


def test_every_change_of_a_dream_run_reaches_the_receiver(server: Server, tenant: Tenant) -> None:
    with OpenAIServer() as llm, receiving() as receiver:
        config = {"provider": "openai", "config": {"base_url": llm.base_url, "api_key": "sk-test", "model": "m"}}
        server.container.configuration.update({"llm": config})
        try:
            hook = create(server, tenant, receiver.url, ["memory_add", "memory_update", "memory_delete"])
            texts = ["I run at 6 am.", "I book meetings before 8 am.", "I am vegetarian.", "I eat no meat."]
            ids = [add_verbatim(server, tenant, t) for t in texts]
            events_of(receiver, hook["secret"], 4)
            llm.reply_json(
                {
                    "synthesized": [{"text": "Is an early riser", "sources": ["m4", "m3"]}],
                    "merge": [{"keep": "m2", "duplicates": ["m1"], "text": "Is vegetarian and eats no meat"}],
                    "supersede": [],
                }
            )
            project = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/dream"
            on = httpx.patch(
                f"{project}/config/", json={"reflection_enabled": True}, headers=tenant.headers, timeout=HTTP_TIMEOUT
            )
            assert on.status_code == 200, on.text
            queued = httpx.post(f"{project}/run/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
            ran = wait_for_event(server, tenant, queued["event_id"])
            assert ran["status"] == "SUCCEEDED", ran

            got = events_of(receiver, hook["secret"], 7)[4:]
        finally:
            server.container.configuration.update({"llm": None})
    details = sorted((e["event_type"], e["event_details"]["id"], e["event_details"]["event"]) for e in got)
    (synthesized,) = [c for c in ran["results"][0]["changes"] if c["action"] == "SYNTHESIZE"]
    assert details == sorted(
        [
            ("memory_update", ids[2], "UPDATE"),  # the memory kept, reworded
            ("memory_delete", ids[3], "DELETE"),  # its duplicate, merged into it
            ("memory_add", synthesized["id"], "ADD"),
        ]
    )
    reworded = next(e for e in got if e["event_type"] == "memory_update")
    assert reworded["event_details"]["data"] == {"memory": "Is vegetarian and eats no meat"}


def test_an_asynchronous_add_is_an_ingest_job(server: Server, tenant: Tenant) -> None:
    with receiving() as receiver:
        hook = create(server, tenant, receiver.url, ["memory_add", "ingest_job_completed", "ingest_job_failed"])
        body = {"messages": "I moved to Lisbon last spring.", "user_id": "carol"}
        queued = httpx.post(
            f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
        ).json()
        assert wait_for_event(server, tenant, queued["event_id"])["status"] == "SUCCEEDED"
        got = [
            verify(r, hook["secret"])
            for r in receiver.wait_for(lambda g: any(r.body["event_type"] == "ingest_job_completed" for r in g))
        ]
        job = next(e for e in got if e["event_type"] == "ingest_job_completed")
        assert job["event_details"]["job_id"] == queued["event_id"]
        assert job["event_details"]["status"] == "SUCCEEDED" and job["event_details"]["results"] == {"ADD": 1}
        assert any(e["event_type"] == "memory_add" for e in got)


def test_a_webhook_gets_only_its_types_and_only_its_projects_events(server: Server, tenant: Tenant) -> None:
    other = new_tenant(server, "elsewhere")
    with receiving() as receiver:
        create(server, tenant, receiver.url, ["memory_delete"])
        memory = add_verbatim(server, tenant, "I collect stamps.")
        add_verbatim(server, other, "I collect coins.")
        httpx.delete(
            f"{server.url}/v1/memories/{memory}/", headers=tenant.headers, timeout=HTTP_TIMEOUT
        ).raise_for_status()
        (only,) = receiver.wait_for_count(1)
        time.sleep(0.5)
        assert len(receiver.received) == 1 and only.body["event_type"] == "memory_delete"


# ---- delivery ------------------------------------------------------------------------------------------


def test_a_receiver_that_fails_for_a_while_gets_every_event_in_order(server: Server, tenant: Tenant) -> None:
    with receiving(script=[500, 503, 500]) as receiver:
        hook = create(server, tenant, receiver.url, ["memory_add"])
        texts = [f"Event number {n} happened." for n in range(5)]
        for text in texts:
            add_verbatim(server, tenant, text)
        got = receiver.wait_for_count(5)
        assert [verify(r, hook["secret"])["event_details"]["data"]["memory"] for r in got] == texts
        assert len(receiver.received) >= 8  # the failures were retried with the same webhook-id
        assert receiver.received[0].webhook_id == receiver.received[1].webhook_id == got[0].webhook_id
        log = httpx.get(
            f"{server.url}/api/v1/webhooks/{hook['webhook_id']}/deliveries/",
            headers=tenant.headers,
            timeout=HTTP_TIMEOUT,
        ).json()
        assert log["count"] == 5 and [d["sequence"] for d in log["results"]] == [5, 4, 3, 2, 1]
        first = log["results"][-1]
        assert first["state"] == "delivered" and [a["status_code"] for a in first["attempts"]] == [500, 503, 500, 200]


def test_dead_letters_are_kept_and_redeliverable(server: Server, tenant: Tenant) -> None:
    with receiving(then=500) as receiver:
        hook = create(server, tenant, receiver.url, ["memory_add"])
        add_verbatim(server, tenant, "I play the cello.")
        deliveries = f"{server.url}/api/v1/webhooks/{hook['webhook_id']}/deliveries/"
        deadline = time.monotonic() + seconds(20)
        while not (
            dead := httpx.get(
                deliveries, params={"status": "dead"}, headers=tenant.headers, timeout=HTTP_TIMEOUT
            ).json()
        )["count"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        (delivery,) = dead["results"]
        assert len(delivery["attempts"]) == 4 and delivery["next_attempt_at"] is None  # the schedule, then given up
        receiver.then = 200
        again = httpx.post(f"{deliveries}{delivery['id']}/redeliver/", headers=tenant.headers, timeout=HTTP_TIMEOUT)
        assert again.status_code == 202 and again.json()["state"] == "pending"
        (got,) = receiver.wait_for_count(1)
        assert got.webhook_id == delivery["id"] and verify(got, hook["secret"])["event_type"] == "memory_add"


def test_410_gone_turns_the_webhook_off(server: Server, tenant: Tenant) -> None:
    with receiving(then=410) as receiver:
        hook = create(server, tenant, receiver.url, ["memory_add"])
        add_verbatim(server, tenant, "I swim in the sea.")
        one = f"{server.url}/api/v1/webhooks/{hook['webhook_id']}/"
        deadline = time.monotonic() + seconds(20)
        while httpx.get(one, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["is_active"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert httpx.get(one, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["deactivated_reason"] == "410 Gone"
        add_verbatim(server, tenant, "I swim in lakes too.")
        time.sleep(0.5)
        assert len(receiver.received) == 1


def test_the_test_event_and_a_rotated_secret(server: Server, tenant: Tenant) -> None:
    with receiving() as receiver:
        hook = create(server, tenant, receiver.url, ["memory_delete"])
        one = f"{server.url}/api/v1/webhooks/{hook['webhook_id']}/"
        tested = httpx.post(one + "test/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
        assert tested["state"] == "delivered" and tested["event_type"] == "webhook_test"
        rotated = httpx.post(one + "rotate-secret/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
        assert rotated["secret"] != hook["secret"] and rotated["secret"].startswith("whsec_")
        httpx.post(one + "test/", headers=tenant.headers, timeout=HTTP_TIMEOUT).raise_for_status()
        first, second = receiver.wait_for_count(2)
        verify(first, hook["secret"])
        for secret in (hook["secret"], rotated["secret"]):  # during the overlap both secrets verify
            assert verify(second, secret)["event_type"] == "webhook_test"


def test_without_the_development_switch_no_webhook_may_aim_inside(embedder: Any, tmp_path: Path) -> None:
    """The deployment's default: a URL whose host is (or resolves to) an internal address is refused at create and
    update, keyed by `url`; a public address is taken."""
    container = build_container(
        Settings(data_dir=tmp_path / "data", jwt_secret=SecretStr("x" * 40), argon2_memory_kib=64, argon2_time_cost=1),
        CachedModelRegistry(embedder),
    )
    try:
        with serving(container) as url:
            tenant = new_tenant(Server(url, container), "inside")
            hooks = f"{url}/api/v1/webhooks/projects/{tenant.project_id}/"
            inside = [
                "http://127.0.0.1:8000/hook",
                "http://localhost/hook",
                "http://169.254.169.254/latest/meta-data/",
                "http://10.0.0.5/hook",
                "http://[::1]/hook",
                "http://[::ffff:127.0.0.1]/hook",
                "http://0.0.0.0/hook",
                "file:///etc/passwd",
            ]
            for target in inside:
                body = {"name": "in", "url": target, "event_types": ["memory_add"]}
                refused = httpx.post(hooks, json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
                assert refused.status_code == 400 and list(refused.json()) == ["url"], (target, refused.text)
            public = {"name": "out", "url": "https://93.184.216.34/hook", "event_types": ["memory_add"]}
            made = httpx.post(hooks, json=public, headers=tenant.headers, timeout=HTTP_TIMEOUT)
            assert made.status_code == 201, made.text
            one = f"{url}/api/v1/webhooks/{made.json()['webhook_id']}/"
            moved = httpx.put(
                one, json={"name": "out", "url": "http://192.168.1.1/"}, headers=tenant.headers, timeout=HTTP_TIMEOUT
            )
            assert moved.status_code == 400 and list(moved.json()) == ["url"]
            assert (
                httpx.get(one, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["url"]
                == "https://93.184.216.34/hook"
            )
    finally:
        container.close()


def test_a_webhook_body_naming_another_project_is_refused_and_nothing_is_made(server: Server, tenant: Tenant) -> None:
    body = {"name": "w", "url": "https://example.com/h", "event_types": ["memory_add"], "project_id": "someone-else"}
    answer = httpx.post(hooks_url(server, tenant), json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 400 and "project_id" in answer.json(), answer.text
    assert httpx.get(hooks_url(server, tenant), headers=tenant.headers, timeout=HTTP_TIMEOUT).json() == []
    same = httpx.post(
        hooks_url(server, tenant),
        json={**body, "project_id": tenant.project_id},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert same.status_code == 201, same.text
    update = {"name": "w2", "project_id": "someone-else"}
    moved = httpx.put(
        f"{server.url}/api/v1/webhooks/{same.json()['webhook_id']}/",
        json=update,
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert moved.status_code == 400 and "project_id" in moved.json(), moved.text
