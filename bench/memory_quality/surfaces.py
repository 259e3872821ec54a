"""The two HTTP surfaces of one embedded deployment, driven as a user of them would: a container built on a data dir as
`mnemo serve` builds it (authentication on, SQLite, the local all-MiniLM-L6-v2 embedder, no LLM unless the run
names one: then the `llm` section given), its app behind FastAPI's TestClient (in process: no port, no uvicorn). Each
add leaves what its LLM calls used (`last_usage`) and its fallback, if any (`last_fallback`), for the run to sum.

- Self-hosted: an admin registered through /auth/register; reads, searches, deletes and histories through the routes
  (`/memories`, `/search`, `/entities`, `/reset`). The add goes to `MemoryService.add` directly, as `POST /memories`
  does, because that route takes no timestamp and the evaluation adds each conversation at its own time.
- Platform: a tenant made as `mnemo platform bootstrap` makes it; everything through the routes: `POST
  /v3/memories/add/` (queued, run by the in-process worker; the runner waits for the event), `POST /v3/memories/`,
  `POST /v3/memories/search/` (its defaults: top_k 10, threshold 0.1), the history routes.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from fastapi.testclient import TestClient
from pydantic import SecretStr

from bench.memory_quality.data import Conversation
from bench.memory_quality.scoring import Hit, Stored
from mnemo.adapters.registry import ProviderRegistry
from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.domain.memory import Scope
from mnemo.domain.tenancy import EventStatus
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import AddCommand
from mnemo.services.commands import Message as CommandMessage
from mnemo.services.llm_usage import UsageMeter
from mnemo.settings import Settings

SurfaceName = Literal["selfhosted", "platform"]
SURFACES: tuple[SurfaceName, ...] = ("selfhosted", "platform")
ADMIN = {"name": "Eval Admin", "email": "eval-admin@example.com", "password": "a long evaluation passphrase"}
EVENT_TIMEOUT = 120.0
LLM_EVENT_TIMEOUT = 7200.0  # an add whose LLM is a local model queued behind other work
GONE = (401, 403, 404)  # what a surface answers for a memory (or a project) that is not there


class SharedModel(ProviderRegistry):
    """The real provider registry, except that every container gets the one loaded local model (loading it costs
    seconds; the evaluation builds a container per surface and per erasure case)."""

    def __init__(self, local: Embedder) -> None:
        self._local = local

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        if provider == "local" and not config:
            return self._local
        return super().build_embedder(provider, config)


def serve_settings(data_dir: Path, llm: dict[str, Any] | None = None, *, rules_beside: bool = False) -> Settings:
    """What `mnemo serve` runs on by default, whatever the environment says: the embedded backend, the local
    embedder, authentication on, and no LLM (or the `llm` section given: `{"provider", "config"}`, with the
    extractor's statements its answer left out kept beside it when `rules_beside`)."""
    return Settings(
        data_dir=data_dir,
        backend="local",
        embedder_provider="local",
        embedder_config={},
        llm_provider=llm["provider"] if llm else None,
        llm_config=dict(llm["config"]) if llm else {},
        llm_rules_beside=rules_beside,
        auth_disabled=False,
        jwt_secret=SecretStr("memory-quality-evaluation-" + "x" * 32),
        # A run with a local LLM outlasts the default 30 minutes of the admin's one access token.
        access_token_minutes=30 if llm is None else 24 * 60,
    )


def ok(response: Any) -> Any:
    if response.status_code >= 400:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path}: {response.status_code} {response.text}"
        )
    return response.json()


