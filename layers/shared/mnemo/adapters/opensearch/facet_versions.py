"""Facets read with another version of the rules, read again by the OpenSearch index itself.

Each document stores the version of the language pack that read its facets (`facets_version`, documents.py). A
pack's version changes with any of its rules, so after a deploy the documents indexed before it read as stale: their
facets are still facets (a search filtered on them answers as before, only less precisely than the new rules would
let it), just not the ones the pack states now. `mnemo reindex` writes them all again; without it, the index
re-derives them itself, as the embedded index does with the rows of an older snapshot:

- **Found by a query**: the documents whose `facets_version` is missing or not the current pack's, in memory-id
  order, a batch at a time (`search_after`, so a batch never reads again what the one before rewrote but the
  index has not refreshed yet); the query also counts them, which is the progress's total.
- **Re-derived from what each stores**: its text (`memory`) gives its facets, its creation time its day in words;
  a bulk partial update writes them with the version, conditional on the sequence number and primary term the
  query read. A document rewritten meanwhile (an upsert, another process's pass) keeps what was written (the
  update answers 409), a deleted one stays deleted (404), one refused as too many requests waits for a later pass.
- **Where it runs**: where the embedded index runs it, before the index's searches: a pass of at most `per_pass`
  documents before each search, until a query finds none stale; from then on the process never asks again,
  since everything it writes carries the current version. So a request pays for one bounded pass at most, and
  an index with nothing stale costs one query per process. On Lambda, execution environments come and go, so
  each new one checks once and takes its share of what is left; a background thread would be frozen between
  invocations, and the ingest worker only runs when adds are queued, while searches are where facets matter.
- **Never in a search's way**: one pass at a time per index (a search arriving meanwhile does not wait for it),
  and a pass that fails (the cluster busy after the transport's retries, or refusing the query or the update, as
  a Serverless collection may) is logged and not tried again by this process: the facets stay as they are, and
  the search answers all the same.
- **Progress** is logged as the embedded index logs it: "re-deriving facets of mnemo-memories: 400 of 48,000".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mnemo.adapters.opensearch.documents import FACETS_VERSION_FIELD, derived_fields
from mnemo.adapters.opensearch.transport import (
    NDJSON,
    Response,
    SearchIndexError,
    Transport,
    json_bytes,
    ndjson_line,
)
from mnemo.domain.timefmt import from_iso
from mnemo.ports.facets import IndexWords

_log = logging.getLogger(__name__)

_READ = ("memory", "created_at")  # what a stale document's derived fields are read again from
_SKIPPED = frozenset({404, 409, 429})  # deleted meanwhile, rewritten meanwhile, or left for a later pass


@dataclass(frozen=True, slots=True)
class RederiveLimits:
    """How stale documents are re-derived: documents per query and bulk update, and at most per pass (one pass
    before a search)."""

    batch: int = 200
    per_pass: int = 400

    def __post_init__(self) -> None:
        if self.batch < 1 or self.per_pass < 1:
            raise ValueError(f"batch and per_pass must be positive, not {self.batch} and {self.per_pass}.")


REDERIVE = RederiveLimits()


@dataclass(frozen=True, slots=True)
class Progress:
    done: int  # documents this process re-derived
    total: int  # those and the ones the last query still found stale


class StaleFacets:
    """The re-derivation of one index's stale documents: where the last batch ended, and how far it got."""

    def __init__(
        self,
        transport: Transport,
        index_name: str,
        words: IndexWords,
        limits: RederiveLimits | None = REDERIVE,
        *,
        refresh: Literal["false", "true", "wait_for"] = "false",
    ) -> None:
        """`limits` None: no pass before searches (`step` does nothing), only `rederive` when called. `refresh` is
        passed to the bulk updates, as the index passes it to its writes."""
        self._transport = transport
        self._name = index_name
        self._words = words
        self._limits = limits or REDERIVE
        self._before_search = limits is not None
        self._params = {"refresh": refresh} if refresh != "false" else None
        self._lock = threading.Lock()
        self._current = False  # a query found nothing stale: never ask again
        self._failed = False  # a pass failed: this process leaves the rest to others
        self._after: list[Any] | None = None  # the sort values of the last document of the last batch
        self._done = 0
        self._remaining = 0

    @property
    def progress(self) -> Progress:
        return Progress(self._done, self._done + self._remaining)

    @property
    def settled(self) -> bool:
        """Nothing more to do in this process: nothing is stale, or a pass failed."""
        return self._current or self._failed

    def forget(self) -> None:
        """The index was deleted: whatever is written next is checked again from the start."""
        with self._lock:
            self._current = self._failed = False
            self._after = None
            self._done = self._remaining = 0

    def step(self) -> int:
        """One pass before a search (how many documents it re-derived): nothing once the index is known current or a
        pass failed, or while another thread runs one (nothing at all without limits); a failure is logged, never
        raised."""
        if not self._before_search or self.settled or not self._lock.acquire(blocking=False):
            return 0
        try:
            return self._pass(self._limits.per_pass)
        except SearchIndexError as exc:
            self._failed = True
            _log.warning("re-deriving the stale facets of %s stopped (left to `mnemo reindex`): %s", self._name, exc)
            return 0
        finally:
            self._lock.release()

    def rederive(self, limit: int | None = None) -> int:
        """Up to `limit` (None: until the end of the stale documents) re-derived now; how many. Raises
        SearchIndexError when the cluster refuses."""
        with self._lock:
            return self._pass(limit)

    def pending(self) -> int:
        """How many documents hold facets another version of the rules read (a count query)."""
        reply = self._post("_count", {"query": self._stale_query()})
        if reply.status == 404:
            return 0
        reply.raise_for_status("stale facets count")
        return int(reply.body["count"])

    # ---- one pass -----------------------------------------------------------------------------------

    def _pass(self, limit: int | None) -> int:
        """Batches until `limit` documents, the end of the stale ones, or none stale; how many were rewritten."""
        read = rewritten = 0
        while limit is None or read < limit:
            size = self._limits.batch if limit is None else min(self._limits.batch, limit - read)
            hits, at_end = self._batch(size)
            read += len(hits)
            rewritten += self._rewrite(hits) if hits else 0
            if at_end:
                break
        return rewritten

    def _batch(self, size: int) -> tuple[list[Mapping[str, Any]], bool]:
        """The next `size` stale documents after the last batch, and whether they are the last ones (the next
        batch starts over from the first)."""
        starts_over = self._after is None
        reply = self._post("_search", self._batch_query(size))
        if reply.status == 404:
            self._current = True  # no index: what this process writes first creates it, current
            return [], True
        reply.raise_for_status("stale facets query")
        hits: list[Mapping[str, Any]] = reply.body["hits"]["hits"]
        self._remaining = int(reply.body["hits"]["total"]["value"])
        if not hits and starts_over:
            self._current = True
            _log.info("facets of %s are current (rules %s)", self._name, self._words.version)
        at_end = len(hits) < size
        self._after = None if at_end else list(hits[-1]["sort"])
        return hits, at_end

    def _batch_query(self, size: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "size": size,
            "query": self._stale_query(),
            "sort": [{"id": "asc"}],
            "seq_no_primary_term": True,
            "track_total_hits": True,
            "_source": {"includes": list(_READ)},
        }
        if self._after is not None:
            body["search_after"] = self._after
        return body

    def _stale_query(self) -> dict[str, Any]:
        """Documents whose facets another version read, or no known version (missing field)."""
        return {"bool": {"must_not": [{"term": {FACETS_VERSION_FIELD: self._words.version}}]}}

    def _rewrite(self, hits: Sequence[Mapping[str, Any]]) -> int:
        """The derived fields of these documents written again, each unless it changed since the query read it;
        how many were."""
        updates = self._updates(hits)
        if not updates:
            return 0
        payload = b"".join(ndjson_line(action) + ndjson_line(doc) for action, doc in updates)
        reply = self._transport.request(
            "POST", f"/{self._name}/_bulk", payload, params=self._params, content_type=NDJSON
        )
        reply.raise_for_status("stale facets update")
        statuses = [int(next(iter(item.values())).get("status", 0)) for item in reply.body["items"]]
        refused = [status for status in statuses if status >= 300 and status not in _SKIPPED]
        if refused:
            raise SearchIndexError(f"OpenSearch refused {len(refused)} facet update(s), e.g. HTTP {refused[0]}.")
        rewritten = sum(1 for status in statuses if status < 300)
        self._done += rewritten
        self._remaining = max(self._remaining - rewritten, 0)
        _log.info("re-deriving facets of %s: %s of %s", self._name, f"{self._done:,}", f"{self.progress.total:,}")
        return rewritten

    def _updates(self, hits: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """A conditional partial update per document that holds what its fields are read from."""
        updates = []
        for hit in hits:
            source = hit.get("_source") or {}
            if not isinstance(source.get("memory"), str) or not source.get("created_at"):
                continue  # not a document this index wrote: `mnemo reindex` writes it again
            condition = {"_id": hit["_id"], "if_seq_no": hit["_seq_no"], "if_primary_term": hit["_primary_term"]}
            fields = derived_fields(source["memory"], from_iso(source["created_at"]), self._words)
            updates.append(({"update": condition}, {"doc": fields}))
        return updates

    def _post(self, endpoint: str, body: dict[str, Any]) -> Response:
        return self._transport.request("POST", f"/{self._name}/{endpoint}", json_bytes(body))
