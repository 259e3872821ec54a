"""`mnemo reindex`: the search index rebuilt from the record store, locally (SQLite) and from DynamoDB."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.opensearch.transport import HttpTransport
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.composition import aws_adapters
from mnemo.domain import filters as f
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, new_id
from mnemo.domain.tenancy import Organization, PlatformUser, Project
from mnemo.entrypoints.cli import main
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors, unit_rows
from mnemo.ports.memory_store import MemoryStore
from mnemo.services.reindex import rebuild_index
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table

T0 = datetime(2024, 5, 8, 14, 30, tzinfo=UTC)


class RecordingIndex:
    """A MemoryIndex that keeps what it is told, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.vectors: dict[str, Vectors] = {}

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        self.calls.append(("upsert", [r.id for r in records]))
        self.vectors.update((r.id, np.array(v)) for r, v in zip(records, vectors, strict=True))

    def remove(self, memory_ids: Sequence[str]) -> None:
        self.calls.append(("remove", list(memory_ids)))

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[Any]:
        raise AssertionError("reindex never searches")

    def count(self) -> int:
        return len(self.vectors)

    def clear(self) -> None:
        self.calls.append(("clear", []))
        self.vectors.clear()

    def purge(self) -> None:
        self.calls.append(("purge", []))


def corpus() -> list[MemoryRecord]:
    memories = [
        MemoryRecord.create(text, Scope(user_id=user), at=T0 + timedelta(minutes=i))
        for i, (user, text) in enumerate(
            [
                ("alice", "The wifi password at the cabin is marmalade."),
                ("alice", "I love eating vegetable pizza."),
                ("bob", "Bob keeps bees and sells honey."),
                ("bob", "Bob's sister lives in Lisbon."),
                ("carol", "Carol plays chess on Sundays."),
            ]
        )
    ]
    memories[3] = replace(memories[3], state=LifecycleState.SUPERSEDED, replaced_by=memories[2].id)
    return memories


def fill(store: MemoryStore, memories: list[MemoryRecord]) -> Vectors:
    vectors = unit_rows(np.random.default_rng(5).standard_normal((len(memories), 16)))
    store.insert(memories, vectors, [HistoryEntry.of(Event.ADD, m, None, m.text) for m in memories])
    return vectors


@pytest.fixture(autouse=True)
def local_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MNEMO_BACKEND", "MNEMO_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)


# ---- local ---------------------------------------------------------------------------------------------


def test_given_a_keyword_table_that_drifted_when_reindexed_locally_then_it_holds_exactly_the_stored_memories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    memories = corpus()
    db = Database(tmp_path / "mnemo.sqlite3")
    store = SqliteMemoryStore(db)
    fill(store, memories)
    index = LocalMemoryIndex(db, 16, facets=english())
    index.upsert(memories[:2], unit_rows(np.ones((2, 16))))
    with db.write() as conn:  # a row for a memory that no longer exists, and most rows missing
        conn.execute("INSERT INTO memory_fts (text, memory_id, user_id, dated) VALUES ('ghost', 'gone', 'x', '')")
    db.close()

    code = main(["reindex", "--data-dir", str(tmp_path), "--batch-size", "2"])

    captured = capsys.readouterr()
    assert code == 0
    # every memory, the superseded one too (reads filter by state)
    assert captured.out == "5 memories indexed (local backend).\n"
    assert captured.err.startswith("\rreindex [..............................] 0/5")
    assert captured.err.endswith("\rreindex [##############################] 5/5\n")
    db = Database(tmp_path / "mnemo.sqlite3")
    try:
        rows = db.read().execute("SELECT memory_id, text FROM memory_fts").fetchall()
        assert sorted(rows) == sorted((m.id, m.text) for m in memories)
    finally:
        db.close()


def test_given_an_empty_store_when_reindexed_then_zero_and_a_full_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["reindex", "--data-dir", str(tmp_path)]) == 0

    captured = capsys.readouterr()
    assert captured.out == "0 memories indexed (local backend).\n"
    assert captured.err == "\rreindex [##############################] 0/0\n"


