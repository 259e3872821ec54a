"""OpenSearchMemoryIndex without a cluster: the exact requests it sends, and how it reads responses shaped as
in the OpenSearch documentation (k-NN search, _msearch, _bulk with errors, index-not-found, _count).

The fake cluster is an httpx MockTransport behind the real HttpTransport, so the real encoding runs too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import httpx
import numpy as np
import pytest
from botocore.credentials import Credentials

from mnemo.adapters.opensearch.documents import cosine_from_score, index_body
from mnemo.adapters.opensearch.memory_index import BulkLimits, OpenSearchMemoryIndex
from mnemo.adapters.opensearch.transport import AwsSigV4, HttpTransport, SearchIndexError
from mnemo.domain.filters import parse
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import unit_rows

T0 = datetime(2024, 5, 8, 14, 30, 0, 123456, tzinfo=UTC)
NAME = "mnemo-test"

Reply = httpx.Response | Callable[[httpx.Request], httpx.Response]


@dataclass
class Sent:
    method: str
    path: str
    params: dict[str, str]
    content_type: str | None
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def lines(self) -> list[Any]:
        assert self.body.endswith(b"\n"), "NDJSON must end with a newline"
        return [json.loads(line) for line in self.body.decode("utf-8").splitlines()]


@dataclass
class FakeCluster:
    """Answers from a script of (method, path) -> replies, taken in order; records every request."""

    script: dict[tuple[str, str], list[Reply]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)

    def on(self, method: str, path: str, *replies: Reply) -> FakeCluster:
        self.script.setdefault((method, path), []).extend(replies)
        return self

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(
            Sent(
                request.method,
                request.url.path,
                dict(request.url.params),
                request.headers.get("content-type"),
                request.content,
            )
        )
        replies = self.script.get((request.method, request.url.path))
        if not replies:
            raise AssertionError(f"unexpected request {request.method} {request.url.path}")
        reply = replies.pop(0) if len(replies) > 1 else replies[0]
        return reply(request) if callable(reply) else reply

    def requests(self, method: str, path: str) -> list[Sent]:
        return [s for s in self.sent if (s.method, s.path) == (method, path)]


def ok(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def index_not_found(status: int = 404) -> httpx.Response:
    error = {
        "type": "index_not_found_exception",
        "reason": f"no such index [{NAME}]",
        "resource.type": "index_or_alias",
        "resource.id": NAME,
        "index_uuid": "_na_",
        "index": NAME,
    }
    return httpx.Response(status, json={"error": {"root_cause": [error], **error}, "status": 404})


def search_response(hits: list[tuple[str, float, dict[str, Any]]]) -> dict[str, Any]:
    """A search response as documented (k-NN search with a filter), one item of _msearch's `responses`."""
    return {
        "took": 2,
        "timed_out": False,
        "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
        "hits": {
            "total": {"value": len(hits), "relation": "eq"},
            "max_score": max((s for _, s, _ in hits), default=None),
            "hits": [
                {"_index": NAME, "_id": f"doc-{memory_id}", "_score": score, "_source": {"id": memory_id, **source}}
                for memory_id, score, source in hits
            ],
        },
        "status": 200,
    }


def msearch(*responses: dict[str, Any]) -> httpx.Response:
    return ok({"took": 3, "responses": list(responses)})


def bulk_ok(request: httpx.Request) -> httpx.Response:
    items = []
    for line in request.content.decode().splitlines():
        action = json.loads(line)
        if "index" in action:
            items.append({"index": {"_index": NAME, "_id": action["index"].get("_id", "gen"), "status": 201}})
        elif "delete" in action:
            items.append({"delete": {"_index": NAME, "_id": action["delete"]["_id"], "status": 200}})
    return ok({"took": 5, "errors": False, "items": items})


def make_index(cluster: FakeCluster, **options: Any) -> OpenSearchMemoryIndex:
    """The adapter over the scripted cluster; its pass over stale facets before searches (which sends requests of
    its own) is off unless asked for: tests/unit/test_opensearch_stale_facets.py checks it."""
    transport = HttpTransport("https://search.example.com", http_transport=httpx.MockTransport(cluster.handle))
    options.setdefault("stale_facets", None)
    return OpenSearchMemoryIndex(transport, NAME, sleep=lambda _: None, **options, facets=english())


def memory(text: str, user: str | None = "alice", **fields: Any) -> MemoryRecord:
    return MemoryRecord.create(text, Scope(user_id=user), at=fields.pop("at", T0), **fields)


