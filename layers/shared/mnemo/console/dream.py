"""A project's Dream section: the configuration (Synthesis on or off, its mode) beside the deployment's entitlements,
a run now (every user with enough memories, or one user), and the past runs, each with every change it made linked
to the memories' pages. The Dream service takes the signed-in person and checks their role itself (any member
reads, an OWNER changes the configuration and starts a run), as it does for the API."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME, MAX_SHORT
from mnemo.console.dream_runs import asked_users, change_count, recent_runs, runs_start, user_results
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.errors import NotFoundError, ValidationError
from mnemo.services.platform.dream.service import REFLECTION_MODES
from mnemo.services.platform.tenancy.events import DREAM as DREAM_EVENT

DREAM = PROJECT + "/dream"
RUN_NOT_FOUND = "No such Dream run in this project."


def _overview(visit: Visit) -> Response:
    view = project_view(visit, "dream")
    config = visit.platform.dream.config(view.org_id, view.details.project.id, visit.session.user)
    start = runs_start(visit.request.query_params)
    found = recent_runs(visit.platform.events, view.details.project.id, start)
    return visit.page(
        "dream.html",
        project=view,
        config=config,
        modes=REFLECTION_MODES,
        runs=[(run, asked_users(run), change_count(run)) for run in found.runs],
        start=start,
        older=found.older,
    )


def _patch(visit: Visit) -> dict[str, Any]:
    mode = visit.field("reflection_mode")
    if len(mode) > MAX_SHORT:
        raise ValidationError(f"reflection_mode has at most {MAX_SHORT} characters.")
    patch: dict[str, Any] = {"reflection_enabled": visit.form.get("reflection_enabled") == "on"}
    if mode:
        patch["reflection_mode"] = mode
    return patch


def _configure(visit: Visit) -> Response:
    view = project_view(visit, "dream")
    visit.platform.dream.update(view.org_id, view.details.project.id, visit.session.user, _patch(visit))
    return visit.done(view.base + "/dream", "Dream configuration saved.")


def _run(visit: Visit) -> Response:
    view = project_view(visit, "dream")
    user_id = visit.field("user_id")
    if len(user_id) > MAX_NAME:
        raise ValidationError(f"user_id has at most {MAX_NAME} characters.")
    event = visit.platform.dream.run(view.org_id, view.details.project.id, visit.session.user, user_id or None)
    return visit.done(f"{view.base}/dream/runs/{event.id}", f"Dream run: {event.status.value}.")


def _detail(visit: Visit) -> Response:
    view = project_view(visit, "dream")
    run = visit.platform.events.get(view.details.project.id, visit.param("event_id"))
    if run.event_type != DREAM_EVENT:
        raise NotFoundError(RUN_NOT_FOUND)
    return visit.page("dream_run.html", project=view, run=run, asked=asked_users(run), results=user_results(run))


ROUTES = [
    Route(DREAM, signed_in(_overview), methods=["GET"]),
    Route(DREAM + "/config", signed_in(_configure), methods=["POST"]),
    Route(DREAM + "/run", signed_in(_run), methods=["POST"]),
    Route(DREAM + "/runs/{event_id}", signed_in(_detail), methods=["GET"]),
]