class Surface(Protocol):
    name: SurfaceName
    container: Container
    client: TestClient
    headers: dict[str, str]  # the caller's credentials
    last_usage: dict[str, int] | None  # the LLM calls and tokens of the last add
    last_fallback: str | None  # why the last add fell back to the rule-based extractor (None: it did not)

    def add(self, conversation: Conversation, run_id: str | None = None) -> list[tuple[str, str]]:
        """Add the conversation (infer=true, at its time); the (memory id, event) pairs the add answered."""
        ...

    def memories(self, user_id: str) -> list[Stored]:
        """Every memory of the user the surface shows (the platform: active, superseded and merged ones)."""
        ...

    def search(self, user_id: str, query: str, threshold: float | None = None) -> list[Hit]: ...

    def history(self, memory_id: str) -> list[dict[str, Any]] | None:
        """The memory's history as the surface answers it; None when it answers 404."""
        ...

    def source_texts(self, memory_id: str) -> list[tuple[str, str]]:
        """(role, content) of the messages the memory was made from, as the surface shows them."""
        ...


class _ReadsSources(ABC):
    """Reads the roles of a memory's source messages once."""

    _roles: dict[str, tuple[str, ...]]

    @abstractmethod
    def source_texts(self, memory_id: str) -> list[tuple[str, str]]:
        """(role, content) of the messages the memory was made from, as the surface shows them."""

    def roles(self, memory_id: str) -> tuple[str, ...]:
        """The roles of the messages the memory came from (they never change: read once)."""
        if memory_id not in self._roles:
            self._roles[memory_id] = tuple(role for role, _content in self.source_texts(memory_id))
        return self._roles[memory_id]


@dataclass
class SelfHosted(_ReadsSources):
    container: Container
    client: TestClient
    headers: dict[str, str]
    name: SurfaceName = "selfhosted"
    last_usage: dict[str, int] | None = None
    last_fallback: str | None = None
    _roles: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, conversation: Conversation, run_id: str | None = None) -> list[tuple[str, str]]:
        command = AddCommand(
            messages=[CommandMessage(m.role, m.content) for m in conversation.messages],
            scope=Scope(user_id=conversation.user_id, run_id=run_id),
            infer=True,
            timestamp=conversation.time,
        )
        command.check_size()
        meter = UsageMeter()
        try:
            results = self.container.memory_service.add(command, meter=meter)
        finally:
            self.last_usage = meter.usage.to_json()
            self.last_fallback = meter.fallback.reason if meter.fallback else None
        return [(r.record.id, r.event.value) for r in results]

    def memories(self, user_id: str) -> list[Stored]:
        listed = ok(self.client.get("/memories", params={"user_id": user_id, "top_k": 1000}, headers=self.headers))
        return [
            Stored(m["id"], m["memory"], user_id, m.get("state", "active"), self.roles(m["id"]))
            for m in listed["results"]
        ]

    def source_texts(self, memory_id: str) -> list[tuple[str, str]]:
        response = self.client.get(f"/memories/{memory_id}", headers=self.headers)
        if response.status_code in GONE:
            return []
        return [(s["role"], s["content"]) for s in ok(response)["sources"]]

    def search(self, user_id: str, query: str, threshold: float | None = None) -> list[Hit]:
        body: dict[str, Any] = {"query": query, "filters": {"user_id": user_id}}
        if threshold is not None:
            body["threshold"] = threshold
        found = ok(self.client.post("/search", json=body, headers=self.headers))
        return [Hit(h["id"], h["memory"], h.get("state", "active"), h["score"]) for h in found["results"]]

    def history(self, memory_id: str) -> list[dict[str, Any]] | None:
        response = self.client.get(f"/memories/{memory_id}/history", headers=self.headers)
        return None if response.status_code in GONE else list(ok(response))


