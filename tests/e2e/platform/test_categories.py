"""Every memory of a platform project gets categories (issue 15): the project's custom categories when it has
them, else the 15 default ones; without an LLM by embedding similarity (mnemo.services.category_classifier, whose
precision is measured in bench/results/categories.json), with one as the extraction step files each fact. Category
filters then find them. Both backends."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant, wait_for_event
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT


def add(server: Server, tenant: Tenant, text: str, *, infer: bool = False, **extra: Any) -> list[dict[str, Any]]:
    body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": infer, **extra}
    answer = httpx.post(
        f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    if answer.get("status") != "SUCCEEDED":
        answer = wait_for_event(server, tenant, answer["event_id"])
    assert answer["status"] == "SUCCEEDED", answer
    results: list[dict[str, Any]] = answer["results"]
    return results


def memory(server: Server, tenant: Tenant, memory_id: str) -> dict[str, Any]:
    got: dict[str, Any] = httpx.get(
        f"{server.url}/v1/memories/{memory_id}/", headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    return got


def listed(server: Server, tenant: Tenant, filters: dict[str, Any]) -> list[str]:
    body = {"filters": {"AND": [{"user_id": "alice"}, filters]}}
    page = httpx.post(f"{server.url}/v2/memories/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert page.status_code == 200, page.text
    return sorted(m["memory"] for m in page.json())


def test_without_an_llm_each_memory_is_filed_under_a_default_category(server: Server) -> None:
    tenant = new_tenant(server, "filing")
    expected = {
        "I am allergic to peanuts and take antihistamines": "health",
        "I play tennis every Sunday morning": "sports",
        "My mother lives with us": "family",
        "Works as a backend engineer at a bank": "professional_details",
        "Flew to Tokyo for a two-week holiday": "travel",
    }
    ids = {text: add(server, tenant, text)[0]["id"] for text in expected}
    for text, category in expected.items():
        assert memory(server, tenant, ids[text])["categories"] == [category], text
    assert listed(server, tenant, {"categories": {"in": ["health"]}}) == [
        "I am allergic to peanuts and take antihistamines"
    ]
    assert listed(server, tenant, {"categories": {"in": ["travel", "sports"]}}) == [
        "Flew to Tokyo for a two-week holiday",
        "I play tennis every Sunday morning",
    ]
    found = httpx.post(
        f"{server.url}/v2/memories/search/",
        json={"query": "allergies", "filters": {"AND": [{"user_id": "alice"}, {"categories": {"in": ["health"]}}]}},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    ).json()
    assert [m["id"] for m in found] == [ids["I am allergic to peanuts and take antihistamines"]]


def test_a_memory_that_fits_no_category_is_misc_and_custom_categories_replace_the_defaults(server: Server) -> None:
    tenant = new_tenant(server, "custom")
    (odd,) = add(server, tenant, "The blue folder is on the second shelf")
    assert memory(server, tenant, odd["id"])["categories"] == ["misc"]
    custom = [{"pets": "Animals the user owns or cares for: dogs, cats"}, {"cooking": "Recipes and cooking"}]
    (dog,) = add(server, tenant, "Has a golden retriever called Max", custom_categories=custom)
    (stew,) = add(server, tenant, "Makes a great beef stew recipe", custom_categories=custom)
    assert memory(server, tenant, dog["id"])["categories"] == ["pets"]
    assert memory(server, tenant, stew["id"])["categories"] == ["cooking"]
    # the project's own categories, for every add that names none
    project = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    assert (
        httpx.patch(
            project, json={"custom_categories": custom}, headers=tenant.headers, timeout=HTTP_TIMEOUT
        ).status_code
        == 200
    )
    (cat,) = add(server, tenant, "Adopted a black cat from the shelter")
    assert memory(server, tenant, cat["id"])["categories"] == ["pets"]


def test_with_an_llm_each_extracted_fact_is_filed_by_similarity(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "llm-filing")
    llm.reply_json(
        {
            "facts": [
                {"text": "Is allergic to peanuts", "sources": [0]},
                {"text": "Plays tennis on Sundays", "sources": [0]},
            ]
        }
    )
    results = add(server, tenant, "I'm allergic to peanuts. I play tennis on Sundays.", infer=True)
    by_text = {r["data"]["memory"]: memory(server, tenant, r["id"])["categories"] for r in results}
    assert by_text == {"Is allergic to peanuts": ["health"], "Plays tennis on Sundays": ["sports"]}
    # the extraction call asks for facts only, as on the self-hosted surface: one call, no categories listed
    (asked,) = llm.chat_requests
    prompt = asked.body["messages"][0]["content"]
    assert "- health: " not in prompt and '"categories"' not in prompt


def test_a_new_text_is_filed_anew(server: Server) -> None:
    tenant = new_tenant(server, "refile")
    (tennis,) = add(server, tenant, "I play tennis every Sunday morning")
    assert memory(server, tenant, tennis["id"])["categories"] == ["sports"]
    url = f"{server.url}/v1/memories/{tennis['id']}/"
    changed = httpx.put(
        url,
        json={"text": "I am allergic to peanuts and take antihistamines"},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert changed.status_code == 200, changed.text
    assert memory(server, tenant, tennis["id"])["categories"] == ["health"]
    kept = httpx.put(
        url, json={"metadata": {"checked": True}}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )  # the text is the same
    assert kept.status_code == 200 and memory(server, tenant, tennis["id"])["categories"] == ["health"]
    project = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    custom = [{"pets": "Animals the user owns or cares for: dogs, cats"}]
    assert (
        httpx.patch(
            project, json={"custom_categories": custom}, headers=tenant.headers, timeout=HTTP_TIMEOUT
        ).status_code
        == 200
    )
    batch = {"memories": [{"memory_id": tennis["id"], "text": "Adopted a black cat from the shelter"}]}
    assert (
        httpx.put(f"{server.url}/v1/batch/", json=batch, headers=tenant.headers, timeout=HTTP_TIMEOUT).status_code
        == 200
    )
    assert memory(server, tenant, tennis["id"])["categories"] == ["pets"]
