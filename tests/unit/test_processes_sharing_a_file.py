"""Several processes serving one data directory (`mnemo serve --workers N`): each opens the SQLite file with its own
connections, record cache and in-memory index, and sees what the others write (mnemo.adapters.sqlite.change_log).
Here each "process" is a storage opened on the same file with a Database of its own: nothing in memory is shared."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.storage import open_storage
from mnemo.domain.filters import parse
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.memory_namespaces import NamespaceStorage

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
ALICE = parse({"user_id": "alice"})


class Process:
    """One serving process's view of the file."""

    def __init__(self, path: Path, embedder: LocalMiniLMEmbedder) -> None:
        self.db = Database(path)
        self.storage: NamespaceStorage = open_storage(self.db, facets=english())
        self.embedder = embedder

    def add(self, *texts: str, user: str = "alice") -> list[MemoryRecord]:
        records = [MemoryRecord.create(text, Scope(user_id=user), at=T0) for text in texts]
        vectors = self.embedder.embed(list(texts))
        history = [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records]
        self.storage.store.insert(records, vectors, history)
        self.storage.index.upsert(records, vectors)
        return records

    def update(self, record: MemoryRecord, text: str) -> MemoryRecord:
        updated = record.with_text(text)
        vector = self.embedder.embed([text])
        self.storage.store.replace(updated, vector[0], HistoryEntry.of(Event.UPDATE, updated, record.text, text))
        self.storage.index.upsert([updated], vector)
        return updated

    def delete(self, record: MemoryRecord) -> None:
        self.storage.store.remove([record.id], [HistoryEntry.of(Event.DELETE, record, record.text, None)])
        self.storage.index.remove([record.id])
        self.storage.index.purge()

    def found(self, query: str, *, keyword_only: bool = False) -> list[str]:
        vector = self.embedder.embed([query])
        hits = self.storage.index.search(vector, query, ALICE, 10)
        return [h.memory_id for h in hits if not keyword_only or h.keyword > 0]

    def close(self) -> None:
        if self.storage.close is not None:
            self.storage.close()
        self.db.close()


@pytest.fixture
def pair(tmp_path: Path, embedder: LocalMiniLMEmbedder) -> Iterator[tuple[Process, Process]]:
    path = tmp_path / "mnemo.sqlite3"
    first = Process(path, embedder)
    second = Process(path, embedder)
    yield first, second
    second.close()
    first.close()


def keyword_rows(process: Process) -> list[tuple[int, str]]:
    return list(process.db.read().execute("SELECT rowid, memory_id FROM memory_fts ORDER BY rowid"))


def test_given_a_memory_added_by_one_process_then_the_other_finds_it_by_meaning_and_by_word(pair):
    a, b = pair
    (bees,) = a.add("I keep three hives of bees on the allotment.")

    assert b.found("beekeeping hobby")[0] == bees.id
    assert bees.id in b.found("allotment hives", keyword_only=True)
    assert b.storage.index.count() == 1


def test_given_a_memory_deleted_by_one_process_then_the_other_neither_finds_nor_reads_it(pair):
    a, b = pair
    (wifi,) = a.add("The wifi password at the cabin is marmalade.")
    assert b.storage.store.get(wifi.id) is not None  # now in the second process's record cache
    assert b.found("cabin wifi password") == [wifi.id]

    a.delete(wifi)

    assert b.storage.store.get(wifi.id) is None
    assert b.found("cabin wifi password") == []
    assert b.storage.index.count() == 0
    assert keyword_rows(b) == []


def test_given_a_memory_updated_by_one_process_then_the_other_reads_and_finds_the_new_text(pair):
    a, b = pair
    (home,) = a.add("I live in Leeds.")
    assert b.storage.store.get(home.id).text == "I live in Leeds."

    a.update(home, "I moved to Lisbon in the spring.")

    assert b.storage.store.get(home.id).text == "I moved to Lisbon in the spring."
    assert home.id in b.found("Lisbon spring", keyword_only=True)
    assert len(keyword_rows(b)) == 1  # the keyword row replaced, not added beside the old one


