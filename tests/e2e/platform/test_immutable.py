"""`immutable=true` on add (issue 17), on both backends: the memory can never be updated (409, one at a time or in a
batch, which then changes nothing), later adds never outdate or merge it away, and it can still be deleted."""

from __future__ import annotations

import httpx

from tests.e2e.platform.conftest import Server, new_tenant
from tests.e2e.platform.test_categories import add, memory


def test_an_immutable_memory_is_never_updated_but_can_be_deleted(server: Server) -> None:
    tenant = new_tenant(server, "immutable")
    http = httpx.Client(base_url=server.url, headers=tenant.headers)
    (kept,) = add(server, tenant, "I live in Paris.", infer=True, immutable=True, timestamp=1_700_000_000)
    (other,) = add(server, tenant, "My favourite colour is green.")

    refused = http.put(f"/v1/memories/{kept['id']}/", json={"text": "I live in Rome."})
    assert refused.status_code == 409 and "immutable" in refused.json()["detail"]
    batch = http.put(
        "/v1/batch/",
        json={"memories": [{"memory_id": other["id"], "text": "Blue."}, {"memory_id": kept["id"], "text": "Rome."}]},
    )
    assert batch.status_code == 409 and kept["id"] in batch.json()["detail"]
    assert memory(server, tenant, other["id"])["memory"] == "My favourite colour is green."  # all or nothing
    assert http.put(f"/v1/memories/{other['id']}/", json={"text": "Blue."}).status_code == 200  # a mutable one is

    # a later statement that changes the fact does not outdate it, nor does one that says it again merge into it
    (moved,) = add(server, tenant, "I moved from Paris to Lisbon.", infer=True, timestamp=1_710_000_000)
    assert memory(server, tenant, kept["id"])["lifecycle_state"] == "active"
    assert memory(server, tenant, moved["id"])["lifecycle_state"] == "active"
    (again,) = add(server, tenant, "User lives in Paris", immutable=True)
    assert memory(server, tenant, again["id"])["lifecycle_state"] == "active"  # its own memory, not merged

    assert http.delete(f"/v1/memories/{kept['id']}/").status_code == 200
    assert http.get(f"/v1/memories/{kept['id']}/").status_code == 404
