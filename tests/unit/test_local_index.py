"""LocalMemoryIndex specifics: the in-memory vectors are rebuilt from the record store by `load()`, and the
FTS5 keyword table is rebuilt when it no longer matches the store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.filters import parse
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.language.en import english

T0 = datetime(2024, 3, 1, 12, 0, 0, 1, tzinfo=UTC)
FACTS = {
    "pizza": ("alice", "I love eating vegetable pizza on Friday nights."),
    "sister": ("alice", "My sister lives in Lisbon and works as a nurse."),
    "wifi": ("alice", "The wifi password at the cabin is marmalade."),
    "bob": ("bob", "Bob keeps bees and sells honey."),
}
ALICE = parse({"user_id": "alice"})


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "mnemo.sqlite3"


@pytest.fixture
def ids(path: Path, embedder: LocalMiniLMEmbedder) -> dict[str, str]:
    """A store and index that were filled and then shut down: only the SQLite file remains."""
    db = Database(path)
    store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, embedder.dimension, facets=english())
    records = [MemoryRecord.create(text, Scope(user_id=user), at=T0) for user, text in FACTS.values()]
    vectors = embedder.embed([r.text for r in records])
    store.insert(records, vectors, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    index.upsert(records, vectors)
    db.close()
    return {name: r.id for name, r in zip(FACTS, records, strict=True)}


@pytest.fixture
def db(path: Path, ids: dict[str, str]) -> Iterator[Database]:
    reopened = Database(path)
    yield reopened
    reopened.close()


def fts_count(db: Database) -> int:
    count: int = db.read().execute("SELECT count(*) FROM memory_fts").fetchone()[0]
    return count


def restart(db: Database, embedder: LocalMiniLMEmbedder) -> LocalMemoryIndex:
    store = SqliteMemoryStore(db)
    index = LocalMemoryIndex(db, embedder.dimension, facets=english())
    index.load(store.scan(batch_size=2), embedder.dimension)
    return index


def search(index: LocalMemoryIndex, embedder: LocalMiniLMEmbedder, query: str, user: str = "alice") -> list[str]:
    hits = index.search(embedder.embed([query])[0], query, parse({"user_id": user}), 10)
    return [h.memory_id for h in hits]


def keyword_ids(index: LocalMemoryIndex, embedder: LocalMiniLMEmbedder, query: str) -> list[str]:
    hits = index.search(embedder.embed([query])[0], query, ALICE, 10)
    return [h.memory_id for h in hits if h.keyword > 0]


def test_given_a_fresh_index_after_restart_when_not_loaded_then_it_finds_nothing(
    db: Database, embedder: LocalMiniLMEmbedder
):
    index = LocalMemoryIndex(db, embedder.dimension, facets=english())

    assert index.count() == 0
    assert search(index, embedder, "marmalade") == []


def test_given_a_store_on_disk_when_the_index_loads_its_scan_then_search_works_again(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    index = restart(db, embedder)

    assert index.count() == 4
    assert search(index, embedder, "What food do I enjoy?")[0] == ids["pizza"]
    assert keyword_ids(index, embedder, "marmalade") == [ids["wifi"]]
    assert search(index, embedder, "honey", user="bob") == [ids["bob"]]
    assert ids["bob"] not in search(index, embedder, "honey")
    assert fts_count(db) == 4


def test_given_keyword_rows_lost_when_the_index_loads_then_the_keyword_table_is_rebuilt(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    with db.write() as conn:
        conn.execute("DELETE FROM memory_fts WHERE memory_id IN (?, ?)", (ids["wifi"], ids["bob"]))
    assert fts_count(db) == 2

    index = restart(db, embedder)

    assert fts_count(db) == 4
    assert keyword_ids(index, embedder, "marmalade") == [ids["wifi"]]
    assert search(index, embedder, "honey", user="bob") == [ids["bob"]]


def test_given_an_empty_keyword_table_when_the_index_loads_then_every_memory_is_keyword_searchable(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    with db.write() as conn:
        conn.execute("DELETE FROM memory_fts")

    index = restart(db, embedder)

    assert fts_count(db) == 4
    assert keyword_ids(index, embedder, "Lisbon nurse") == [ids["sister"]]
    assert keyword_ids(index, embedder, "pizza") == [ids["pizza"]]


def test_given_stale_keyword_rows_when_the_index_loads_then_they_are_dropped(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    with db.write() as conn:
        conn.execute(
            "INSERT INTO memory_fts (text, memory_id, user_id) VALUES (?, ?, ?)",
            ("a deleted memory about marmalade", "gone", "alice"),
        )

    index = restart(db, embedder)

    assert fts_count(db) == 4
    assert db.read().execute("SELECT count(*) FROM memory_fts WHERE memory_id = 'gone'").fetchone()[0] == 0
    assert keyword_ids(index, embedder, "marmalade") == [ids["wifi"]]


def test_given_a_loaded_index_when_loaded_again_then_nothing_is_duplicated(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    store = SqliteMemoryStore(db)
    index = restart(db, embedder)

    index.load(store.scan())

    assert index.count() == 4
    assert fts_count(db) == 4
    assert search(index, embedder, "marmalade").count(ids["wifi"]) == 1


def test_given_a_question_naming_the_day_when_searched_then_the_memory_made_that_day_scores_on_keywords(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    index = restart(db, embedder)
    later = MemoryRecord.create(
        "We painted the kitchen yellow.", Scope(user_id="alice"), at=datetime(2023, 5, 8, 9, tzinfo=UTC)
    )
    index.upsert([later], embedder.embed([later.text]))

    assert keyword_ids(index, embedder, "what happened in May 2023") == [later.id]
    assert set(keyword_ids(index, embedder, "March 2024")) == {ids["pizza"], ids["sister"], ids["wifi"]}


def test_given_user_ids_sharing_words_when_a_scoped_keyword_search_runs_then_only_the_exact_user_is_returned(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    index = restart(db, embedder)
    lookalikes = [
        MemoryRecord.create("Honey from the hives sells well.", Scope(user_id=user), at=T0)
        for user in ("bob-smith", "bob smith", "Bob")
    ]
    index.upsert(lookalikes, embedder.embed([r.text for r in lookalikes]))

    hits = index.search(embedder.embed(["honey"])[0], "honey", parse({"user_id": "bob"}), 10)

    assert [h.memory_id for h in hits if h.keyword > 0] == [ids["bob"]]


def test_given_a_keyword_table_of_an_older_layout_when_the_index_opens_then_it_is_rebuilt_and_searchable(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    db.executescript(
        "DROP TABLE memory_fts; CREATE VIRTUAL TABLE memory_fts USING fts5(text, memory_id UNINDEXED, "
        "user_id UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2');"
    )

    index = restart(db, embedder)

    columns = [row[1] for row in db.read().execute("PRAGMA table_info(memory_fts)")]
    assert "dated" in columns
    assert fts_count(db) == 4
    assert keyword_ids(index, embedder, "marmalade") == [ids["wifi"]]
    assert keyword_ids(index, embedder, "1 March 2024 pizza")[0] == ids["pizza"]


def test_given_a_memory_rewritten_and_removed_when_searched_then_the_keyword_table_follows_without_leftovers(
    db: Database, ids: dict[str, str], embedder: LocalMiniLMEmbedder
):
    store = SqliteMemoryStore(db)
    index = restart(db, embedder)
    wifi = store.get(ids["wifi"])
    assert wifi is not None

    for word in ("apricot", "quince", "damson"):
        rewritten = wifi.with_text(f"The wifi password at the cabin is {word}.")
        index.upsert([rewritten], embedder.embed([rewritten.text]))

    assert fts_count(db) == 4
    assert keyword_ids(index, embedder, "marmalade apricot quince") == []
    assert keyword_ids(index, embedder, "damson") == [ids["wifi"]]

    index.remove([ids["wifi"], ids["pizza"]])
    assert fts_count(db) == 2
    assert keyword_ids(index, embedder, "damson pizza") == []
    assert restart(db, embedder).count() == 4  # the store still holds them: a restart re-indexes all four
    assert fts_count(db) == 4


@pytest.mark.parametrize("parallel", [False, True], ids=["one-core", "every-core"])
@pytest.mark.parametrize("kept", ["all", "even", "rare"])
def test_given_many_users_when_searched_unscoped_with_a_filter_then_the_best_passing_rows_of_all_are_returned(
    tmp_path: Path, kept: str, parallel: bool, monkeypatch: pytest.MonkeyPatch
):
    import numpy as np

    from mnemo.adapters.sqlite.memory_index import exact_scan

    monkeypatch.setattr(exact_scan, "PARALLEL_ROWS", 50 if parallel else 10**9)
    monkeypatch.setattr(exact_scan, "_cores", lambda: 3)

    rng = np.random.default_rng(7)
    db = Database(tmp_path / "many.sqlite3")
    index = LocalMemoryIndex(db, 16, facets=english())
    records = [
        MemoryRecord.create(f"note {i}", Scope(user_id=f"user-{i % 23}"), at=T0, metadata={"n": i}) for i in range(1500)
    ]
    vectors = rng.standard_normal((len(records), 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index.upsert(records, vectors)
    conditions = {
        "all": None,
        "even": {"metadata.n": {"in": list(range(0, 1500, 2))}},
        "rare": {"metadata.n": {"gte": 1490}},
    }
    query = vectors[3] * 0.6 + vectors[900] * 0.4
    query /= np.linalg.norm(query)

    hits = index.search(query, "", parse(conditions[kept]), 10)

    passing = [
        i for i in range(1500) if kept == "all" or (kept == "even" and i % 2 == 0) or (kept == "rare" and i >= 1490)
    ]
    expected = sorted(passing, key=lambda i: -float(vectors[i] @ query))[:10]
    assert [h.memory_id for h in hits] == [records[i].id for i in expected]
    assert [h.semantic for h in hits] == pytest.approx([float(vectors[i] @ query) for i in expected], abs=1e-5)
    alone = index.search(query, "", parse({"user_id": "user-3"}), 5)  # one partition
    mine = [i for i in range(3, 1500, 23) if i in passing or kept == "all"]
    if kept == "all":
        assert [h.memory_id for h in alone] == [
            records[i].id for i in sorted(mine, key=lambda i: -float(vectors[i] @ query))[:5]
        ]
    db.close()