def source_of(record: MemoryRecord, vector: list[float] | None = None) -> dict[str, Any]:
    """The _source the adapter indexed for `record` (what hits bring back)."""
    out: dict[str, Any] = {
        "memory": record.text,
        "user_id": record.scope.user_id,
        "agent_id": None,
        "run_id": None,
        "app_id": None,
        "actor_id": None,
        "role": None,
        "state": record.state.value,
        "categories": list(record.categories),
        "metadata": record.metadata,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
    }
    if vector is not None:
        out["embedding"] = vector
    return out


VECTORS = unit_rows(np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]))


# ---- creating the index ------------------------------------------------------------------------------


def test_given_a_new_index_when_constructed_then_it_sends_nothing():
    cluster = FakeCluster()

    make_index(cluster)

    assert cluster.sent == []


def test_given_no_index_when_the_first_memories_are_upserted_then_the_mapping_is_created_once_then_bulk_indexed():
    cluster = FakeCluster().on("HEAD", f"/{NAME}", httpx.Response(404))
    cluster.on("PUT", f"/{NAME}", ok({"acknowledged": True, "shards_acknowledged": True, "index": NAME}))
    cluster.on("POST", f"/{NAME}/_bulk", bulk_ok)
    index = make_index(cluster)
    first = memory("I love pizza.", metadata={"topic": "food", "n": 1}, categories=("food",))
    second = memory("I ride a bike.", user="bob", expiration_date=date(2030, 6, 30))

    index.upsert([first, second], VECTORS)
    index.upsert([first], VECTORS[:1])

    assert [(s.method, s.path) for s in cluster.sent] == [
        ("HEAD", f"/{NAME}"),
        ("PUT", f"/{NAME}"),
        ("POST", f"/{NAME}/_bulk"),
        ("POST", f"/{NAME}/_bulk"),
    ]
    mapping = cluster.sent[1].json()
    assert mapping == index_body(4)
    assert mapping["settings"] == {"index": {"knn": True}}
    assert mapping["mappings"]["dynamic"] is False
    assert mapping["mappings"]["properties"]["embedding"] == {
        "type": "knn_vector",
        "dimension": 4,
        "method": {
            "name": "hnsw",
            "space_type": "innerproduct",
            "engine": "faiss",
            "parameters": {"m": 16, "ef_construction": 128},
        },
    }
    assert mapping["mappings"]["properties"]["metadata"] == {"type": "object", "enabled": False}
    bulk = cluster.sent[2]
    assert bulk.content_type == "application/x-ndjson" and bulk.params == {}
    assert bulk.lines() == [
        {"index": {"_id": first.id}},
        {
            "id": first.id,
            "memory": "I love pizza.",
            "dated": "8 May 2024",
            "user_id": "alice",
            "agent_id": None,
            "run_id": None,
            "app_id": None,
            "actor_id": None,
            "role": None,
            "state": "active",
            "categories": ["food"],
            "facets": [],
            "facets_version": english().version,  # the facets' version, with the facets
            "metadata": {"topic": "food", "n": 1},
            "metadata_terms": ['["topic","food"]'],
            "created_at": "2024-05-08T14:30:00.123456+00:00",
            "created_us": 1715178600123456,
            "updated_at": "2024-05-08T14:30:00.123456+00:00",
            "updated_us": 1715178600123456,
            "expiration_date": None,
            "embedding": [1.0, 0.0, 0.0, 0.0],
        },
        {"index": {"_id": second.id}},
        {**bulk.lines()[3], "id": second.id},
    ]
    assert bulk.lines()[3]["expiration_date"] == "2030-06-30" and bulk.lines()[3]["user_id"] == "bob"


def test_given_a_concurrent_creator_when_creating_the_index_then_already_exists_is_fine_after_a_mapping_check():
    exists = {
        "error": {
            "root_cause": [{"type": "resource_already_exists_exception", "reason": "index already exists"}],
            "type": "resource_already_exists_exception",
            "reason": f"index [{NAME}/J0WlEhh4R7aDrfIc3AkwWQ] already exists",
            "index": NAME,
        },
        "status": 400,
    }
    cluster = FakeCluster().on("HEAD", f"/{NAME}", httpx.Response(404)).on("PUT", f"/{NAME}", ok(exists, 400))
    cluster.on("GET", f"/{NAME}/_mapping", ok({NAME: {"mappings": index_body(4)["mappings"]}}))
    cluster.on("POST", f"/{NAME}/_bulk", bulk_ok)

    make_index(cluster).upsert([memory("x")], VECTORS[:1])

    assert [s.path for s in cluster.sent] == [f"/{NAME}", f"/{NAME}", f"/{NAME}/_mapping", f"/{NAME}/_bulk"]


