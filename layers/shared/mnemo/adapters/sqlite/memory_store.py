"""The SQLite record store for memories, history and settings, and (for a platform namespace) the outbox of its
changes: the webhook events of each write, written in the write's own transaction (mnemo.ports.change_outbox)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount, EntityType
from mnemo.domain.erasure import Erasure, redacted_sources, scrubbed, textless
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, SourceMessage, now
from mnemo.domain.provenance import sibling_links
from mnemo.domain.timefmt import date_or_none, from_iso, iso
from mnemo.domain.webhooks import OutboundEvent, change_events
from mnemo.ports.embedder import Vectors

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, run_id TEXT, app_id TEXT,
    actor_id TEXT, role TEXT, attributed_to TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    categories TEXT NOT NULL DEFAULT '[]',
    sources TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    expiration_date TEXT,
    state TEXT NOT NULL DEFAULT 'active',
    replaced_by TEXT,
    embedding BLOB,
    synthesized INTEGER NOT NULL DEFAULT 0,
    derived_from TEXT NOT NULL DEFAULT '[]',
    links TEXT NOT NULL DEFAULT '[]',
    immutable INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS memories_user ON memories(user_id, created_at);
CREATE INDEX IF NOT EXISTS memories_agent ON memories(agent_id, created_at);
CREATE INDEX IF NOT EXISTS memories_run ON memories(run_id, created_at);
CREATE INDEX IF NOT EXISTS memories_app ON memories(app_id, created_at);
CREATE INDEX IF NOT EXISTS memories_created ON memories(created_at);
CREATE INDEX IF NOT EXISTS memories_hash ON memories(hash);
CREATE TABLE IF NOT EXISTS history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    memory_id TEXT NOT NULL,
    event TEXT NOT NULL,
    old_memory TEXT,
    new_memory TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    actor_id TEXT,
    role TEXT,
    is_deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS history_memory ON history(memory_id);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    occurred_at TEXT NOT NULL
);
"""

_COLUMNS = (
    "id, text, hash, user_id, agent_id, run_id, app_id, actor_id, role, attributed_to, metadata, categories, "
    "sources, created_at, updated_at, expiration_date, state, replaced_by, synthesized, derived_from, immutable"
)
# Columns a file made by an earlier version lacks, added when it is opened.
_ADDED_COLUMNS = {
    "synthesized": "INTEGER NOT NULL DEFAULT 0",
    "derived_from": "TEXT NOT NULL DEFAULT '[]'",
    "links": "TEXT NOT NULL DEFAULT '[]'",
    "immutable": "INTEGER NOT NULL DEFAULT 0",
}
_PINNABLE = ("user_id", "agent_id", "run_id")
_CHUNK = 500  # ids per IN (...) list
_log = logging.getLogger(__name__)


