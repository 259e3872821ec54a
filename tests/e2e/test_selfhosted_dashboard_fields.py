"""The reference's own self-hosted dashboard (Mem0's Next.js app under server/dashboard) against this server: every
field its pages read, route by route, with real values: dates that parse as ISO 8601 and fall where they should,
counts equal to what was stored, lists as long as what was done.

The test walks the dashboard as a user does: the setup wizard (register, providers, an API key, the use case, the
quick test), then the pages (memories with a memory's history, search, entities, API keys, requests,
configuration, settings) and the Next.js side's token refresh. Each step calls what the page calls, with the body
it sends, and asserts the keys the page reads, with the types it expects.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import build_container
from tests.conftest import CachedModelRegistry
from tests.e2e.auth.conftest import ADMIN, ADMIN_KEY, auth_settings

DASHBOARD = "http://localhost:3000"
# the two ISO 8601 forms of the reference: the memory timestamps, and what pydantic writes for a datetime
MEMORY_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$")
COLUMN_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
AUTH_TYPES = {"bearer", "api_key", "admin_api_key", "disabled", "none"}


class Dashboard:
    """The dashboard's API client: its Bearer token on every call, each call counted (the request log lists them)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.token = ""
        self.calls = 0

    def call(self, method: str, path: str, *, status: int = 200, key: str | None = None, **kwargs: Any) -> Any:
        headers = {"Origin": DASHBOARD}
        if key is not None:
            headers["X-API-Key"] = key
        elif self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        response = self.client.request(method, path, headers=headers, **kwargs)
        if not path.startswith("/requests"):  # reads of the log itself are not logged
            self.calls += 1
        assert response.status_code == status, (method, path, response.text)
        # the browser reads the answer only if CORS lets its origin
        assert response.headers["access-control-allow-origin"] == DASHBOARD
        assert response.headers["access-control-allow-credentials"] == "true"
        return response.json()


@pytest.fixture
def dashboard(data_dir: Path, registry: CachedModelRegistry) -> Iterator[Dashboard]:
    container = build_container(auth_settings(data_dir), registry)
    with TestClient(create_app(container, cors_origins=(DASHBOARD,))) as client:
        yield Dashboard(client)
    container.close()


def moment(value: Any, form: re.Pattern[str] = MEMORY_TIME) -> datetime:
    """A date as the dashboard reads it (`new Date(value)`): ISO 8601 with its zone, in UTC, not in the future."""
    assert isinstance(value, str) and form.match(value), value
    parsed = datetime.fromisoformat(value)
    assert parsed.utcoffset() == timedelta(0)
    assert parsed <= datetime.now(UTC)
    return parsed


def test_the_setup_wizard_reads_what_it_needs(dashboard: Dashboard) -> None:
    started = datetime.now(UTC) - timedelta(seconds=1)
    # step 0: the login page asks whether the first admin is still to come; the wizard registers it
    assert dashboard.call("GET", "/auth/setup-status") == {"needsSetup": True}
    tokens = dashboard.call("POST", "/auth/register", json=ADMIN)
    assert isinstance(tokens["access_token"], str) and isinstance(tokens["refresh_token"], str)
    dashboard.token = tokens["access_token"]
    me = dashboard.call("GET", "/auth/me")  # AuthUser: id, name, email, role (isAdmin), created_at
    assert (me["name"], me["email"], me["role"]) == (ADMIN["name"], ADMIN["email"], "admin")
    assert isinstance(me["id"], str) and moment(me["created_at"], COLUMN_TIME) >= started
    assert dashboard.call("GET", "/auth/setup-status") == {"needsSetup": False}

    # step 1: providers, read from /configure (llm and embedder: provider, config.model, config.api_key)
    config = dashboard.call("GET", "/configure")
    providers = dashboard.call("GET", "/configure/providers")
    assert all(isinstance(name, str) for name in providers["llm"] + providers["embedder"])
    assert config["embedder"]["provider"] in providers["embedder"]
    assert config["llm"] is None  # no LLM here: `config?.llm?.provider` is then "", the wizard asks for one

    # step 2: an API key, shown once
    created = dashboard.call("POST", "/api-keys", status=201, json={"label": "My First Key"})
    key = created["key"]
    assert key.startswith("m0sk_") and len(key) == 48

    # step 3: the use case: generated instructions (a template without an LLM), saved with POST /configure
    generated = dashboard.call("POST", "/generate-instructions", json={"use_case": "Coding agent"})
    assert isinstance(generated["custom_instructions"], str) and generated["custom_instructions"].strip()
    assert isinstance(generated["test_message"], str) and generated["test_message"].strip()
    saved = dashboard.call("POST", "/configure", json={"custom_instructions": generated["custom_instructions"]})
    assert saved == {"message": "Configuration set successfully"}
    assert dashboard.call("GET", "/configure")["custom_instructions"] == generated["custom_instructions"]

    # step 4: the quick test, with the new key (the page reads only the status, or `detail` on a failure)
    test_message = {"messages": [{"role": "user", "content": generated["test_message"]}], "user_id": "setup-test"}
    added = dashboard.call("POST", "/memories", key=key, json=test_message)
    assert added["results"] and all(r["event"] == "ADD" for r in added["results"])
    done = dashboard.call("POST", "/auth/onboarding-complete", json={"use_case": "Coding agent"})
    assert done == {"message": "Onboarding completed."}


