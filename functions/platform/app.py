"""Lambda entry of the platform routes: /v1/*, /v2/*, /v3/*, /api/v1/* (the mem0-compatible, multi-tenant API).

API Gateway (HTTP API) sends this group's routes here; the group's FastAPI routers answer them through Mangum.
Every call names its project by its key (`Authorization: Token m0-...`); an asynchronous add
(`POST /v3/memories/add/`) stores its PENDING event and queues it for the ingest worker. The container is built
on the first invocation and kept for the next ones (never at import time).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.api.aws_lambda import HttpFunction

logger = Logger()
tracer = Tracer(patch_modules=["botocore", "httpx"])
metrics = Metrics()
function = HttpFunction(["platform"])


def warm() -> None:
    """Build the container and the app now, as the first invocation would."""
    function.ready()


# Never log or trace an event or a response: they carry memories and project keys.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    response = function(event, context)
    metrics.add_metric(name=f"Http{response['statusCode'] // 100}xx", unit=MetricUnit.Count, value=1)
    return response
