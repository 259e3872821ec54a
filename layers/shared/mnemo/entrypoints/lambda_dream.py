"""The Dream scheduler as a Lambda function: an EventBridge Scheduler schedule (template.yaml `DreamSchedule`)
invokes it; it submits one Synthesis run per project with users due (mnemo.services.platform.dream.schedule) to the
ingest queue, where the ingest worker runs them. Whatever the event holds, an invocation is one tick: a tick that
finds nobody due does nothing, and two ticks close together submit each user's run once (the run claims the user).

Nothing is read at import: the composition (mnemo.composition.aws_functions.build_aws_dream_scheduler: stores and
the queue, no provider, index or secret) is built at the first invocation and kept.
`functions/dream_scheduler/app.py` is one call of `dream_schedule_entry`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.composition.aws_functions import DreamSchedulerRuntime, build_aws_dream_scheduler
from mnemo.entrypoints.lazy_runtime import LazyRuntime

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


@dataclass(frozen=True)
class DreamEntry:
    runtime: LazyRuntime[DreamSchedulerRuntime]
    handler: Handler

    def warm(self) -> None:
        self.runtime.get()


def dream_schedule_entry() -> DreamEntry:
    logger = Logger()
    tracer = Tracer(patch_modules=["botocore"])
    metrics = Metrics()
    runtime = LazyRuntime(build_aws_dream_scheduler)

    @logger.inject_lambda_context(log_event=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        runs = runtime.get().scheduler.tick()
        users = sum(len(run.payload.get("user_ids") or []) for run in runs)
        metrics.add_metric(name="DreamRunsQueued", unit=MetricUnit.Count, value=len(runs))
        metrics.add_metric(name="DreamUsersDue", unit=MetricUnit.Count, value=users)
        logger.info("dream schedule tick", extra={"runs": len(runs), "users": users})
        return {"runs": [{"project_id": r.project_id, "event_id": r.id} for r in runs], "users": users}

    return DreamEntry(runtime, handler)
