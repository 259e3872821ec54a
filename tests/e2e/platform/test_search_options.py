"""The search options the clients send, on both backends and every search route:
`rerank` re-scores the candidates with the reranker, `keyword_search` false searches by meaning alone, and
`reference_date` is the now the query's time phrases are resolved against; a bad `reference_date` is a 400."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.e2e.platform.conftest import Server, Tenant
from tests.support.waits import HTTP_TIMEOUT

ALICE = {"user_id": "alice"}


def add(server: Server, tenant: Tenant, text: str, when: datetime | None = None) -> str:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False}
    if when is not None:
        body["timestamp"] = int(when.timestamp())
    answer = httpx.post(
        f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    assert answer["status"] == "SUCCEEDED", answer
    memory_id: str = answer["results"][0]["id"]
    return memory_id


def post_search(server: Server, tenant: Tenant, version: str, query: str, **options: Any) -> httpx.Response:
    body: dict[str, Any] = {"query": query, "filters": ALICE, **options}
    if version == "v1":
        body = {"query": query, "user_id": "alice", **options}
    return httpx.post(
        f"{server.url}/{version}/memories/search/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )


def search(server: Server, tenant: Tenant, version: str, query: str, **options: Any) -> list[dict[str, Any]]:
    answer = post_search(server, tenant, version, query, **options)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    found: list[dict[str, Any]] = got["results"] if isinstance(got, dict) else got
    return found


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_rerank_ranks_the_answer_first_and_says_its_score(server: Server, tenant: Tenant, version: str) -> None:
    answer = add(server, tenant, "I adopted a grey cat called Miso from the shelter last spring.")
    for text in ("Cats are funny.", "The shelter is closed on Mondays.", "I had miso soup for lunch."):
        add(server, tenant, text)
    hits = search(server, tenant, version, "Which pet did I adopt?", rerank=True, threshold=0.0)
    assert hits[0]["id"] == answer, [h["memory"] for h in hits]
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
    if version == "v3":
        assert all(0.0 < h["score_breakdown"]["rerank"] < 1.0 for h in hits)
        plain = search(server, tenant, version, "Which pet did I adopt?", threshold=0.0)
        assert "rerank" not in plain[0]["score_breakdown"]


def test_keyword_search_false_searches_by_meaning_alone(server: Server, tenant: Tenant) -> None:
    code = add(server, tenant, "The wifi password at the cabin is Quokkaberry42.")
    add(server, tenant, "I run five kilometres every morning.")
    hybrid = search(server, tenant, "v3", "Quokkaberry42", threshold=0.0)
    assert hybrid[0]["id"] == code and hybrid[0]["score_breakdown"]["bm25"] > 0
    for hits in (
        search(server, tenant, "v3", "Quokkaberry42", threshold=0.0, keyword_search=False),
        search(server, tenant, "v2", "Quokkaberry42", threshold=0.0, keyword_search=False),
    ):
        assert hits and all(h.get("score_breakdown", {}).get("bm25", 0) == 0 for h in hits)
    assert search(server, tenant, "v3", "Quokkaberry42", threshold=0.0, keyword_search=True)[0]["id"] == code


@pytest.mark.parametrize("version", ["v2", "v3"])
def test_reference_date_resolves_the_query_s_time_phrase(server: Server, tenant: Tenant, version: str) -> None:
    may = add(server, tenant, "Went hiking in the Alps with Tom.", datetime(2025, 5, 17, 10, tzinfo=UTC))
    january = add(server, tenant, "Went hiking in the Pyrenees with Tom.", datetime(2025, 1, 18, 10, tzinfo=UTC))
    in_july = search(server, tenant, version, "Where did I go hiking last May?", reference_date="2025-07-10")
    assert [h["id"] for h in in_july[:2]] == [may, january]
    in_february = search(
        server,
        tenant,
        version,
        "Where did I go hiking last January?",
        reference_date=int(datetime(2025, 2, 10).timestamp()),
    )
    assert [h["id"] for h in in_february[:2]] == [january, may]


def test_a_reference_date_that_is_no_date_is_a_400(server: Server, tenant: Tenant) -> None:
    answer = post_search(server, tenant, "v3", "last May", reference_date="the day after")
    assert answer.status_code == 400, answer.text
    assert "reference_date" in answer.text
