"""A running mnemo (the whole app under uvicorn on a loopback port, authentication on) for the MCP SDK's own client:
platform tenants from the bootstrap, and a self-hosted member with an m0sk_ key and the admin key. Clients
connect over streamable HTTP to /mcp with a caller's headers, or launch `mnemo mcp` over stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from pydantic import SecretStr

from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import Tenant, serving
from tests.support.waits import HTTP_TIMEOUT, seconds

ADMIN_KEY = "mcp-tests-admin-key-0123456789abcdef"
JWT_SECRET = "mcp-tests-jwt-secret-" + "0123456789" * 4
MEMBER = {"name": "Mia", "email": "mia@example.com", "password": "member password 1"}
ADMIN = {"name": "Ada", "email": "ada@example.com", "password": "admin password 1"}
MNEMO = str(Path(sys.executable).with_name("mnemo"))


@dataclass
class Deployment:
    url: str
    container: Container
    data_dir: Path
    member_key: str  # an m0sk_ key of a member (not an admin)

    def tenant(self, name: str) -> Tenant:
        assert self.container.platform is not None
        made = self.container.platform.tenancy.bootstrap(f"{name}@{name}.example", name.title())
        return Tenant(made.api_key, made.org.id, made.project.id, made.user.email)


def settings(data_dir: Path, **overrides: Any) -> Settings:
    return Settings(
        data_dir=data_dir,
        jwt_secret=SecretStr(JWT_SECRET),
        admin_api_key=SecretStr(ADMIN_KEY),
        argon2_memory_kib=64,
        argon2_time_cost=1,
        rate_limit_register=0,
        rate_limit_login=0,
        **overrides,
    )


def member_key(url: str) -> str:
    """Registers the admin (the first account) and a member, and makes the member an m0sk_ key."""
    with httpx.Client(base_url=url, timeout=HTTP_TIMEOUT) as http:
        assert http.post("/auth/register", json=ADMIN).status_code == 200
        token = http.post("/auth/login", json={"email": ADMIN["email"], "password": ADMIN["password"]})
        admin = {"Authorization": f"Bearer {token.json()['access_token']}"}
        created = http.post("/users", json={**MEMBER, "role": "member"}, headers=admin)
        assert created.status_code in (200, 201), created.text
        login = http.post("/auth/login", json={"email": MEMBER["email"], "password": MEMBER["password"]})
        bearer = {"Authorization": f"Bearer {login.json()['access_token']}"}
        key = http.post("/api-keys", json={"label": "mcp"}, headers=bearer)
        assert key.status_code == 201, key.text
        return str(key.json()["key"])


@pytest.fixture(scope="module")
def deployment(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data_dir = tmp_path_factory.mktemp("mcp") / "data"
    container = build_container(settings(data_dir), CachedModelRegistry(embedder))
    try:
        with serving(container) as url:
            yield Deployment(url, container, data_dir, member_key(url))
    finally:
        container.close()


@asynccontextmanager
async def over_http(url: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    """The SDK's client on /mcp (streamable HTTP), sending these headers with every request."""
    async with (
        httpx2.AsyncClient(headers=headers, timeout=seconds(60)) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def over_stdio(env: dict[str, str], *args: str) -> AsyncIterator[Client]:
    """The SDK's client on `mnemo mcp` launched as a desktop client launches it."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMO_", "JWT_", "ADMIN_"))}
    params = StdioServerParameters(command=MNEMO, args=["mcp", *args], env={**inherited, **env})
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    [content] = result.content
    assert content.type == "text"
    return str(content.text)


def ok(result: CallToolResult) -> Any:
    """The JSON a tool answered; fails the test on a tool error."""
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))


def refused(result: CallToolResult) -> str:
    """The message of a tool's error; fails the test when the tool succeeded."""
    assert result.is_error, text_of(result)
    return text_of(result)
