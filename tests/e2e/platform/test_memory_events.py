"""GET /v1/memories/events/ (issue 17), on both backends: the project's newest history entries, of every memory,
newest first, as a memory's own history answers them; `limit` bounds them; another project's are never listed."""

from __future__ import annotations

import httpx

from tests.e2e.platform.conftest import Server, new_tenant
from tests.e2e.platform.test_categories import add
from tests.support.waits import HTTP_TIMEOUT


def test_the_projects_newest_history_entries_newest_first(server: Server) -> None:
    tenant = new_tenant(server, "memory-events")
    other = new_tenant(server, "memory-events-other")
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    (tea,) = add(server, tenant, "I like tea")
    (coffee,) = add(server, tenant, "I like coffee")
    assert http.put(f"/v1/memories/{tea['id']}/", json={"text": "I like green tea"}).status_code == 200
    assert http.delete(f"/v1/memories/{coffee['id']}/").status_code == 200
    add(server, other, "I like cocoa")

    events = http.get("/v1/memories/events/")
    assert events.status_code == 200, events.text
    assert [(e["memory_id"], e["event"]) for e in events.json()] == [
        (coffee["id"], "DELETE"),
        (tea["id"], "UPDATE"),
        (coffee["id"], "ADD"),
        (tea["id"], "ADD"),
    ]
    update = events.json()[1]
    assert (update["old_memory"], update["new_memory"], update["user_id"]) == (
        "I like tea",
        "I like green tea",
        "alice",
    )
    assert [e["event"] for e in http.get("/v1/memories/events/", params={"limit": 2}).json()] == ["DELETE", "UPDATE"]
    assert http.get("/v1/memories/events/", params={"limit": 0}).status_code == 422
