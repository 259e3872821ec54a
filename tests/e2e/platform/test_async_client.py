"""The real `AsyncMemoryClient` against a running server: the same calls as the sync client, awaited. Every
method of it but `chat` (which the client does not implement) is called here, on both backends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from mem0 import AsyncMemoryClient
from mem0.exceptions import MemoryNotFoundError

from tests.e2e.platform.conftest import Server, Tenant, known_user, wait_for_event
from tests.support.waits import HTTP_TIMEOUT, seconds


async def scenario(server: Server, tenant: Tenant) -> None:
    client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
    assert (client.org_id, client.project_id) == (tenant.org_id, tenant.project_id)
    queued = await client.add("I grow tomatoes on my balcony.", user_id="alice")
    assert queued["status"] == "PENDING"
    assert (await asyncio.to_thread(wait_for_event, server, tenant, queued["event_id"]))["status"] == "SUCCEEDED"
    direct = await client.add([{"role": "user", "content": "I bake bread on Sundays"}], user_id="alice", infer=False)
    bread = direct["results"][0]["id"]

    listed = await client.get_all(filters={"user_id": "alice"}, page=1, page_size=10)
    assert {m["memory"] for m in listed["results"]} == {"I grow tomatoes on my balcony.", "I bake bread on Sundays"}
    found = await client.search("gardening vegetables", filters={"user_id": "alice"}, top_k=1)
    assert [m["memory"] for m in found["results"]] == ["I grow tomatoes on my balcony."]
    assert (await client.get(bread))["memory"] == "I bake bread on Sundays"
    updated = await client.update(bread, text="I bake sourdough on Sundays")
    assert updated["memory"] == "I bake sourdough on Sundays"
    assert [h["event"] for h in await client.history(bread)] == ["ADD", "UPDATE"]
    assert (await client.batch_update([{"memory_id": bread, "metadata": {"k": "v"}}]))["message"].startswith(
        "Successfully updated 1"
    )
    assert (await client.get(bread))["metadata"] == {"k": "v"}
    users = await client.users()
    assert [(e["type"], e["name"], e["total_memories"]) for e in users["results"]] == [("user", "alice", 2)]
    assert (await client.feedback(bread, feedback="NEGATIVE"))["feedback"] == "NEGATIVE"
    export = await client.create_memory_export(
        schema={"type": "object", "properties": {"facts": {"type": "array"}}}, filters={"user_id": "alice"}
    )
    exported = await client.get_memory_export(memory_export_id=export["id"])
    assert set(exported["facts"]) == {"I grow tomatoes on my balcony.", "I bake sourdough on Sundays"}
    assert (await client.get_summary(filters={"user_id": "alice"}))[0]["total_memories"] == 2
    assert (await client.project.get(fields=["decay"])) == {"decay": False}
    await client.project.update(decay=True)
    assert (await client.project.get(fields=["decay"])) == {"decay": True}
    known_user(server, "sam@example.com")
    assert (await client.project.add_member("sam@example.com"))["message"] == "User added to the project successfully."
    assert len((await client.project.get_members())["members"]) == 2

    await client.delete(bread)
    try:
        await client.get(bread)
    except MemoryNotFoundError:
        pass
    else:
        raise AssertionError("a deleted memory was still found")
    await client.batch_delete(
        [{"memory_id": m["id"]} for m in (await client.get_all(filters={"user_id": "alice"}))["results"]]
    )
    assert (await client.get_all(filters={"user_id": "alice"}))["count"] == 0
    await client.add([{"role": "user", "content": "agent note"}], agent_id="bot", infer=False)
    await client.delete_all(agent_id="bot")
    assert (await client.users())["results"] == []
    await client.add([{"role": "user", "content": "run note"}], run_id="r1", infer=False)
    await client.delete_users(run_id="r1")
    await client.add([{"role": "user", "content": "last note"}], user_id="zed", infer=False)
    await client.reset()
    assert (await client.users())["results"] == []


def test_async_client(server: Server, tenant: Tenant) -> None:
    asyncio.run(scenario(server, tenant))


# A public address (no DNS needed) that nothing is ever sent to: no memory changes while the webhook exists.
NEVER_CALLED = "https://1.1.1.1/mnemo-test-hook"
PROFILE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The user's name."},
        "occupation": {"type": "string", "description": "The user's job."},
    },
}


async def until(
    read: Callable[[], Awaitable[dict[str, Any]]], done: Callable[[dict[str, Any]], bool], timeout: float = 30
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds(timeout)
    while True:
        got = await read()
        if done(got):
            return got
        assert time.monotonic() < deadline, f"still {got}"
        await asyncio.sleep(0.05)


async def webhooks(server: Server, tenant: Tenant) -> None:
    """Made, listed, changed, deleted (the project has no memory: nothing is delivered)."""
    client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
    made = await client.create_webhook(
        url=NEVER_CALLED, name="hook", project_id=tenant.project_id, event_types=["memory_add"]
    )
    assert (made["name"], made["url"], made["event_types"]) == ("hook", NEVER_CALLED, ["memory_add"])
    assert made["project"] == tenant.project_id and made["is_active"] is True and made["secret"].startswith("whsec_")
    listed = await client.get_webhooks(project_id=tenant.project_id)
    assert [w["webhook_id"] for w in listed] == [made["webhook_id"]] and "secret" not in listed[0]
    changed = await client.update_webhook(made["webhook_id"], name="renamed", event_types=["memory_delete"])
    assert changed == {"message": "Webhook updated successfully"}
    (after,) = await client.get_webhooks(project_id=tenant.project_id)
    assert (after["name"], after["url"], after["event_types"]) == ("renamed", NEVER_CALLED, ["memory_delete"])
    assert await client.delete_webhook(made["webhook_id"]) == {"message": "Webhook deleted successfully"}
    assert await client.get_webhooks(project_id=tenant.project_id) == []


async def deprecated_project_methods(server: Server, tenant: Tenant) -> None:
    client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
    assert await client.get_project(fields=["custom_instructions", "memory_depth"]) == {
        "custom_instructions": None,
        "memory_depth": None,
    }
    updated = await client.update_project(
        custom_instructions="Keep what the user does for a living.",
        memory_depth="deep",
        usecase_setting="A career coach",
        multilingual=True,
        agent_custom_instructions="Keep the tools the agent learned.",
    )
    assert updated["message"] == "Project updated successfully"
    project = await client.get_project()
    assert (project["project_id"], project["org_id"]) == (tenant.project_id, tenant.org_id)
    assert project["custom_instructions"] == "Keep what the user does for a living."
    assert project["agent_custom_instructions"] == "Keep the tools the agent learned."
    assert (project["memory_depth"], project["usecase_setting"], project["multilingual"]) == (
        "deep",
        "A career coach",
        True,
    )
    assert await client.get_project(fields=["multilingual"]) == {"multilingual": True}


async def profiles(server: Server, tenant: Tenant) -> None:
    """Off until enabled; a generation job runs to its end and the profile is read; a sample."""
    client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
    added = await client.add(
        [{"role": "user", "content": "My name is Alice Martin. I work as a nurse in Porto."}],
        user_id="alice",
        infer=False,
    )
    ids = {r["id"] for r in added["results"]}
    assert (await client.get_profile("alice"))["status"] == "not_enabled"
    settings = await client.get_profile_settings()
    assert settings["enabled"] is False and settings["capabilities"]["jobs"] is True
    enabled = await client.update_profile_settings(enabled=True, schema=PROFILE_SCHEMA, custom_instructions="Brief.")
    assert enabled["enabled"] is True
    assert enabled["entities"]["user"] | {"min_memories": 1} == {
        "schema": PROFILE_SCHEMA,
        "custom_instructions": "Brief.",
        "min_memories": 1,
    }
    assert await client.get_profile_settings() == enabled

    job = await client.generate_profile("alice", idempotency_key="async-profile-1")
    assert (job["operation"], job["entity_type"], job["replayed"]) == ("trigger", "user", False)
    assert await client.generate_profile("alice", idempotency_key="async-profile-1") == job | {"replayed": True}
    done = await until(
        lambda: client.get_profile_job(job["status_url"]), lambda j: j["job"]["status"] not in ("queued", "running")
    )
    assert done["job"]["status"] == "succeeded" and done["job"]["total"] == done["job"]["completed"] == 1
    assert await client.get_profile_job(job["job_id"]) == done
    profile = await until(lambda: client.get_profile("alice"), lambda p: p["status"] != "pending")
    # No LLM: the similarity generator fills what the memory supports, citing it (or says there is too little).
    assert profile["status"] in ("succeeded", "insufficient_data"), profile
    assert (profile["entity_type"], profile["entity_id"]) == ("user", "alice") and profile["generation_count"] >= 1
    assert {source for sources in profile["sources"].values() for source in sources} <= ids

    sampled = await client.sample_profiles(limit=5)
    assert (sampled["operation"], sampled["sampled"], sampled["entity_ids"]) == ("sample", 1, ["alice"])
    finished = await until(
        lambda: client.get_profile_job(sampled["job_id"]), lambda j: j["job"]["status"] not in ("queued", "running")
    )
    assert finished["job"]["status"] == "succeeded" and finished["job"]["entity_ids"] == ["alice"]
    assert (await client.update_profile_settings(enabled=False))["enabled"] is False
    assert (await client.get_profile("alice"))["status"] == "not_enabled"


async def members_and_projects(server: Server, tenant: Tenant) -> None:
    client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
    known_user(server, "ana@example.com")
    assert (await client.project.add_member("ana@example.com"))["message"] == "User added to the project successfully."
    assert await client.project.update_member("ana@example.com", "OWNER") == {
        "message": "User role updated successfully."
    }
    assert {m["role"] for m in (await client.project.get_members())["members"]} == {"OWNER"}
    assert await client.project.remove_member("ana@example.com") == {"message": "Member removed from the project"}
    assert [m["username"] for m in (await client.project.get_members())["members"]] == [tenant.email]
    created = await client.project.create("Second", description="for experiments")
    assert created["message"] == "Project created successfully."
    org = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}"
    async with httpx.AsyncClient(headers=tenant.headers, timeout=HTTP_TIMEOUT) as http:
        made_key = await http.post(f"{org}/projects/{created['project_id']}/api-keys/", json={"label": "exp"})
        key = made_key.json()["api_key"]
        second = AsyncMemoryClient(api_key=key, host=server.url)
        assert second.project_id == created["project_id"]
        await second.add([{"role": "user", "content": "I test things here"}], user_id="u", infer=False)
        assert await second.project.delete() == {"message": "Project and related data deleted successfully."}
        assert (await http.get(f"{org}/projects/{created['project_id']}/")).status_code == 404
        assert (await http.get(f"{server.url}/v1/ping/", headers={"Authorization": f"Token {key}"})).status_code == 401
    assert (await client.project.get(fields=["name"])) == {"name": "Default Project"}  # the first is untouched


def test_async_client_webhooks(server: Server, tenant: Tenant) -> None:
    asyncio.run(webhooks(server, tenant))


def test_async_client_deprecated_project_methods(server: Server, tenant: Tenant) -> None:
    asyncio.run(deprecated_project_methods(server, tenant))


def test_async_client_profiles(server: Server, tenant: Tenant) -> None:
    asyncio.run(profiles(server, tenant))


def test_async_client_project_members_create_and_delete(server: Server, tenant: Tenant) -> None:
    asyncio.run(members_and_projects(server, tenant))
