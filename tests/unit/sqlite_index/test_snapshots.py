"""The snapshot: written by the file's last writer, restored when it matches the file, read once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import snapshot_files
from mnemo.adapters.sqlite.memory_index.facet_versions import StaleFacets
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.snapshots import Snapshots
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord
from mnemo.language.en import english
from tests.unit.sqlite_index.making import WIDTH, added, empty_rows, records_of, unit_rows


def stored(db: Database, records: list[MemoryRecord]) -> None:
    SqliteMemoryStore(db).insert(
        records, unit_rows(len(records), seed=1), [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records]
    )


@pytest.fixture
def written(db: Database, tmp_path: Path):
    """A file of two memories whose index wrote its snapshot at close."""
    SqliteMemoryStore(db)
    KeywordTable(db, term_cap=100, words=english())
    log = IndexLog(db)
    snapshots = Snapshots(db, tmp_path / "index.snapshot", StaleFacets(english()))
    records = records_of(["Name is Ann", "b note"], ["alice", None])
    stored(db, records)
    rows = empty_rows()
    added(rows, records, unit_rows(2, seed=2), [3, 4])
    log.next_key = 5
    snapshots.note_generation()
    snapshots.write(rows, log)
    return snapshots, rows, records


def test_given_a_snapshot_of_the_file_as_it_is_then_it_is_restored_once(db: Database, written):
    snapshots, rows, records = written
    assert snapshots.directory is not None and (snapshots.directory / "manifest.json").exists()
    restored, log = empty_rows(), IndexLog(db)

    assert snapshots.take(restored, log)

    assert restored.partitions.keys == rows.partitions.keys
    assert [p.user for p in restored.partitions.live()] == ["alice", None]
    assert restored.partitions.doc(records[0].id)["facets"] == ["name"]
    assert restored.facets.keys({"name"}).tolist() == [3]
    assert log.next_key == 5
    assert snapshots.seen == snapshot_files.generation_of(db)
    assert not snapshots.directory.exists()
    assert not snapshots.take(empty_rows(), log)  # read once


def test_given_a_write_the_snapshot_did_not_see_then_it_is_not_restored_and_is_removed(db: Database, written):
    snapshots, _, _ = written
    stored(db, records_of(["written by another process"]))
    restored = empty_rows()

    assert not snapshots.take(restored, IndexLog(db))

    assert restored.partitions.keys == {}
    assert snapshots.directory is not None and not snapshots.directory.exists()


def test_given_another_writer_came_last_then_this_index_writes_no_snapshot(db: Database, tmp_path: Path):
    SqliteMemoryStore(db)
    KeywordTable(db, term_cap=100, words=english())
    snapshots = Snapshots(db, tmp_path / "index.snapshot", StaleFacets(english()))
    snapshots.note_generation()
    stored(db, records_of(["a later write"]))

    snapshots.write(empty_rows(), IndexLog(db))

    assert snapshots.directory is not None and not snapshots.directory.exists()


def test_given_no_directory_then_nothing_is_written_or_taken(db: Database):
    snapshots = Snapshots(db, None, StaleFacets(english()))
    snapshots.note_generation()

    snapshots.write(empty_rows(), IndexLog(db))

    assert snapshots.seen == -1
    assert not snapshots.take(empty_rows(), IndexLog(db))


def test_given_snapshot_files_cut_short_then_they_are_not_read(db: Database, written):
    snapshots, _, _ = written
    directory = snapshots.directory
    assert directory is not None
    mark = snapshot_files.mark_of(db, WIDTH)
    assert snapshot_files.read(directory, mark) is not None

    (directory / "ids.json").write_text(json.dumps(["only one"]))

    assert snapshot_files.read(directory, mark) is None
    assert snapshot_files.read(directory, snapshot_files.Mark(mark.generation, mark.last_keyword_row, 8)) is None
