"""The ingest worker as a Lambda function: batches of queued platform add jobs from the SQS FIFO ingest queue, and
of profile tasks (generations and jobs, mnemo.services.platform.profiles) from the standard profile queue.

Each job (kind `platform.add`, mnemo.services.platform.jobs) runs its project's stored PENDING add event. A job
that fails is reported alone (a partial batch response), and only the later jobs of its message group wait for its
retry; after the queue's maxReceiveCount it goes to the dead-letter queue. A failed job comes back after
`job_retry_seconds` doubled per attempt (at most 15 minutes), not after the queue's long visibility timeout
(mnemo.adapters.aws.queue.retry_soon). A platform add failing for a reason that passes (its provider throttled or
down) is retried that way until its `job_attempts`-th attempt, counted in its event, which ends the event FAILED.
A job already done (a redelivered message) returns the result recorded in the jobs table (Powertools
idempotency, expiring by TTL) instead of running again.

A profile task (kind `platform.profile`) needs no such record: running one twice is harmless (a generation runs
only while its profile is pending, a finished job is skipped). A batch of the profile queue goes through the
standard batch processor (a failed task is reported alone and comes back after the same backoff).
`functions/ingest_worker/app.py` is one call of `worker_entry`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    SqsFifoPartialProcessor,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.adapters.aws.queue import FailedMessage, retry_soon
from mnemo.composition.container import Container, LazyContainer, build_container
from mnemo.domain.profiles import PROFILE_TASK_KIND, ProfileTask
from mnemo.errors import ServerMisconfiguredError
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.unavailable import Unavailable
from mnemo.settings import Settings

JOB_RECORD_DAYS = 7  # how long a finished job's result is kept (the jobs table's TTL)

Handler = Callable[[dict[str, Any], LambdaContext], PartialItemFailureResponse]


@dataclass(frozen=True)
class WorkerEntry:
    container: LazyContainer
    handler: Handler

    def warm(self) -> None:
        """Build the container now, as the first invocation would."""
        self.container.get()


def failed_messages(records: list[dict[str, Any]], failures: PartialItemFailureResponse) -> list[FailedMessage]:
    failed = {item["itemIdentifier"] for item in failures["batchItemFailures"]}
    out = []
    for raw in records:
        record = SQSRecord(raw)
        if record.message_id in failed:
            attributes = record.attributes
            out.append(
                FailedMessage(
                    queue_arn=record.event_source_arn,
                    receipt_handle=record.receipt_handle,
                    group=attributes.message_group_id,
                    receive_count=int(attributes.approximate_receive_count),
                )
            )
    return out


def worker_entry() -> WorkerEntry:
    """The ingest worker's handler. Nothing is read at import: the settings (the jobs table, the retry delay) come
    with the container, built at the first invocation."""
    logger = Logger()
    tracer = Tracer(patch_modules=["botocore", "httpx"])
    metrics = Metrics()
    container = LazyContainer(lambda: build_container(serves_http=False))
    fifo = SqsFifoPartialProcessor(skip_group_on_error=True)
    # A batch whose every job failed is answered as a partial response too (not an error of the whole invocation),
    # so that its messages can come back after the backoff.
    fifo.raise_on_entire_batch_failure = False
    standard = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    idempotency = IdempotencyConfig(
        event_key_jmespath="job_id", raise_on_no_idempotency_key=True, expires_after_seconds=JOB_RECORD_DAYS * 86400
    )
    recorded: list[Callable[..., dict[str, Any]]] = []  # run_job, idempotent once the jobs table is known

    def run_job(job: dict[str, Any]) -> dict[str, Any]:
        """The job's summary (memory ids and events, never text): what the jobs table keeps."""
        return _platform(container.get()).jobs.run(job)

    def recorded_run(job: dict[str, Any]) -> dict[str, Any]:
        if not recorded:
            jobs = DynamoDBPersistenceLayer(table_name=container.get().settings.jobs_table)
            recorded.append(
                idempotent_function(data_keyword_argument="job", config=idempotency, persistence_store=jobs)(run_job)
            )
        return recorded[0](job=job)

    @tracer.capture_method(capture_response=False)
    def record_handler(record: SQSRecord) -> dict[str, Any]:
        message = json.loads(record.body)
        if isinstance(message, dict) and message.get("kind") == PROFILE_TASK_KIND:
            task = ProfileTask.from_json(message)
            _profiles(container.get()).run_task(task)
            metrics.add_metric(name="ProfileTasks", unit=MetricUnit.Count, value=1)
            return {"task": task.task, "project_id": task.project_id}
        summary = recorded_run(message)
        metrics.add_metric(name="JobsStored", unit=MetricUnit.Count, value=1)
        return summary

    @logger.inject_lambda_context(log_event=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
        idempotency.register_lambda_context(context)
        if container.built:
            container.get().configuration.refresh()  # follow a provider change made elsewhere
        records = event.get("Records", [])
        from_fifo = bool(records) and str(records[0].get("eventSourceARN", "")).endswith(".fifo")
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=fifo if from_fifo else standard, context=context
        )
        failed = failed_messages(records, response)
        if failed:
            metrics.add_metric(name="JobsRetried", unit=MetricUnit.Count, value=len(failed))
            retry_soon(boto3.client("sqs"), failed, _retry_seconds(container))
        return response

    return WorkerEntry(container, handler)


def _retry_seconds(container: LazyContainer) -> float:
    """The first retry delay of the settings in effect (the default should the container not build: its jobs
    failed, and must still come back soon)."""
    if container.built:
        return container.get().settings.job_retry_seconds
    default: float = Settings.model_fields["job_retry_seconds"].default
    return default


def _platform(container: Container) -> PlatformFeatures:
    return container.platform


def _profiles(container: Container) -> ProfileService:
    profiles = container.platform.profiles
    if isinstance(profiles, Unavailable):
        raise ServerMisconfiguredError("A profile task reached a worker without the profile queue configured.")
    return profiles
