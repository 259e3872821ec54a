"""Memory decay, on both backends: with a project's `decay` on, v3 search ranks by relevance
times a freshness multiplier — a fresh memory above an older one, a retrieved one higher than before — the
threshold applying to relevance first and the score answered within [0, 1]; off, and on v1 and v2 whatever the
project says, nothing changes. A project's retrievals never reach another's ranking, and a deleted memory's go
with it. Ages are years and days apart (`timestamp` backdates), so the real clock orders them the same on any
run."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant
from tests.support.waits import HTTP_TIMEOUT

DAY = 86_400
ALICE = {"user_id": "alice"}


def add(server: Server, tenant: Tenant, text: str, days_ago: float) -> str:
    body = {
        "messages": [{"role": "user", "content": text}],
        "user_id": "alice",
        "infer": False,
        "timestamp": int(time.time() - days_ago * DAY),
    }
    answer = httpx.post(
        f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    assert answer["status"] == "SUCCEEDED" and answer["results"][0]["event"] == "ADD", answer
    memory_id: str = answer["results"][0]["id"]
    return memory_id


def set_decay(server: Server, tenant: Tenant, on: bool) -> None:
    path = f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    answer = httpx.patch(path, json={"decay": on}, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200 and answer.json()["decay"] is on, answer.text


def search(server: Server, tenant: Tenant, query: str, version: str = "v3", **options: Any) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"query": query, "filters": ALICE, **options}
    if version == "v1":
        body = {"query": query, "user_id": "alice", **options}
    answer = httpx.post(
        f"{server.url}/{version}/memories/search/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert answer.status_code == 200, answer.text
    got = answer.json()
    found: list[dict[str, Any]] = got["results"] if isinstance(got, dict) else got
    return found


def ids(hits: list[dict[str, Any]]) -> list[str]:
    return [h["id"] for h in hits]


def by_id(hits: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {h["id"]: h for h in hits}


def waiting(server: Server) -> int:
    """Memories whose recorded retrievals wait to be written."""
    return server.platform.namespaces.access_buffer.pending()


DRINK = "What is my favourite drink?"


def drinks(server: Server, tenant: Tenant) -> tuple[str, str]:
    """An old memory that answers the question closely, and a fresh one that answers it less closely."""
    old = add(server, tenant, "My favourite drink is black coffee", days_ago=6 * 365)
    fresh = add(server, tenant, "These days I mostly drink green tea", days_ago=2)
    return old, fresh


def test_with_decay_on_a_fresh_memory_ranks_above_an_older_more_relevant_one(server: Server) -> None:
    tenant = new_tenant(server, "decay-order")
    old, fresh = drinks(server, tenant)
    before = search(server, tenant, DRINK)
    assert ids(before)[:2] == [old, fresh]  # by relevance alone
    assert all("decay" not in h["score_breakdown"] for h in before)

    set_decay(server, tenant, True)
    after = search(server, tenant, DRINK)
    assert ids(after)[:2] == [fresh, old]
    hits, relevance = by_id(after), by_id(before)
    for memory_id in (old, fresh):
        breakdown = hits[memory_id]["score_breakdown"]
        assert breakdown["relevance"] == relevance[memory_id]["score"]
        assert abs(hits[memory_id]["score"] - min(breakdown["relevance"] * breakdown["decay"], 1.0)) < 1e-5
    assert hits[old]["score_breakdown"]["decay"] < 0.35  # six years old: near the floor (0.3)
    assert 1.19 < hits[fresh]["score_breakdown"]["decay"] <= 1.5

    set_decay(server, tenant, False)
    assert search(server, tenant, DRINK) == before  # off again: exactly as before


def test_v1_and_v2_search_never_decay_nor_record_retrievals(server: Server) -> None:
    tenant = new_tenant(server, "decay-legacy")
    old, fresh = drinks(server, tenant)
    plain = {version: search(server, tenant, DRINK, version) for version in ("v1", "v2")}
    set_decay(server, tenant, True)
    for version in ("v1", "v2"):
        hits = search(server, tenant, DRINK, version)
        assert hits == plain[version] and ids(hits)[:2] == [old, fresh]
        assert all("decay" not in h["score_breakdown"] for h in hits)
    # Whatever waits is written (the buffer also writes on its own schedule, an earlier test's retrievals too):
    # these memories have none recorded, and a v3 search does record one.
    server.platform.namespaces.access_buffer.flush()
    service = server.platform.project_memory.memory_service(tenant.project_id)
    assert service.accesses is not None and service.accesses.recent([old, fresh]) == {}
    assert ids(search(server, tenant, DRINK, "v3"))[:2] == [fresh, old]
    server.platform.namespaces.access_buffer.flush()
    assert set(service.accesses.recent([old, fresh])) == {old, fresh}


def test_a_retrieved_memory_gains_on_one_that_is_not(server: Server) -> None:
    tenant = new_tenant(server, "decay-reinforce")
    tea = add(server, tenant, "I drink green tea every morning", days_ago=30)
    juice = add(server, tenant, "I drink orange juice every morning", days_ago=30)
    set_decay(server, tenant, True)
    question = "What do I drink every morning?"
    before = by_id(search(server, tenant, question))
    assert abs(before[tea]["score_breakdown"]["decay"] - before[juice]["score_breakdown"]["decay"]) < 1e-3

    for _ in range(3):  # retrieved alone
        assert ids(search(server, tenant, "green tea", top_k=1)) == [tea]
    after = by_id(search(server, tenant, question))
    boost = server.platform.project_memory.decay.access_boost  # what accesses add at most (times freshness)
    assert after[tea]["score_breakdown"]["decay"] > before[tea]["score_breakdown"]["decay"] + boost / 2
    # juice was returned once, by the first question: a little reinforcement, less than tea's four
    assert after[juice]["score_breakdown"]["decay"] < after[tea]["score_breakdown"]["decay"] - boost / 4
    assert after[tea]["score"] > before[tea]["score"]

    server.platform.namespaces.access_buffer.flush()  # written to the store (SQLite, or DynamoDB)
    assert waiting(server) == 0
    assert (
        by_id(search(server, tenant, question))[tea]["score_breakdown"]["decay"]
        >= after[tea]["score_breakdown"]["decay"]
    )


def test_the_threshold_applies_to_relevance_before_decay_and_the_score_stays_within_0_and_1(server: Server) -> None:
    tenant = new_tenant(server, "decay-bounds")
    exact = add(server, tenant, "I keep bees on my roof", days_ago=1)
    old = add(server, tenant, "I keep honey in the cellar", days_ago=8 * 365)
    add(server, tenant, "I once went to Reykjavik", days_ago=1)  # unrelated: below any threshold
    plain = by_id(search(server, tenant, "I keep bees on my roof", threshold=0.3))
    set_decay(server, tenant, True)
    hits = search(server, tenant, "I keep bees on my roof", threshold=0.3)
    assert ids(hits) == [exact, old] and set(ids(hits)) == set(plain)  # the same memories pass the threshold
    top = hits[0]
    assert top["score_breakdown"]["relevance"] * top["score_breakdown"]["decay"] > 1.0 and top["score"] == 1.0
    tail = hits[1]
    assert tail["score_breakdown"]["semantic"] >= 0.3 > tail["score"]  # passed on relevance, decayed below it
    assert all(0.0 <= h["score"] <= 1.0 for h in hits)


def test_one_projects_retrievals_never_reach_another_projects_ranking(server: Server) -> None:
    first, second = new_tenant(server, "decay-iso-a"), new_tenant(server, "decay-iso-b")
    made = {}
    for tenant in (first, second):
        made[tenant.project_id] = (
            add(server, tenant, "I drink green tea every morning", days_ago=30),
            add(server, tenant, "I drink orange juice every morning", days_ago=30),
        )
        set_decay(server, tenant, True)
    question = "What do I drink every morning?"
    for _ in range(4):  # the same memory ids could never be shared; the same texts, users and questions are
        search(server, first, "green tea", top_k=1)
    server.platform.namespaces.access_buffer.flush()
    tea_a = made[first.project_id][0]
    tea_b, juice_b = made[second.project_id]
    reinforced = by_id(search(server, first, question))[tea_a]["score_breakdown"]["decay"]
    other = by_id(search(server, second, question))  # the second project's first search: nothing retrieved yet
    assert other[tea_b]["score_breakdown"]["decay"] == other[juice_b]["score_breakdown"]["decay"]
    assert other[tea_b]["score_breakdown"]["decay"] < reinforced - server.platform.project_memory.decay.access_boost / 2


def test_a_deleted_memory_takes_its_retrievals_with_it(server: Server) -> None:
    tenant = new_tenant(server, "decay-delete")
    tea = add(server, tenant, "I drink green tea every morning", days_ago=3)
    set_decay(server, tenant, True)
    search(server, tenant, "green tea")
    server.platform.namespaces.access_buffer.flush()
    service = server.platform.project_memory.memory_service(tenant.project_id)
    assert service.accesses is not None and tea in service.accesses.recent([tea])
    assert (
        httpx.delete(f"{server.url}/v1/memories/{tea}/", headers=tenant.headers, timeout=HTTP_TIMEOUT).status_code
        == 200
    )
    assert service.accesses.recent([tea]) == {}
