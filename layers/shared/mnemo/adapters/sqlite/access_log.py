"""The access log of one namespace on SQLite: a table in the namespace's own file, beside its memories.

One row per memory that was retrieved: its newest KEPT_ACCESSES access times (JSON, newest first) and how many
accesses it had in all. `record` writes in one transaction that also checks, in the same file, that each memory
still exists: a memory deleted before the write gets no row, and one deleted after loses it to `forget`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.timefmt import from_iso, iso
from mnemo.ports.memory_access import merged

SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_access (
    memory_id TEXT PRIMARY KEY,
    times TEXT NOT NULL,
    total INTEGER NOT NULL
);
"""
_CHUNK = 500  # ids per IN (...) list


class SqliteAccessLog:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        wanted = [memory_id for memory_id, times in accesses.items() if times]
        if not wanted:
            return
        with self._db.write() as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                alive = {row[0] for row in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks})", chunk)}
                kept = {
                    row[0]: (_times(row[1]), int(row[2]))
                    for row in conn.execute(
                        f"SELECT memory_id, times, total FROM memory_access WHERE memory_id IN ({marks})", chunk
                    )
                }
                rows = []
                for memory_id in chunk:
                    if memory_id not in alive:
                        continue
                    times, total = kept.get(memory_id, ([], 0))
                    added = accesses[memory_id]
                    rows.append((memory_id, json.dumps([iso(t) for t in merged(times, added)]), total + len(added)))
                conn.executemany(
                    "INSERT INTO memory_access (memory_id, times, total) VALUES (?, ?, ?) "
                    "ON CONFLICT(memory_id) DO UPDATE SET times = excluded.times, total = excluded.total",
                    rows,
                )

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        ids = list(dict.fromkeys(memory_ids))
        found: dict[str, list[datetime]] = {}
        conn = self._db.read()
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            rows = conn.execute(
                f"SELECT memory_id, times FROM memory_access WHERE memory_id IN ({', '.join('?' * len(chunk))})", chunk
            )
            found.update((row[0], _times(row[1])) for row in rows)
        return {memory_id: times for memory_id, times in found.items() if times}

    def forget(self, memory_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return
        with self._db.write() as conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                conn.execute(f"DELETE FROM memory_access WHERE memory_id IN ({', '.join('?' * len(chunk))})", chunk)

    def clear(self) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM memory_access")


def _times(raw: str) -> list[datetime]:
    return [from_iso(t) for t in json.loads(raw)]
