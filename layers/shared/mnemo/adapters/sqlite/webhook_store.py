"""The SQLite store of platform webhooks and their deliveries (mnemo.ports.webhook_store), in the main file.

A webhook's deliveries are numbered 1, 2, ... (`sequence`) as they are enqueued, in one write transaction; the
delivery worker asks for the head of each active webhook's queue (`due`), which the index on
(webhook_id, state, sequence) finds in one seek per webhook, however many deliveries are kept.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.erasure import ERASED_KEPT, Erasure, changed_memory, erased_late, scrubbed_outbound
from mnemo.domain.memory import now
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import (
    Attempt,
    Delivery,
    DeliveryState,
    OutboundEvent,
    Webhook,
    delivery_id,
    without_answers,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS webhooks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL, name TEXT NOT NULL,
    url TEXT NOT NULL, event_types TEXT NOT NULL, owner TEXT NOT NULL, secret TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, is_active INTEGER NOT NULL DEFAULT 1,
    previous_secret TEXT, previous_secret_expires_at TEXT, deactivated_reason TEXT
);
CREATE INDEX IF NOT EXISTS webhooks_project ON webhooks(project_id, created_at);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL, project_id TEXT NOT NULL, sequence INTEGER NOT NULL,
    event TEXT NOT NULL, state TEXT NOT NULL, attempts TEXT NOT NULL DEFAULT '[]', next_attempt_at TEXT,
    created_at TEXT NOT NULL, finished_at TEXT,
    UNIQUE (webhook_id, sequence)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_queue ON webhook_deliveries(webhook_id, state, sequence);
CREATE TABLE IF NOT EXISTS webhook_erased_memories (
    project_id TEXT NOT NULL, memory_id TEXT NOT NULL, erased_at TEXT NOT NULL, PRIMARY KEY (project_id, memory_id)
);
CREATE INDEX IF NOT EXISTS webhook_erased_memories_age ON webhook_erased_memories(erased_at);
"""

_WEBHOOK = (
    "id, project_id, name, url, event_types, owner, secret, created_at, updated_at, is_active, previous_secret, "
    "previous_secret_expires_at, deactivated_reason"
)
_DELIVERY = "id, webhook_id, project_id, sequence, event, state, attempts, next_attempt_at, created_at, finished_at"
_PENDING = DeliveryState.PENDING.value
# The head of a webhook's queue: its PENDING delivery of the lowest sequence (one seek in the queue index). A
# pending delivery without a next attempt is due from its creation.
_HEAD = "SELECT h.id FROM webhook_deliveries h WHERE h.webhook_id = w.id AND h.state = ? ORDER BY h.sequence LIMIT 1"
_DUE_AT = "COALESCE(d.next_attempt_at, d.created_at)"
_IDS_PER_QUERY = 500  # erased ids looked up per query (SQLite allows 32,766 parameters)


class SqliteWebhookStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    # ---- webhooks ----

    def add_webhook(self, webhook: Webhook) -> None:
        with self._db.write() as conn:
            conn.execute(f"INSERT INTO webhooks ({_WEBHOOK}) VALUES ({', '.join('?' * 13)})", _webhook_row(webhook))

    def get_webhook(self, webhook_id: str) -> Webhook | None:
        row = self._db.read().execute(f"SELECT {_WEBHOOK} FROM webhooks WHERE id = ?", (webhook_id,)).fetchone()
        return _webhook(row) if row else None

    def webhooks_of_project(self, project_id: str) -> list[Webhook]:
        rows = self._db.read().execute(
            f"SELECT {_WEBHOOK} FROM webhooks WHERE project_id = ? ORDER BY created_at, seq", (project_id,)
        )
        return [_webhook(r) for r in rows]

    def save_webhook(self, webhook: Webhook) -> None:
        columns = [c.strip() for c in _WEBHOOK.split(",")][1:]
        assignments = ", ".join(f"{c} = ?" for c in columns)
        row = _webhook_row(webhook)
        with self._db.write() as conn:
            conn.execute(f"UPDATE webhooks SET {assignments} WHERE id = ?", (*row[1:], webhook.id))

    def delete_webhook(self, webhook_id: str) -> bool:
        with self._db.write() as conn:
            conn.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ?", (webhook_id,))
            return conn.execute("DELETE FROM webhooks WHERE id = ?", (webhook_id,)).rowcount > 0

    def delete_project_webhooks(self, project_id: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE project_id = ?)",
                (project_id,),
            )
            conn.execute("DELETE FROM webhooks WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM webhook_erased_memories WHERE project_id = ?", (project_id,))

    # ---- deliveries ----

    def enqueue(
        self, webhook: Webhook, events: Sequence[OutboundEvent], at: datetime, *, due: datetime | None = None
    ) -> list[Delivery]:
        """The deliveries made (none when the webhook is no longer stored: it was deleted meanwhile)."""
        made: list[Delivery] = []
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM webhooks WHERE id = ?", (webhook.id,)).fetchone() is None:
                return []
            sequence = int(
                conn.execute(
                    "SELECT COALESCE(MAX(sequence), 0) FROM webhook_deliveries WHERE webhook_id = ?", (webhook.id,)
                ).fetchone()[0]
            )
            erased = _erased_among(conn, webhook.project_id, events)
            seen: set[str] = set()
            for event in events:
                made_id = delivery_id(webhook.id, event.id)
                if made_id in seen:
                    continue
                seen.add(made_id)
                if conn.execute("SELECT 1 FROM webhook_deliveries WHERE id = ?", (made_id,)).fetchone() is not None:
                    continue
                sequence += 1
                kept = (erased_late(event, erased) if erased else None) or event
                delivery = Delivery(made_id, webhook.id, webhook.project_id, sequence, kept, at, due or at)
                conn.execute(
                    f"INSERT INTO webhook_deliveries ({_DELIVERY}) VALUES ({', '.join('?' * 10)})",
                    _delivery_row(delivery),
                )
                made.append(delivery)
        return made

    def due(self, at: datetime, limit: int) -> list[Delivery]:
        if limit <= 0:
            return []
        rows = self._db.read().execute(
            f"SELECT {', '.join(f'd.{c.strip()}' for c in _DELIVERY.split(','))} FROM webhooks w "
            f"JOIN webhook_deliveries d ON d.id = ({_HEAD}) "
            f"WHERE w.is_active = 1 AND {_DUE_AT} <= ? ORDER BY {_DUE_AT}, d.created_at, d.sequence LIMIT ?",
            (_PENDING, iso(at), limit),
        )
        return [_delivery(r) for r in rows]

    def next_due_at(self) -> datetime | None:
        row = (
            self._db.read()
            .execute(
                f"SELECT MIN({_DUE_AT}) FROM webhooks w JOIN webhook_deliveries d ON d.id = ({_HEAD}) "
                "WHERE w.is_active = 1",
                (_PENDING,),
            )
            .fetchone()
        )
        return from_iso(row[0]) if row and row[0] else None

    def save_delivery(self, delivery: Delivery) -> None:
        with self._db.write() as conn:
            stored = conn.execute(
                "SELECT event FROM webhook_deliveries WHERE id = ? AND webhook_id = ?",
                (delivery.id, delivery.webhook_id),
            ).fetchone()
            if (
                stored is not None
                and OutboundEvent.from_json(json.loads(stored[0])).to_json() != delivery.event.to_json()
            ):
                # a delete scrubbed the event after the sender read it: its answers may echo what was erased
                delivery = replace(delivery, attempts=without_answers(delivery.attempts))
            conn.execute(
                "UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, finished_at = ? "
                "WHERE id = ? AND webhook_id = ?",
                (
                    delivery.state.value,
                    _attempts_json(delivery.attempts),
                    _opt(delivery.next_attempt_at),
                    _opt(delivery.finished_at),
                    delivery.id,
                    delivery.webhook_id,
                ),
            )

    def erase_from_deliveries(self, project_id: str, erasure: Erasure) -> int:
        """Each delivery naming an erased memory: its event scrubbed, and its attempts without the receiver's
        answers (they may echo what was erased). Read and rewritten in one write, so no attempt saved meanwhile is
        overwritten."""
        with self._db.write() as conn:
            _remember_erased(conn, project_id, erasure)
            rows = conn.execute(
                "SELECT d.id, d.event, d.attempts FROM webhook_deliveries d WHERE d.webhook_id IN "
                "(SELECT id FROM webhooks WHERE project_id = ?)",
                (project_id,),
            ).fetchall()
            changed: list[tuple[str, str, str]] = []
            for made_id, raw, attempts in rows:
                if not erasure.named_in(raw):
                    continue
                clean = scrubbed_outbound(OutboundEvent.from_json(json.loads(raw)), erasure)
                if clean is not None:
                    quiet = _attempts_json(without_answers(_attempts(attempts)))
                    changed.append((json.dumps(clean.to_json()), quiet, made_id))
            conn.executemany("UPDATE webhook_deliveries SET event = ?, attempts = ? WHERE id = ?", changed)
        return len(changed)

    def get_delivery(self, webhook_id: str, delivery_id: str) -> Delivery | None:
        row = (
            self._db.read()
            .execute(
                f"SELECT {_DELIVERY} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?", (webhook_id, delivery_id)
            )
            .fetchone()
        )
        return _delivery(row) if row else None

    def deliveries_of(self, webhook_id: str, state: DeliveryState | None, limit: int, offset: int) -> list[Delivery]:
        if limit <= 0:
            return []
        where, params = _of(webhook_id, state)
        rows = self._db.read().execute(
            f"SELECT {_DELIVERY} FROM webhook_deliveries {where} ORDER BY sequence DESC LIMIT ? OFFSET ?",
            (*params, limit, max(offset, 0)),
        )
        return [_delivery(r) for r in rows]

    def count_deliveries(self, webhook_id: str, state: DeliveryState | None) -> int:
        where, params = _of(webhook_id, state)
        return int(self._db.read().execute(f"SELECT COUNT(*) FROM webhook_deliveries {where}", params).fetchone()[0])

    def cancel_pending(self, webhook_id: str, at: datetime) -> int:
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE webhook_deliveries SET state = ?, next_attempt_at = NULL, finished_at = ? "
                "WHERE webhook_id = ? AND state = ?",
                (DeliveryState.CANCELLED.value, iso(at), webhook_id, _PENDING),
            )
            return cursor.rowcount