def test_given_both_processes_writing_then_no_two_memories_share_a_key_and_each_sees_all(pair):
    a, b = pair
    written = []
    for n in range(6):
        writer = a if n % 2 == 0 else b
        written += writer.add(f"Note number {n} about the garden shed.", f"Reminder {n}: water the tomatoes.")

    rows = keyword_rows(a)
    assert len(rows) == len({rowid for rowid, _ in rows}) == len(written) == 12
    assert {memory_id for _, memory_id in rows} == {r.id for r in written}
    for process in (a, b):
        assert process.storage.index.count() == 12
        assert set(process.found("garden shed tomatoes")) <= {r.id for r in written}


def test_given_a_memory_added_by_one_process_when_the_other_deletes_it_then_its_keyword_row_goes(pair):
    a, b = pair
    (secret,) = a.add("My bank PIN hint is the year of the flood.")

    b.delete(secret)

    assert keyword_rows(a) == keyword_rows(b) == []
    assert a.found("bank PIN hint") == []
    assert a.storage.store.get(secret.id) is None


def test_given_a_memory_deleted_by_one_process_when_the_other_indexes_it_again_then_it_stays_gone(pair):
    a, b = pair
    (note,) = a.add("The spare key is under the blue flowerpot.")
    stale = b.storage.store.get(note.id)
    assert stale is not None

    a.delete(note)
    b.storage.index.upsert([stale], b.embedder.embed([stale.text]))  # b still held it: a write that comes too late

    assert keyword_rows(a) == []
    assert b.found("spare key flowerpot") == []
    assert a.found("spare key flowerpot") == []


def test_given_one_process_resets_then_the_other_holds_nothing(pair):
    a, b = pair
    a.add("I like jazz.", "I play chess on Sundays.")
    assert b.storage.index.count() == 2

    a.storage.store.clear()
    a.storage.index.clear()

    assert b.storage.index.count() == 0
    assert b.found("jazz") == []


def test_given_a_process_that_fell_behind_the_pruned_log_then_it_rebuilds_from_the_records(
    pair, monkeypatch: pytest.MonkeyPatch
):
    a, b = pair
    monkeypatch.setattr(change_log, "LOG_KEPT", 2)
    monkeypatch.setattr(change_log, "PRUNE_EVERY", 1)
    records = [r for n in range(5) for r in a.add(f"Fact {n}: the lighthouse keeper's dog is called Biscuit.")]
    (gone,) = a.add("I used to collect stamps.")
    a.delete(gone)
    assert b.db.read().execute("SELECT min(seq) FROM index_log").fetchone()[0] > 1  # b never read the first rows

    assert b.storage.index.count() == 5
    assert set(b.found("lighthouse keeper dog")) == {r.id for r in records}


def test_given_two_processes_then_the_snapshot_is_written_by_the_last_writer_only(tmp_path, embedder):
    path = tmp_path / "mnemo.sqlite3"
    a, b = Process(path, embedder), Process(path, embedder)
    a.add("I keep a sourdough starter called Clint.")
    b.add("My bike is a green Brompton.")

    a.close()  # a's last write came before b's: its snapshot would miss b's memory
    snapshot = Path(f"{path}.index")
    assert not snapshot.exists()
    b.close()
    assert (snapshot / "manifest.json").exists()

    again = Process(path, embedder)
    try:
        assert again.storage.index.count() == 2
        assert again.found("sourdough starter") and again.found("Brompton bike")
    finally:
        again.close()


def test_given_a_memory_rescored_from_memory_when_it_is_updated_then_its_new_vector_scores_it(pair):
    a, b = pair
    (home,) = a.add("I live in Leeds.")
    for process in (a, b):  # each caches the float32 vector it rescored with
        assert process.found("Where do I live?") == [home.id]

    a.update(home, "My favourite film is Paddington 2.")

    for process in (a, b):
        vector = process.embedder.embed(["My favourite film is Paddington 2."])
        (hit,) = process.storage.index.search(vector, "", ALICE, 5)
        assert hit.memory_id == home.id and hit.semantic == pytest.approx(1.0, abs=1e-5)
