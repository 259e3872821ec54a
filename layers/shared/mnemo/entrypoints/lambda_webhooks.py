"""The webhook delivery function as a Lambda function: batches of its SQS queue, and its schedule.

- **SQS** (the delivery queue, subscribed to the SNS events topic with raw message delivery; a wrapped SNS
  notification is read as well): each record is a topic event (an outbound webhook event the relay published) or
  a retry of a delivery: `handle_record` reads it (the topic event's envelope, mnemo.adapters.aws.publisher), and
  mnemo.services.platform.webhooks.queue_delivery.WebhookDelivery makes the event's deliveries (`fan_out`) and
  sends the affected webhooks' due ones in order, signed. Records go through Powertools' batch
  processing: a record whose handling raises is reported alone (a partial batch response), SQS brings it back,
  and after the queue's maxReceiveCount it moves to the dead-letter queue. A receiver that fails is not an error:
  the attempt is recorded, and its retry is a message to this same queue delayed until it is due (up to 15
  minutes; later ones are the schedule's).
- **The schedule** (an EventBridge rule, every minute): drain the outboxes to the topic (what a process killed
  between its commit and its publish left), then send every due delivery (`WebhookDelivery.sweep`).

Nothing is read at import: the composition (mnemo.composition.aws_functions.build_aws_webhook_delivery, no provider,
index or secret) is built at the first invocation and kept. `functions/webhook_delivery/app.py` is one call of
`webhooks_entry`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.adapters.aws.publisher import delivered_event, outbound_event
from mnemo.composition.aws_functions import WebhookDeliveryRuntime, build_aws_webhook_delivery
from mnemo.entrypoints.lazy_runtime import LazyRuntime
from mnemo.services.platform.webhooks.queue_delivery import TimeLeft, WebhookDelivery, is_retry

SWEEP_SECONDS = 50.0  # a sweep stops starting attempts after this long: the next one starts a minute after it began

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


@dataclass(frozen=True)
class WebhooksEntry:
    runtime: LazyRuntime[WebhookDeliveryRuntime]
    handler: Handler

    def warm(self) -> None:
        self.runtime.get()


def is_schedule(event: Mapping[str, Any]) -> bool:
    """Whether the invocation is the EventBridge schedule's (not an SQS batch)."""
    return event.get("source") == "aws.events" or event.get("detail-type") == "Scheduled Event"


def handle_record(delivery: WebhookDelivery, body: str, time_left: TimeLeft) -> int:
    """One SQS record of the delivery queue (a topic event, raw or in its SNS envelope, or a retry); the attempts
    made. Raises when the record is neither, or a store fails (the record is then reported failed)."""
    message: Any = json.loads(body)
    if is_retry(message):
        return delivery.retry(message, time_left)
    return delivery.deliver(outbound_event(delivered_event(message)), time_left)


def webhooks_entry() -> WebhooksEntry:
    logger = Logger()
    tracer = Tracer(patch_modules=["botocore", "httpx"])
    metrics = Metrics()
    runtime = LazyRuntime(build_aws_webhook_delivery)
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    invocation: dict[str, LambdaContext] = {}

    def time_left() -> float:
        return float(invocation["context"].get_remaining_time_in_millis()) / 1000.0

    @tracer.capture_method(capture_response=False)
    def record_handler(record: SQSRecord) -> int:
        attempted = handle_record(runtime.get().delivery, record.body, time_left)
        if attempted:
            metrics.add_metric(name="WebhookAttempts", unit=MetricUnit.Count, value=attempted)
        return attempted

    def sweep(context: LambdaContext) -> dict[str, Any]:
        remaining = time_left()
        budget = min(remaining, SWEEP_SECONDS)

        def sweep_time_left() -> float:
            return time_left() - (remaining - budget)

        result = runtime.get().delivery.sweep(sweep_time_left)
        metrics.add_metric(name="WebhookEventsRelayed", unit=MetricUnit.Count, value=result.relayed)
        metrics.add_metric(name="WebhookAttempts", unit=MetricUnit.Count, value=result.attempted)
        if not result.drained:
            metrics.add_metric(name="WebhookRelayFailures", unit=MetricUnit.Count, value=1)
        logger.info("webhook sweep", extra={"relayed": result.relayed, "attempted": result.attempted})
        return {"relayed": result.relayed, "attempted": result.attempted, "drained": result.drained}

    @logger.inject_lambda_context(log_event=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        invocation["context"] = context
        if is_schedule(event):
            return sweep(context)
        records = len(event.get("Records", []))
        metrics.add_metric(name="WebhookRecords", unit=MetricUnit.Count, value=records)
        response: dict[str, Any] = dict(
            process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
        )
        failed = len(response.get("batchItemFailures", []))
        if failed:
            metrics.add_metric(name="WebhookRecordsFailed", unit=MetricUnit.Count, value=failed)
        return response

    return WebhooksEntry(runtime, handler)
