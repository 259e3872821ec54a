"""What a delete erases inside the file besides the memories' rows, in the delete's own transaction: the texts
their history held, their siblings' copies of a shared message, and their pending outbox events' texts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from mnemo.adapters.sqlite.memory_store.rows import CHUNK, in_chunks
from mnemo.domain.erasure import Erasure, redacted_sources, scrubbed
from mnemo.domain.memory import SourceMessage


def history_texts(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> list[str]:
    sql = "SELECT old_memory, new_memory FROM history WHERE memory_id IN ({marks})"
    return list(dict.fromkeys(t for row in in_chunks(conn, sql, memory_ids) for t in row if t))


def erase_history(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> None:
    """Every history entry of the memories keeps its event, times, actor and role, not its texts."""
    for start in range(0, len(memory_ids), CHUNK):
        chunk = list(memory_ids[start : start + CHUNK])
        conn.execute(
            "UPDATE history SET old_memory = NULL, new_memory = NULL WHERE memory_id IN "
            f"({', '.join('?' * len(chunk))}) AND (old_memory IS NOT NULL OR new_memory IS NOT NULL)",
            chunk,
        )


def links_of(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> set[str]:
    sql = "SELECT links FROM memories WHERE id IN ({marks}) AND links <> '[]'"
    return {linked for (raw,) in in_chunks(conn, sql, memory_ids) for linked in json.loads(raw)}


def redact_siblings(conn: sqlite3.Connection, sibling_ids: set[str], erasure: Erasure) -> list[str]:
    """The siblings' source messages that hold an erased text, redacted; their links to the erased memories
    dropped. The ids of the siblings changed."""
    changed: list[str] = []
    if not sibling_ids:
        return changed
    sql = "SELECT id, sources, links FROM memories WHERE id IN ({marks})"
    for memory_id, raw_sources, raw_links in list(in_chunks(conn, sql, sorted(sibling_ids))):
        sources = tuple(SourceMessage.from_dict(s) for s in json.loads(raw_sources))
        redacted = redacted_sources(sources, erasure)
        links = [i for i in json.loads(raw_links) if i not in erasure.ids]
        conn.execute(
            "UPDATE memories SET sources = ?, links = ? WHERE id = ?",
            (json.dumps([s.as_dict() for s in redacted or sources]), json.dumps(links), memory_id),
        )
        changed.append(memory_id)
    return changed


def scrub_outbox(conn: sqlite3.Connection, erasure: Erasure) -> None:
    """The unpublished events that name an erased memory, their texts cut out (the outbox is small: what the
    relay has not published yet)."""
    for position, payload in conn.execute("SELECT position, payload FROM outbox").fetchall():
        event = json.loads(payload)
        if erasure.names_any(event):
            conn.execute(
                "UPDATE outbox SET payload = ? WHERE position = ?", (json.dumps(scrubbed(event, erasure)), position)
            )
