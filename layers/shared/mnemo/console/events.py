"""A project's events: every add, import, delete and Dream run with its status, progress and results, newest first
in pages; one event's payload and results; cancelling a job still pending or running; and, for an OWNER, adding a
memory (queued as an add, or stored as said) and importing many (a JSON list, as the import route takes) — both
built through the API's own body checks, so the console refuses what the API refuses."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as BodyError
from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.platform.bodies import AddBody, ImportBody, add_command, top_level_ids
from mnemo.console.memory_filters import ENTITY_LABELS, MAX_PAGE
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import PlatformEvent, Role
from mnemo.errors import ValidationError
from mnemo.services.platform.jobs.import_request import parse_import

EVENTS_PAGE = 25
EVENT = PROJECT + "/events/{event_id}"


def _body(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except BodyError as exc:
        first = exc.errors()[0]
        raise ValidationError(f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}") from None


def _page_number(raw: str | None) -> int:
    if raw is None:
        return 1
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE:
        raise ValidationError(f"page is a whole number from 1 to {MAX_PAGE}.")
    return int(raw)


def _list(visit: Visit) -> Response:
    view = project_view(visit, "events")
    number = _page_number(visit.request.query_params.get("page"))
    found = visit.platform.events.page(view.details.project.id, (number - 1) * EVENTS_PAGE, EVENTS_PAGE)
    pages = max(1, -(-found.total // EVENTS_PAGE))
    return visit.page("events.html", project=view, found=found, number=number, pages=pages, entities=ENTITY_LABELS)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str) if value else ""


def _detail(visit: Visit) -> Response:
    view = project_view(visit, "events")
    event = visit.platform.events.get(view.details.project.id, visit.param("event_id"))
    return visit.page(
        "event.html", project=view, event=event, payload=_pretty(event.payload), results=_pretty(event.results)
    )


def _owned_project(visit: Visit) -> tuple[str, Any]:
    view = project_view(visit, "events")
    project = visit.platform.tenancy.authorized_project(
        view.org_id, view.details.project.id, visit.session.user, Role.OWNER
    )
    return view.base, project


def _cancel(visit: Visit) -> Response:
    base, project = _owned_project(visit)
    visit.platform.events.cancel(project.id, visit.param("event_id"))
    return visit.done(f"{base}/events/{visit.param('event_id')}", "Cancelled.")


def _ids(visit: Visit) -> dict[str, str]:
    return {name: visit.field(name) for name, _label in ENTITY_LABELS if visit.field(name)}


def _started(visit: Visit, base: str, event: PlatformEvent, what: str) -> Response:
    return visit.done(f"{base}/events/{event.id}", f"{what}: {event.status.value}.")


def _add(visit: Visit) -> Response:
    base, project = _owned_project(visit)
    infer = visit.form.get("infer") == "on"
    body = _body(AddBody, {"messages": visit.field("text"), "infer": infer, **_ids(visit)})
    event = visit.platform.project_memory.add(project, add_command(body))
    return _started(visit, base, event, "Add")


def _import(visit: Visit) -> Response:
    base, project = _owned_project(visit)
    try:
        items = json.loads(visit.form.get("items", ""))
    except ValueError:
        raise ValidationError("The items are a JSON list (or an export), as the import route takes.") from None
    body = _body(ImportBody, {"items": items, "infer": visit.form.get("infer") == "on", **_ids(visit)})
    request = parse_import(body.items, body.format, top_level_ids(body), infer=body.infer)
    return _started(visit, base, visit.platform.imports.submit(project, request), "Import")


ROUTES = [
    Route(PROJECT + "/events", signed_in(_list), methods=["GET"]),
    Route(PROJECT + "/events/add", signed_in(_add), methods=["POST"]),
    Route(PROJECT + "/events/import", signed_in(_import), methods=["POST"]),
    Route(EVENT, signed_in(_detail), methods=["GET"]),
    Route(EVENT + "/cancel", signed_in(_cancel), methods=["POST"]),
]
