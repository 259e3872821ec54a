"""Lambda entry of the ingestion worker: batches of queued add jobs from the SQS FIFO queue.

Each job (the message shape is in mnemo.services.ingestion) is stored through MemoryService; a platform add job
(kind `platform.add`, mnemo.services.platform.jobs) runs its project's stored PENDING event. A job that fails is
reported alone (a partial batch response), and only the later jobs of its message group wait for its retry; after
the queue's maxReceiveCount it goes to the dead-letter queue. A failed job comes back after
MNEMO_JOB_RETRY_SECONDS doubled per attempt (at most 15 minutes), not after the queue's long visibility timeout. A
platform add failing for a reason that passes (its provider throttled or down) is retried that way until its
MNEMO_JOB_ATTEMPTS-th attempt, counted in its event, which ends the event FAILED. A job already done (a
redelivered message) returns the result recorded in the jobs table (Powertools idempotency, expiring by TTL)
instead of adding again.
"""

from __future__ import annotations

import json
import os
from typing import Any

import boto3
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
# Attempts of a platform add failing for a reason that passes, counted in its event (not in the message's receive
# count: a message skipped behind a failed one of its group is received without running). The queue's
# maxReceiveCount is twice this, so such a message is never dead-lettered before it has run.
JOB_ATTEMPTS = int(os.environ.get("MNEMO_JOB_ATTEMPTS", "5"))
JOB_RETRY_SECONDS = float(os.environ.get("MNEMO_JOB_RETRY_SECONDS", "30"))
MAX_RETRY_SECONDS = 900

logger = Logger()
tracer = Tracer(patch_modules=["botocore", "httpx"])
metrics = Metrics()
container = LazyContainer(lambda: bootstrap(serves_http=False))
processor = SqsFifoPartialProcessor(skip_group_on_error=True)
# A batch whose every job failed is answered as a partial response too (not an error of the whole invocation),
# so that retry_soon can bring its messages back after the backoff.
processor.raise_on_entire_batch_failure = False
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
        return process_platform_job(built.platform.memories, job, max_attempts=JOB_ATTEMPTS)
    summary: dict[str, Any] = built.ingestion.process(job)
    return summary


@tracer.capture_method(capture_response=False)
def record_handler(record: SQSRecord) -> dict[str, Any]:
    summary: dict[str, Any] = store_job(job=json.loads(record.body))
    metrics.add_metric(name="JobsStored", unit=MetricUnit.Count, value=1)
    return summary


def queue_url(queue_arn: str) -> str:
    """arn:<partition>:sqs:<region>:<account>:<name> as the queue's URL."""
    _, partition, _, region, account, name = queue_arn.split(":", 5)
    domain = "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
    return f"https://sqs.{region}.{domain}/{account}/{name}"


def retry_soon(records: list[dict[str, Any]], failures: PartialItemFailureResponse) -> None:
    """Failed messages come back after a short backoff (doubling per attempt), not the queue's visibility timeout
    (six times the function's): a throttled add, and the adds behind it in its group, wait seconds, not half an
    hour. A message whose visibility cannot be changed keeps the queue's."""
    failed = {item["itemIdentifier"] for item in failures["batchItemFailures"]}
    if not failed:
        return
    metrics.add_metric(name="JobsRetried", unit=MetricUnit.Count, value=len(failed))
    client = boto3.client("sqs")
    delays: dict[str | None, int] = {}  # per message group: the first failed message's (the others wait on it)
    for raw in records:
        record = SQSRecord(raw)
        if record.message_id not in failed:
            continue
        attempt = int(record.attributes.approximate_receive_count)
        own = int(min(JOB_RETRY_SECONDS * 2 ** max(attempt - 1, 0), MAX_RETRY_SECONDS))
        delay = delays.setdefault(record.attributes.message_group_id, own)
        try:
            client.change_message_visibility(
                QueueUrl=queue_url(record.event_source_arn),
                ReceiptHandle=record.receipt_handle,
                VisibilityTimeout=delay,
            )
        except Exception:  # the message still comes back, later
            logger.exception("could not shorten the visibility of a failed message")


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
    response = process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
    retry_soon(event.get("Records", []), response)
    return response