def test_given_an_index_of_another_dimension_when_upserting_then_a_clear_error_and_nothing_written():
    cluster = FakeCluster().on("HEAD", f"/{NAME}", httpx.Response(200))
    cluster.on("GET", f"/{NAME}/_mapping", ok({NAME: {"mappings": index_body(384)["mappings"]}}))

    with pytest.raises(SearchIndexError, match="384-dimensional vectors, not 4"):
        make_index(cluster).upsert([memory("x")], VECTORS[:1])

    assert cluster.requests("POST", f"/{NAME}/_bulk") == []


def test_given_an_index_when_cleared_then_it_is_deleted_and_the_next_upsert_creates_it_again():
    cluster = FakeCluster().on("HEAD", f"/{NAME}", httpx.Response(404)).on("PUT", f"/{NAME}", ok({}))
    cluster.on("POST", f"/{NAME}/_bulk", bulk_ok).on("DELETE", f"/{NAME}", ok({"acknowledged": True}))
    index = make_index(cluster)
    index.upsert([memory("x")], VECTORS[:1])

    index.clear()
    index.upsert([memory("y")], VECTORS[1:])

    assert [s.method for s in cluster.sent] == ["HEAD", "PUT", "POST", "DELETE", "HEAD", "PUT", "POST"]


def test_given_no_index_when_cleared_or_counted_then_nothing_happens():
    cluster = FakeCluster().on("DELETE", f"/{NAME}", index_not_found()).on("GET", f"/{NAME}/_count", index_not_found())
    index = make_index(cluster)

    index.clear()

    assert index.count() == 0


def test_given_documents_when_counted_then_the_count_api_answers():
    cluster = FakeCluster().on(
        "GET", f"/{NAME}/_count", ok({"count": 3, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0}})
    )

    assert make_index(cluster).count() == 3


# ---- bulk writes -------------------------------------------------------------------------------------


def _existing(cluster: FakeCluster) -> FakeCluster:
    return cluster.on("HEAD", f"/{NAME}", httpx.Response(200)).on(
        "GET", f"/{NAME}/_mapping", ok({NAME: {"mappings": index_body(4)["mappings"]}})
    )


def test_given_a_bulk_reply_with_a_failed_item_when_upserting_then_the_error_is_raised_with_its_reason():
    failed = {
        "took": 9,
        "errors": True,
        "items": [
            {"index": {"_index": NAME, "_id": "a", "_version": 1, "result": "created", "status": 201}},
            {
                "index": {
                    "_index": NAME,
                    "_id": "b",
                    "status": 400,
                    "error": {
                        "type": "mapper_parsing_exception",
                        "reason": "failed to parse field [embedding] of type [knn_vector]",
                        "index": NAME,
                        "shard": "0",
                        "index_uuid": "UZdzhOjDQvGihxfS-m_UFA",
                    },
                }
            },
        ],
    }
    cluster = _existing(FakeCluster()).on("POST", f"/{NAME}/_bulk", ok(failed))

    with pytest.raises(SearchIndexError, match=r"1 bulk operation.*mapper_parsing_exception: failed to parse"):
        make_index(cluster).upsert([memory("a"), memory("b")], VECTORS)


def test_given_items_rejected_as_too_many_requests_when_upserting_then_only_those_are_sent_again():
    first, second = memory("a"), memory("b")
    throttled = {
        "took": 1,
        "errors": True,
        "items": [
            {"index": {"_index": NAME, "_id": first.id, "status": 201, "result": "created"}},
            {
                "index": {
                    "_index": NAME,
                    "_id": second.id,
                    "status": 429,
                    "error": {"type": "rejected_execution_exception", "reason": "rejected execution"},
                }
            },
        ],
    }
    cluster = _existing(FakeCluster()).on("POST", f"/{NAME}/_bulk", ok(throttled), bulk_ok)

    make_index(cluster).upsert([first, second], VECTORS)

    bulks = cluster.requests("POST", f"/{NAME}/_bulk")
    assert [line.get("index", {}).get("_id") for line in bulks[1].lines()[::2]] == [second.id]
    assert len(bulks) == 2