def test_every_page_reads_real_values(dashboard: Dashboard) -> None:
    started = datetime.now(UTC) - timedelta(seconds=1)
    dashboard.token = dashboard.call("POST", "/auth/register", json=ADMIN)["access_token"]
    key = dashboard.call("POST", "/api-keys", status=201, json={"label": "agent"})
    ids, texts = store_memories(dashboard, key["key"])
    rows = memories_page(dashboard, ids, texts, started)
    history_and_search(dashboard, ids, texts, rows)
    entities_page(dashboard, ids, rows)
    api_keys_page(dashboard, key, started)
    requests_page(dashboard, started)  # after the others: it counts every call they made
    configuration_and_settings(dashboard)


def store_memories(dashboard: Dashboard, key: str) -> tuple[dict[str, str], dict[str, str]]:
    """Memories stored by an agent with the key, as given (known texts, ids and metadata), one of them updated."""

    def add(content: str, **ids: str) -> str:
        body = {"messages": [{"role": "user", "content": content}], "infer": False, "metadata": {"src": "t"}}
        added = dashboard.call("POST", "/memories", key=key, json={**body, **ids})
        return str(added["results"][0]["id"])

    ids = {
        "oboe": add("Alice plays the oboe.", user_id="alice"),
        "tomatoes": add("Alice grows tomatoes.", user_id="alice", agent_id="gardener"),
        "chess": add("Bob likes chess.", user_id="bob", run_id="r-1"),
        "dawn": add("The gardener waters at dawn.", agent_id="gardener", app_id="garden-app"),
    }
    dashboard.call("PUT", f"/memories/{ids['tomatoes']}", json={"text": "Alice grows cherry tomatoes."})
    texts = {
        ids["oboe"]: "Alice plays the oboe.",
        ids["tomatoes"]: "Alice grows cherry tomatoes.",
        ids["chess"]: "Bob likes chess.",
        ids["dawn"]: "The gardener waters at dawn.",
    }
    return ids, texts


def memories_page(
    dashboard: Dashboard, ids: dict[str, str], texts: dict[str, str], started: datetime
) -> dict[str, dict[str, Any]]:
    """GET /memories?top_k=1000 with no id (every memory): `results` of id, memory, user_id, agent_id, run_id,
    app_id, metadata, created_at, updated_at. Returns the rows by id."""
    oboe, tomatoes, chess, dawn = ids["oboe"], ids["tomatoes"], ids["chess"], ids["dawn"]
    listed = dashboard.call("GET", "/memories", params={"top_k": 1000})["results"]
    assert len(listed) == 4
    rows = {m["id"]: m for m in listed}
    assert {i: m["memory"] for i, m in rows.items()} == texts
    assert [(rows[i]["user_id"], rows[i]["agent_id"], rows[i]["run_id"]) for i in (oboe, tomatoes, chess, dawn)] == [
        ("alice", None, None),
        ("alice", "gardener", None),
        ("bob", None, "r-1"),
        (None, "gardener", None),
    ]
    assert rows[dawn]["app_id"] == "garden-app" and "app_id" not in rows[oboe]
    assert all(m["metadata"] == {"src": "t"} for m in listed)
    for m in listed:
        created, updated = moment(m["created_at"]), moment(m["updated_at"])
        assert started <= created <= updated
    assert moment(rows[tomatoes]["updated_at"]) > moment(rows[tomatoes]["created_at"])  # it was updated
    assert [m["id"] for m in listed] == [dawn, chess, tomatoes, oboe]  # newest first
    # filtered by a user: the same fields, the user's memories only
    alices = dashboard.call("GET", "/memories", params={"user_id": "alice", "top_k": 1000})["results"]
    assert sorted(m["id"] for m in alices) == sorted([oboe, tomatoes])
    assert all(m["created_at"] == rows[m["id"]]["created_at"] for m in alices)
    return rows


