"""Facets stored with the version of the rules that read them (mnemo.adapters.sqlite.memory_index.facet_versions):
a store whose snapshot was written with one version, opened with another (or with none: an older data dir), ends up
with the new rules' facets on every row, read again by the index itself, a batch before each search."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_index.facet_versions import StaleFacets
from mnemo.adapters.sqlite.storage import open_storage, snapshot_path
from mnemo.domain.filters import And, Condition
from mnemo.domain.memory import FACETS_FIELD, Event, HistoryEntry, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.memory_namespaces import NamespaceStorage

WIDTH = 8
ROWS = 12


class Rules:
    """Facet rules of a version: every text states the facet named after the version."""

    def __init__(self, version: str) -> None:
        self.version = version

    def facets(self, text: str) -> list[str]:
        return [f"facet {self.version}"]

    def keywords(self, text: str) -> list[str]:  # the words of keyword search are English's
        return english().keywords(text)

    def date_words(self, moment: datetime) -> str:
        return english().date_words(moment)


def open_file(path: Path, rules: Rules) -> tuple[Database, NamespaceStorage]:
    database = Database(path)
    return database, open_storage(database, facets=rules)


def close(database: Database, storage: NamespaceStorage) -> None:
    assert storage.close is not None
    storage.close()
    database.close()


def written(path: Path, rules: Rules) -> list[MemoryRecord]:
    """A file of ROWS memories whose index was closed (its snapshot written) under these rules."""
    database, storage = open_file(path, rules)
    records = [MemoryRecord.create(f"memory {i}", Scope(user_id="alice")) for i in range(ROWS)]
    vectors = np.eye(ROWS, WIDTH, dtype=np.float32) + 0.01
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    storage.store.insert(records, vectors, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    storage.index.upsert(records, vectors)
    close(database, storage)
    assert snapshot_path(database).exists()
    return records


def filed_under(storage: NamespaceStorage, facet: str) -> set[str]:
    pinned = And((Condition("user_id", "eq", "alice"), Condition(FACETS_FIELD, "in", [facet])))
    query = np.ones(WIDTH, dtype=np.float32) / np.sqrt(WIDTH)
    return {hit.memory_id for hit in storage.index.search(query, "", pinned, 100)}


def index_of(storage: NamespaceStorage) -> LocalMemoryIndex:
    assert isinstance(storage.index, LocalMemoryIndex)
    return storage.index


def test_given_a_snapshot_of_version_a_when_opened_with_b_then_every_row_ends_with_bs_facets(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    records = written(tmp_path / "m.sqlite3", Rules("A"))

    database, storage = open_file(tmp_path / "m.sqlite3", Rules("B"))
    assert index_of(storage).stale_facets() == ROWS  # restored from the snapshot, all read with A's rules
    with caplog.at_level(logging.INFO, logger="mnemo.adapters.sqlite.memory_index.facet_versions"):
        found = filed_under(storage, "facet B")  # the search reads a batch again first

    assert found == {r.id for r in records}
    assert filed_under(storage, "facet A") == set()
    assert index_of(storage).stale_facets() == 0
    assert f"re-deriving facets: {ROWS} of {ROWS}" in caplog.text
    close(database, storage)

    # The snapshot written now carries B: opened with B again, nothing is stale.
    database, storage = open_file(tmp_path / "m.sqlite3", Rules("B"))
    assert index_of(storage).stale_facets() == 0
    assert filed_under(storage, "facet B") == {r.id for r in records}
    close(database, storage)


def test_given_an_old_data_dir_whose_snapshot_has_no_version_when_opened_then_its_facets_are_read_again(
    tmp_path: Path,
) -> None:
    records = written(tmp_path / "m.sqlite3", Rules("A"))
    manifest = Path(f"{tmp_path / 'm.sqlite3'}.index") / "manifest.json"  # the snapshot (storage.snapshot_path)
    document = json.loads(manifest.read_text())
    del document["facets_version"]  # as every snapshot written before facets had versions
    manifest.write_text(json.dumps(document))

    database, storage = open_file(tmp_path / "m.sqlite3", Rules("A"))
    assert index_of(storage).stale_facets() == ROWS
    assert index_of(storage).rederive_facets(limit=5) == 5  # a batch at a time
    assert index_of(storage).stale_facets() == ROWS - 5
    assert filed_under(storage, "facet A") == {r.id for r in records}  # searches answer meanwhile
    index_of(storage).rederive_facets()
    assert index_of(storage).stale_facets() == 0
    close(database, storage)


def test_given_rows_still_stale_when_the_snapshot_is_written_then_the_next_start_reads_them_all_again(
    tmp_path: Path,
) -> None:
    written(tmp_path / "m.sqlite3", Rules("A"))
    database, storage = open_file(tmp_path / "m.sqlite3", Rules("B"))
    index_of(storage).rederive_facets(limit=3)
    close(database, storage)  # nine rows still read with A

    database, storage = open_file(tmp_path / "m.sqlite3", Rules("B"))
    assert index_of(storage).stale_facets() == ROWS
    close(database, storage)


def test_given_no_snapshot_then_a_load_from_the_records_reads_every_facet_with_the_current_rules(tmp_path: Path):
    records = written(tmp_path / "m.sqlite3", Rules("A"))
    Path(f"{tmp_path / 'm.sqlite3'}.index", "manifest.json").unlink()  # no usable snapshot: loaded from the records

    database, storage = open_file(tmp_path / "m.sqlite3", Rules("B"))
    assert index_of(storage).stale_facets() == 0
    assert filed_under(storage, "facet B") == {r.id for r in records}
    close(database, storage)


def test_given_the_current_version_then_nothing_is_stale() -> None:
    stale = StaleFacets(Rules("B"))
    stale.restored(np.arange(4), "B")
    assert stale.pending == 0
    stale.restored(np.arange(4), None)
    assert stale.pending == 4
    stale.clear()
    assert stale.pending == 0