def test_given_memories_when_removed_then_a_bulk_of_deletes_and_missing_documents_are_not_errors():
    documented = {
        "took": 35,
        "errors": False,
        "items": [
            {
                "delete": {
                    "_index": NAME,
                    "_id": "m1",
                    "_version": 1,
                    "result": "not_found",
                    "_shards": {"total": 1, "successful": 1, "failed": 0},
                    "_seq_no": 1,
                    "_primary_term": 1,
                    "status": 404,
                }
            },
            {"delete": {"_index": NAME, "_id": "m2", "result": "deleted", "status": 200}},
        ],
    }
    cluster = FakeCluster().on("POST", f"/{NAME}/_bulk", ok(documented))

    make_index(cluster, refresh="wait_for").remove(["m1", "m2"])

    (bulk,) = cluster.sent
    assert bulk.lines() == [{"delete": {"_id": "m1"}}, {"delete": {"_id": "m2"}}]
    assert bulk.params == {"refresh": "wait_for"}


def test_given_no_index_when_removing_then_nothing_fails():
    cluster = FakeCluster().on("POST", f"/{NAME}/_bulk", index_not_found())

    make_index(cluster).remove(["m1"])
    make_index(cluster).remove([])

    assert len(cluster.sent) == 1


def test_given_many_memories_when_upserted_then_bulk_requests_are_split_by_size():
    cluster = _existing(FakeCluster()).on("POST", f"/{NAME}/_bulk", bulk_ok)
    records = [memory(f"fact {i}") for i in range(5)]

    make_index(cluster, bulk=BulkLimits(max_docs=2)).upsert(records, unit_rows(np.ones((5, 4))))

    bulks = cluster.requests("POST", f"/{NAME}/_bulk")
    assert [len(b.lines()) // 2 for b in bulks] == [2, 2, 1]
    assert [line["id"] for b in bulks for line in b.lines()[1::2]] == [r.id for r in records]


def test_given_serverless_document_ids_when_upserting_then_old_documents_are_found_deleted_and_new_ones_unnamed():
    record = memory("I moved to Lisbon.")
    lookup = {"took": 1, "hits": {"total": {"value": 1, "relation": "eq"}, "hits": [{"_id": "1%3A0%3AxYz"}]}}
    cluster = _existing(FakeCluster()).on("POST", f"/{NAME}/_search", ok(lookup)).on("POST", f"/{NAME}/_bulk", bulk_ok)

    make_index(cluster, document_ids="generated").upsert([record], VECTORS[:1])

    search = cluster.requests("POST", f"/{NAME}/_search")[0].json()
    assert search == {"size": 10000, "_source": False, "query": {"terms": {"id": [record.id]}}}
    lines = cluster.requests("POST", f"/{NAME}/_bulk")[0].lines()
    assert lines[0] == {"delete": {"_id": "1%3A0%3AxYz"}}
    assert lines[1] == {"index": {}}
    assert lines[2]["id"] == record.id


# ---- search ------------------------------------------------------------------------------------------


def test_given_a_query_when_searching_then_knn_with_the_filter_inside_and_bm25_go_in_one_msearch():
    pizza = memory("I love eating vegetable pizza.")
    wifi = memory("The wifi password is marmalade.")
    query = unit_rows(np.array([[0.6, 0.8, 0.0, 0.0]]))[0]
    wifi_vector = [0.0, 0.0, 1.0, 0.0]
    knn = search_response([(pizza.id, 1.5, source_of(pizza)), (wifi.id, 0.8, source_of(wifi))])
    bm25 = search_response([(wifi.id, 2.75, source_of(wifi, wifi_vector)), (pizza.id, 0.5, source_of(pizza))])
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(knn, bm25))

    hits = make_index(cluster).search(query, "What's the wifi PASSWORD?", parse({"user_id": "alice"}), 2)

    (sent,) = cluster.sent
    assert sent.content_type == "application/x-ndjson"
    header, knn_body, header2, bm25_body = sent.lines()
    assert header == {} and header2 == {}
    assert knn_body == {
        "size": 2,
        "_source": {
            "includes": [
                "id",
                "memory",
                "user_id",
                "agent_id",
                "run_id",
                "app_id",
                "actor_id",
                "role",
                "categories",
                "metadata",
                "created_at",
                "updated_at",
                "expiration_date",
                "state",
                "facets",
            ]
        },
        "query": {
            "knn": {
                "embedding": {
                    "vector": [float(np.float32(0.6)), float(np.float32(0.8)), 0.0, 0.0],
                    "k": 2,
                    "filter": {"term": {"user_id": "alice"}},
                }
            }
        },
    }
    assert bm25_body == {
        "size": 2,
        "_source": {"includes": [*knn_body["_source"]["includes"], "embedding"]},
        "query": {
            "bool": {
                "must": [
                    {"multi_match": {"query": "wifi password", "fields": ["memory", "dated"], "type": "most_fields"}}
                ],
                "filter": [{"term": {"user_id": "alice"}}],
            }
        },
    }
    # The k-NN score (faiss inner product: 1 + ip, or 1 / (1 - ip)) turned back into the cosine; BM25 raw.
    assert [(h.memory_id, h.semantic, h.keyword) for h in hits] == [(pizza.id, 0.5, 0.5), (wifi.id, -0.25, 2.75)]