@dataclass
class Platform(_ReadsSources):
    container: Container
    client: TestClient
    headers: dict[str, str]
    org_id: str
    project_id: str
    name: SurfaceName = "platform"
    last_event_id: str = ""
    event_timeout: float = EVENT_TIMEOUT
    last_usage: dict[str, int] | None = None
    last_fallback: str | None = None
    _roles: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, conversation: Conversation, run_id: str | None = None) -> list[tuple[str, str]]:
        body: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in conversation.messages],
            "user_id": conversation.user_id,
            "infer": True,
            "timestamp": int(conversation.time.timestamp()),
        }
        if run_id is not None:
            body["run_id"] = run_id
        queued = ok(self.client.post("/v3/memories/add/", json=body, headers=self.headers))
        self.last_event_id = queued["event_id"]
        event = self.wait(self.last_event_id)
        self.last_usage = event.get("llm_usage")
        self.last_fallback = ((event.get("payload") or {}).get("fallback") or {}).get("reason")
        if event["status"] != EventStatus.SUCCEEDED.value:
            raise RuntimeError(f"add of {conversation.id} ended {event['status']}: {event.get('error')}")
        return [(r["id"], r["event"]) for r in event.get("results") or []]

    def wait(self, event_id: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.event_timeout
        while True:
            event: dict[str, Any] = ok(self.client.get(f"/v1/event/{event_id}/", headers=self.headers))
            if EventStatus(event["status"]).finished:
                return event
            if time.monotonic() > deadline:
                raise RuntimeError(f"event {event_id} still {event['status']} after {self.event_timeout} s")
            time.sleep(0.01 if self.event_timeout == EVENT_TIMEOUT else 0.5)

    def memories(self, user_id: str) -> list[Stored]:
        body = {"filters": {"user_id": user_id}, "include_merged": True}
        page = ok(self.client.post("/v3/memories/?page=1&page_size=1000", json=body, headers=self.headers))
        return [
            Stored(m["id"], m["memory"], user_id, m["lifecycle_state"], self.roles(m["id"])) for m in page["results"]
        ]

    def source_texts(self, memory_id: str) -> list[tuple[str, str]]:
        entries = self.history(memory_id) or []
        return [(i["role"], i["content"]) for i in entries[-1]["input"]] if entries else []

    def search(self, user_id: str, query: str, threshold: float | None = None) -> list[Hit]:
        body: dict[str, Any] = {"query": query, "filters": {"user_id": user_id}}
        if threshold is not None:
            body["threshold"] = threshold
        found = ok(self.client.post("/v3/memories/search/", json=body, headers=self.headers))
        return [Hit(h["id"], h["memory"], h.get("lifecycle_state", "active"), h["score"]) for h in found["results"]]

    def history(self, memory_id: str) -> list[dict[str, Any]] | None:
        response = self.client.get(f"/v1/memories/{memory_id}/history/", headers=self.headers)
        return None if response.status_code in GONE else list(ok(response))


def register_admin(client: TestClient) -> dict[str, str]:
    """The first account of a fresh data dir (an admin), as the README's quick start makes it."""
    session = ok(client.post("/auth/register", json=ADMIN))
    return {"Authorization": f"Bearer {session['access_token']}"}


@contextmanager
def open_surface(
    name: SurfaceName,
    data_dir: Path,
    embedder: Embedder,
    llm: dict[str, Any] | None = None,
    *,
    rules_beside: bool = False,
) -> Iterator[Surface]:
    """One surface of a fresh deployment on `data_dir` (with the `llm` section given, else none), closed (the
    container too) on the way out."""
    with ExitStack() as stack:
        container = build_container(serve_settings(data_dir, llm, rules_beside=rules_beside), SharedModel(embedder))
        stack.callback(container.close)
        client = stack.enter_context(TestClient(create_app(container)))
        if (container.configuration.providers.get().llm is not None) != (llm is not None):
            raise RuntimeError(f"the evaluation was asked to run with LLM {llm!r}, but the container disagrees")
        if name == "selfhosted":
            yield SelfHosted(container, client, register_admin(client))
            return
        assert container.platform is not None
        made = container.platform.tenancy.bootstrap("eval@example.com", "Memory quality evaluation")
        headers = {"Authorization": f"Token {made.api_key}"}
        timeout = EVENT_TIMEOUT if llm is None else LLM_EVENT_TIMEOUT
        yield Platform(container, client, headers, made.org.id, made.project.id, event_timeout=timeout)
