"""Lambda entry of the ingestion worker: batches of queued add jobs from the SQS FIFO queue.

Each job (the message shape is in mnemo.services.ingestion) is stored through MemoryService; a platform add job
(kind `platform.add`, mnemo.services.platform.jobs) runs its project's stored PENDING event. A job that fails is
reported alone (a partial batch response), and only the later jobs of its message group wait for its retry; after
the queue's maxReceiveCount it goes to the dead-letter queue. A job already done (a redelivered message) returns
the result recorded in the jobs table (Powertools idempotency, expiring by TTL) instead of adding again.
"""

from __future__ import annotations

import json
import os
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.bootstrap import LazyContainer, bootstrap
from mnemo.errors import ServerMisconfiguredError
from mnemo.services.platform.jobs import is_platform_job, process_platform_job

JOB_RECORD_DAYS = 7  # how long a finished job's result is kept (the jobs table's TTL)

logger = Logger()
tracer = Tracer(patch_modules=["botocore", "httpx"])
metrics = Metrics()
container = LazyContainer(lambda: bootstrap(serves_http=False))
processor = SqsFifoPartialProcessor(skip_group_on_error=True)
jobs = DynamoDBPersistenceLayer(table_name=os.environ["MNEMO_JOBS_TABLE"])  # set by template.yaml
idempotency = IdempotencyConfig(
    event_key_jmespath="job_id", raise_on_no_idempotency_key=True, expires_after_seconds=JOB_RECORD_DAYS * 86400
)


@idempotent_function(data_keyword_argument="job", config=idempotency, persistence_store=jobs)
def store_job(job: dict[str, Any]) -> dict[str, Any]:
    """The job's summary (memory ids and events, never text): what the jobs table keeps."""
    built = container.get()
    if is_platform_job(job):
        if built.platform is None:
            raise ServerMisconfiguredError("A platform add job reached a worker without the platform services.")
        return process_platform_job(built.platform.memories, job)
    summary: dict[str, Any] = built.ingestion.process(job)
    return summary


@tracer.capture_method(capture_response=False)
def record_handler(record: SQSRecord) -> dict[str, Any]:
    summary: dict[str, Any] = store_job(job=json.loads(record.body))
    metrics.add_metric(name="JobsStored", unit=MetricUnit.Count, value=1)
    return summary


def warm() -> None:
    """Build the container now, as the first invocation would."""
    container.get()


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    idempotency.register_lambda_context(context)
    if container.built:
        container.get().configuration.refresh()  # follow a provider change made elsewhere
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