class SqliteMemoryStore:
    """The record store of one SQLite file. With `outbox_namespace` (a platform project's file), every insert,
    replace and remove also writes its webhook events (`change_events`) into the file's outbox table in the same
    transaction, and the store is that outbox's ChangeOutbox (its events carry `outbox_namespace`); `on_outbox` is
    called after each transaction that wrote some (a wake-up for whoever publishes them; its errors are logged,
    never raised into the write). Without it (the self-hosted store) no event is written."""

    def __init__(
        self,
        db: Database,
        cache_size: int = 50_000,
        outbox_namespace: str | None = None,
        on_outbox: Callable[[], None] | None = None,
    ) -> None:
        self._db = db
        db.executescript(SCHEMA)
        _add_missing_columns(db)
        db.executescript(change_log.RECORD_LOG_SCHEMA)
        self._cache = _RecordCache(cache_size)
        # Records another process changes leave this cache (mnemo.adapters.sqlite.change_log).
        self._watch = change_log.Watch(db)
        self._log_seen = change_log.last_seq(db.read(), "record_log")
        self._follow_lock = threading.Lock()
        self._pruning = change_log.Pruning("record_log")
        self._outbox_namespace = outbox_namespace
        self._on_outbox = on_outbox

    # ---- writes -------------------------------------------------------------------------------------

    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        """The memories with their embeddings and their links to the siblings of the batch that cite one of their
        messages (`links`: whom to redact when one of them is deleted)."""
        links = sibling_links(records)
        rows = [(*_to_row(r), _blob(v), json.dumps(links.get(r.id, []))) for r, v in zip(records, vectors, strict=True)]
        marks = ", ".join("?" * (_COLUMNS.count(",") + 3))  # the columns, the embedding and the links
        with self._db.write() as conn:
            conn.executemany(f"INSERT INTO memories ({_COLUMNS}, embedding, links) VALUES ({marks})", rows)
            _insert_history(conn, history)
            wrote = self._write_outbox(conn, records, history, {})
            self._cache.forget([r.id for r in records])
        self._notify(wrote)

    def replace(self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry) -> None:
        assignments = ", ".join(f"{c.strip()} = ?" for c in _COLUMNS.split(","))
        params: list[Any] = list(_to_row(record))
        if vector is not None:
            assignments += ", embedding = ?"
            params.append(_blob(vector))
        with self._db.write() as conn:
            before = self._before(conn, [record.id])
            conn.execute(f"UPDATE memories SET {assignments} WHERE id = ?", [*params, record.id])
            self._pruning.wrote(conn, 1)
            _insert_history(conn, [history])
            wrote = self._write_outbox(conn, [record], [history], before)
            self._cache.forget([record.id])
        self._notify(wrote)

    def set_vectors(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        with self._db.write() as conn:
            conn.executemany(
                "UPDATE memories SET embedding = ? WHERE id = ?",
                [(_blob(v), i) for i, v in zip(memory_ids, vectors, strict=True)],
            )

    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> list[str]:
        """The memories deleted, their history without texts, their siblings' sources redacted and their pending
        outbox events scrubbed, in one transaction; the texts their history held."""
        entries = [textless(h) for h in history]
        with self._db.write() as conn:
            removed = {r.id: r for r in _select_by_id(conn, memory_ids)}
            said = _history_texts(conn, memory_ids)
            links = _links_of(conn, memory_ids)
            conn.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in memory_ids])
            self._pruning.wrote(conn, len(memory_ids))
            _erase_history(conn, memory_ids)
            _insert_history(conn, entries)
            erasure = Erasure.of(removed.values(), said)
            siblings = _redact_siblings(conn, links - removed.keys(), erasure)
            _scrub_outbox(conn, erasure)
            wrote = self._write_outbox(conn, [], entries, removed if self._outbox_namespace is not None else {})
            self._cache.forget([*memory_ids, *siblings])
        self._notify(wrote)
        return said

    def purge(self) -> None:
        self._db.checkpoint()

    def clear(self) -> None:
        """Every memory and history entry (a reset); the outbox keeps the events already written."""
        with self._db.write() as conn:
            conn.execute("DELETE FROM memories")
            conn.execute("DELETE FROM history")
            self._cache.forget_all()

    def put_setting(self, key: str, value: Any) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (key, json.dumps(value), iso(now())),
            )

    # ---- the outbox ---------------------------------------------------------------------------------

    def _before(self, conn: sqlite3.Connection, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """The records as they are before this transaction changes them (only when events are written)."""
        if self._outbox_namespace is None:
            return {}
        return {r.id: r for r in _select_by_id(conn, memory_ids)}

    def _write_outbox(
        self,
        conn: sqlite3.Connection,
        records: Sequence[MemoryRecord],
        history: Sequence[HistoryEntry],
        before: Mapping[str, MemoryRecord],
    ) -> bool:
        if self._outbox_namespace is None:
            return False
        events = change_events(records, history, before)
        conn.executemany(
            "INSERT INTO outbox (id, type, payload, occurred_at) VALUES (?, ?, ?, ?)",
            [(e.id, e.type, json.dumps(dict(e.payload)), iso(e.occurred_at)) for e in events],
        )
        return bool(events)

    def _notify(self, wrote: bool) -> None:
        if not wrote or self._on_outbox is None:
            return
        try:
            self._on_outbox()
        except Exception:  # a wake-up that fails must not fail a write already committed
            _log.exception("the outbox wake-up of namespace %s failed", self._outbox_namespace)

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events of this namespace, oldest first (none without an outbox namespace)."""
        namespace = self._outbox_namespace
        if namespace is None or limit <= 0:
            return []
        rows = self._db.read().execute(
            "SELECT position, id, type, payload, occurred_at FROM outbox ORDER BY position LIMIT ?", (limit,)
        )
        return [OutboundEvent(r[1], r[2], namespace, json.loads(r[3]), from_iso(r[4]), position=r[0]) for r in rows]

    def published(self, event_ids: Sequence[str]) -> None:
        ids = list(event_ids)
        if not ids:
            return
        with self._db.write() as conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                conn.execute(f"DELETE FROM outbox WHERE id IN ({', '.join('?' * len(chunk))})", chunk)

    # ---- reads --------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        self._follow()
        out, missing = self._cache.lookup(memory_ids)
        if not missing:
            return out
        generation = self._cache.generation
        fetched = _select_by_id(self._db.read(), missing)
        self._cache.remember(fetched, generation)
        out.update((record.id, record) for record in fetched)
        return out

    def find(self, expr: f.Expr, limit: int | None = None, offset: int = 0) -> list[MemoryRecord]:
        if limit is not None and limit <= 0:
            return []
        out: list[MemoryRecord] = []
        skipped = 0
        for record in self._matching(expr):
            if skipped < offset:
                skipped += 1
                continue
            out.append(record)
            if limit is not None and len(out) >= limit:
                break
        return out

    def count(self, expr: f.Expr) -> int:
        return sum(1 for _ in self._matching(expr))

    def count_by_entity(self) -> list[EntityCount]:
        parts = " UNION ALL ".join(
            f"SELECT '{kind.value}', {kind.field}, COUNT(*), MIN(created_at), MAX(updated_at) FROM memories "
            f"WHERE {kind.field} IS NOT NULL AND state = 'active' GROUP BY {kind.field}"
            for kind in EntityType
        )
        rows = self._db.read().execute(f"SELECT * FROM ({parts}) ORDER BY 1, 2")
        return [EntityCount(EntityType(r[0]), r[1], int(r[2]), from_iso(r[3]), from_iso(r[4])) for r in rows]

    def _matching(self, expr: f.Expr) -> Iterator[MemoryRecord]:
        where, params = _pinned_where(expr)
        check = f.predicate(expr)
        cursor = self._db.read().execute(
            f"SELECT {_COLUMNS} FROM memories {where} ORDER BY created_at DESC, seq DESC", params
        )
        for row in cursor:
            record = _from_row(row)
            if check(record.filter_document()):
                yield record

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        clauses = ["hash = ?", "state = 'active'"]
        params: list[Any] = [text_hash]
        for name in _PINNABLE:
            value = getattr(scope, name)
            clauses.append(f"{name} IS ?")
            params.append(value)
        row = (
            self._db.read()
            .execute(f"SELECT {_COLUMNS} FROM memories WHERE {' AND '.join(clauses)} LIMIT 1", params)
            .fetchone()
        )
        return _from_row(row) if row else None

    def history(self, memory_id: str) -> list[HistoryEntry]:
        rows = self._db.read().execute(f"SELECT {_HISTORY} FROM history WHERE memory_id = ? ORDER BY seq", (memory_id,))
        return [_history_of(r) for r in rows]

    def recent_history(self, limit: int) -> list[HistoryEntry]:
        rows = self._db.read().execute(f"SELECT {_HISTORY} FROM history ORDER BY seq DESC LIMIT ?", (max(limit, 0),))
        return [_history_of(r) for r in rows]

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        conn = self._db.read()
        last = 0
        while True:
            rows = conn.execute(
                f"SELECT seq, {_COLUMNS}, embedding FROM memories WHERE seq > ? ORDER BY seq LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            records = [_from_row(r[1:-1]) for r in rows]
            vectors = np.stack([np.frombuffer(r[-1], dtype=np.float32) for r in rows])
            yield records, vectors

    def embeddings(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored float32 embeddings of these memories (those that exist): what the in-process index scores its
        final candidates on (it scans int8 copies)."""
        sql = "SELECT id, embedding FROM memories WHERE embedding IS NOT NULL AND id IN ({marks})"
        return {
            memory_id: np.frombuffer(blob, dtype=np.float32)
            for memory_id, blob in _in_chunks(self._db.read(), sql, memory_ids)
        }

    def records(self, memory_ids: Sequence[str]) -> tuple[list[MemoryRecord], Vectors]:
        """The records of these memories that exist and their stored embeddings, row for row (read from the file, not
        the cache)."""
        found: list[MemoryRecord] = []
        blobs: list[bytes] = []
        sql = f"SELECT {_COLUMNS}, embedding FROM memories WHERE embedding IS NOT NULL AND id IN ({{marks}})"
        for row in _in_chunks(self._db.read(), sql, memory_ids):
            found.append(_from_row(row[:-1]))
            blobs.append(row[-1])
        vectors = (
            np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs]) if blobs else np.zeros((0, 0), np.float32)
        )
        return found, vectors

    def present(self, memory_ids: Sequence[str]) -> set[str]:
        """Those of these memories whose record exists."""
        return {
            row[0] for row in _in_chunks(self._db.read(), "SELECT id FROM memories WHERE id IN ({marks})", memory_ids)
        }

    def _follow(self) -> None:
        """The records other processes changed since the last look taken out of the cache (all of them when this
        process fell behind the log's pruning)."""
        if not self._watch.moved():
            return
        with self._follow_lock:
            conn = self._db.read()
            rows = conn.execute(
                "SELECT seq, memory_id FROM record_log WHERE seq > ? ORDER BY seq", (self._log_seen,)
            ).fetchall()
            if not rows:
                return
            if change_log.missed(conn, "record_log", self._log_seen, rows[0][0]):
                self._cache.forget_all()
            else:
                self._cache.forget([memory_id for _, memory_id in rows])
            self._log_seen = rows[-1][0]

    def get_setting(self, key: str) -> Any | None:
        row = self._db.read().execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None


