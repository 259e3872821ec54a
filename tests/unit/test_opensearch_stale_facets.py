"""The OpenSearch index re-derives the facets another pack version read (mnemo.adapters.opensearch.facet_versions),
against a stateful in-memory cluster: a bounded pass before each search finds the stale documents with a query,
rewrites their facets from their stored text conditionally on their sequence numbers, logs its progress, and stops
asking once nothing is stale; searches answer meanwhile."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import httpx
import numpy as np
import pytest

from mnemo.adapters.opensearch.documents import FACETS_VERSION_FIELD
from mnemo.adapters.opensearch.facet_versions import REDERIVE, Progress, RederiveLimits
from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.filters import And, Condition
from mnemo.domain.memory import FACETS_FIELD, Event, HistoryEntry, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import unit_rows
from mnemo.services.reindex import rebuild_index
from tests.support.opensearch_cluster import InMemoryCluster

NAME = "mnemo-facets"
T0 = datetime(2024, 5, 8, 14, 30, tzinfo=UTC)
TEXTS = ("I live in Lisbon", "I work as a nurse", "I keep bees", "I play the cello", "I swim on Sundays")
VECTORS = unit_rows(np.eye(len(TEXTS) + 1, 8, dtype=np.float32) + 0.05)


class Rules:
    """Facet rules of a version: every text states the facet named after the version and its last word."""

    def __init__(self, version: str) -> None:
        self.version = version

    def facets(self, text: str) -> list[str]:
        return [f"facet {self.version}", f"{self.version}:{text.rsplit(maxsplit=1)[-1].lower()}"]

    def keywords(self, text: str) -> list[str]:
        return english().keywords(text)

    def date_words(self, moment: datetime) -> str:
        return f"{self.version} {english().date_words(moment)}"


def index(cluster: InMemoryCluster, version: str, limits: RederiveLimits | None = REDERIVE) -> OpenSearchMemoryIndex:
    return OpenSearchMemoryIndex(cluster.transport(), NAME, refresh="true", facets=Rules(version), stale_facets=limits)


def stored_under_a(cluster: InMemoryCluster) -> list[MemoryRecord]:
    """The memories indexed by a process of rules "a", the last one's document holding no version at all."""
    records = [MemoryRecord.create(text, Scope(user_id="alice"), at=T0) for text in TEXTS]
    index(cluster, "a", None).upsert(records, VECTORS[: len(records)])
    unversioned = dict(cluster.source(NAME, records[-1].id))
    del unversioned[FACETS_VERSION_FIELD]
    cluster.put(NAME, records[-1].id, unversioned)
    return records


def search(idx: OpenSearchMemoryIndex, at: int, facet: str | None = None) -> list[str]:
    """The ids found by a search for the memory stored `at`, of alice's memories (filed under `facet`)."""
    alice = Condition("user_id", "eq", "alice")
    expr = alice if facet is None else And((alice, Condition(FACETS_FIELD, "in", [facet])))
    return [hit.memory_id for hit in idx.search(VECTORS[at], "", expr, 10)]


def versions(cluster: InMemoryCluster) -> list[str]:
    """The version of every document, sorted ("None": a document without one)."""
    return sorted(str(doc.source.get(FACETS_VERSION_FIELD)) for doc in cluster.indexes[NAME].docs.values())


def test_given_documents_of_another_version_or_none_when_searching_then_each_ends_with_the_current_facets() -> None:
    # Given five memories indexed under rules "a", one of them without a version
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    current = index(cluster, "b", RederiveLimits(batch=2, per_pass=3))

    # When a process of rules "b" searches twice
    search(current, 0)
    search(current, 0)

    # Then every document holds the facets, the day in words and the version of "b", read from its own text
    assert versions(cluster) == ["b"] * len(TEXTS)
    for record in records:
        source = cluster.source(NAME, record.id)
        assert source[FACETS_FIELD] == Rules("b").facets(record.text)
        assert source["dated"] == Rules("b").date_words(T0)
        assert source["memory"] == record.text  # nothing else was touched
        assert source["embedding"] == pytest.approx(VECTORS[records.index(record)].tolist())


def test_given_stale_documents_when_searching_once_then_the_pass_stops_at_its_cap_in_batches() -> None:
    cluster = InMemoryCluster()
    stored_under_a(cluster)
    current = index(cluster, "b", RederiveLimits(batch=2, per_pass=3))
    cluster.requests.clear()

    search(current, 0)

    # Two batches (2 + 1 documents), each a query and a conditional bulk update, then the search itself
    assert cluster.requests == [
        ("POST", f"/{NAME}/_search"),
        ("POST", f"/{NAME}/_bulk"),
        ("POST", f"/{NAME}/_search"),
        ("POST", f"/{NAME}/_bulk"),
        ("POST", f"/{NAME}/_msearch"),
    ]
    assert versions(cluster).count("b") == 3  # two stale documents wait for the next search


