"""A project's counters per day in the main SQLite file (mnemo.ports.usage_counters.DailyCounterStore): one row
per project, day and name in `platform_daily_counters` (schema.py), bumped by an upsert that adds, so concurrent
bumps never lose one; deleted with the project (directory.py)."""

from __future__ import annotations

from datetime import date

from mnemo.adapters.sqlite.tenancy_store.tables import TenancyTables


class SqliteDailyCounterStore(TenancyTables):
    def bump_daily(self, project_id: str, day: date, name: str, by: int = 1) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_daily_counters (project_id, day, name, value) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(project_id, day, name) DO UPDATE SET value = value + excluded.value",
                (project_id, day.isoformat(), name, by),
            )

    def daily_counters(self, project_id: str, first: date, last: date) -> dict[date, dict[str, int]]:
        rows = self._db.read().execute(
            "SELECT day, name, value FROM platform_daily_counters WHERE project_id = ? AND day BETWEEN ? AND ?",
            (project_id, first.isoformat(), last.isoformat()),
        )
        found: dict[date, dict[str, int]] = {}
        for day, name, value in rows:
            found.setdefault(date.fromisoformat(day), {})[name] = int(value)
        return found
