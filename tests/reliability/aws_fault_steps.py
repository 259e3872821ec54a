"""What the AWS fault tests do over HTTP: a platform tenant, adds, searches, listing a user's memories."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant

USER = "alice"


def add(server: Server, tenant: Tenant, text: str, *, infer: bool = True) -> httpx.Response:
    """POST /v3/memories/add/: with `infer` queued (PENDING), else written before the answer."""
    body = {"messages": [{"role": "user", "content": text}], "user_id": USER, "infer": infer}
    return httpx.post(f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=60)


def search(server: Server, tenant: Tenant, query: str) -> httpx.Response:
    body = {"query": query, "filters": {"user_id": USER}}
    return httpx.post(f"{server.url}/v3/memories/search/", json=body, headers=tenant.headers, timeout=60)


def memories(server: Server, tenant: Tenant) -> list[dict[str, Any]]:
    """Every memory of the user, read from the store (not the search index)."""
    answer = httpx.get(f"{server.url}/v1/memories/", params={"user_id": USER}, headers=tenant.headers, timeout=60)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    listed: list[dict[str, Any]] = body["results"] if isinstance(body, dict) else body
    return listed


def memory_ids(server: Server, tenant: Tenant) -> list[str]:
    """The ids of the user's memories, sorted."""
    return sorted(str(m["id"]) for m in memories(server, tenant))


def result_ids(event: dict[str, Any]) -> list[str]:
    """The ids of the memories an add event's results name, sorted."""
    return sorted(str(r["id"]) for r in event["results"])


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll `condition` until it holds (a state, not a duration: the timeout is only a generous bound)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)
