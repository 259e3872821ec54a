"""Dream at add time (issue 15), on both backends: a memory that says what an active one of its user already
says is merged into it (kept, hidden unless `include_merged`), without an LLM; a memory an LLM's decision made
false is superseded (shown by default with its state, below the current fact; `latest_only` hides it). v2 and v3
search and list."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant
from tests.e2e.platform.test_categories import add, memory
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT

ALICE = {"user_id": "alice"}


def listed(server: Server, tenant: Tenant, version: str = "v2", **options: Any) -> list[dict[str, Any]]:
    body = {"filters": ALICE, **options}
    page = httpx.post(f"{server.url}/{version}/memories/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert page.status_code == 200, page.text
    answer = page.json()
    found: list[dict[str, Any]] = answer["results"] if isinstance(answer, dict) else answer
    return found


def searched(server: Server, tenant: Tenant, query: str, version: str = "v2", **options: Any) -> list[dict[str, Any]]:
    body = {"query": query, "filters": ALICE, **options}
    answer = httpx.post(
        f"{server.url}/{version}/memories/search/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert answer.status_code == 200, answer.text
    got = answer.json()
    found: list[dict[str, Any]] = got["results"] if isinstance(got, dict) else got
    return found


def test_a_memory_that_says_what_one_already_says_is_merged_and_hidden(server: Server) -> None:
    tenant = new_tenant(server, "merge")
    (first,) = add(server, tenant, "I live in Lisbon")
    (again,) = add(server, tenant, "User lives in Lisbon")
    (other,) = add(server, tenant, "Lives in Porto")  # another value: never merged
    assert (first["event"], again["event"], other["event"]) == ("ADD", "NONE", "ADD")
    merged = memory(server, tenant, again["id"])
    assert merged["lifecycle_state"] == "merged" and merged["replaced_by"] == first["id"]
    assert memory(server, tenant, first["id"])["lifecycle_state"] == "active"

    for version in ("v2", "v3"):
        assert sorted(m["id"] for m in listed(server, tenant, version)) == sorted([first["id"], other["id"]])
        everything = listed(server, tenant, version, include_merged=True)
        assert sorted(m["id"] for m in everything) == sorted([first["id"], again["id"], other["id"]])
        hits = searched(server, tenant, "Where does the user live?", version)
        assert again["id"] not in [h["id"] for h in hits] and first["id"] in [h["id"] for h in hits]
        with_merged = searched(server, tenant, "Where does the user live in Lisbon?", version, include_merged=True)
        ids = [h["id"] for h in with_merged]
        assert again["id"] in ids and ids.index(first["id"]) < ids.index(again["id"])  # the one kept ranks first


def test_a_superseded_memory_is_shown_with_its_state_unless_latest_only(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "supersede")
    llm.reply_json({"facts": ["Lives in Lisbon"]}, {"memory": [{"event": "ADD", "text": "Lives in Lisbon"}]})
    (lisbon,) = add(server, tenant, "I live in Lisbon.", infer=True)
    llm.reply_json(
        {"facts": ["Lives in Porto"]},
        {"memory": [{"event": "ADD", "text": "Lives in Porto"}, {"event": "DELETE", "id": "0"}]},
    )
    results = add(server, tenant, "I moved to Porto last month.", infer=True)
    porto = next(r for r in results if r["event"] == "ADD")
    assert [r["id"] for r in results if r["event"] == "DELETE"] == [lisbon["id"]]
    old = memory(server, tenant, lisbon["id"])
    assert old["lifecycle_state"] == "superseded" and old["replaced_by"] == porto["id"]

    for version in ("v2", "v3"):
        shown = {m["id"]: m["lifecycle_state"] for m in listed(server, tenant, version)}
        assert shown == {lisbon["id"]: "superseded", porto["id"]: "active"}  # by default, with its state
        assert [m["id"] for m in listed(server, tenant, version, latest_only=True)] == [porto["id"]]
        hits = searched(server, tenant, "Where does the user live?", version)
        assert [h["id"] for h in hits][:2] == [porto["id"], lisbon["id"]]  # the current fact first
        assert [h["id"] for h in searched(server, tenant, "Where does the user live?", version, latest_only=True)] == [
            porto["id"]
        ]


def test_without_an_llm_a_newer_statement_keeps_the_older_one_as_outdated(server: Server) -> None:
    tenant = new_tenant(server, "outdated")
    (paris,) = add(server, tenant, "I live in Paris.", infer=True, timestamp=1_700_000_000)
    (lisbon,) = add(server, tenant, "I moved from Paris to Lisbon.", infer=True, timestamp=1_710_000_000)

    old = memory(server, tenant, paris["id"])
    assert old["lifecycle_state"] == "outdated" and old["replaced_by"] == lisbon["id"]
    for version in ("v2", "v3"):
        shown = {m["id"]: m for m in listed(server, tenant, version)}
        assert set(shown) == {paris["id"], lisbon["id"]}  # listed by default, with its state
        assert [m["id"] for m in listed(server, tenant, version, latest_only=True)] == [lisbon["id"]]
        for question in ("Where does the user live?", "Where does Alice live?"):
            hits = [h["id"] for h in searched(server, tenant, question, version)]
            assert hits[:2] == [lisbon["id"], paris["id"]]  # the current fact first, the outdated right below
