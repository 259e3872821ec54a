"""Response shapes of the platform surface (compat-reference §4): memories, history, events, projects, pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request

from mnemo.domain.memory import HistoryEntry, MemoryRecord
from mnemo.domain.tenancy import Member, Organization, PlatformEvent, Project, ProjectKey, Role
from mnemo.domain.timefmt import iso
from mnemo.services.commands import SearchResult

PROJECT_FIELDS = (
    "project_id",
    "org_id",
    "name",
    "description",
    "created_at",
    "updated_at",
    "members",
    "custom_instructions",
    "custom_categories",
    "multilingual",
    "decay",
    "is_default",
    "user_role",
)


def structured_attributes(record: MemoryRecord) -> dict[str, Any]:
    moment = record.created_at
    return {
        "year": moment.year,
        "month": moment.month,
        "day": moment.day,
        "hour": moment.hour,
        "minute": moment.minute,
        "day_of_week": moment.strftime("%A").lower(),
        "week_of_year": moment.isocalendar().week,
        "day_of_year": moment.timetuple().tm_yday,
        "quarter": (moment.month - 1) // 3 + 1,
        "is_weekend": moment.weekday() >= 5,
    }


def memory_view(record: MemoryRecord) -> dict[str, Any]:
    """The platform memory object (GET /v1/memories/{id}/, list items): the run is `session_id`."""
    return {
        "id": record.id,
        "memory": record.text,
        "user_id": record.scope.user_id,
        "agent_id": record.scope.agent_id,
        "app_id": record.scope.app_id,
        "session_id": record.scope.run_id,
        "metadata": record.metadata or None,
        "categories": list(record.categories),
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
        "structured_attributes": structured_attributes(record),
        "replaced_by": record.replaced_by,
        "synthesized": False,
        "lifecycle_state": record.state.value,
    }


def search_view(result: SearchResult) -> dict[str, Any]:
    """A v3 search hit: the run is `run_id` here, and the fused score comes with its parts."""
    record = result.record
    details = result.details
    return {
        "id": record.id,
        "memory": record.text,
        "user_id": record.scope.user_id,
        "agent_id": record.scope.agent_id,
        "app_id": record.scope.app_id,
        "run_id": record.scope.run_id,
        "score": round(result.score, 6),
        "score_breakdown": {
            "semantic": details.get("semantic_score"),
            "bm25": details.get("bm25_score"),
            "entity": details.get("entity_boost", 0.0),
        },
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
        "metadata": record.metadata or None,
        "categories": list(record.categories),
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
    }


def history_view(entry: HistoryEntry, record: MemoryRecord | None) -> dict[str, Any]:
    return {
        "id": entry.id,
        "memory_id": entry.memory_id,
        "input": [{"role": s.role, "content": s.content} for s in record.sources] if record else [],
        "old_memory": entry.old_memory,
        "new_memory": entry.new_memory,
        "user_id": record.scope.user_id if record else None,
        "agent_id": record.scope.agent_id if record else None,
        "app_id": record.scope.app_id if record else None,
        "session_id": record.scope.run_id if record else None,
        "categories": list(record.categories) if record else [],
        "event": entry.event.value,
        "metadata": (record.metadata or None) if record else None,
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
    }


def event_view(event: PlatformEvent) -> dict[str, Any]:
    latency = None
    if event.started_at is not None and event.completed_at is not None:
        latency = round((event.completed_at - event.started_at).total_seconds() * 1000, 3)
    return {
        "id": event.id,
        "event_type": event.event_type,
        "status": event.status.value,
        "payload": event.payload,
        "metadata": event.payload.get("metadata"),
        "results": event.results,
        "created_at": iso(event.created_at),
        "updated_at": iso(event.updated_at),
        "started_at": iso(event.started_at) if event.started_at else None,
        "completed_at": iso(event.completed_at) if event.completed_at else None,
        "latency": latency,
        "graph_status": None,
        "error": event.error,
    }


def members_view(members: Sequence[Member]) -> list[dict[str, Any]]:
    return [{"username": m.user.email, "email": m.user.email, "role": m.role.value} for m in members]


def project_view(
    project: Project, members: Sequence[Member], role: Role, fields: Sequence[str] | None = None
) -> dict[str, Any]:
    full: dict[str, Any] = {
        "project_id": project.id,
        "org_id": project.org_id,
        "name": project.name,
        "description": project.description,
        "created_at": iso(project.created_at),
        "updated_at": iso(project.updated_at),
        "members": members_view(members),
        "custom_instructions": project.custom_instructions,
        "custom_categories": list(project.custom_categories),
        "multilingual": project.multilingual,
        "decay": project.decay,
        "is_default": project.is_default,
        "user_role": role.value,
    }
    wanted = [name for name in fields or () if name in full]
    if wanted:
        return {name: full[name] for name in wanted}
    return full


def org_view(org: Organization, members: Sequence[Member], role: Role | None) -> dict[str, Any]:
    return {
        "org_id": org.id,
        "name": org.name,
        "created_at": iso(org.created_at),
        "updated_at": iso(org.updated_at),
        "members": members_view(members),
        "is_owner": role is Role.OWNER,
        "user_role": role.value if role else None,
    }


def key_view(key: ProjectKey, owner_email: str | None) -> dict[str, Any]:
    return {
        "id": key.id,
        "label": key.label,
        "key_prefix": key.key_prefix,
        "user_email": owner_email,
        "created_at": iso(key.created_at),
        "last_used_at": iso(key.last_used_at) if key.last_used_at else None,
        "revoked_at": iso(key.revoked_at) if key.revoked_at else None,
    }


def page(request: Request, items: list[Any], count: int, page_number: int, page_size: int) -> dict[str, Any]:
    """DRF-style page: absolute next/previous URLs carrying page and page_size."""
    url = request.url
    more = page_number * page_size < count
    return {
        "count": count,
        "next": str(url.include_query_params(page=page_number + 1, page_size=page_size)) if more else None,
        "previous": (
            str(url.include_query_params(page=page_number - 1, page_size=page_size)) if page_number > 1 else None
        ),
        "results": items,
    }
