"""Memory namespaces on AWS beyond the shared contract: the DynamoDB keys a namespaced store writes (every partition
key, in the table and the indexes, under `NS#<namespace>#`), table-wide maintenance that never crosses a namespace
or touches the plain store, and the exact OpenSearch requests of a project (its own index, `<index>-<project>`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces, namespace_index_name
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.adapters.opensearch.transport import HttpTransport
from mnemo.domain import filters as f
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.providers import ActiveProviders, ProviderSet
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table
from tests.unit.test_opensearch_index import FakeCluster, bulk_ok, index_not_found, msearch, ok, search_response

TABLE = "memories"
BASE = "mnemo-memories"
GSI_KEYS = ("user_pk", "agent_pk", "run_pk", "time_pk", "ent_pk")


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_memory_table(client, TABLE)
        yield client


def insert(store: DynamoMemoryStore, text: str, user: str = "alice") -> MemoryRecord:
    record = MemoryRecord.create(text, Scope(user_id=user, agent_id="bot", run_id="r1"))
    store.insert([record], np.ones((1, 4), dtype=np.float32) / 2.0, [])
    return record


def raw_items(client: Any) -> list[dict[str, Any]]:
    return list(client.scan(TableName=TABLE, ConsistentRead=True)["Items"])


def test_given_a_namespaced_store_when_writing_then_every_partition_key_carries_the_namespace(dynamodb: Any) -> None:
    store = DynamoMemoryStore(dynamodb, TABLE, namespace="proj_a")
    record = insert(store, "I like tea")
    store.put_setting("k", 1)
    items = raw_items(dynamodb)
    assert {i["sk"]["S"] for i in items} >= {"MEM", "HASH", "ENT", "SETTING"}
    for item in items:
        assert item["pk"]["S"].startswith("NS#proj_a#"), item["pk"]
        for name in GSI_KEYS:
            if name in item:
                assert item[name]["S"].startswith("NS#proj_a#"), (name, item[name])
        if "guard" in item:
            assert item["guard"]["S"].startswith("NS#proj_a#HASH#")
    assert store.get(record.id) == record
    assert store.get_setting("k") == 1


def test_given_namespaces_and_the_plain_store_when_reading_or_maintaining_then_none_crosses(dynamodb: Any) -> None:
    plain = DynamoMemoryStore(dynamodb, TABLE)
    one = DynamoMemoryStore(dynamodb, TABLE, namespace="proj_a")
    two = DynamoMemoryStore(dynamodb, TABLE, namespace="proj_b")
    mine = insert(plain, "plain memory")
    first = insert(one, "secret of a")
    second = insert(two, "secret of b")

    assert plain.get(first.id) is None and two.get(first.id) is None and one.get(second.id) is None
    assert one.get_many([first.id, second.id, mine.id]) == {first.id: first}
    assert [r.id for r in one.find(f.parse({"user_id": "alice"}))] == [first.id]
    assert [r.id for r in one.find(f.parse({"id": second.id}))] == []
    assert [r.id for r in plain.find(f.parse({}))] == [mine.id]
    assert [[r.id for r in batch] for batch, _ in plain.scan()] == [[mine.id]]
    assert [[r.id for r in batch] for batch, _ in two.scan()] == [[second.id]]
    assert one.find_by_hash(second.scope, second.hash) is None
    assert [(e.id, e.total_memories) for e in one.count_by_entity()] == [("bot", 1), ("r1", 1), ("alice", 1)]

    assert plain.rebuild_entity_counts() == 3  # the plain store's own user, agent and run only
    assert [(e.id, e.total_memories) for e in two.count_by_entity()] == [("bot", 1), ("r1", 1), ("alice", 1)]
    one.clear()
    assert one.get(first.id) is None and one.count_by_entity() == []
    assert two.get(second.id) == second and plain.get(mine.id) == mine
    plain.clear()
    assert plain.get(mine.id) is None and two.get(second.id) == second
    assert all(i["pk"]["S"].startswith("NS#proj_b#") for i in raw_items(dynamodb))


@pytest.mark.parametrize("namespace", ["", "Proj_A", "a#b", "a" * 65, "x y"])
def test_given_an_unsafe_namespace_when_building_then_refused(dynamodb: Any, namespace: str) -> None:
    with pytest.raises(ValueError, match="Invalid namespace"):
        DynamoMemoryStore(dynamodb, TABLE, namespace=namespace)
    with pytest.raises(ValueError, match="Invalid namespace"):
        namespace_index_name(BASE, namespace)


def empty_msearch(request: httpx.Request) -> httpx.Response:
    """No hit for each search of the request (an _msearch body is a header line and a query line per search)."""
    searches = len(request.content.decode().splitlines()) // 2
    return msearch(*[search_response([]) for _ in range(searches)])


def test_given_a_project_when_adding_searching_and_dropping_then_only_its_own_index_is_requested(
    dynamodb: Any, embedder: Embedder
) -> None:
    index = f"/{BASE}-proj_a"
    cluster = FakeCluster().on("HEAD", index, httpx.Response(404))
    cluster.on("PUT", index, ok({"acknowledged": True, "shards_acknowledged": True, "index": index[1:]}))
    cluster.on("POST", f"{index}/_bulk", bulk_ok)
    cluster.on("POST", f"{index}/_msearch", empty_msearch)
    cluster.on("POST", f"{index}/_search", index_not_found())  # the first search's look for stale facets
    cluster.on("DELETE", index, ok({"acknowledged": True}))
    transport = HttpTransport("https://search.example.com", http_transport=httpx.MockTransport(cluster.handle))
    providers = ActiveProviders(ProviderSet(embedder=embedder, llm=None, custom_instructions=None))
    storage = AwsMemoryNamespaces(
        dynamodb,
        TABLE,
        lambda namespace: OpenSearchMemoryIndex(transport, namespace_index_name(BASE, namespace), facets=english()),
    )
    namespaces = NamespaceMemoryServices(storage, providers, language=english())

    service = namespaces.memory_service("proj_a")
    (added,) = service.add(AddCommand([Message("user", "I like green tea")], Scope(user_id="alice"), infer=False))
    service.search(SearchCommand("green tea", f.parse({"user_id": "alice"})))
    namespaces.drop("proj_a")

    assert [(s.method, s.path) for s in cluster.sent] == [
        ("POST", f"{index}/_search"),  # documents of facets another pack version read: none, no index yet
        ("POST", f"{index}/_msearch"),  # the add looks for a memory its new one says the same as (a merge)
        ("HEAD", index),
        ("PUT", index),
        ("POST", f"{index}/_bulk"),
        ("POST", f"{index}/_msearch"),
        ("DELETE", index),
    ]
    action, document = cluster.requests("POST", f"{index}/_bulk")[0].lines()
    assert action == {"index": {"_id": added.record.id}} and document["memory"] == "I like green tea"
    knn, _, bm25 = cluster.requests("POST", f"{index}/_msearch")[-1].lines()[1:]  # the search (the add's: knn only)
    assert '"user_id":"alice"' in json.dumps(knn["query"]["knn"]["embedding"]["filter"], separators=(",", ":"))
    assert bm25["query"]["bool"]["must"][0]["multi_match"]["query"] == "green tea"
    assert raw_items(dynamodb) == []  # the project's records went with its index
    assert namespaces.stored_namespaces() == []


def test_given_memories_in_several_namespaces_when_listing_them_then_each_once(
    dynamodb: Any, embedder: Embedder
) -> None:
    for n, namespace in enumerate(("proj_b", "proj_a", "proj_b")):
        insert(DynamoMemoryStore(dynamodb, TABLE, namespace=namespace), f"memory {n} of {namespace}")
    insert(DynamoMemoryStore(dynamodb, TABLE), "plain")
    transport = HttpTransport("https://search.example.com", http_transport=httpx.MockTransport(FakeCluster().handle))
    namespaces = AwsMemoryNamespaces(dynamodb, TABLE, lambda ns: OpenSearchMemoryIndex(transport, ns, facets=english()))
    assert namespaces.stored_namespaces() == ["proj_a", "proj_b"]


class CallLog:
    """The DynamoDB client, with the name of every operation called on it recorded."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.calls.append(name)
        return getattr(self._client, name)