def test_given_a_platform_project_when_reindexed_locally_then_its_own_index_holds_its_memories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    # Given a project (its tenancy record in the main file) whose namespace holds memories its index lost
    database = Database(tmp_path / "mnemo.sqlite3")
    tenancy = SqliteTenancyStore(database)
    owner = tenancy.add_user(PlatformUser(new_id(), "owner@example.com", T0))
    org = Organization("org_reindex", "o", T0, T0)
    tenancy.add_org(org, owner)
    project = Project(id="proj_reindex", org_id=org.id, name="p", created_at=T0, updated_at=T0)
    tenancy.add_project(project, owner)
    database.close()
    namespaces = SqliteMemoryNamespaces(tmp_path / "namespaces", outbox=True, facets=english())
    memories = corpus()
    storage = namespaces.open(project.id)
    fill(storage.store, memories)
    storage.index.clear()
    namespaces.close()

    # When `mnemo reindex --project` runs on the data dir, and again for an unknown project
    code = main(["reindex", "--data-dir", str(tmp_path), "--project", project.id, "--batch-size", "2"])
    captured = capsys.readouterr()
    unknown = main(["reindex", "--data-dir", str(tmp_path), "--project", "proj_nope"])

    # Then the project's index holds every memory, with its progress on stderr; the unknown one is refused
    assert code == 0, captured.err
    assert captured.out == "proj_reindex: 5 memories indexed.\n1 project(s) reindexed, 5 memories (local backend).\n"
    assert captured.err.endswith("\rproj_reindex [##############################] 5/5\n")
    namespaces = SqliteMemoryNamespaces(tmp_path / "namespaces", facets=english())
    try:
        assert namespaces.open(project.id).index.count() == 5
    finally:
        namespaces.close()
    assert unknown == 1 and "No such project: proj_nope" in capsys.readouterr().err


def test_given_a_batch_size_of_zero_when_reindexing_then_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["reindex", "--data-dir", str(tmp_path), "--batch-size", "0"]) == 2
    assert "--batch-size must be positive" in capsys.readouterr().err


# ---- DynamoDB ------------------------------------------------------------------------------------------


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_memory_table(client, "mnemo-memories")
        yield client


def test_given_memories_in_dynamodb_when_reindexed_then_the_index_is_cleared_and_gets_every_one_in_batches(
    dynamodb: Any,
):
    store = DynamoMemoryStore(dynamodb, "mnemo-memories", page_size=2)
    memories = corpus()
    vectors = fill(store, memories)
    index = RecordingIndex()
    index.vectors["stale"] = np.zeros(16, dtype=np.float32)
    seen: list[tuple[int, int]] = []

    count = rebuild_index(store, index, batch_size=2, progress=lambda done, total: seen.append((done, total)))

    assert count == 5  # the superseded memory too: reads filter by state
    assert index.calls[0] == ("clear", [])
    batches = [ids for call, ids in index.calls[1:] if call == "upsert"]
    assert all(1 <= len(ids) <= 2 for ids in batches) and len(batches) == len(index.calls) - 1
    stored = {m.id: v for m, v in zip(memories, vectors, strict=True)}
    assert sorted(id_ for ids in batches for id_ in ids) == sorted(stored)
    for memory_id, vector in stored.items():
        np.testing.assert_array_equal(index.vectors[memory_id], vector)
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_given_the_aws_backend_when_reindexing_from_the_cli_then_dynamodb_feeds_the_index_and_entities_are_recounted(
    dynamodb: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    store = DynamoMemoryStore(dynamodb, "mnemo-memories")
    fill(store, corpus())
    index = RecordingIndex()
    built: list[Any] = []

    def build(settings: Any, session: Any = None) -> aws_adapters.AwsAdapters:
        built.append(settings)
        transport = HttpTransport("https://search.example.com")
        return aws_adapters.AwsAdapters(store, cast(Any, index), None, transport)

    monkeypatch.setattr(aws_adapters, "build_aws_adapters", build)
    monkeypatch.setenv("MNEMO_BACKEND", "aws")

    assert main(["reindex"]) == 0

    assert capsys.readouterr().out == "5 memories indexed (aws backend); 3 entity counts recomputed.\n"
    assert built[0].backend == "aws"
    assert index.count() == 5