def test_given_a_keyword_hit_outside_the_knn_hits_when_searching_then_its_cosine_comes_from_its_embedding():
    near, far = memory("near"), memory("far marmalade")
    query = unit_rows(np.array([[0.6, 0.8, 0.0, 0.0]]))[0]
    knn = search_response([(near.id, 1.96, source_of(near))])
    bm25 = search_response([(far.id, 4.0, source_of(far, [0.0, -1.0, 0.0, 0.0]))])
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(knn, bm25))

    hits = make_index(cluster).search(query, "marmalade", parse({"user_id": "alice"}), 1)

    assert hits[0].memory_id == near.id and hits[0].semantic == pytest.approx(0.96) and hits[0].keyword == 0.0
    assert hits[1].memory_id == far.id and hits[1].semantic == pytest.approx(-0.8) and hits[1].keyword == 4.0


def test_given_a_query_without_content_words_when_searching_then_only_the_knn_search_is_sent():
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(search_response([])))

    assert make_index(cluster).search(VECTORS[0], "what did I", parse(None), 3) == []

    header, body = cluster.sent[0].lines()
    assert header == {}
    assert "filter" not in body["query"]["knn"]["embedding"] and body["size"] == 3


def test_given_a_filter_that_needs_the_post_filter_when_searching_then_it_over_fetches_and_filters_in_python():
    high = memory("high", metadata={"priority": 3})
    low = memory("low", metadata={"priority": 1})
    hits_knn = search_response([(low.id, 1.9, source_of(low)), (high.id, 1.5, source_of(high))])
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(hits_knn))

    hits = make_index(cluster).search(VECTORS[0], "", parse({"user_id": "alice", "metadata.priority": {"gte": 2}}), 1)

    assert [h.memory_id for h in hits] == [high.id]
    body = cluster.sent[0].lines()[1]["query"]["knn"]["embedding"]
    assert body["k"] == 64 and body["filter"] == {"term": {"user_id": "alice"}}


def test_given_too_few_matches_among_the_candidates_when_searching_then_it_asks_for_more():
    rejected = [memory(f"low {i}", metadata={"priority": 0}) for i in range(4)]
    wanted = memory("high", metadata={"priority": 5})
    first = search_response([(r.id, 1.9, source_of(r)) for r in rejected])
    second = search_response([*[(r.id, 1.9, source_of(r)) for r in rejected], (wanted.id, 1.2, source_of(wanted))])
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(first), msearch(second))
    index = make_index(cluster, min_candidates=4)

    hits = index.search(VECTORS[0], "", parse({"metadata.priority": {"gt": 2}}), 1)

    assert [h.memory_id for h in hits] == [wanted.id]
    assert [s.lines()[1]["query"]["knn"]["embedding"]["k"] for s in cluster.sent] == [4, 32]


def test_given_serverless_duplicates_when_searching_then_each_memory_appears_once():
    record = memory("twice")
    knn = search_response([(record.id, 1.9, source_of(record)), (record.id, 1.8, source_of(record))])
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(knn))

    hits = make_index(cluster).search(VECTORS[0], "", parse(None), 5)

    assert [h.memory_id for h in hits] == [record.id] and hits[0].semantic == pytest.approx(0.9)