def test_given_a_namespace_when_dropping_rebuilding_or_reembedding_then_only_its_own_keys_are_read(
    dynamodb: Any,
) -> None:
    """A project's maintenance costs what the project holds, not what the table holds: no Scan, ever."""
    other = DynamoMemoryStore(dynamodb, TABLE, namespace="proj_b")
    kept = insert(other, "secret of b")
    logged = CallLog(dynamodb)
    store = DynamoMemoryStore(logged, TABLE, namespace="proj_a", page_size=2)
    records = [insert(store, f"fact {i}", user=f"user{i % 3}") for i in range(7)]
    store.remove([records[0].id], [])  # its history stays, and must go with the namespace
    store.put_setting("k", 1)
    mine = [i for i in raw_items(dynamodb) if i["pk"]["S"].startswith("NS#proj_a#")]
    assert mine and all(i["ns_pk"]["S"].startswith("NS#proj_a#PART#") for i in mine)

    logged.calls.clear()
    assert sorted(r.id for batch, _ in store.scan(batch_size=4) for r in batch) == sorted(r.id for r in records[1:])
    assert store.rebuild_entity_counts() == 5  # user0..user2, bot, r1
    assert [(e.id, e.total_memories) for e in store.count_by_entity() if e.id == "user1"] == [("user1", 2)]
    store.clear()
    assert "scan" not in logged.calls and "query" in logged.calls
    left = [i["sk"]["S"] for i in raw_items(dynamodb) if i["pk"]["S"].startswith("NS#proj_a#")]
    assert left == ["SETTING"]  # settings stay, as the plain store's do
    assert other.get(kept.id) == kept
