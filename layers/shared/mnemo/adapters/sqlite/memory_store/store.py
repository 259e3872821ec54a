"""The SQLite record store for memories, history and settings, and (for a platform namespace) the outbox of its
changes: the webhook events of each write, written in the write's own transaction (mnemo.ports.change_outbox)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store.erasing import (
    erase_history,
    history_texts,
    links_of,
    redact_siblings,
    scrub_outbox,
)
from mnemo.adapters.sqlite.memory_store.outbox import MemoryOutbox
from mnemo.adapters.sqlite.memory_store.record_cache import RecordCache
from mnemo.adapters.sqlite.memory_store.rows import (
    COLUMNS,
    HISTORY_COLUMNS,
    PINNABLE,
    blob,
    from_row,
    history_of,
    in_chunks,
    insert_history,
    pinned_where,
    select_by_id,
    to_row,
)
from mnemo.adapters.sqlite.memory_store.schema import SCHEMA, add_missing_columns
from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount, EntityType
from mnemo.domain.erasure import Erasure, textless
from mnemo.domain.memory import HistoryEntry, MemoryRecord, Scope, now
from mnemo.domain.provenance import sibling_links
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import OutboundEvent
from mnemo.ports.embedder import Vectors


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
        add_missing_columns(db)
        db.executescript(change_log.RECORD_LOG_SCHEMA)
        self._cache = RecordCache(cache_size)
        # Records another process changes leave this cache (mnemo.adapters.sqlite.change_log).
        self._watch = change_log.Watch(db)
        self._log_seen = change_log.last_seq(db.read(), "record_log")
        self._follow_lock = threading.Lock()
        self._pruning = change_log.Pruning("record_log")
        self._outbox = MemoryOutbox(db, outbox_namespace, on_outbox)

    # ---- writes -------------------------------------------------------------------------------------

    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        """The memories with their embeddings and their links to the siblings of the batch that cite one of their
        messages (`links`: whom to redact when one of them is deleted)."""
        links = sibling_links(records)
        rows = [(*to_row(r), blob(v), json.dumps(links.get(r.id, []))) for r, v in zip(records, vectors, strict=True)]
        marks = ", ".join("?" * (COLUMNS.count(",") + 3))  # the columns, the embedding and the links
        with self._db.write() as conn:
            conn.executemany(f"INSERT INTO memories ({COLUMNS}, embedding, links) VALUES ({marks})", rows)
            insert_history(conn, history)
            wrote = self._outbox.write(conn, records, history, {})
            self._cache.forget([r.id for r in records])
        self._outbox.notify(wrote)

    def replace(self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry) -> None:
        assignments = ", ".join(f"{c.strip()} = ?" for c in COLUMNS.split(","))
        params: list[Any] = list(to_row(record))
        if vector is not None:
            assignments += ", embedding = ?"
            params.append(blob(vector))
        with self._db.write() as conn:
            before = self._outbox.before(conn, [record.id])
            conn.execute(f"UPDATE memories SET {assignments} WHERE id = ?", [*params, record.id])
            self._pruning.wrote(conn, 1)
            insert_history(conn, [history])
            wrote = self._outbox.write(conn, [record], [history], before)
            self._cache.forget([record.id])
        self._outbox.notify(wrote)

    def set_vectors(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        with self._db.write() as conn:
            conn.executemany(
                "UPDATE memories SET embedding = ? WHERE id = ?",
                [(blob(v), i) for i, v in zip(memory_ids, vectors, strict=True)],
            )

    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> list[str]:
        """The memories deleted, their history without texts, their siblings' sources redacted and their pending
        outbox events scrubbed, in one transaction; the texts their history held."""
        entries = [textless(h) for h in history]
        with self._db.write() as conn:
            removed = {r.id: r for r in select_by_id(conn, memory_ids)}
            said = history_texts(conn, memory_ids)
            links = links_of(conn, memory_ids)
            conn.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in memory_ids])
            self._pruning.wrote(conn, len(memory_ids))
            erase_history(conn, memory_ids)
            insert_history(conn, entries)
            erasure = Erasure.of(removed.values(), said)
            siblings = redact_siblings(conn, links - removed.keys(), erasure)
            scrub_outbox(conn, erasure)
            wrote = self._outbox.write(conn, [], entries, removed if self._outbox.namespace is not None else {})
            self._cache.forget([*memory_ids, *siblings])
        self._outbox.notify(wrote)
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

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events of this namespace, oldest first (none without an outbox namespace)."""
        return self._outbox.pending(limit)

    def published(self, event_ids: Sequence[str]) -> None:
        self._outbox.published(event_ids)

    # ---- reads --------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord | None:
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        self._follow()
        out, missing = self._cache.lookup(memory_ids)
        if not missing:
            return out
        generation = self._cache.generation
        fetched = select_by_id(self._db.read(), missing)
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
        where, params = pinned_where(expr)
        check = f.predicate(expr)
        cursor = self._db.read().execute(
            f"SELECT {COLUMNS} FROM memories {where} ORDER BY created_at DESC, seq DESC", params
        )
        for row in cursor:
            record = from_row(row)
            if check(record.filter_document()):
                yield record

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        clauses = ["hash = ?", "state = 'active'"]
        params: list[Any] = [text_hash]
        for name in PINNABLE:
            value = getattr(scope, name)
            clauses.append(f"{name} IS ?")
            params.append(value)
        row = (
            self._db.read()
            .execute(f"SELECT {COLUMNS} FROM memories WHERE {' AND '.join(clauses)} LIMIT 1", params)
            .fetchone()
        )
        return from_row(row) if row else None

    def history(self, memory_id: str) -> list[HistoryEntry]:
        rows = self._db.read().execute(
            f"SELECT {HISTORY_COLUMNS} FROM history WHERE memory_id = ? ORDER BY seq", (memory_id,)
        )
        return [history_of(r) for r in rows]

    def recent_history(self, limit: int) -> list[HistoryEntry]:
        rows = self._db.read().execute(
            f"SELECT {HISTORY_COLUMNS} FROM history ORDER BY seq DESC LIMIT ?", (max(limit, 0),)
        )
        return [history_of(r) for r in rows]

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        conn = self._db.read()
        last = 0
        while True:
            rows = conn.execute(
                f"SELECT seq, {COLUMNS}, embedding FROM memories WHERE seq > ? ORDER BY seq LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            records = [from_row(r[1:-1]) for r in rows]
            vectors = np.stack([np.frombuffer(r[-1], dtype=np.float32) for r in rows])
            yield records, vectors

    def embeddings(self, memory_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored float32 embeddings of these memories (those that exist): what the in-process index scores its
        final candidates on (it scans int8 copies)."""
        sql = "SELECT id, embedding FROM memories WHERE embedding IS NOT NULL AND id IN ({marks})"
        return {
            memory_id: np.frombuffer(blob, dtype=np.float32)
            for memory_id, blob in in_chunks(self._db.read(), sql, memory_ids)
        }

    def records(self, memory_ids: Sequence[str]) -> tuple[list[MemoryRecord], Vectors]:
        """The records of these memories that exist and their stored embeddings, row for row (read from the file, not
        the cache)."""
        found: list[MemoryRecord] = []
        blobs: list[bytes] = []
        sql = f"SELECT {COLUMNS}, embedding FROM memories WHERE embedding IS NOT NULL AND id IN ({{marks}})"
        for row in in_chunks(self._db.read(), sql, memory_ids):
            found.append(from_row(row[:-1]))
            blobs.append(row[-1])
        vectors = (
            np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs]) if blobs else np.zeros((0, 0), np.float32)
        )
        return found, vectors

    def present(self, memory_ids: Sequence[str]) -> set[str]:
        """Those of these memories whose record exists."""
        return {
            row[0] for row in in_chunks(self._db.read(), "SELECT id FROM memories WHERE id IN ({marks})", memory_ids)
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