def _in_chunks(conn: sqlite3.Connection, sql: str, ids: Sequence[str]) -> Iterator[Sequence[Any]]:
    """The rows of `sql` (whose `{marks}` is an IN list) for every chunk of `ids`."""
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        yield from conn.execute(sql.format(marks=", ".join("?" * len(chunk))), chunk)


def _history_texts(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> list[str]:
    sql = "SELECT old_memory, new_memory FROM history WHERE memory_id IN ({marks})"
    return list(dict.fromkeys(t for row in _in_chunks(conn, sql, memory_ids) for t in row if t))


def _erase_history(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> None:
    """Every history entry of the memories keeps its event, times, actor and role, not its texts."""
    for start in range(0, len(memory_ids), _CHUNK):
        chunk = list(memory_ids[start : start + _CHUNK])
        conn.execute(
            "UPDATE history SET old_memory = NULL, new_memory = NULL WHERE memory_id IN "
            f"({', '.join('?' * len(chunk))}) AND (old_memory IS NOT NULL OR new_memory IS NOT NULL)",
            chunk,
        )


def _links_of(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> set[str]:
    sql = "SELECT links FROM memories WHERE id IN ({marks}) AND links <> '[]'"
    return {linked for (raw,) in _in_chunks(conn, sql, memory_ids) for linked in json.loads(raw)}


def _redact_siblings(conn: sqlite3.Connection, sibling_ids: set[str], erasure: Erasure) -> list[str]:
    """The siblings' source messages that hold an erased text, redacted; their links to the erased memories
    dropped. The ids of the siblings changed."""
    changed: list[str] = []
    if not sibling_ids:
        return changed
    sql = "SELECT id, sources, links FROM memories WHERE id IN ({marks})"
    for memory_id, raw_sources, raw_links in list(_in_chunks(conn, sql, sorted(sibling_ids))):
        sources = tuple(SourceMessage.from_dict(s) for s in json.loads(raw_sources))
        redacted = redacted_sources(sources, erasure)
        links = [i for i in json.loads(raw_links) if i not in erasure.ids]
        conn.execute(
            "UPDATE memories SET sources = ?, links = ? WHERE id = ?",
            (json.dumps([s.as_dict() for s in redacted or sources]), json.dumps(links), memory_id),
        )
        changed.append(memory_id)
    return changed


def _scrub_outbox(conn: sqlite3.Connection, erasure: Erasure) -> None:
    """The unpublished events that name an erased memory, their texts cut out (the outbox is small: what the
    relay has not published yet)."""
    for position, payload in conn.execute("SELECT position, payload FROM outbox").fetchall():
        event = json.loads(payload)
        if erasure.names_any(event):
            conn.execute(
                "UPDATE outbox SET payload = ? WHERE position = ?", (json.dumps(scrubbed(event, erasure)), position)
            )


def _select_by_id(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> list[MemoryRecord]:
    return [
        _from_row(row)
        for row in _in_chunks(conn, f"SELECT {_COLUMNS} FROM memories WHERE id IN ({{marks}})", memory_ids)
    ]


def _pinned_where(expr: f.Expr) -> tuple[str, list[Any]]:
    """Turn the scope the filter pins (user, agent, run) into an indexed WHERE clause."""
    clauses: list[str] = []
    params: list[Any] = []
    for name in _PINNABLE:
        values = f.pinned_values(expr, name)
        if values is None:
            continue
        if not values:
            return "WHERE 0", []
        clauses.append(f"{name} IN ({', '.join('?' * len(values))})")
        params.extend(sorted(values))
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), params


def _blob(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _to_row(r: MemoryRecord) -> tuple[Any, ...]:
    return (
        r.id,
        r.text,
        r.hash,
        r.scope.user_id,
        r.scope.agent_id,
        r.scope.run_id,
        r.scope.app_id,
        r.actor_id,
        r.role,
        r.attributed_to,
        json.dumps(r.metadata),
        json.dumps(list(r.categories)),
        json.dumps([s.as_dict() for s in r.sources]),
        iso(r.created_at),
        iso(r.updated_at),
        r.expiration_date.isoformat() if r.expiration_date else None,
        r.state.value,
        r.replaced_by,
        int(r.synthesized),
        json.dumps(list(r.derived_from)),
        int(r.immutable),
    )


_HISTORY = "id, memory_id, event, old_memory, new_memory, created_at, updated_at, actor_id, role, is_deleted"


def _history_of(r: Sequence[Any]) -> HistoryEntry:
    return HistoryEntry(
        id=r[0],
        memory_id=r[1],
        event=Event(r[2]),
        old_memory=r[3],
        new_memory=r[4],
        created_at=from_iso(r[5]),
        updated_at=from_iso(r[6]),
        actor_id=r[7],
        role=r[8],
        is_deleted=bool(r[9]),
    )


def _from_row(row: Sequence[Any]) -> MemoryRecord:
    return MemoryRecord(
        id=row[0],
        text=row[1],
        hash=row[2],
        scope=Scope(user_id=row[3], agent_id=row[4], run_id=row[5], app_id=row[6]),
        actor_id=row[7],
        role=row[8],
        attributed_to=row[9],
        metadata={} if row[10] == "{}" else json.loads(row[10]),  # the empty ones (most) without the JSON decoder
        categories=_json_tuple(row[11]),
        sources=tuple(SourceMessage.from_dict(s) for s in json.loads(row[12])),
        created_at=from_iso(row[13]),
        updated_at=from_iso(row[14]),
        expiration_date=date_or_none(row[15]),
        state=LifecycleState(row[16]),
        replaced_by=row[17],
        synthesized=bool(row[18]),
        derived_from=_json_tuple(row[19]),
        immutable=bool(row[20]),
    )


def _json_tuple(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def _add_missing_columns(db: Database) -> None:
    """The columns of _ADDED_COLUMNS a file of an earlier version lacks, added (idempotent)."""
    present = {row[1] for row in db.read().execute("PRAGMA table_info(memories)")}
    if all(name in present for name in _ADDED_COLUMNS):
        return
    with db.write() as conn:  # looked at again inside the write: another process may have added them meanwhile
        present = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
        for name, declaration in _ADDED_COLUMNS.items():
            if name not in present:
                conn.execute(f"ALTER TABLE memories ADD COLUMN {name} {declaration}")


def _insert_history(conn: sqlite3.Connection, history: Sequence[HistoryEntry]) -> None:
    conn.executemany(
        "INSERT INTO history (id, memory_id, event, old_memory, new_memory, created_at, updated_at, actor_id, "
        "role, is_deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                h.id,
                h.memory_id,
                h.event.value,
                h.old_memory,
                h.new_memory,
                iso(h.created_at),
                iso(h.updated_at),
                h.actor_id,
                h.role,
                int(h.is_deleted),
            )
            for h in history
        ],
    )


class _RecordCache:
    """Recently read records by id. Records are immutable; every write bumps a generation, and a read only
    fills the cache if no write happened while it ran, so the cache never holds a stale record."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: OrderedDict[str, MemoryRecord] = OrderedDict()
        self._lock = threading.Lock()
        self.generation = 0

    def lookup(self, memory_ids: Sequence[str]) -> tuple[dict[str, MemoryRecord], list[str]]:
        found: dict[str, MemoryRecord] = {}
        missing: list[str] = []
        with self._lock:
            for memory_id in memory_ids:
                record = self._items.get(memory_id)
                if record is None:
                    missing.append(memory_id)
                else:
                    found[memory_id] = record
        return found, missing

    def remember(self, records: Sequence[MemoryRecord], generation: int) -> None:
        if self._capacity <= 0:
            return
        with self._lock:
            if generation != self.generation:
                return
            for record in records:
                self._items[record.id] = record
                self._items.move_to_end(record.id)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def forget(self, memory_ids: Sequence[str]) -> None:
        with self._lock:
            self.generation += 1
            for memory_id in memory_ids:
                self._items.pop(memory_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self.generation += 1
            self._items.clear()
