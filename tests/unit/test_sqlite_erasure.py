"""A delete erases on the embedded backend: after `purge`, the deleted text is nowhere in the SQLite file's bytes,
nor in its WAL — not in the records, the history, the keyword index's segments (FTS5 keeps a deleted row's tokens
until its segments are merged), nor in the free pages and old page images SQLite would otherwise leave."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.sqlite import database
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex, secure_delete_supported
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.filters import parse
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope, SourceMessage
from mnemo.language.en import english
from tests.support.waits import seconds

T0 = datetime(2024, 3, 1, 12, 0, 0, tzinfo=UTC)
DIMENSION = 8


def sentinel() -> tuple[str, bytes]:
    """A word no text holds by chance, and the part of it to look for: FTS5 stores a term after the prefix it
    shares with the term before it, so the word's tail, not its head, is what its segments hold — and the Porter
    stemmer may cut the end of the word ("…ed", "…e"), so not its last characters either."""
    tail = uuid.uuid4().hex
    return f"zq7sentinel{tail}", tail[:-6].encode()


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "mnemo.sqlite3"


@pytest.fixture
def db(path: Path) -> Iterator[Database]:
    database = Database(path)
    yield database
    database.close()


def stored(store: SqliteMemoryStore, index: LocalMemoryIndex, *texts: str) -> list[MemoryRecord]:
    records = [
        MemoryRecord.create(t, Scope(user_id="alice"), at=T0, sources=(SourceMessage("user", t, i),))
        for i, t in enumerate(texts)
    ]
    vectors = np.random.default_rng(0).standard_normal((len(records), DIMENSION)).astype(np.float32)
    store.insert(records, vectors, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    index.upsert(records, vectors)
    return records


def erased(store: SqliteMemoryStore, index: LocalMemoryIndex, record: MemoryRecord) -> None:
    store.remove([record.id], [HistoryEntry.of(Event.DELETE, record, None, None)])
    index.remove([record.id])
    index.purge()
    store.purge()


def test_every_connection_zeroes_deleted_content(db: Database) -> None:
    assert db.read().execute("PRAGMA secure_delete").fetchone()[0] == 1


def test_given_a_deleted_memory_when_purged_then_no_byte_of_its_text_is_left(path: Path, db: Database) -> None:
    word, needle = sentinel()
    store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, DIMENSION, facets=english())
    doomed, kept = stored(store, index, f"My locker code is {word} at the gym.", "I ride a blue bike to work.")
    updated = doomed.with_text(f"My locker code is {word} at the pool.")
    store.replace(updated, None, HistoryEntry.of(Event.UPDATE, updated, doomed.text, updated.text))
    index.upsert([updated], np.ones((1, DIMENSION), dtype=np.float32))
    assert needle in file_bytes(path)

    erased(store, index, updated)

    assert needle not in file_bytes(path)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0  # truncated
    hits = index.search(np.ones(DIMENSION, dtype=np.float32), "blue bike", parse({"user_id": "alice"}), 5)
    assert [h.memory_id for h in hits] == [kept.id]  # the rest of the index is whole
    assert index.search(np.ones(DIMENSION, dtype=np.float32), word, parse(None), 5) == [] or all(
        h.keyword == 0 for h in index.search(np.ones(DIMENSION, dtype=np.float32), word, parse(None), 5)
    )


def test_given_a_deleted_memory_without_the_purge_then_its_tokens_stay_in_the_keyword_segments(
    path: Path, db: Database
) -> None:
    """What `purge` is for: FTS5 (without its secure-delete option) leaves a deleted row's tokens in the file."""
    if secure_delete_supported():
        pytest.skip("this SQLite's FTS5 deletes tokens at once (secure-delete)")
    word, needle = sentinel()
    store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, DIMENSION, facets=english())
    (doomed,) = stored(store, index, f"My locker code is {word}.")
    store.remove([doomed.id], [HistoryEntry.of(Event.DELETE, doomed, None, None)])
    index.remove([doomed.id])
    store.purge()  # the WAL checkpointed, but the keyword table not merged

    assert needle in path.read_bytes()

    index.purge()
    store.purge()
    assert needle not in file_bytes(path)


def test_a_reset_leaves_no_text_either(path: Path, db: Database) -> None:
    word, needle = sentinel()
    store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, DIMENSION, facets=english())
    stored(store, index, f"The alarm code is {word}.", "Another memory.")

    store.clear()
    index.clear()
    index.purge()
    store.purge()

    assert needle not in file_bytes(path)
    assert index.count() == 0 and store.count(parse(None)) == 0


def test_a_purge_with_nothing_removed_leaves_the_keyword_table_alone(db: Database) -> None:
    store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, DIMENSION, facets=english())
    stored(store, index, "I ride a blue bike to work.")
    before = db.read().execute("SELECT count(*) FROM memory_fts_data").fetchone()[0]
    index.purge()
    assert db.read().execute("SELECT count(*) FROM memory_fts_data").fetchone()[0] == before


def test_a_checkpoint_waits_for_no_write_and_reports_success(db: Database) -> None:
    with db.write() as conn:
        conn.execute("CREATE TABLE t (x TEXT)")
        conn.execute("INSERT INTO t VALUES ('x')")
    assert db.checkpoint() is True
    with db.write(), pytest.raises(RuntimeError):
        db.checkpoint()


def test_a_checkpoint_a_reader_held_off_is_done_once_the_reader_ends(
    path: Path, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a deleted text whose old page image is in the main file, and another connection mid-read on an older
    # snapshot (the checkpoint cannot copy the newer image over it)
    monkeypatch.setattr(database, "CHECKPOINT_WAIT_MS", 50)
    monkeypatch.setattr(database, "CHECKPOINT_RETRY_EVERY", 0.05)
    word, needle = sentinel()
    db.executescript("CREATE TABLE t (v TEXT)")
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES ('kept'), (?)", (word,))
    assert db.checkpoint()
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN")
        other.execute("SELECT count(*) FROM t").fetchone()
        with db.write() as conn:
            conn.execute("DELETE FROM t WHERE v = ?", (word,))
        # When the checkpoint finds the reader
        assert db.checkpoint() is False
        assert needle in path.read_bytes()
        time.sleep(seconds(0.5))  # retried meanwhile, held off each time
        assert needle in path.read_bytes()
    finally:
        other.execute("COMMIT")
        other.close()
    # Then it is retried in the background and done once the reader has ended
    deadline = time.monotonic() + seconds(10)
    while needle in file_bytes(path):
        assert time.monotonic() < deadline, "the deleted text is still in the file"
        time.sleep(0.05)
    assert db.read().execute("SELECT v FROM t").fetchall() == [("kept",)]
