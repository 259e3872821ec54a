"""`mnemo mcp` over stdio, launched by the official SDK's client as a desktop client launches it: on a local data dir
(the tools call the API in that process) and on a remote mnemo (MNEMO_MCP_URL), with the key from the
environment; a refused key ends it before the first message, saying why on stderr."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import anyio
import httpx

from tests.e2e.mcp.conftest import JWT_SECRET, MNEMO, Deployment, ok, over_stdio, refused
from tests.support.waits import HTTP_TIMEOUT, seconds


def bootstrap(data_dir: Path) -> str:
    made = subprocess.run(
        [
            MNEMO,
            "platform",
            "bootstrap",
            "--email",
            "dev@example.com",
            "--org",
            "Dev",
            "--json",
            "--data-dir",
            str(data_dir),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return str(json.loads(made.stdout)["api_key"])


def test_on_a_local_data_dir_the_tools_store_and_find_memories_with_a_project_key(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {"MNEMO_DATA_DIR": str(data_dir), "MNEMO_MCP_API_KEY": bootstrap(data_dir), "JWT_SECRET": JWT_SECRET}

    async def scenario() -> None:
        async with over_stdio(env) as client:
            assert len((await client.list_tools()).tools) == 9
            assert [p.name for p in (await client.list_prompts()).prompts] == ["memory_assistant"]
            added = ok(
                await client.call_tool("add_memory", {"text": "Uses vim keybindings everywhere", "user_id": "dev"})
            )
            [memory] = added["results"]
            found = ok(await client.call_tool("search_memories", {"query": "editor", "filters": {"user_id": "dev"}}))
            assert found["results"][0]["id"] == memory["id"]
            page = ok(await client.call_tool("get_memories", {"filters": {"user_id": "dev"}}))
            assert [m["id"] for m in page["results"]] == [memory["id"]]
            ok(await client.call_tool("update_memory", {"memory_id": memory["id"], "text": "Uses vim and tmux"}))
            assert (
                ok(await client.call_tool("get_memory", {"memory_id": memory["id"]}))["memory"] == "Uses vim and tmux"
            )
            ok(await client.call_tool("delete_memory", {"memory_id": memory["id"]}))
            assert "404" in refused(await client.call_tool("get_memory", {"memory_id": memory["id"]}))
            for text, run in (("Deploys on Fridays", "sprint-1"), ("Reviews PRs daily", "sprint-2")):
                ok(await client.call_tool("add_memory", {"text": text, "user_id": "dev", "run_id": run}))
            listed = ok(await client.call_tool("list_entities", {}))
            assert {("run", "sprint-1"), ("run", "sprint-2")} <= {(e["type"], e["name"]) for e in listed["results"]}
            ok(await client.call_tool("delete_all_memories", {"run_id": "sprint-1"}))
            ok(await client.call_tool("delete_entities", {"run_id": "sprint-2"}))
            left = ok(await client.call_tool("get_memories", {"filters": {"user_id": "dev"}}))
            assert left["results"] == []

    anyio.run(scenario)


def test_on_a_remote_mnemo_the_tools_call_its_api_with_the_key(deployment: Deployment) -> None:
    tenant = deployment.tenant(f"remote{uuid.uuid4().hex[:6]}")
    env = {"MNEMO_MCP_URL": deployment.url, "MNEMO_MCP_API_KEY": tenant.key}

    async def scenario() -> None:
        async with over_stdio(env) as client:
            added = ok(await client.call_tool("add_memory", {"text": "Birthday is on March 9", "user_id": "rio"}))
            memory_id = added["results"][0]["id"]
            page = ok(await client.call_tool("get_memories", {"filters": {"user_id": "rio"}}))
            assert [m["id"] for m in page["results"]] == [memory_id]
        async with over_stdio({"MNEMO_MCP_URL": deployment.url, "MNEMO_MCP_API_KEY": deployment.member_key}) as other:
            found = ok(await other.call_tool("search_memories", {"query": "birthday", "filters": {"user_id": "rio"}}))
            assert found["results"] == []  # a self-hosted key never reaches the project's memories

    anyio.run(scenario)
    listed = httpx.post(
        f"{deployment.url}/v3/memories/",
        json={"filters": {"user_id": "rio"}},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert [m["memory"] for m in listed.json()["results"]] == ["Birthday is on March 9"]  # on the server, its project


def test_a_refused_key_ends_the_command_with_the_apis_message(deployment: Deployment, tmp_path: Path) -> None:
    remote = subprocess.run(
        [MNEMO, "mcp", "--url", deployment.url],
        env={"MNEMO_MCP_API_KEY": "m0-" + "x" * 43, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=seconds(60),
        stdin=subprocess.DEVNULL,
    )
    assert remote.returncode == 1 and remote.stdout == ""
    assert "refused the key (401" in remote.stderr and "MNEMO_MCP_API_KEY" in remote.stderr
    local = subprocess.run(
        [MNEMO, "mcp", "--data-dir", str(tmp_path / "data")],
        env={"PATH": "/usr/bin:/bin", "JWT_SECRET": JWT_SECRET},
        capture_output=True,
        text=True,
        check=False,
        timeout=seconds(120),
        stdin=subprocess.DEVNULL,
    )
    assert local.returncode == 1 and local.stdout == ""
    assert "refused the key (401" in local.stderr
