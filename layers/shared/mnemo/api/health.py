"""GET /health: whether the process's background workers run (mnemo.services.workers: the job, webhook and profile
workers, Dream's schedule, the write-behind buffers), each with its state. Unauthenticated, as a load balancer or
an orchestrator asks it; it says nothing of the data. 200 when every worker is healthy (none on Lambda, which runs
no worker), 503 when one crashed and waits to be restarted."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, Field

from mnemo.api.dependencies import WorkersDep
from mnemo.api.routing import TypedRoute
from mnemo.services.workers import Supervisor, WorkerState

router = APIRouter(route_class=TypedRoute, tags=["health"])


class WorkerOut(BaseModel):
    name: str = Field(description="The worker.", examples=["webhook-worker"])
    running: bool = Field(description="Whether its thread runs (a leader-only worker runs in one process of several).")
    healthy: bool = Field(description="False from a crash until it runs again (it is restarted with a backoff).")
    restarts: int = Field(description="Its crashes since it started.", examples=[0])
    last_error: str | None = Field(description="Its last crash (`<type>: <message>`), if any.", examples=[None])

    @classmethod
    def of(cls, state: WorkerState) -> WorkerOut:
        return cls(
            name=state.name,
            running=state.running,
            healthy=state.healthy,
            restarts=state.restarts,
            last_error=state.last_error,
        )


class HealthOut(BaseModel):
    status: Literal["ok", "unhealthy"] = Field(description="`ok` when every worker is healthy.", examples=["ok"])
    workers: list[WorkerOut] = Field(description="Each background worker of this process, in the order they start.")

    @classmethod
    def of(cls, workers: Supervisor) -> HealthOut:
        states = workers.states()
        status: Literal["ok", "unhealthy"] = "ok" if all(s.healthy for s in states) else "unhealthy"
        return cls(status=status, workers=[WorkerOut.of(s) for s in states])


@router.get(
    "/health",
    response_model=HealthOut,
    summary="Whether the background workers run",
    response_description="Every worker healthy (`status: ok`), each with its state.",
    responses={503: {"model": HealthOut, "description": "A worker crashed and waits to be restarted."}},
)
def health(workers: WorkersDep) -> HealthOut | Response:
    answer = HealthOut.of(workers)
    if answer.status == "ok":
        return answer
    return Response(answer.model_dump_json(), status_code=503, media_type="application/json")
