"""A project's memories: browsing them by user, agent, app or run with the lifecycle states shown and pages;
searching them, each hit with its score and the parts of it (the API's score breakdown); and deleting every
memory a filter matches, after a page that counts them (the post deletes only if the count still holds)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.platform.responses.memories import ScoreBreakdown
from mnemo.console.memory_filters import ENTITY_LABELS, PAGE_SIZE, STATE_CHOICES, MemoryFilters
from mnemo.console.projects import PROJECT, ProjectView, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.memory import LifecycleState
from mnemo.domain.tenancy import Role
from mnemo.errors import ValidationError
from mnemo.services.commands import SearchCommand

SEARCH_RESULTS = 20


def _browse(visit: Visit) -> Response:
    view = project_view(visit, "memories")
    chosen = MemoryFilters.of(visit.request.query_params)
    memory = visit.platform.project_memory
    hits, found, pages = None, None, 0
    if chosen.query:
        command = SearchCommand(query=chosen.query, filters=chosen.expr, top_k=SEARCH_RESULTS, states=chosen.lifecycle)
        hits = [(hit, ScoreBreakdown.of(hit.details)) for hit in memory.search(view.details.project, command, v3=True)]
    else:
        found = memory.find(
            view.details.project.id,
            chosen.expr,
            limit=PAGE_SIZE,
            offset=chosen.offset,
            total=True,
            states=chosen.lifecycle,
        )
        pages = max(1, -(-(found.total or 0) // PAGE_SIZE))
    return visit.page(
        "memories.html",
        project=view,
        chosen=chosen,
        entities=ENTITY_LABELS,
        state_choices=STATE_CHOICES,
        hits=hits,
        found=found,
        pages=pages,
    )


def _matching(visit: Visit, view: ProjectView, chosen: MemoryFilters) -> int:
    if not chosen.ids:
        raise ValidationError("Name at least one of the user, agent, app or run (* for any) to delete by filter.")
    found = visit.platform.project_memory.find(
        view.details.project.id, chosen.expr, limit=1, total=True, states=tuple(LifecycleState)
    )
    return found.total or 0


def _delete_matching(visit: Visit) -> Response:
    view = project_view(visit, "memories")
    visit.platform.tenancy.authorized_project(view.org_id, view.details.project.id, visit.session.user, Role.OWNER)
    if visit.request.method == "GET":
        chosen = MemoryFilters.of(visit.request.query_params)
        count = _matching(visit, view, chosen)
        return visit.page("confirm_delete_memories.html", project=view, chosen=chosen, count=count)
    chosen = MemoryFilters.of(visit.form)
    count = _matching(visit, view, chosen)
    if str(count) != visit.field("expected"):
        raise ValidationError(f"The filter now matches {count} memories: check again before deleting.")
    deleted = visit.platform.project_memory.delete_matching(
        view.details.project.id, chosen.expr, {"filters": dict(chosen.ids)}
    )
    return visit.done(view.base + "/memories", f"{deleted.count} memories deleted.")


ROUTES = [
    Route(PROJECT + "/memories", signed_in(_browse), methods=["GET"]),
    Route(PROJECT + "/memories/delete", signed_in(_delete_matching), methods=["GET", "POST"]),
]
