"""The OpenSearch memory index: k-NN (faiss HNSW, inner product on unit vectors) with the filter inside the
k-NN query (efficient filtering), and BM25 over the text, both in one _msearch round trip.

The index and its mapping are created on the first upsert (never in the constructor). Filters are translated
to the query DSL where that is exact (see query_dsl.py); the rest is post-filtered in Python with
`filters.predicate`, over-fetching candidates until each side has `limit` matches or nothing more exists.

Document ids: on a domain (service "es") a memory's document id is the memory id, so upserts overwrite and
deletes are direct. OpenSearch Serverless vector collections refuse client-chosen ids, so there
(`document_ids="generated"`) an upsert first deletes the memory's current documents found by a `terms` query
on `id`; writes become searchable after the collection's refresh interval, so a memory rewritten twice within
it can briefly have two documents: search keeps the best hit per memory, and `mnemo reindex` rebuilds cleanly.

Documents whose facets another version of the language pack read are re-derived by the index itself, a bounded pass
before each search until none are left (facet_versions.py).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from mnemo.adapters.opensearch.documents import (
    SOURCE_FIELDS,
    TEXT_FIELDS,
    VECTOR_FIELD,
    cosine_from_score,
    document,
    filter_document,
    index_body,
)
from mnemo.adapters.opensearch.facet_versions import REDERIVE, Progress, RederiveLimits, StaleFacets
from mnemo.adapters.opensearch.query_dsl import translate
from mnemo.adapters.opensearch.transport import (
    NDJSON,
    Response,
    SearchIndexError,
    Transport,
    json_bytes,
    ndjson_line,
)
from mnemo.domain import filters as f
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.ports.facets import IndexWords
from mnemo.ports.memory_index import IndexHit

MAX_WINDOW = 10_000  # OpenSearch's max_result_window and the k-NN query's largest k
_Hit = tuple[str, float, Mapping[str, Any]]  # memory id, _score, _source


@dataclass(frozen=True, slots=True)
class BulkLimits:
    """How bulk writes are cut and retried: documents and bytes per request, retries of rejected items."""

    max_docs: int = 500
    max_bytes: int = 5_000_000
    retries: int = 4


class OpenSearchMemoryIndex:
    def __init__(  # noqa: PLR0913 - the collaborators, then tunings: each keyword defaulted
        self,
        transport: Transport,
        index_name: str,
        *,
        document_ids: Literal["memory", "generated"] = "memory",
        refresh: Literal["false", "true", "wait_for"] = "false",
        bulk: BulkLimits = BulkLimits(),
        min_candidates: int = 64,
        sleep: Callable[[float], None] = time.sleep,
        facets: IndexWords,
        stale_facets: RederiveLimits | None = REDERIVE,
    ) -> None:
        """`refresh` is passed to bulk writes ("wait_for" makes writes searchable before returning; Serverless
        does not support it, keep "false" there). `facets`: what reads a memory's facets and keywords (a language
        pack), whose version each document carries; documents of another version are re-derived a pass before
        each search within `stale_facets` (None: not before searches, only when `rederive_facets` is called; see
        facet_versions.py)."""
        self._transport = transport
        self._facets = facets
        self._name = index_name
        self._generated_ids = document_ids == "generated"
        self._refresh = refresh
        self._bulk_max_docs = bulk.max_docs
        self._bulk_max_bytes = bulk.max_bytes
        self._min_candidates = min_candidates
        self._bulk_retries = bulk.retries
        self._sleep = sleep
        self._dimension: int | None = None  # the dimension of the index known to exist
        self._lock = threading.Lock()
        self._stale = StaleFacets(transport, index_name, facets, stale_facets, refresh=refresh)

    # ---- index lifecycle ----------------------------------------------------------------------------

    def _ensure(self, dimension: int) -> None:
        """Create the index with its mapping unless it exists (idempotent, safe against a concurrent create);
        an existing index must hold vectors of this dimension."""
        with self._lock:
            if self._dimension == dimension:
                return
            head = self._call("HEAD", f"/{self._name}")
            if head.status == 404:
                created = self._call("PUT", f"/{self._name}", index_body(dimension))
                if created.status < 300:
                    self._dimension = dimension
                    return
                if created.error_type != "resource_already_exists_exception":
                    created.raise_for_status("index creation")
            else:
                head.raise_for_status("index lookup")
            mapping = self._call("GET", f"/{self._name}/_mapping")
            mapping.raise_for_status("mapping lookup")
            properties = next(iter(mapping.body.values()))["mappings"]["properties"]
            existing = int(properties[VECTOR_FIELD]["dimension"])
            if existing != dimension:
                raise SearchIndexError(
                    f"Index {self._name} holds {existing}-dimensional vectors, not {dimension}: reset it or run "
                    "`mnemo reindex` after changing the embedder."
                )
            self._dimension = dimension

    def clear(self) -> None:
        """Delete the index; the next upsert creates it again (with the then current vector dimension)."""
        with self._lock:
            reply = self._call("DELETE", f"/{self._name}")
            if reply.status != 404:
                reply.raise_for_status("index deletion")
            self._dimension = None
        self._stale.forget()

    def count(self) -> int:
        reply = self._call("GET", f"/{self._name}/_count")
        if reply.status == 404:
            return 0
        reply.raise_for_status("count")
        return int(reply.body["count"])

    # ---- writes -------------------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        if not records:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or len(matrix) != len(records):
            raise ValueError(f"{len(records)} records need a matrix of {len(records)} vectors, not {matrix.shape}.")
        self._ensure(int(matrix.shape[1]))
        operations: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        if self._generated_ids:
            stale = self._documents_of([r.id for r in records])
            operations.extend(({"delete": {"_id": doc_id}}, None) for doc_id in stale)
        for record, vector in zip(records, matrix, strict=True):
            action: dict[str, Any] = {} if self._generated_ids else {"_id": record.id}
            operations.append(({"index": action}, document(record, vector, self._facets)))
        self._bulk(operations)

    def remove(self, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        doc_ids = self._documents_of(memory_ids) if self._generated_ids else list(memory_ids)
        self._bulk([({"delete": {"_id": doc_id}}, None) for doc_id in doc_ids])

    def purge(self) -> None:
        """Nothing that can be forced: OpenSearch marks a deleted document deleted (it is never found again) and
        drops it from its segment at the next merge, which the service schedules. Serverless has no force merge;
        on a managed domain an operator may run `_forcemerge?only_expunge_deletes=true` (see the README)."""

    def _documents_of(self, memory_ids: Sequence[str]) -> list[str]:
        """The document ids holding these memories (generated-id mode)."""
        found: list[str] = []
        unique = list(dict.fromkeys(memory_ids))
        for start in range(0, len(unique), 1000):
            body = {"size": MAX_WINDOW, "_source": False, "query": {"terms": {"id": unique[start : start + 1000]}}}
            reply = self._call("POST", f"/{self._name}/_search", body)
            if reply.status == 404:
                return []
            reply.raise_for_status("document lookup")
            found.extend(hit["_id"] for hit in reply.body["hits"]["hits"])
        return found

    def _bulk(self, operations: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> None:
        """Send in chunks; items rejected as too many requests (429) are sent again with backoff, any other
        failure raises (a delete of a missing document is fine)."""
        pending = operations
        params = {"refresh": self._refresh} if self._refresh != "false" else None
        for attempt in range(self._bulk_retries + 1):
            rejected: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
            failures: list[Mapping[str, Any]] = []
            for chunk, body in self._chunks(pending):
                reply = self._transport.request(
                    "POST", f"/{self._name}/_bulk", body, params=params, content_type=NDJSON
                )
                if reply.status == 404 and all("delete" in action for action, _ in chunk):
                    continue  # no index, so nothing to delete
                reply.raise_for_status("bulk write")
                if reply.body.get("errors"):
                    _sort_out(chunk, reply.body["items"], rejected, failures)
            if failures:
                first = failures[0].get("error", {})
                raise SearchIndexError(
                    f"OpenSearch rejected {len(failures)} bulk operation(s), e.g. {first.get('type')}: "
                    f"{first.get('reason')}"
                )
            if not rejected:
                return
            pending = rejected
            if attempt < self._bulk_retries:
                self._sleep(min(0.2 * 2**attempt, 5.0) * (0.5 + random.random() / 2))
        raise SearchIndexError(f"OpenSearch kept rejecting {len(pending)} bulk operation(s) as too many requests.")

    def _chunks(
        self, operations: list[tuple[dict[str, Any], dict[str, Any] | None]]
    ) -> Iterator[tuple[list[tuple[dict[str, Any], dict[str, Any] | None]], bytes]]:
        chunk: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        lines: list[bytes] = []
        size = 0
        for operation in operations:
            encoded = ndjson_line(operation[0]) + (ndjson_line(operation[1]) if operation[1] is not None else b"")
            if chunk and (len(chunk) >= self._bulk_max_docs or size + len(encoded) > self._bulk_max_bytes):
                yield chunk, b"".join(lines)
                chunk, lines, size = [], [], 0
            chunk.append(operation)
            lines.append(encoded)
            size += len(encoded)
        if chunk:
            yield chunk, b"".join(lines)

    # ---- search -------------------------------------------------------------------------------------

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[IndexHit]:
        if limit <= 0:
            return []
        translation = translate(expr)
        if translation.matches_nothing:
            return []
        self._stale.step()  # a bounded pass over the documents whose facets another pack version read, if any
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        terms = self._facets.keywords(query_text)
        check = f.predicate(expr)
        fetch = min(limit if translation.exact else max(limit * 4, self._min_candidates), MAX_WINDOW)
        while True:
            sides = self._msearch(query, terms, translation.query, fetch)
            if sides is None:
                return []  # no index yet: nothing was ever indexed
            kept = [_matching(raw, check, limit) for raw in sides]
            complete = all(len(k) >= limit or len(raw) < fetch for k, raw in zip(kept, sides, strict=True))
            if complete or fetch >= MAX_WINDOW:
                break
            fetch = min(fetch * 8, MAX_WINDOW)
        semantic, keyword = kept
        hits = {memory_id: IndexHit(memory_id, cosine_from_score(score), 0.0) for memory_id, score, _ in semantic}
        for memory_id, bm25, source in keyword:
            known = hits.get(memory_id)
            similarity = known.semantic if known else float(np.asarray(source[VECTOR_FIELD], np.float32) @ query)
            hits[memory_id] = IndexHit(memory_id, similarity, float(bm25))
        return sorted(hits.values(), key=lambda h: (-h.semantic, -h.keyword))

    # ---- facets of another version ----------------------------------------------------------------------

    def stale_facets(self) -> int:
        """How many documents hold facets another version of the rules read (.facet_versions)."""
        return self._stale.pending()

    def rederive_facets(self, limit: int | None = None) -> int:
        """Up to `limit` (None: all) of the documents with stale facets re-derived now; how many."""
        return self._stale.rederive(limit)

    @property
    def facets_progress(self) -> Progress:
        """How many stale documents this process re-derived, of how many."""
        return self._stale.progress

    def _msearch(
        self, query: Vectors, terms: list[str], restriction: dict[str, Any] | None, size: int
    ) -> tuple[list[_Hit], list[_Hit]] | None:
        """The k-NN search and, when the query has keywords, the BM25 search, in one _msearch."""
        bodies = [knn_query(query, restriction, size)]
        if terms:
            bodies.append(keyword_query(terms, restriction, size))
        payload = b"".join(ndjson_line({}) + ndjson_line(body) for body in bodies)
        reply = self._transport.request("POST", f"/{self._name}/_msearch", payload, content_type=NDJSON)
        if reply.status == 404 and reply.error_type == "index_not_found_exception":
            return None
        reply.raise_for_status("search")
        sides: list[list[_Hit]] = []
        for response in reply.body["responses"]:
            if "error" in response:
                failed = Response(int(response.get("status", 500)), response)
                if failed.error_type == "index_not_found_exception":
                    return None
                raise SearchIndexError(f"OpenSearch search failed: HTTP {failed.status}: {failed.reason}")
            sides.append(
                [(hit["_source"]["id"], float(hit["_score"]), hit["_source"]) for hit in response["hits"]["hits"]]
            )
        return sides[0], sides[1] if len(sides) > 1 else []

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Response:
        return self._transport.request(method, path, None if body is None else json_bytes(body))


def knn_query(vector: Vectors, restriction: dict[str, Any] | None, size: int) -> dict[str, Any]:
    """Approximate k-NN with the filter applied inside the search (faiss efficient filtering)."""
    knn: dict[str, Any] = {"vector": np.asarray(vector, dtype=np.float32).astype(float).tolist(), "k": size}
    if restriction is not None:
        knn["filter"] = restriction
    return {"size": size, "_source": {"includes": list(SOURCE_FIELDS)}, "query": {"knn": {VECTOR_FIELD: knn}}}


def keyword_query(terms: list[str], restriction: dict[str, Any] | None, size: int) -> dict[str, Any]:
    """BM25 over the text and the creation day in words; the query's content words, none of them required."""
    match = {"multi_match": {"query": " ".join(terms), "fields": list(TEXT_FIELDS), "type": "most_fields"}}
    boolean: dict[str, Any] = {"must": [match]}
    if restriction is not None:
        boolean["filter"] = [restriction]
    return {"size": size, "_source": {"includes": [*SOURCE_FIELDS, VECTOR_FIELD]}, "query": {"bool": boolean}}


def _matching(raw: list[_Hit], check: f.Predicate, limit: int) -> list[_Hit]:
    """The first `limit` hits, one per memory, that the filter accepts."""
    kept: list[_Hit] = []
    seen: set[str] = set()
    for hit in raw:
        if hit[0] in seen or not check(filter_document(hit[2])):
            continue
        seen.add(hit[0])
        kept.append(hit)
        if len(kept) == limit:
            break
    return kept


def _sort_out(
    chunk: list[tuple[dict[str, Any], dict[str, Any] | None]],
    items: list[dict[str, Any]],
    rejected: list[tuple[dict[str, Any], dict[str, Any] | None]],
    failures: list[Mapping[str, Any]],
) -> None:
    """Of a bulk request's item results: the operations refused as too many requests (429, sent again) into
    `rejected`, the other failures into `failures` (a delete of a missing document is no failure)."""
    for operation, item in zip(chunk, items, strict=True):
        kind, result = next(iter(item.items()))
        status = int(result.get("status", 0))
        if status < 300 or (kind == "delete" and status == 404):
            continue
        if status == 429:
            rejected.append(operation)
        else:
            failures.append(result)
