"""Loading: the rows filled from the records, and the keyword table repaired to match them."""

from __future__ import annotations

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.facet_versions import StaleFacets
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.loading import Loader
from mnemo.adapters.sqlite.memory_index.snapshots import Snapshots
from mnemo.language.en import english
from tests.unit.sqlite_index.making import WIDTH, empty_rows, records_of, unit_rows


def keyword_rows(db: Database) -> list[tuple[int, str]]:
    return db.read().execute("SELECT rowid, memory_id FROM memory_fts ORDER BY rowid").fetchall()


def test_given_a_drifted_keyword_table_when_loaded_then_it_matches_the_records_and_keys_are_kept(db: Database):
    table, log, rows = KeywordTable(db, term_cap=100, words=english()), IndexLog(db), empty_rows()
    kept, new, later = records_of(["kept", "new", "later"], ["alice", "bob", "alice"])
    gone = records_of(["gone"])[0]
    with db.write() as conn:
        table.insert(conn, [(3, kept), (7, gone), (9, kept)])
    loader = Loader(db, rows, table, log, Snapshots(db, None, StaleFacets(english())))
    vectors = unit_rows(3, seed=1)

    loader.load([([kept, new], vectors[:2]), ([later], vectors[2:])], WIDTH)

    assert rows.partitions.keys == {kept.id: 3, new.id: 10, later.id: 11}
    assert keyword_rows(db) == [(3, kept.id), (10, new.id), (11, later.id)]
    assert db.read().execute("SELECT next_key FROM index_keys").fetchone()[0] == 12
    assert [p.user for p in rows.partitions.live()] == ["alice", "bob"]
    logged = db.read().execute("SELECT memory_id, key FROM index_log ORDER BY seq").fetchall()
    assert logged == [(new.id, 10), (later.id, 11)]


def test_given_rows_held_before_when_loaded_again_then_only_the_records_rows_are_held(db: Database):
    table, log, rows = KeywordTable(db, term_cap=100, words=english()), IndexLog(db), empty_rows()
    first, second = records_of(["first", "second"])
    loader = Loader(db, rows, table, log, Snapshots(db, None, StaleFacets(english())))
    loader.load([([first, second], unit_rows(2, seed=2))], WIDTH)

    loader.load([([second], unit_rows(1, seed=3))], None)

    assert rows.partitions.keys == {second.id: 2}
    assert keyword_rows(db) == [(2, second.id)]
    assert rows.partitions.dimension == WIDTH
