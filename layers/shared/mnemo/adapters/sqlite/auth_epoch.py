"""A counter SQLite itself raises whenever a credential may have changed meaning: a key revoked, moved or deleted,
a user changed or deleted (triggers, so that every writer, any process, raises it in the same transaction). A
verified-key cache (services/api_keys.py) keeps an answer only while the counter has not moved, so a revocation
takes effect at the next request. A key's use (`last_used_at`) and a new key or user do not move it."""

from __future__ import annotations

from mnemo.adapters.sqlite.database import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS auth_epoch (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL);
INSERT OR IGNORE INTO auth_epoch (id, n) VALUES (0, 0);
"""
API_KEY_TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS api_keys_auth_changed AFTER UPDATE ON api_keys
WHEN OLD.revoked_at IS NOT NEW.revoked_at OR OLD.user_id IS NOT NEW.user_id OR OLD.key_hash IS NOT NEW.key_hash
    OR OLD.id IS NOT NEW.id OR OLD.key_prefix IS NOT NEW.key_prefix
BEGIN UPDATE auth_epoch SET n = n + 1 WHERE id = 0; END;
CREATE TRIGGER IF NOT EXISTS api_keys_auth_removed AFTER DELETE ON api_keys
BEGIN UPDATE auth_epoch SET n = n + 1 WHERE id = 0; END;
"""
USER_TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS users_auth_changed AFTER UPDATE ON users
WHEN OLD.id IS NOT NEW.id OR OLD.name IS NOT NEW.name OR OLD.email IS NOT NEW.email OR OLD.role IS NOT NEW.role
    OR OLD.password_hash IS NOT NEW.password_hash OR OLD.created_at IS NOT NEW.created_at
BEGIN UPDATE auth_epoch SET n = n + 1 WHERE id = 0; END;
CREATE TRIGGER IF NOT EXISTS users_auth_removed AFTER DELETE ON users
BEGIN UPDATE auth_epoch SET n = n + 1 WHERE id = 0; END;
"""

_BUMP = "BEGIN UPDATE auth_epoch SET n = n + 1 WHERE id = 0; END;"
# The platform's keys: a key revoked or moved, a user, organization or project changed or deleted, a membership
# made, changed or ended (a project's settings ride along with its caller). A key's use does not move it.
PLATFORM_TRIGGERS = f"""
CREATE TRIGGER IF NOT EXISTS platform_keys_auth_changed AFTER UPDATE ON platform_keys
WHEN OLD.revoked_at IS NOT NEW.revoked_at OR OLD.user_id IS NOT NEW.user_id OR OLD.project_id IS NOT NEW.project_id
    OR OLD.key_hash IS NOT NEW.key_hash OR OLD.id IS NOT NEW.id
{_BUMP}
CREATE TRIGGER IF NOT EXISTS platform_keys_auth_removed AFTER DELETE ON platform_keys {_BUMP}
""" + "".join(
    f"CREATE TRIGGER IF NOT EXISTS {table}_auth_{event.lower()} AFTER {event} ON {table} {_BUMP}\n"
    for table, events in {
        "platform_users": ("UPDATE", "DELETE"),
        "platform_orgs": ("UPDATE", "DELETE"),
        "platform_projects": ("UPDATE", "DELETE"),
        "platform_org_members": ("INSERT", "UPDATE", "DELETE"),
        "platform_project_members": ("INSERT", "UPDATE", "DELETE"),
    }.items()
    for event in events
)


def read_epoch(db: Database) -> int:
    row = db.read().execute("SELECT n FROM auth_epoch WHERE id = 0").fetchone()
    return int(row[0]) if row else 0
