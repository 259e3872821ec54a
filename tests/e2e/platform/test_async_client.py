"""The real `AsyncMemoryClient` against a running server: the same calls as the sync client, awaited."""

from __future__ import annotations

import asyncio

from mem0 import AsyncMemoryClient
from mem0.exceptions import MemoryNotFoundError

from tests.e2e.platform.conftest import Server, Tenant, wait_for_event


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
