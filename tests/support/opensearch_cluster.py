"""A stateful in-memory OpenSearch for the requests OpenSearchMemoryIndex sends, behind the real HttpTransport (an
httpx MockTransport), so a test can write, rewrite and search documents and watch what the adapter does to them.

Not a search engine: it keeps each document with its `_seq_no` and `_primary_term`, and answers index creation and
lookup, `_bulk` (index, update with `if_seq_no`/`if_primary_term`, delete), `_count`, `_search` (sort on one field,
`search_after`, `seq_no_primary_term`, `track_total_hits`, `_source` includes) and `_msearch` (k-NN as faiss inner
product scores, multi_match as the number of query words found), over the query clauses the adapter uses: bool
(filter, must, must_not, should), term, terms, exists, match_all, match_none. Writes are visible at once. Anything
else fails the test (an AssertionError), so a request the adapter starts sending is noticed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np

from mnemo.adapters.opensearch.transport import HttpTransport

Document = dict[str, Any]


@dataclass
class Stored:
    source: Document
    seq_no: int
    primary_term: int = 1


@dataclass
class Index:
    body: Document
    docs: dict[str, Stored] = field(default_factory=dict)
    generated: int = 0


@dataclass
class InMemoryCluster:
    indexes: dict[str, Index] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    # Called with each request before it is answered (a test changes documents "meanwhile" there).
    before: Callable[[httpx.Request], None] | None = None
    refusals: dict[str, int] = field(default_factory=dict)  # endpoint ("_search", "_bulk"...) -> status answered
    _seq_no: int = 0

    def transport(self) -> HttpTransport:
        return HttpTransport("https://search.example.com", http_transport=httpx.MockTransport(self.handle))

    def put(self, index: str, doc_id: str, source: Document) -> None:
        """Index `source` as `doc_id` directly (a document written by another process, or an older version)."""
        self._index(self.indexes[index], doc_id, source)

    def source(self, index: str, doc_id: str) -> Document:
        return self.indexes[index].docs[doc_id].source

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.path))
        if self.before is not None:
            self.before(request)
        name, _, endpoint = request.url.path.strip("/").partition("/")
        body = json.loads(request.content) if request.content and endpoint not in ("_bulk", "_msearch") else {}
        index = self.indexes.get(name)
        if endpoint in self.refusals:
            error = {"type": "illegal_argument_exception", "reason": f"{endpoint} refused by the test"}
            return httpx.Response(self.refusals[endpoint], json={"error": error, "status": self.refusals[endpoint]})
        if endpoint in {"", "_mapping"}:
            return self._lifecycle(request.method, name, endpoint, body)
        if index is None:
            error = {"type": "index_not_found_exception", "reason": f"no such index [{name}]"}
            return httpx.Response(404, json={"error": error, "status": 404})
        handlers: dict[str, Callable[[], Any]] = {
            "_bulk": lambda: self._bulk(index, request.content),
            "_count": lambda: {"count": len(self._matching(index, body.get("query")))},
            "_search": lambda: self._search(index, body),
            "_msearch": lambda: self._msearch(index, request.content),
        }
        if endpoint not in handlers:
            raise AssertionError(f"unexpected request {request.method} {request.url.path}")
        return httpx.Response(200, json=handlers[endpoint]())

    # ---- lifecycle ----------------------------------------------------------------------------------

    def _lifecycle(self, method: str, name: str, endpoint: str, body: Document) -> httpx.Response:
        exists = name in self.indexes
        if method == "HEAD":
            return httpx.Response(200 if exists else 404)
        if method == "PUT" and not exists:
            self.indexes[name] = Index(body)
            return httpx.Response(200, json={"acknowledged": True, "index": name})
        if method == "GET" and endpoint == "_mapping" and exists:
            return httpx.Response(200, json={name: {"mappings": self.indexes[name].body["mappings"]}})
        if method == "DELETE":
            if self.indexes.pop(name, None) is None:
                error = {"type": "index_not_found_exception", "reason": f"no such index [{name}]"}
                return httpx.Response(404, json={"error": error, "status": 404})
            return httpx.Response(200, json={"acknowledged": True})
        raise AssertionError(f"unexpected {method} /{name}/{endpoint} (index exists: {exists})")

    # ---- writes -------------------------------------------------------------------------------------

    def _index(self, index: Index, doc_id: str, source: Document) -> None:
        self._seq_no += 1
        index.docs[doc_id] = Stored(dict(source), self._seq_no)

    def _bulk(self, index: Index, content: bytes) -> Document:
        lines = [json.loads(line) for line in content.decode().splitlines()]
        items: list[Document] = []
        at = 0
        while at < len(lines):
            ((kind, meta),) = lines[at].items()
            source = lines[at + 1] if kind in ("index", "update") else None
            at += 1 if source is None else 2
            items.append({kind: self._operation(index, kind, meta, source)})
        return {"took": 1, "errors": any(next(iter(i.values()))["status"] >= 300 for i in items), "items": items}

    def _operation(self, index: Index, kind: str, meta: Document, source: Document | None) -> Document:
        if kind == "index":
            assert source is not None
            doc_id = meta.get("_id") or f"generated-{index.generated}"
            index.generated += 1
            self._index(index, doc_id, source)
            return {"_id": doc_id, "status": 201}
        stored = index.docs.get(meta["_id"])
        if stored is None:
            return {"_id": meta["_id"], "status": 404, "error": {"type": "document_missing_exception"}}
        if kind == "delete":
            del index.docs[meta["_id"]]
            return {"_id": meta["_id"], "status": 200}
        assert kind == "update" and source is not None and set(source) == {"doc"}, (kind, source)
        conditional = "if_seq_no" in meta or "if_primary_term" in meta
        if conditional and (meta.get("if_seq_no"), meta.get("if_primary_term")) != (stored.seq_no, stored.primary_term):
            return {"_id": meta["_id"], "status": 409, "error": {"type": "version_conflict_engine_exception"}}
        self._index(index, meta["_id"], {**stored.source, **source["doc"]})
        return {"_id": meta["_id"], "status": 200}

    # ---- reads --------------------------------------------------------------------------------------

    def _matching(self, index: Index, query: Document | None) -> list[tuple[str, Stored]]:
        return [(doc_id, s) for doc_id, s in index.docs.items() if query is None or _matches(query, s.source)]

    def _search(self, index: Index, body: Document) -> Document:
        found = self._matching(index, body.get("query"))
        sort_field: str | None = None
        if body.get("sort"):
            ((sort_field, order),) = body["sort"][0].items()
            assert len(body["sort"]) == 1 and order == "asc", "one ascending sort is simulated"
            found.sort(key=lambda hit: hit[1].source[str(sort_field)])
        after = body.get("search_after")
        if after is not None:
            assert sort_field is not None, "search_after needs a sort"
            found = [hit for hit in found if hit[1].source[sort_field] > after[0]]
        hits = []
        for doc_id, stored in found[: body.get("size", 10)]:
            hit: Document = {"_id": doc_id, "_score": None, "_source": _included(stored.source, body)}
            if body.get("seq_no_primary_term"):
                hit |= {"_seq_no": stored.seq_no, "_primary_term": stored.primary_term}
            if sort_field is not None:
                hit["sort"] = [stored.source[sort_field]]
            hits.append(hit)
        total = len(self._matching(index, body.get("query")))
        return {"hits": {"total": {"value": total, "relation": "eq"}, "hits": hits}}

    def _msearch(self, index: Index, content: bytes) -> Document:
        bodies = [json.loads(line) for line in content.decode().splitlines()][1::2]
        return {"responses": [self._scored(index, body) for body in bodies]}

    def _scored(self, index: Index, body: Document) -> Document:
        query = body["query"]
        scored: list[tuple[float, str, Stored]] = []
        if "knn" in query:
            knn = query["knn"]["embedding"]
            vector = np.asarray(knn["vector"])
            for doc_id, stored in self._matching(index, knn.get("filter")):
                ip = float(np.asarray(stored.source["embedding"]) @ vector)
                scored.append((ip + 1 if ip >= 0 else 1 / (1 - ip), doc_id, stored))
        else:
            words = query["bool"]["must"][0]["multi_match"]["query"].lower().split()
            restriction = (query["bool"].get("filter") or [None])[0]
            for doc_id, stored in self._matching(index, restriction):
                text = set(re.findall(r"\w+", f"{stored.source['memory']} {stored.source['dated']}".lower()))
                if score := sum(1 for word in words if word in text):
                    scored.append((float(score), doc_id, stored))
        scored.sort(key=lambda hit: -hit[0])
        hits = [
            {"_id": doc_id, "_score": score, "_source": _included(stored.source, body)}
            for score, doc_id, stored in scored[: body["size"]]
        ]
        return {"hits": {"total": {"value": len(scored), "relation": "eq"}, "hits": hits}, "status": 200}


def _included(source: Document, body: Document) -> Document:
    wanted = body.get("_source", True)
    if wanted is False:
        return {}
    if isinstance(wanted, dict):
        return {name: source[name] for name in wanted["includes"] if name in source}
    return dict(source)


def _values(source: Document, name: str) -> list[Any]:
    value = source.get(name)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _matches(query: Document, source: Document) -> bool:
    ((kind, spec),) = query.items()
    if kind == "bool":
        return _bool_matches(spec, source)
    if kind in ("match_all", "match_none"):
        return kind == "match_all"
    if kind == "exists":
        return bool(_values(source, spec["field"]))
    assert kind in ("term", "terms"), f"query clause {kind} is not simulated"
    ((name, wanted),) = spec.items()
    return any(v in (wanted if kind == "terms" else [wanted]) for v in _values(source, name))


def _bool_matches(spec: Document, source: Document) -> bool:
    if not all(_matches(q, source) for q in [*spec.get("filter", []), *spec.get("must", [])]):
        return False
    if any(_matches(q, source) for q in spec.get("must_not", [])):
        return False
    return not spec.get("should") or any(_matches(q, source) for q in spec["should"])
