"""How each tenancy record is laid out in its SQLite row: the column lists the stores select and insert, and the
mapping between a row and its domain value."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.tenancy import (
    EventStatus,
    MemoryExport,
    Organization,
    PlatformEvent,
    PlatformUser,
    Project,
    ProjectKey,
)
from mnemo.domain.timefmt import from_iso, iso

PROJECT_COLUMNS = (
    "id, org_id, name, description, custom_instructions, custom_categories, multilingual, decay, is_default, "
    "created_at, updated_at, reflection_enabled, reflection_enabled_at, reflection_mode, agent_custom_instructions, "
    "memory_depth, usecase_setting, version"
)
KEY_COLUMNS = "id, project_id, user_id, label, key_prefix, key_hash, created_at, last_used_at, revoked_at"
EVENT_COLUMNS = (
    "id, project_id, event_type, status, payload, results, error, created_at, updated_at, started_at, completed_at, "
    "attempts, llm_usage"
)
EXPORT_COLUMNS = "id, project_id, schema, filters, instructions, result, created_at"


def placeholders(columns: str) -> str:
    """`?, ?, …`, one for each column of a comma-separated list."""
    return ", ".join("?" * (columns.count(",") + 1))


def optional_iso(moment: datetime | None) -> str | None:
    return iso(moment) if moment is not None else None


def optional_moment(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


def user_of(row: Sequence[Any] | None) -> PlatformUser | None:
    return PlatformUser(row[0], row[1], from_iso(row[2])) if row else None


def org_of(row: Sequence[Any] | None) -> Organization | None:
    return Organization(row[0], row[1], from_iso(row[2]), from_iso(row[3])) if row else None


def project_row(p: Project) -> tuple[Any, ...]:
    return (
        p.id,
        p.org_id,
        p.name,
        p.description,
        p.custom_instructions,
        json.dumps(list(p.custom_categories)),
        int(p.multilingual),
        int(p.decay),
        int(p.is_default),
        iso(p.created_at),
        iso(p.updated_at),
        int(p.reflection_enabled),
        iso(p.reflection_enabled_at) if p.reflection_enabled_at else None,
        p.reflection_mode,
        p.agent_custom_instructions,
        p.memory_depth,
        p.usecase_setting,
        p.version,
    )


def project_of(row: Sequence[Any] | None) -> Project | None:
    if not row:
        return None
    return Project(
        id=row[0],
        org_id=row[1],
        name=row[2],
        description=row[3],
        custom_instructions=row[4],
        custom_categories=tuple(json.loads(row[5])),
        multilingual=bool(row[6]),
        decay=bool(row[7]),
        is_default=bool(row[8]),
        created_at=from_iso(row[9]),
        updated_at=from_iso(row[10]),
        reflection_enabled=bool(row[11]),
        reflection_enabled_at=from_iso(row[12]) if row[12] else None,
        reflection_mode=row[13],
        agent_custom_instructions=row[14],
        memory_depth=row[15],
        usecase_setting=row[16],
        version=row[17],
    )


def key_row(key: ProjectKey) -> tuple[Any, ...]:
    return (
        key.id,
        key.project_id,
        key.user_id,
        key.label,
        key.key_prefix,
        key.key_hash,
        iso(key.created_at),
        optional_iso(key.last_used_at),
        optional_iso(key.revoked_at),
    )


def key_of(row: Sequence[Any] | None) -> ProjectKey | None:
    if not row:
        return None
    return ProjectKey(
        id=row[0],
        project_id=row[1],
        user_id=row[2],
        label=row[3],
        key_prefix=row[4],
        key_hash=row[5],
        created_at=from_iso(row[6]),
        last_used_at=optional_moment(row[7]),
        revoked_at=optional_moment(row[8]),
    )


def event_row(event: PlatformEvent) -> tuple[Any, ...]:
    return (
        event.id,
        event.project_id,
        event.event_type,
        event.status.value,
        json.dumps(event.payload),
        json.dumps(event.results),
        event.error,
        iso(event.created_at),
        iso(event.updated_at),
        optional_iso(event.started_at),
        optional_iso(event.completed_at),
        event.attempts,
        usage_json(event.llm_usage),
    )


def event_of(row: Sequence[Any] | None) -> PlatformEvent | None:
    if not row:
        return None
    return PlatformEvent(
        id=row[0],
        project_id=row[1],
        event_type=row[2],
        status=EventStatus(row[3]),
        payload=json.loads(row[4]),
        results=json.loads(row[5]),
        error=row[6],
        created_at=from_iso(row[7]),
        updated_at=from_iso(row[8]),
        started_at=optional_moment(row[9]),
        completed_at=optional_moment(row[10]),
        attempts=int(row[11]),
        llm_usage=LLMUsage.from_json(json.loads(row[12])) if row[12] else None,
    )


def usage_json(usage: LLMUsage | None) -> str | None:
    return None if usage is None else json.dumps(usage.to_json())


def export_row(export: MemoryExport) -> tuple[Any, ...]:
    return (
        export.id,
        export.project_id,
        json.dumps(export.schema),
        json.dumps(export.filters),
        export.instructions,
        json.dumps(export.result),
        iso(export.created_at),
    )


def export_of(row: Sequence[Any] | None) -> MemoryExport | None:
    if not row:
        return None
    return MemoryExport(
        id=row[0],
        project_id=row[1],
        schema=json.loads(row[2]),
        filters=json.loads(row[3]),
        instructions=row[4],
        result=json.loads(row[5]),
        created_at=from_iso(row[6]),
    )
