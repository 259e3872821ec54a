"""The tables of a memory file (the self-hosted store's main file, or a platform project's own): memories with
their embeddings, their history, the settings, and the outbox of their webhook events; and the columns added since a
file was first written (added in place when the store opens)."""

from __future__ import annotations

from mnemo.adapters.sqlite.database import Database

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

# Columns a file made by an earlier version lacks, added when it is opened.
ADDED_COLUMNS = {
    "synthesized": "INTEGER NOT NULL DEFAULT 0",
    "derived_from": "TEXT NOT NULL DEFAULT '[]'",
    "links": "TEXT NOT NULL DEFAULT '[]'",
    "immutable": "INTEGER NOT NULL DEFAULT 0",
}


def add_missing_columns(db: Database) -> None:
    """The columns of ADDED_COLUMNS a file of an earlier version lacks, added (idempotent)."""
    present = {row[1] for row in db.read().execute("PRAGMA table_info(memories)")}
    if all(name in present for name in ADDED_COLUMNS):
        return
    with db.write() as conn:  # looked at again inside the write: another process may have added them meanwhile
        present = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
        for name, declaration in ADDED_COLUMNS.items():
            if name not in present:
                conn.execute(f"ALTER TABLE memories ADD COLUMN {name} {declaration}")
