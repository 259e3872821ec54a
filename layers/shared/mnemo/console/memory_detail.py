"""One memory: its text, owners, categories, metadata, lifecycle state (and what replaced it), where it came from
(the messages of its add, or the memories a synthesized one was drawn from) and its history; editing its text or
metadata, and deleting it (OWNER)."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_INSTRUCTIONS
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Role
from mnemo.errors import ValidationError
from mnemo.services.commands import UpdateCommand
from mnemo.services.platform.jobs.project_settings import project_categories

MEMORY = PROJECT + "/memories/{memory_id}"


def _detail(visit: Visit) -> Response:
    view = project_view(visit, "memories")
    memory = visit.platform.project_memory
    record, derived = memory.sources_of(view.details.project.id, visit.param("memory_id"))
    history, _current = memory.history(view.details.project.id, record.id)
    metadata = json.dumps(record.metadata, indent=2, ensure_ascii=False, sort_keys=True) if record.metadata else ""
    return visit.page("memory.html", project=view, record=record, derived=derived, history=history, metadata=metadata)


def _metadata(raw: str) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise ValidationError('Metadata is a JSON object, such as {"source": "chat"}.') from None
    if not isinstance(parsed, dict):
        raise ValidationError('Metadata is a JSON object, such as {"source": "chat"}.')
    return parsed


def _edit(visit: Visit) -> Response:
    view = project_view(visit, "memories")
    user = visit.session.user
    project = visit.platform.tenancy.authorized_project(view.org_id, view.details.project.id, user, Role.OWNER)
    memory_id = visit.param("memory_id")
    current = visit.platform.project_memory.get(project.id, memory_id)
    text = visit.field("text")
    if not text or len(text) > MAX_INSTRUCTIONS:
        raise ValidationError(f"A memory's text has 1 to {MAX_INSTRUCTIONS} characters.")
    metadata = _metadata(visit.form.get("metadata", ""))
    command = UpdateCommand(
        memory_id,
        text=text if text != current.text else None,
        metadata=metadata if metadata is not None and metadata != current.metadata else None,
        custom_categories=project_categories(project),
    )
    if command.text is None and command.metadata is None:
        return visit.done(f"{view.base}/memories/{memory_id}", "Nothing changed.")
    visit.platform.project_memory.update(project.id, command)
    return visit.done(f"{view.base}/memories/{memory_id}", "Memory saved.")


def _delete(visit: Visit) -> Response:
    view = project_view(visit, "memories")
    user = visit.session.user
    project = visit.platform.tenancy.authorized_project(view.org_id, view.details.project.id, user, Role.OWNER)
    visit.platform.project_memory.delete(project.id, visit.param("memory_id"))
    return visit.done(view.base + "/memories", "Memory deleted.")


ROUTES = [
    Route(MEMORY, signed_in(_detail), methods=["GET"]),
    Route(MEMORY + "/edit", signed_in(_edit), methods=["POST"]),
    Route(MEMORY + "/delete", signed_in(_delete), methods=["POST"]),
]