def test_given_no_index_yet_when_searching_then_no_hits():
    not_found_item = json.loads(index_not_found().content)
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(not_found_item, not_found_item))

    assert make_index(cluster).search(VECTORS[0], "pizza", parse({"user_id": "a"}), 3) == []
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", index_not_found())
    assert make_index(cluster).search(VECTORS[0], "pizza", parse({"user_id": "a"}), 3) == []


def test_given_a_failed_search_when_searching_then_the_error_is_raised():
    failure = {"error": {"type": "search_phase_execution_exception", "reason": "all shards failed"}, "status": 400}
    cluster = FakeCluster().on("POST", f"/{NAME}/_msearch", msearch(failure))

    with pytest.raises(SearchIndexError, match="search_phase_execution_exception: all shards failed"):
        make_index(cluster).search(VECTORS[0], "", parse(None), 3)


def test_given_a_filter_that_matches_nothing_or_no_limit_when_searching_then_no_request_is_sent():
    cluster = FakeCluster()
    index = make_index(cluster)

    assert index.search(VECTORS[0], "x", parse({"user_id": {"in": []}}), 5) == []
    assert index.search(VECTORS[0], "x", parse(None), 0) == []
    assert cluster.sent == []


@pytest.mark.parametrize(("score", "cosine"), [(2.0, 1.0), (1.25, 0.25), (1.0, 0.0), (0.5, -1.0), (0.8, -0.25)])
def test_given_faiss_inner_product_scores_when_converted_then_the_cosine_comes_back(score: float, cosine: float):
    assert cosine_from_score(score) == pytest.approx(cosine)


# ---- transport ---------------------------------------------------------------------------------------


def test_given_a_busy_cluster_when_requesting_then_the_transport_retries_then_answers():
    replies = [httpx.Response(503), httpx.Response(429), ok({"count": 1})]
    transport = HttpTransport(
        "https://x.example.com", http_transport=httpx.MockTransport(lambda r: replies.pop(0)), sleep=lambda _: None
    )

    response = transport.request("GET", "/i/_count")

    assert (response.status, response.body) == (200, {"count": 1})


def test_given_an_unreachable_cluster_when_requesting_then_a_search_index_error():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    transport = HttpTransport("https://x.example.com", http_transport=httpx.MockTransport(refuse), sleep=lambda _: None)

    with pytest.raises(SearchIndexError, match="unreachable"):
        transport.request("GET", "/")


def _sigv4_signature(request: httpx.Request, secret: str, region: str, service: str) -> str:
    """AWS Signature Version 4, computed independently from the request as it went on the wire."""
    authorization = request.headers["authorization"]
    signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
    stamp = request.headers["x-amz-date"]
    query = "&".join(f"{k}={v}" for k, v in sorted(request.url.params.multi_items()))
    headers = "".join(f"{name}:{request.headers[name].strip()}\n" for name in signed)
    payload = hashlib.sha256(request.content).hexdigest()
    canonical = "\n".join([request.method, request.url.path, query, headers, ";".join(signed), payload])
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (stamp[:8], region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


@pytest.mark.parametrize("service", ["aoss", "es"])
def test_given_aws_credentials_when_requesting_then_the_request_is_signed_with_sigv4(service: str):
    seen: list[httpx.Request] = []

    def capture(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return ok({"took": 1, "errors": False, "items": []})

    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token")
    transport = HttpTransport(
        "https://abc123.eu-west-1.aoss.amazonaws.com",
        auth=AwsSigV4(credentials, "eu-west-1", service),
        http_transport=httpx.MockTransport(capture),
    )
    body = b'{"delete":{"_id":"m1"}}\n'

    transport.request("POST", "/mnemo/_bulk", body, params={"refresh": "true"}, content_type="application/x-ndjson")

    (request,) = seen
    authorization = request.headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert f"/eu-west-1/{service}/aws4_request" in authorization
    assert request.headers["x-amz-content-sha256"] == hashlib.sha256(body).hexdigest()
    assert request.headers["x-amz-security-token"] == "session-token"
    signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
    assert {"host", "x-amz-content-sha256", "x-amz-date", "content-type"} <= set(signed)
    signature = authorization.split("Signature=")[1]
    assert signature == _sigv4_signature(request, credentials.secret_key, "eu-west-1", service)


def test_given_an_unknown_signing_service_when_built_then_refused():
    with pytest.raises(ValueError, match="'es' or 'aoss'"):
        AwsSigV4(Credentials("a", "b"), "us-east-1", "opensearch")