def _of(webhook_id: str, state: DeliveryState | None) -> tuple[str, tuple[Any, ...]]:
    if state is None:
        return "WHERE webhook_id = ?", (webhook_id,)
    return "WHERE webhook_id = ? AND state = ?", (webhook_id, state.value)


def _opt(moment: datetime | None) -> str | None:
    return iso(moment) if moment is not None else None


def _from_opt(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


def _webhook_row(w: Webhook) -> tuple[Any, ...]:
    return (
        w.id,
        w.project_id,
        w.name,
        w.url,
        json.dumps(list(w.event_types)),
        w.owner,
        w.secret,
        iso(w.created_at),
        iso(w.updated_at),
        int(w.is_active),
        w.previous_secret,
        _opt(w.previous_secret_expires_at),
        w.deactivated_reason,
    )


def _webhook(row: Sequence[Any]) -> Webhook:
    return Webhook(
        id=row[0],
        project_id=row[1],
        name=row[2],
        url=row[3],
        event_types=tuple(json.loads(row[4])),
        owner=row[5],
        secret=row[6],
        created_at=from_iso(row[7]),
        updated_at=from_iso(row[8]),
        is_active=bool(row[9]),
        previous_secret=row[10],
        previous_secret_expires_at=_from_opt(row[11]),
        deactivated_reason=row[12],
    )


def _attempts_json(attempts: Sequence[Attempt]) -> str:
    return json.dumps([a.to_json() for a in attempts])


def _attempts(text: str) -> tuple[Attempt, ...]:
    return tuple(Attempt.from_json(a) for a in json.loads(text))


def _delivery_row(d: Delivery) -> tuple[Any, ...]:
    return (
        d.id,
        d.webhook_id,
        d.project_id,
        d.sequence,
        json.dumps(d.event.to_json()),
        d.state.value,
        _attempts_json(d.attempts),
        _opt(d.next_attempt_at),
        iso(d.created_at),
        _opt(d.finished_at),
    )


def _delivery(row: Sequence[Any]) -> Delivery:
    return Delivery(
        id=row[0],
        webhook_id=row[1],
        project_id=row[2],
        sequence=int(row[3]),
        event=OutboundEvent.from_json(json.loads(row[4])),
        state=DeliveryState(row[5]),
        attempts=_attempts(row[6]),
        next_attempt_at=_from_opt(row[7]),
        created_at=from_iso(row[8]),
        finished_at=_from_opt(row[9]),
    )


def _remember_erased(conn: sqlite3.Connection, project_id: str, erasure: Erasure) -> None:
    """The erased ids, for `enqueue`; those remembered longer than ERASED_KEPT are forgotten."""
    at = now()
    conn.execute("DELETE FROM webhook_erased_memories WHERE erased_at < ?", (iso(at - ERASED_KEPT),))
    conn.executemany(
        "INSERT OR REPLACE INTO webhook_erased_memories (project_id, memory_id, erased_at) VALUES (?, ?, ?)",
        [(project_id, memory_id, iso(at)) for memory_id in sorted(erasure.ids)],
    )


def _erased_among(conn: sqlite3.Connection, project_id: str, events: Sequence[OutboundEvent]) -> frozenset[str]:
    """The memories these events change that a delete has erased in the project."""
    named = sorted({m for e in events if (m := changed_memory(e)) is not None})
    found: set[str] = set()
    for start in range(0, len(named), _IDS_PER_QUERY):
        part = named[start : start + _IDS_PER_QUERY]
        rows = conn.execute(
            "SELECT memory_id FROM webhook_erased_memories WHERE project_id = ? AND memory_id IN "
            f"({', '.join('?' * len(part))})",
            (project_id, *part),
        )
        found.update(r[0] for r in rows)
    return frozenset(found)