def test_given_stale_documents_when_rederived_then_the_query_finds_them_and_the_updates_are_conditional() -> None:
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    sent: list[httpx.Request] = []
    cluster.before = sent.append

    rewritten = index(cluster, "b", None).rederive_facets(2)

    query, update = (json.loads(sent[0].content), sent[1].content.decode().splitlines())
    assert rewritten == 2
    assert query["query"] == {"bool": {"must_not": [{"term": {FACETS_VERSION_FIELD: "b"}}]}}  # other or missing
    assert query["seq_no_primary_term"] is True and query["size"] == 2
    first = sorted(r.id for r in records)[0]
    action = json.loads(update[0])["update"]
    assert action["_id"] == first and {"if_seq_no", "if_primary_term"} <= set(action)
    assert json.loads(update[1])["doc"][FACETS_VERSION_FIELD] == "b"


def test_given_stale_documents_when_passes_run_then_the_progress_is_logged_done_of_total(
    caplog: pytest.LogCaptureFixture,
) -> None:
    cluster = InMemoryCluster()
    stored_under_a(cluster)
    current = index(cluster, "b", RederiveLimits(batch=2, per_pass=3))

    with caplog.at_level(logging.INFO, logger="mnemo.adapters.opensearch.facet_versions"):
        search(current, 0)
        progress_after_one = current.facets_progress
        search(current, 0)
        search(current, 0)

    assert progress_after_one == Progress(done=3, total=5)
    assert current.facets_progress == Progress(done=5, total=5)
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if m.startswith("re-deriving")] == [
        f"re-deriving facets of {NAME}: 2 of 5",
        f"re-deriving facets of {NAME}: 3 of 5",
        f"re-deriving facets of {NAME}: 5 of 5",
    ]
    assert f"facets of {NAME} are current (rules b)" in messages


def test_given_a_document_rewritten_between_the_query_and_the_update_then_it_keeps_what_was_written() -> None:
    # Given stale documents, one of which another process rewrites (an upsert of new text) while the pass runs
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    target = records[0]
    meanwhile = {**cluster.source(NAME, target.id), "memory": "I moved to Porto", FACETS_FIELD: ["written meanwhile"]}

    def rewrite_before_the_update(request: httpx.Request) -> None:
        if request.url.path.endswith("/_bulk") and b'"update"' in request.content:
            cluster.before = None
            cluster.put(NAME, target.id, meanwhile)

    cluster.before = rewrite_before_the_update

    # When the pass rewrites every stale document
    rewritten = index(cluster, "b", None).rederive_facets()

    # Then the rewritten one is left as the other process wrote it, and the others are current
    assert rewritten == len(TEXTS) - 1
    assert cluster.source(NAME, target.id) == meanwhile
    assert versions(cluster) == ["a", "b", "b", "b", "b"]


def test_given_a_document_deleted_meanwhile_when_rederiving_then_it_stays_deleted() -> None:
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)

    def delete_before_the_update(request: httpx.Request) -> None:
        if request.url.path.endswith("/_bulk") and b'"update"' in request.content:
            cluster.before = None
            del cluster.indexes[NAME].docs[records[1].id]

    cluster.before = delete_before_the_update

    assert index(cluster, "b", None).rederive_facets() == len(TEXTS) - 1
    assert records[1].id not in cluster.indexes[NAME].docs
    assert versions(cluster) == ["b"] * (len(TEXTS) - 1)


def test_given_a_pass_under_way_when_searching_then_each_search_returns_the_right_memory() -> None:
    # Given stale documents and a pass of one document per search
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    current = index(cluster, "b", RederiveLimits(batch=1, per_pass=1))
    answers_during_the_pass: list[list[str]] = []

    def search_meanwhile(request: httpx.Request) -> None:
        if request.url.path.endswith("/_bulk") and not answers_during_the_pass:
            answers_during_the_pass.append(search(current, 3))  # a search arriving while the pass runs

    cluster.before = search_meanwhile

    # When three memories are searched for, in turn (three passes of one document)
    firsts = [search(current, at)[0] for at in range(3)]

    # Then each search found its memory first, the one arriving mid-pass too (it did not wait for the pass)
    assert firsts == [r.id for r in records[:3]]
    assert answers_during_the_pass[0][0] == records[3].id
    # And stale facets are still facets: a search pinned to the old rules' facet finds the documents not yet done
    # (the one without a version too: its facets were read by the old rules all the same)
    observer = index(cluster, "b", None)
    pinned_to_a, pinned_to_b = search(observer, 0, "facet a"), search(observer, 0, "facet b")
    assert (len(pinned_to_a), len(pinned_to_b)) == (2, 3)
    assert set(pinned_to_a) | set(pinned_to_b) == {r.id for r in records}


