"""The tables of the platform's tenancy records in the main SQLite file, and the columns added since a data dir
was first written (added in place when the store opens)."""

from __future__ import annotations

from mnemo.adapters.sqlite import auth_epoch
from mnemo.adapters.sqlite.database import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS platform_users (
    id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS platform_orgs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS platform_org_members (
    org_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX IF NOT EXISTS platform_org_members_user ON platform_org_members(user_id);
CREATE TABLE IF NOT EXISTS platform_projects (
    id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
    custom_instructions TEXT, custom_categories TEXT NOT NULL DEFAULT '[]', multilingual INTEGER NOT NULL DEFAULT 0,
    decay INTEGER NOT NULL DEFAULT 0, is_default INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    reflection_enabled INTEGER NOT NULL DEFAULT 0, reflection_enabled_at TEXT,
    reflection_mode TEXT NOT NULL DEFAULT 'batch',
    agent_custom_instructions TEXT, memory_depth TEXT, usecase_setting TEXT, version TEXT
);
CREATE INDEX IF NOT EXISTS platform_projects_org ON platform_projects(org_id);
CREATE TABLE IF NOT EXISTS platform_project_members (
    project_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX IF NOT EXISTS platform_project_members_user ON platform_project_members(user_id);
CREATE TABLE IF NOT EXISTS platform_keys (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL, user_id TEXT NOT NULL, label TEXT NOT NULL,
    key_prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    last_used_at TEXT, revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS platform_keys_project ON platform_keys(project_id);
CREATE TABLE IF NOT EXISTS platform_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
    event_type TEXT NOT NULL, status TEXT NOT NULL, payload TEXT NOT NULL, results TEXT NOT NULL,
    error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, started_at TEXT, completed_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, llm_usage TEXT
);
CREATE INDEX IF NOT EXISTS platform_events_project ON platform_events(project_id, seq);
CREATE INDEX IF NOT EXISTS platform_events_status ON platform_events(status);
CREATE TABLE IF NOT EXISTS platform_exports (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
    schema TEXT NOT NULL, filters TEXT NOT NULL, instructions TEXT, result TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS platform_exports_project ON platform_exports(project_id, seq);
CREATE TABLE IF NOT EXISTS platform_feedback (
    project_id TEXT NOT NULL, memory_id TEXT NOT NULL, feedback TEXT, reason TEXT, updated_at TEXT NOT NULL,
    PRIMARY KEY (project_id, memory_id)
);
CREATE TABLE IF NOT EXISTS platform_entities (
    project_id TEXT NOT NULL, type TEXT NOT NULL, entity_id TEXT NOT NULL, name TEXT NOT NULL,
    metadata TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (project_id, type, entity_id)
);
CREATE TABLE IF NOT EXISTS platform_counters (
    project_id TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (project_id, name)
);
CREATE TABLE IF NOT EXISTS platform_daily_counters (
    project_id TEXT NOT NULL, day TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL,
    PRIMARY KEY (project_id, day, name)
);
CREATE TABLE IF NOT EXISTS platform_outbox (
    position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, namespace TEXT NOT NULL,
    type TEXT NOT NULL, payload TEXT NOT NULL, occurred_at TEXT NOT NULL
);
"""

_ADDED_PROJECT_COLUMNS = (
    ("reflection_enabled", "INTEGER NOT NULL DEFAULT 0"),
    ("reflection_enabled_at", "TEXT"),
    ("reflection_mode", "TEXT NOT NULL DEFAULT 'batch'"),
    ("agent_custom_instructions", "TEXT"),
    ("memory_depth", "TEXT"),
    ("usecase_setting", "TEXT"),
    ("version", "TEXT"),
)


def open_tables(db: Database) -> None:
    """Create what is missing, and add the columns a data dir from an earlier version lacks."""
    db.executescript(SCHEMA + auth_epoch.SCHEMA + auth_epoch.PLATFORM_TRIGGERS)
    columns = {row[1] for row in db.read().execute("PRAGMA table_info(platform_events)")}
    if "attempts" not in columns:  # a data dir from before events counted their attempts
        with db.write() as conn:
            conn.execute("ALTER TABLE platform_events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0")
    if "llm_usage" not in columns:  # a data dir from before adds kept their LLM usage
        with db.write() as conn:
            conn.execute("ALTER TABLE platform_events ADD COLUMN llm_usage TEXT")
    projects = {row[1] for row in db.read().execute("PRAGMA table_info(platform_projects)")}
    with db.write() as conn:  # a data dir from before Dream's configuration or the clients' project settings
        for column, declaration in _ADDED_PROJECT_COLUMNS:
            if column not in projects:
                conn.execute(f"ALTER TABLE platform_projects ADD COLUMN {column} {declaration}")
