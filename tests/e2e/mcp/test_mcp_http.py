"""The MCP server at POST /mcp, driven by the official SDK's client over streamable HTTP: every tool with a project
key (the platform) and with an m0sk_ key (self-hosted), the refusals of missing and wrong credentials, and the
isolation of one project from another."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.mcp.conftest import ADMIN_KEY, Deployment, ok, over_http, refused, text_of
from tests.support.waits import HTTP_TIMEOUT

TOOLS = {
    "add_memory",
    "search_memories",
    "get_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "delete_all_memories",
    "list_entities",
    "delete_entities",
}


def run(scenario: Any, *args: Any) -> Any:
    return anyio.run(scenario, *args)


def test_the_tools_are_the_reference_servers_each_described_with_a_schema(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            listed = (await client.list_tools()).tools
            assert {t.name for t in listed} == TOOLS
            for tool in listed:
                assert tool.description and len(tool.description) > 20, tool.name
                assert tool.input_schema["type"] == "object"
            by_name = {t.name: t for t in listed}
            assert by_name["search_memories"].input_schema["required"] == ["query"]
            assert by_name["search_memories"].annotations is not None
            assert by_name["search_memories"].annotations.read_only_hint is True
            assert by_name["delete_memory"].annotations is not None
            assert by_name["delete_memory"].annotations.destructive_hint is True
            prompts = (await client.list_prompts()).prompts
            assert [p.name for p in prompts] == ["memory_assistant"]

    run(scenario)


def test_with_a_project_key_every_tool_works_on_that_projects_memories(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            added = ok(await client.call_tool("add_memory", {"text": "I am allergic to peanuts", "user_id": "alice"}))
            [memory] = added["results"]
            assert memory["event"] == "ADD" and "peanut" in memory["memory"]
            memory_id = memory["id"]
            turns = [
                {"role": "user", "content": "My sister Jane lives in Lisbon."},
                {"role": "assistant", "content": "Lovely city!"},
            ]
            ok(await client.call_tool("add_memory", {"messages": turns, "user_id": "alice", "run_id": "trip"}))
            ok(await client.call_tool("add_memory", {"text": "Prefers window seats", "agent_id": "travel-bot"}))

            found = ok(
                await client.call_tool("search_memories", {"query": "food allergy", "filters": {"user_id": "alice"}})
            )
            assert found["results"][0]["id"] == memory_id

            page = ok(await client.call_tool("get_memories", {"filters": {"user_id": "alice"}, "page_size": 10}))
            assert memory_id in {m["id"] for m in page["results"]} and page["count"] == len(page["results"]) >= 2

            got = ok(await client.call_tool("get_memory", {"memory_id": memory_id}))
            assert got["id"] == memory_id and got["user_id"] == "alice"

            ok(
                await client.call_tool(
                    "update_memory", {"memory_id": memory_id, "text": "Allergic to peanuts and shellfish"}
                )
            )
            got = ok(await client.call_tool("get_memory", {"memory_id": memory_id}))
            assert got["memory"] == "Allergic to peanuts and shellfish"

            entities = ok(await client.call_tool("list_entities", {}))
            names = {(e["type"], e["name"]) for e in entities["results"]}
            assert {("user", "alice"), ("agent", "travel-bot"), ("run", "trip")} <= names

            ok(await client.call_tool("delete_memory", {"memory_id": memory_id}))
            gone = refused(await client.call_tool("get_memory", {"memory_id": memory_id}))
            assert "404" in gone

            ok(await client.call_tool("delete_all_memories", {"run_id": "trip"}))
            left = ok(await client.call_tool("get_memories", {"filters": {"run_id": "trip"}}))
            assert left["results"] == []

            ok(await client.call_tool("delete_entities", {"agent_id": "travel-bot"}))
            entities = ok(await client.call_tool("list_entities", {}))
            assert ("agent", "travel-bot") not in {(e["type"], e["name"]) for e in entities["results"]}

    run(scenario)


def test_a_call_that_names_no_entity_belongs_to_the_default_user(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            [memory] = ok(await client.call_tool("add_memory", {"text": "Works night shifts", "infer": False}))[
                "results"
            ]
            got = ok(await client.call_tool("get_memory", {"memory_id": memory["id"]}))
            assert got["user_id"] == "mnemo-mcp"
            found = ok(await client.call_tool("search_memories", {"query": "night shifts"}))
            assert [h["id"] for h in found["results"]] == [memory["id"]]

    run(scenario)


def test_what_the_api_refuses_is_the_tools_error_with_its_status_and_message(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            assert "400" in refused(await client.call_tool("get_memory", {"memory_id": "not-a-uuid"}))
            assert "404" in refused(await client.call_tool("get_memory", {"memory_id": str(uuid.uuid4())}))
            assert "text" in refused(await client.call_tool("add_memory", {"user_id": "alice"}))
            both = refused(await client.call_tool("delete_entities", {"user_id": "a", "agent_id": "b"}))
            assert "exactly one" in both
            too_long = await client.call_tool("search_memories", {"query": "x" * 100_001})
            assert too_long.is_error

    run(scenario)


def test_one_projects_key_never_reaches_another_projects_memories(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")
    globex = deployment.tenant(f"globex{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            added = ok(await client.call_tool("add_memory", {"text": "Secret launch date is May 3", "user_id": "u1"}))
            memory_id = added["results"][0]["id"]
        async with over_http(deployment.url, globex.headers) as other:
            assert "404" in refused(await other.call_tool("get_memory", {"memory_id": memory_id}))
            found = ok(await other.call_tool("search_memories", {"query": "launch date", "filters": {"user_id": "u1"}}))
            assert found["results"] == []
            assert ok(await other.call_tool("list_entities", {}))["results"] == []
            assert "404" in refused(await other.call_tool("delete_memory", {"memory_id": memory_id}))
            assert "404" in refused(await other.call_tool("update_memory", {"memory_id": memory_id, "text": "x"}))
        async with over_http(deployment.url, acme.headers) as client:
            got = ok(await client.call_tool("get_memory", {"memory_id": memory_id}))
            assert got["memory"] == added["results"][0]["memory"]

    run(scenario)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Token m0-" + "x" * 43},
        {"X-API-Key": "m0sk_" + "x" * 40},
        {"Authorization": "Bearer not-a-token"},
    ],
    ids=["none", "wrong-project-key", "wrong-m0sk-key", "bad-bearer"],
)
def test_without_valid_credentials_mcp_answers_401_before_any_tool(
    deployment: Deployment, headers: dict[str, str]
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    accept = {"Accept": "application/json, text/event-stream"}
    answer = httpx.post(f"{deployment.url}/mcp", json=body, headers={**accept, **headers}, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 401, answer.text
    assert answer.json()["detail"]

    async def scenario() -> None:
        async with over_http(deployment.url, headers) as client:
            await client.list_tools()

    with pytest.raises(BaseException) as failed:
        run(scenario)
    assert failed.group_contains(MCPError) if isinstance(failed.value, BaseExceptionGroup) else failed.value


def test_with_an_m0sk_key_the_tools_reach_the_self_hosted_memories(deployment: Deployment) -> None:
    member = {"X-API-Key": deployment.member_key}
    admin = {"X-API-Key": ADMIN_KEY}

    async def scenario() -> None:
        async with over_http(deployment.url, member) as client:
            added = ok(await client.call_tool("add_memory", {"text": "I play the cello", "user_id": "sam"}))
            [memory] = added["results"]
            assert memory["event"] == "ADD"
            found = ok(
                await client.call_tool("search_memories", {"query": "music instrument", "filters": {"user_id": "sam"}})
            )
            assert found["results"][0]["id"] == memory["id"]
            listed = ok(await client.call_tool("get_memories", {"filters": {"user_id": "sam"}}))
            assert [m["id"] for m in listed["results"]] == [memory["id"]]
            got = ok(await client.call_tool("get_memory", {"memory_id": memory["id"]}))
            assert got["memory"] == memory["memory"]
            ok(
                await client.call_tool(
                    "update_memory", {"memory_id": memory["id"], "text": "Plays the cello and piano"}
                )
            )
            assert (
                ok(await client.call_tool("get_memory", {"memory_id": memory["id"]}))["memory"]
                == "Plays the cello and piano"
            )
            entities = ok(await client.call_tool("list_entities", {}))
            assert any(e["id"] == "sam" for e in entities)
            # the self-hosted API keeps bulk deletes for admins, and has no app scope
            assert "403" in refused(await client.call_tool("delete_all_memories", {"user_id": "sam"}))
            assert "403" in refused(await client.call_tool("delete_entities", {"user_id": "sam"}))
            assert "app_id" in refused(await client.call_tool("add_memory", {"text": "x", "app_id": "a"}))
            ok(await client.call_tool("delete_memory", {"memory_id": memory["id"]}))
            assert "404" in refused(await client.call_tool("get_memory", {"memory_id": memory["id"]}))
            ok(await client.call_tool("add_memory", {"text": "I live in Oslo", "user_id": "sam"}))
        async with over_http(deployment.url, admin) as client:
            ok(await client.call_tool("delete_all_memories", {"user_id": "sam"}))
            assert ok(await client.call_tool("get_memories", {"filters": {"user_id": "sam"}}))["results"] == []
            ok(await client.call_tool("add_memory", {"text": "I live in Oslo", "user_id": "sam"}))
            ok(await client.call_tool("delete_entities", {"user_id": "sam"}))
            assert not any(e["id"] == "sam" for e in ok(await client.call_tool("list_entities", {})))

    run(scenario)


def test_the_platform_and_self_hosted_memories_stay_apart(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            added = ok(await client.call_tool("add_memory", {"text": "Drives a red Volvo", "user_id": "kim"}))
        async with over_http(deployment.url, {"X-API-Key": deployment.member_key}) as client:
            message = refused(await client.call_tool("get_memory", {"memory_id": added["results"][0]["id"]}))
            assert "404" in message, text_of
            found = ok(await client.call_tool("search_memories", {"query": "car", "filters": {"user_id": "kim"}}))
            assert found["results"] == []

    run(scenario)


def test_no_server_stream_and_no_sessions_are_offered(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")
    headers = {**acme.headers, "Accept": "text/event-stream"}
    assert httpx.get(f"{deployment.url}/mcp", headers=headers, timeout=HTTP_TIMEOUT).status_code == 405
    assert httpx.delete(f"{deployment.url}/mcp", headers=acme.headers, timeout=HTTP_TIMEOUT).status_code == 405
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    answer = httpx.post(f"{deployment.url}/mcp", json=body, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200 and answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert "mcp-session-id" not in answer.headers
    nul = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "get_memory", "arguments": {"memory_id": "a\x00b"}},
    }
    refused = httpx.post(f"{deployment.url}/mcp", json=nul, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT)
    assert refused.status_code == 400 and "params.arguments.memory_id" in refused.json()["detail"]
    for id_ in (False, True):  # not an id JSON-RPC allows: refused, not a notification accepted with 202
        message = {"jsonrpc": "2.0", "id": id_, "method": ""}
        boolean = httpx.post(
            f"{deployment.url}/mcp", json=message, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT
        )
        assert boolean.status_code == 422 and "boolean" in boolean.text
    # 2.0 is the integer 2 (as JSON Schema has it); the SDK took it for a notification: a request never answered
    whole_float = httpx.post(
        f"{deployment.url}/mcp", json={**body, "id": 2.0}, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT
    )
    assert whole_float.status_code == 200 and whole_float.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    fraction = httpx.post(
        f"{deployment.url}/mcp", json={**body, "id": 2.5}, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT
    )
    assert fraction.status_code == 422
    extra = httpx.post(
        f"{deployment.url}/mcp", json={**body, "bogus": 1}, headers={**acme.headers, **accept}, timeout=HTTP_TIMEOUT
    )
    assert extra.status_code == 400
    assert [problem["loc"] for problem in extra.json()["detail"]] == [["body", "bogus"]]


def test_a_401_names_every_credential_mcp_takes(deployment: Deployment) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    answer = httpx.post(
        f"{deployment.url}/mcp",
        json=body,
        headers={"Accept": "application/json, text/event-stream"},
        timeout=HTTP_TIMEOUT,
    )
    assert answer.status_code == 401
    assert all(form in answer.json()["detail"] for form in ("Authorization: Token", "X-API-Key", "Bearer"))


def test_the_page_links_of_get_memories_point_where_the_client_called(deployment: Deployment) -> None:
    acme = deployment.tenant(f"acme{uuid.uuid4().hex[:6]}")

    async def scenario() -> None:
        async with over_http(deployment.url, acme.headers) as client:
            for n in range(3):
                ok(await client.call_tool("add_memory", {"text": f"Fact number {n}", "user_id": "pager"}))
            page = ok(await client.call_tool("get_memories", {"filters": {"user_id": "pager"}, "page_size": 2}))
            assert page["next"].startswith(f"{deployment.url}/v3/memories/")
            following = httpx.post(
                page["next"], json={"filters": {"user_id": "pager"}}, headers=acme.headers, timeout=HTTP_TIMEOUT
            )
            assert following.status_code == 200 and len(following.json()["results"]) == 1

    run(scenario)