def test_given_an_index_found_current_when_searching_again_then_it_is_not_asked_again() -> None:
    cluster = InMemoryCluster()
    records = [MemoryRecord.create(text, Scope(user_id="alice"), at=T0) for text in TEXTS[:2]]
    current = index(cluster, "b")
    current.upsert(records, VECTORS[:2])
    cluster.requests.clear()

    search(current, 0)
    search(current, 1)

    assert cluster.requests == [
        ("POST", f"/{NAME}/_search"),  # one query finds nothing stale
        ("POST", f"/{NAME}/_msearch"),
        ("POST", f"/{NAME}/_msearch"),
    ]


def test_given_no_index_yet_when_searching_then_no_hits_and_nothing_left_to_rederive() -> None:
    cluster = InMemoryCluster()
    current = index(cluster, "b")

    assert search(current, 0) == []
    assert search(current, 0) == []
    assert cluster.requests == [
        ("POST", f"/{NAME}/_search"),  # no index: nothing stale, and what this process writes will be current
        ("POST", f"/{NAME}/_msearch"),
        ("POST", f"/{NAME}/_msearch"),
    ]
    assert current.stale_facets() == 0


def test_given_a_cluster_refusing_the_pass_when_searching_then_the_search_answers_and_the_pass_is_not_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    cluster.refusals["_bulk"] = 400
    current = index(cluster, "b")

    with caplog.at_level(logging.WARNING, logger="mnemo.adapters.opensearch.facet_versions"):
        first = search(current, 2)
    del cluster.refusals["_bulk"]
    cluster.requests.clear()
    second = search(current, 2)

    assert first[0] == second[0] == records[2].id
    assert "re-deriving the stale facets of mnemo-facets stopped" in caplog.text
    assert cluster.requests == [("POST", f"/{NAME}/_msearch")]
    assert versions(cluster).count("b") == 0


def test_given_stale_documents_when_counted_and_rederived_in_full_then_none_remain() -> None:
    cluster = InMemoryCluster()
    stored_under_a(cluster)
    current = index(cluster, "b", RederiveLimits(batch=2))

    before = current.stale_facets()
    rewritten = current.rederive_facets()

    assert (before, rewritten, current.stale_facets()) == (len(TEXTS), len(TEXTS), 0)


def test_given_an_index_found_current_when_cleared_then_the_next_search_checks_again() -> None:
    cluster = InMemoryCluster()
    current = index(cluster, "b")
    search(current, 0)  # no index: found current

    current.clear()
    stored_under_a(cluster)  # the index written again, by a process of the older rules
    search(current, 0)

    assert versions(cluster) == ["b"] * len(TEXTS)


def test_given_generated_document_ids_when_rederiving_then_the_documents_are_updated_by_their_own_ids() -> None:
    cluster = InMemoryCluster()
    records = [MemoryRecord.create(text, Scope(user_id="alice"), at=T0) for text in TEXTS[:3]]
    old = OpenSearchMemoryIndex(
        cluster.transport(), NAME, document_ids="generated", facets=Rules("a"), stale_facets=None
    )
    old.upsert(records, VECTORS[:3])
    current = OpenSearchMemoryIndex(cluster.transport(), NAME, document_ids="generated", facets=Rules("b"))

    search(current, 0)

    assert versions(cluster) == ["b", "b", "b"]
    assert all(doc_id.startswith("generated-") for doc_id in cluster.indexes[NAME].docs)


@pytest.mark.parametrize(("batch", "per_pass"), [(0, 10), (10, 0)])
def test_given_limits_that_are_not_positive_then_refused(batch: int, per_pass: int) -> None:
    with pytest.raises(ValueError, match="must be positive"):
        RederiveLimits(batch=batch, per_pass=per_pass)


def test_given_stale_documents_when_mnemo_reindex_rebuilds_the_index_then_none_is_left_to_rederive(
    tmp_path: Path,
) -> None:
    # Given a record store and an index written by a process of rules "a"
    cluster = InMemoryCluster()
    records = stored_under_a(cluster)
    db = Database(tmp_path / "mnemo.sqlite3")
    store = SqliteMemoryStore(db)
    store.insert(records, VECTORS[: len(records)], [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    current = index(cluster, "b")

    # When `mnemo reindex` rebuilds it under rules "b", then a search comes
    rebuilt = rebuild_index(store, current, batch_size=2)
    cluster.requests.clear()
    first = search(current, 1)
    db.close()

    # Then every document was written current by the rebuild: the search's one query finds nothing to re-derive
    assert rebuilt == len(records)
    assert versions(cluster) == ["b"] * len(records)
    assert first[0] == records[1].id
    assert cluster.requests == [("POST", f"/{NAME}/_search"), ("POST", f"/{NAME}/_msearch")]
