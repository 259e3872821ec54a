"""A running platform server for the real `mem0ai` client: the whole app under uvicorn on a loopback port, in a
thread of the test process (so it shares the session's loaded embedding model), and tenants made with the
same bootstrap `mnemo platform bootstrap` uses."""

from __future__ import annotations

import os
import tempfile

# The client library reports usage to PostHog unless told not to, and keeps state under ~/.mem0.
os.environ["MEM0_TELEMETRY"] = "false"
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="mnemo-test-mem0-"))

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from pydantic import SecretStr

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.domain.tenancy import EventStatus
from mnemo.services.platform.features import PlatformFeatures
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.support.aws_backend import aws_backend
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT, seconds


@dataclass
class Server:
    url: str
    container: Container
    backend: str = "local"

    @property
    def platform(self) -> PlatformFeatures:
        assert self.container.platform is not None
        return self.container.platform


@dataclass
class Tenant:
    key: str
    org_id: str
    project_id: str
    email: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.key}"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(container: Container, *, inline_work: bool = False) -> Iterator[str]:
    """The whole app under uvicorn on a loopback port, in a thread; yields its base URL. `inline_work`: the memory read
    routes run in the event loop (mnemo.api.inline_work), as in a pinned worker of `mnemo serve --workers`."""
    port = free_port()
    app = create_app(container, inline_work=inline_work)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds(30)
    while not running.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=seconds(15))


@contextmanager
def local_backend(embedder: Any, root: Path) -> Iterator[Container]:
    container = build_container(
        Settings(data_dir=root / "data", jwt_secret=SecretStr("x" * 40), argon2_memory_kib=64, argon2_time_cost=1),
        CachedModelRegistry(embedder),
    )
    try:
        yield container
    finally:
        container.close()


@pytest.fixture(scope="module", params=["local", "aws"])
def server(request: pytest.FixtureRequest, embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The platform on each backend: the embedded one, and the AWS composition (DynamoDB, SQS and the ingest
    worker's Lambda handler under moto; see tests/support/aws_backend.py). The embedded one runs the memory read
    routes in the event loop, as a pinned worker does; the AWS one in worker threads, as its Lambda functions do."""
    root = tmp_path_factory.mktemp(f"platform-{request.param}")
    backend = local_backend if request.param == "local" else aws_backend
    with backend(embedder, root) as container, serving(container, inline_work=request.param == "local") as url:
        yield Server(url, container, request.param)


def new_tenant(server: Server, name: str = "acme") -> Tenant:
    """A fresh user (a unique email), organization, default project and key."""
    unique = uuid.uuid4().hex[:12]
    made = server.platform.tenancy.bootstrap(f"{name}-{unique}@example.com", f"{name} {unique}")
    return Tenant(made.api_key, made.org.id, made.project.id, made.user.email)


def known_user(server: Server, email: str) -> str:
    """Give `email` a platform account (with an organization of its own) and return it: adding a user the platform
    knows to a project makes a member at once, where an unknown email is only invited (accepted in the console)."""
    server.platform.tenancy.bootstrap(email, f"Own of {email}")
    return email


@pytest.fixture
def tenant(server: Server) -> Tenant:
    return new_tenant(server)


def wait_for_event(server: Server | str, tenant: Tenant, event_id: str, timeout: float = 30) -> dict[str, Any]:
    """Poll GET /v1/event/{id}/ (of a Server, or of a base URL) until the event has ended (SUCCEEDED, FAILED,
    PARTIALLY_COMPLETED or CANCELLED)."""
    base = server if isinstance(server, str) else server.url
    deadline = time.monotonic() + seconds(timeout)
    while True:
        body: dict[str, Any] = httpx.get(
            f"{base}/v1/event/{event_id}/", headers=tenant.headers, timeout=HTTP_TIMEOUT
        ).json()
        if EventStatus(body["status"]).finished:
            return body
        assert time.monotonic() < deadline, f"event {event_id} still {body['status']}"
        time.sleep(0.05)


@pytest.fixture
def llm(server: Server) -> Iterator[OpenAIServer]:
    """The deployment's LLM for one test: the OpenAI LLM on a loopback server with scripted replies (the worker
    follows the provider settings at each invocation); no LLM again afterwards."""
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        server.container.configuration.update({"llm": config})
        try:
            yield fake
        finally:
            server.container.configuration.update({"llm": None})