def history_and_search(
    dashboard: Dashboard, ids: dict[str, str], texts: dict[str, str], rows: dict[str, dict[str, Any]]
) -> None:
    tomatoes, oboe = ids["tomatoes"], ids["oboe"]
    # a memory's history: id, event, created_at, old_memory and new_memory
    history = dashboard.call("GET", f"/memories/{tomatoes}/history")
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
        ("ADD", None, "Alice grows tomatoes."),
        ("UPDATE", "Alice grows tomatoes.", "Alice grows cherry tomatoes."),
    ]
    assert all(isinstance(h["id"], str) for h in history) and len({h["id"] for h in history}) == 2
    # created_at: the memory's creation; updated_at: the event's time, which the memory's updated_at says
    assert all(moment(h["created_at"]) == moment(rows[tomatoes]["created_at"]) for h in history)
    assert moment(history[0]["updated_at"]) == moment(rows[tomatoes]["created_at"])
    assert moment(history[1]["updated_at"]) == moment(rows[tomatoes]["updated_at"])

    # the search page: the old top-level ids; results of id, memory, score (a number it shows as a percentage)
    hits = dashboard.call("POST", "/search", json={"query": "oboe", "user_id": "alice"})["results"]
    assert hits[0]["id"] == oboe and hits[0]["memory"] == texts[oboe] and hits[0]["user_id"] == "alice"
    assert all(isinstance(h["score"], float) and 0 <= h["score"] <= 1 for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def entities_page(dashboard: Dashboard, ids: dict[str, str], rows: dict[str, dict[str, Any]]) -> None:
    """GET /entities: id, type, total_memories, created_at, updated_at ("Last Active"); the delete button."""
    entities = dashboard.call("GET", "/entities")
    expected = {
        ("user", "alice"): [ids["oboe"], ids["tomatoes"]],
        ("user", "bob"): [ids["chess"]],
        ("agent", "gardener"): [ids["tomatoes"], ids["dawn"]],
        ("run", "r-1"): [ids["chess"]],
    }
    assert sorted((e["type"], e["id"]) for e in entities) == sorted(expected)
    for entity in entities:
        mine = [rows[i] for i in expected[(entity["type"], entity["id"])]]
        assert entity["total_memories"] == len(mine)
        assert moment(entity["created_at"], COLUMN_TIME) == min(moment(m["created_at"]) for m in mine)
        assert moment(entity["updated_at"], COLUMN_TIME) == max(moment(m["updated_at"]) for m in mine)
    # deleting one takes its memories; the counts follow
    assert dashboard.call("DELETE", "/entities/run/r-1") == {"message": "Entity deleted", "deleted_memories": 1}
    after = {(e["type"], e["id"]): e["total_memories"] for e in dashboard.call("GET", "/entities")}
    assert after == {("user", "alice"): 2, ("agent", "gardener"): 2}
    assert len(dashboard.call("GET", "/memories", params={"top_k": 1000})["results"]) == 3
    assert dashboard.call("DELETE", f"/memories/{ids['dawn']}") == {"message": "Memory deleted successfully"}


def api_keys_page(dashboard: Dashboard, key: dict[str, Any], started: datetime) -> None:
    """GET /api-keys: id, label, key_prefix, created_at, last_used_at ("Never" until the key is used)."""
    fresh = dashboard.call("POST", "/api-keys", status=201, json={"label": "unused"})
    keys = dashboard.call("GET", "/api-keys")
    assert [(k["id"], k["label"], k["key_prefix"]) for k in keys] == [
        (fresh["id"], "unused", fresh["key"][:12]),
        (key["id"], "agent", key["key"][:12]),
    ]
    assert [k["created_at"] for k in keys] == [fresh["created_at"], key["created_at"]]
    assert moment(keys[0]["created_at"], COLUMN_TIME) >= moment(keys[1]["created_at"], COLUMN_TIME) >= started
    assert keys[0]["last_used_at"] is None
    assert moment(keys[1]["last_used_at"], COLUMN_TIME) >= moment(keys[1]["created_at"], COLUMN_TIME)


def requests_page(dashboard: Dashboard, started: datetime) -> None:
    """GET /requests?limit=200: a list of id, created_at, method, path, status_code, latency_ms, auth_type; its
    "Total Requests" is the list's length: every call made so far."""
    logs = dashboard.call("GET", "/requests", params={"limit": 200})
    assert len(logs) == dashboard.calls
    assert len({e["id"] for e in logs}) == len(logs)
    times = [moment(e["created_at"], COLUMN_TIME) for e in logs]
    assert times == sorted(times, reverse=True) and times[-1] >= started  # newest first
    assert all(isinstance(e["status_code"], int) and isinstance(e["latency_ms"], float) for e in logs)
    assert all(e["latency_ms"] >= 0 and e["auth_type"] in AUTH_TYPES for e in logs)
    assert (logs[-1]["method"], logs[-1]["path"], logs[-1]["status_code"]) == ("POST", "/auth/register", 200)
    assert [(e["method"], e["path"], e["auth_type"]) for e in logs[:2]] == [
        ("GET", "/api-keys", "bearer"),
        ("POST", "/api-keys", "bearer"),
    ]
    assert sum(1 for e in logs if e["auth_type"] == "api_key") == 4  # the agent's four adds
    assert all(e["path"] == "/memories" and e["method"] == "POST" for e in logs if e["auth_type"] == "api_key")
    # the admin key reads the same log
    assert len(dashboard.call("GET", "/requests", key=ADMIN_KEY, params={"limit": 200})) == dashboard.calls


def configuration_and_settings(dashboard: Dashboard) -> None:
    # the configuration page: llm and embedder as the page reads them, after it saved its form
    form = {
        "version": "v1.1",
        "llm": {"provider": "openai", "config": {"model": "gpt-4.1-mini", "api_key": "sk-test"}},
        "embedder": {"provider": "local", "config": {}},
    }
    assert dashboard.call("POST", "/configure", json=form) == {"message": "Configuration set successfully"}
    config = dashboard.call("GET", "/configure")
    assert (config["llm"]["provider"], config["llm"]["config"]["model"]) == ("openai", "gpt-4.1-mini")
    assert config["llm"]["config"]["api_key"] == "[redacted]"  # truthy: "a key is set", never the key
    assert config["embedder"]["provider"] == "local"

    # the settings page: PATCH /auth/me, then GET /auth/me again; the password
    renamed = dashboard.call("PATCH", "/auth/me", json={"name": "Ada L.", "email": "ada.l@example.com"})
    assert (renamed["name"], renamed["email"]) == ("Ada L.", "ada.l@example.com")
    assert dashboard.call("GET", "/auth/me") == renamed
    changed = dashboard.call(
        "POST", "/auth/change-password", json={"current_password": ADMIN["password"], "new_password": "new password"}
    )
    assert changed == {"message": "Password updated."}


def test_the_token_refresh_of_the_dashboard_server(dashboard: Dashboard) -> None:
    """The dashboard's Next.js side keeps the refresh token in a cookie: it reads refresh_token and access_token."""
    tokens = dashboard.call("POST", "/auth/register", json=ADMIN)
    renewed = dashboard.call("POST", "/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    assert renewed["refresh_token"] != tokens["refresh_token"]
    dashboard.token = renewed["access_token"]
    assert dashboard.call("GET", "/auth/me")["email"] == ADMIN["email"]
    # a failure is a `detail` string, which the dashboard shows (its getErrorMessage)
    dashboard.token = ""
    refused = dashboard.call("POST", "/auth/refresh", status=401, json={"refresh_token": tokens["refresh_token"]})
    assert isinstance(refused["detail"], str) and refused["detail"]
