"""A project's settings, as the API's PATCH sets them: its description, custom instructions (and those for an
agent's own memories), custom categories (one `name: description` a line), decay, multilingual, and the values
stored beside them (memory depth, use case, version). Each text is held to the API's bound before the service
checks the rest (the categories' rules are the service's)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_CATEGORIES, MAX_DESCRIPTION, MAX_INSTRUCTIONS, MAX_NAME
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Project
from mnemo.errors import ValidationError

# field -> (label, bound); the texts a project stores, each cleared when left empty
TEXTS = (
    ("description", "Description", MAX_DESCRIPTION),
    ("custom_instructions", "Custom instructions", MAX_INSTRUCTIONS),
    ("agent_custom_instructions", "Instructions for an agent's own memories", MAX_INSTRUCTIONS),
    ("memory_depth", "Memory depth (stored)", MAX_NAME),
    ("usecase_setting", "Use case (stored)", MAX_DESCRIPTION),
    ("version", "Version (stored)", MAX_NAME),
)
SWITCHES = (
    ("decay", "Decay: rank v3 searches by relevance × freshness"),
    ("multilingual", "Multilingual: keep memories in the language they were said in"),
)


def categories_text(project: Project) -> str:
    return "\n".join(f"{name}: {text}" for entry in project.custom_categories for name, text in entry.items())


def _categories(raw: str) -> list[dict[str, str]]:
    lines = [line.strip() for line in raw.splitlines() if line.strip()]
    if len(lines) > MAX_CATEGORIES:
        raise ValidationError(f"At most {MAX_CATEGORIES} custom categories.")
    out = []
    for line in lines:
        name, colon, text = line.partition(":")
        if not colon or not name.strip():
            raise ValidationError(f"Write each category as `name: description` (not: {line[:60]}).")
        out.append({name.strip(): text.strip()})
    return out


def _patch(visit: Visit) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    for name, label, bound in TEXTS:
        value = visit.field(name)
        if len(value) > bound:
            raise ValidationError(f"{label} has at most {bound} characters.")
        patch[name] = value if value or name == "description" else None
    for name, _label in SWITCHES:
        patch[name] = visit.form.get(name) == "on"
    patch["custom_categories"] = _categories(visit.form.get("custom_categories", ""))
    return patch


def _settings(visit: Visit) -> Response:
    view = project_view(visit, "settings")
    if visit.request.method == "POST":
        visit.platform.tenancy.update_project(view.org_id, view.details.project.id, visit.session.user, _patch(visit))
        return visit.done(view.base + "/settings", "Settings saved.")
    project = view.details.project
    return visit.page(
        "settings.html",
        project=view,
        texts=[(name, label, bound, getattr(project, name) or "") for name, label, bound in TEXTS],
        switches=[(name, label, getattr(project, name)) for name, label in SWITCHES],
        categories=categories_text(project),
    )


ROUTES = [Route(PROJECT + "/settings", signed_in(_settings), methods=["GET", "POST"])]
