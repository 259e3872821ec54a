"""The outbox of a platform project's memory file (mnemo.ports.change_outbox): the webhook events of each change,
written in the change's own transaction, read and forgotten by whoever publishes them. A file without an outbox
namespace (the self-hosted store) writes none."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store.rows import CHUNK, select_by_id
from mnemo.domain.memory import HistoryEntry, MemoryRecord
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import OutboundEvent, change_events

_log = logging.getLogger(__name__)


class MemoryOutbox:
    """`namespace`: what the events carry (None: no events are written). `on_outbox` is called after each
    transaction that wrote some (a wake-up for whoever publishes them; its errors are logged, never raised into the
    write)."""

    def __init__(self, db: Database, namespace: str | None, on_outbox: Callable[[], None] | None) -> None:
        self._db = db
        self.namespace = namespace
        self._on_outbox = on_outbox

    def before(self, conn: sqlite3.Connection, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """The records as they are before this transaction changes them (only when events are written)."""
        if self.namespace is None:
            return {}
        return {r.id: r for r in select_by_id(conn, memory_ids)}

    def write(
        self,
        conn: sqlite3.Connection,
        records: Sequence[MemoryRecord],
        history: Sequence[HistoryEntry],
        before: Mapping[str, MemoryRecord],
    ) -> bool:
        """The change's events into the outbox, in the caller's transaction; whether there were any."""
        if self.namespace is None:
            return False
        events = change_events(records, history, before)
        conn.executemany(
            "INSERT INTO outbox (id, type, payload, occurred_at) VALUES (?, ?, ?, ?)",
            [(e.id, e.type, json.dumps(dict(e.payload)), iso(e.occurred_at)) for e in events],
        )
        return bool(events)

    def notify(self, wrote: bool) -> None:
        if not wrote or self._on_outbox is None:
            return
        try:
            self._on_outbox()
        except Exception:  # a wake-up that fails must not fail a write already committed
            _log.exception("the outbox wake-up of namespace %s failed", self.namespace)

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events of this namespace, oldest first (none without an outbox namespace)."""
        namespace = self.namespace
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
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                conn.execute(f"DELETE FROM outbox WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
