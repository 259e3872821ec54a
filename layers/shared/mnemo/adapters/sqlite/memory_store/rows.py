"""How a memory and a history entry are laid out in their SQLite rows, and the reads every part of the store shares:
records by id, rows by chunks of ids, the indexed WHERE clause of a filter's pinned scope."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from mnemo.domain import filters as f
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, SourceMessage
from mnemo.domain.timefmt import date_or_none, from_iso, iso
from mnemo.ports.embedder import Vectors

COLUMNS = (
    "id, text, hash, user_id, agent_id, run_id, app_id, actor_id, role, attributed_to, metadata, categories, "
    "sources, created_at, updated_at, expiration_date, state, replaced_by, synthesized, derived_from, immutable"
)
# Columns a file made by an earlier version lacks, added when it is opened.
HISTORY_COLUMNS = "id, memory_id, event, old_memory, new_memory, created_at, updated_at, actor_id, role, is_deleted"
PINNABLE = ("user_id", "agent_id", "run_id")
CHUNK = 500  # ids per IN (...) list


def in_chunks(conn: sqlite3.Connection, sql: str, ids: Sequence[str]) -> Iterator[Sequence[Any]]:
    """The rows of `sql` (whose `{marks}` is an IN list) for every chunk of `ids`."""
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        yield from conn.execute(sql.format(marks=", ".join("?" * len(chunk))), chunk)


def select_by_id(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> list[MemoryRecord]:
    return [
        from_row(row) for row in in_chunks(conn, f"SELECT {COLUMNS} FROM memories WHERE id IN ({{marks}})", memory_ids)
    ]


def pinned_where(expr: f.Expr) -> tuple[str, list[Any]]:
    """Turn the scope the filter pins (user, agent, run) into an indexed WHERE clause."""
    clauses: list[str] = []
    params: list[Any] = []
    for name in PINNABLE:
        values = f.pinned_values(expr, name)
        if values is None:
            continue
        if not values:
            return "WHERE 0", []
        clauses.append(f"{name} IN ({', '.join('?' * len(values))})")
        params.extend(sorted(values))
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), params


def blob(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def to_row(r: MemoryRecord) -> tuple[Any, ...]:
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


def history_of(r: Sequence[Any]) -> HistoryEntry:
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


def from_row(row: Sequence[Any]) -> MemoryRecord:
    return MemoryRecord(
        id=row[0],
        text=row[1],
        hash=row[2],
        scope=Scope(user_id=row[3], agent_id=row[4], run_id=row[5], app_id=row[6]),
        actor_id=row[7],
        role=row[8],
        attributed_to=row[9],
        metadata={} if row[10] == "{}" else json.loads(row[10]),  # the empty ones (most) without the JSON decoder
        categories=json_tuple(row[11]),
        sources=tuple(SourceMessage.from_dict(s) for s in json.loads(row[12])),
        created_at=from_iso(row[13]),
        updated_at=from_iso(row[14]),
        expiration_date=date_or_none(row[15]),
        state=LifecycleState(row[16]),
        replaced_by=row[17],
        synthesized=bool(row[18]),
        derived_from=json_tuple(row[19]),
        immutable=bool(row[20]),
    )


def json_tuple(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def insert_history(conn: sqlite3.Connection, history: Sequence[HistoryEntry]) -> None:
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
