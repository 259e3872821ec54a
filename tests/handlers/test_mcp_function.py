"""The MCP function, invoked as Lambda invokes it: functions/mcp/app.py's handler with the sample events of
events/mcp/ (API Gateway HTTP API, payload 2.0, one JSON-RPC message per POST, no session), through Powertools,
Mangum and the /mcp route, whose tools call the platform routes in the same process, on the DynamoDB stores under
moto. Stateless streamable HTTP is what lets a function with no memory between invocations serve MCP: any
invocation answers any message. And no other function pays for the MCP SDK: it is imported by the first MCP call."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.composition.container import build_container
from mnemo.language.en import english
from mnemo.ports.memory_index import MemoryIndex
from mnemo.services.platform.tenancy.callers import Bootstrapped
from tests.support.lambda_aws import (
    ROOT,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    HttpResponse,
    create_stack,
    environment,
    load_event,
)
from tests.support.waits import seconds


class Deployed:
    def __init__(self, function: ModuleType, tenants: dict[str, Bootstrapped]) -> None:
        self.function = function
        self.tenants = tenants

    def call(self, event: str, tenant: str = "acme", key: str | None = None) -> HttpResponse:
        loaded = load_event(f"mcp/{event}", project_key=key or self.tenants[tenant].api_key)
        return HttpResponse.of(self.function.handler(loaded, FakeLambdaContext(function_name="mcp")))


def tool_answer(response: HttpResponse) -> Any:
    assert response.status == 200, response.body
    result = response.body["result"]
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws():
        stack = create_stack()
        with environment(stack.env):
            root = Path(tmp_path_factory.mktemp("mcp-indexes"))
            databases: list[Database] = []
            indexes: dict[str, LocalMemoryIndex] = {}

            def index_for(namespace: str) -> MemoryIndex:
                if namespace not in indexes:
                    databases.append(Database(root / f"{namespace}.sqlite3"))
                    indexes[namespace] = LocalMemoryIndex(databases[-1], embedder.dimension, facets=english())
                return indexes[namespace]

            catalog = BedrockAsLocalCatalog(embedder)
            function = importlib.import_module("functions.mcp.app")
            function.entry.function.reset(lambda: build_container(catalog=catalog, namespace_index=index_for))
            container = function.entry.function.container.get()
            tenancy = container.platform.tenancy
            tenants = {
                "acme": tenancy.bootstrap("alice@acme.example", "Acme"),
                "globex": tenancy.bootstrap("hank@globex.example", "Globex"),
            }
            yield Deployed(function, tenants)
            function.entry.function.reset()
            for database in databases:
                database.close()


def test_each_invocation_answers_its_message_without_a_session(deployed: Deployed) -> None:
    listed = deployed.call("tools_list")
    assert listed.status == 200, listed.body
    assert "mcp-session-id" not in {k.lower() for k in listed.headers}
    names = {tool["name"] for tool in listed.body["result"]["tools"]}
    assert {"add_memory", "search_memories", "delete_entities"} <= names and len(names) == 9

    [added] = tool_answer(deployed.call("add_memory"))["results"]
    assert added["event"] == "ADD" and added["memory"] == "I am vegetarian and I love green tea."
    found = tool_answer(deployed.call("search_memories"))
    assert [hit["id"] for hit in found["results"]] == [added["id"]]


def test_another_projects_key_finds_nothing_and_a_wrong_key_is_refused(deployed: Deployed) -> None:
    assert tool_answer(deployed.call("search_memories", "globex"))["results"] == []
    refused = deployed.call("tools_list", key="m0-" + "x" * 43)
    assert refused.status == 401 and refused.body["detail"]


def test_only_the_mcp_function_imports_the_mcp_sdk() -> None:
    probe = (
        "import sys, functions.platform.app, functions.memories.app, functions.mcp.app; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=seconds(120)
    )
    assert loaded.stdout.strip() == "[]", loaded.stdout
