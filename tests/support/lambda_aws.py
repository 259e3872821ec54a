"""The AWS side of the handler tests, under moto: the stack's tables, queue, topic and SSM secrets made as
template.yaml declares them, the environment the template gives the functions, the sample events of events/
with their placeholders filled, and a Lambda context."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.registry import ProviderRegistry, validate
from mnemo.ports.embedder import Embedder
from tests.support import moto_aws
from tests.support.dynamodb_tables import (
    create_accounts_table,
    create_memory_table,
    create_request_log_table,
    ensure_table,
)

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
FUNCTIONS = ROOT / "functions"

# The sample credentials and ids of events/ (see events/README.md); tests replace them with real ones.
ADMIN_API_KEY = "sample-admin-key-0123456789abcdef"
JWT_SECRET = "a-test-jwt-secret-of-at-least-32-bytes!!"
CONFIG_ENCRYPTION_KEY = "dGVzdC1jb25maWctZW5jcnlwdGlvbi1rZXktMzJieXQ="  # a Fernet key: base64 of 32 bytes
PLACEHOLDERS = {
    "api_key": "SAMPLE_API_KEY",
    "access_token": "SAMPLE_ACCESS_TOKEN",
    "refresh_token": "SAMPLE_REFRESH_TOKEN",
    "memory_id": "7d2c4a0e-5b1f-4c3a-9e8d-000000000001",
    "key_id": "7d2c4a0e-5b1f-4c3a-9e8d-000000000002",
    "user_id": "7d2c4a0e-5b1f-4c3a-9e8d-000000000003",
    "event_id": "7d2c4a0e-5b1f-4c3a-9e8d-000000000004",
    "project_key": "SAMPLE_PROJECT_KEY",
    "org_id": "org_sample000000000000001",
    "project_id": "proj_sample00000000000001",
}


@dataclass(frozen=True)
class Stack:
    """What the template creates, by the names the functions get in their environment."""

    memories_table: str = "mnemo-test-memories"
    accounts_table: str = "mnemo-test-accounts"
    request_log_table: str = "mnemo-test-request-log"
    jobs_table: str = "mnemo-test-jobs"
    queue_url: str = ""
    dead_letter_url: str = ""
    topic_arn: str = ""
    events_url: str = ""  # a queue subscribed to the topic, to see what was published
    profile_queue_url: str = ""  # the standard queue of profile tasks
    env: dict[str, str] = field(default_factory=dict)


def create_stack(*, ingest_queue: bool = True) -> Stack:
    """Inside an active mock_aws(): tables, the FIFO ingest queue with its dead-letter queue, the standard profile
    queue with its own, the topic (with a queue subscribed to it) and the SSM parameters, as template.yaml declares
    them."""
    dynamodb, sqs, sns, ssm = (moto_aws.client(s) for s in ("dynamodb", "sqs", "sns", "ssm"))
    stack = Stack()
    create_memory_table(dynamodb, stack.memories_table)
    create_accounts_table(dynamodb, stack.accounts_table)
    create_request_log_table(dynamodb, stack.request_log_table)
    ensure_table(
        dynamodb,
        {
            "TableName": stack.jobs_table,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        },
        ttl_attribute="expiration",
    )
    dead = sqs.create_queue(QueueName="mnemo-test-ingest-dlq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    queue = ""
    if ingest_queue:
        queue = sqs.create_queue(
            QueueName="mnemo-test-ingest.fifo",
            Attributes={
                "FifoQueue": "true",
                "VisibilityTimeout": "1800",
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": dead_arn, "maxReceiveCount": 5}),
            },
        )["QueueUrl"]
    profile_dead = sqs.create_queue(QueueName="mnemo-test-profiles-dlq")["QueueUrl"]
    profile_dead_arn = sqs.get_queue_attributes(QueueUrl=profile_dead, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    profiles = sqs.create_queue(
        QueueName="mnemo-test-profiles",
        Attributes={
            "VisibilityTimeout": "1800",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": profile_dead_arn, "maxReceiveCount": 5}),
        },
    )["QueueUrl"]
    topic = sns.create_topic(Name="mnemo-test-events")["TopicArn"]
    events = sqs.create_queue(QueueName="mnemo-test-events-seen")["QueueUrl"]
    events_arn = sqs.get_queue_attributes(QueueUrl=events, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=events_arn, Attributes={"RawMessageDelivery": "true"})
    ssm.put_parameter(Name="/mnemo/test/jwt-secret", Value=JWT_SECRET, Type="SecureString")
    ssm.put_parameter(Name="/mnemo/test/admin-api-key", Value=ADMIN_API_KEY, Type="SecureString")
    ssm.put_parameter(Name="/mnemo/test/config-encryption-key", Value=CONFIG_ENCRYPTION_KEY, Type="SecureString")
    env = {
        "MNEMO_BACKEND": "aws",
        "MNEMO_AWS_REGION": moto_aws.REGION,
        "AWS_DEFAULT_REGION": moto_aws.REGION,
        "AWS_ACCESS_KEY_ID": "moto",
        "AWS_SECRET_ACCESS_KEY": "moto",
        "MNEMO_DYNAMODB_TABLE": stack.memories_table,
        "MNEMO_ACCOUNTS_TABLE": stack.accounts_table,
        "MNEMO_REQUEST_LOG_TABLE": stack.request_log_table,
        "MNEMO_JOBS_TABLE": stack.jobs_table,
        # Never contacted: the tests give the container an in-process index (the index is derived data).
        "MNEMO_OPENSEARCH_ENDPOINT": "https://mnemo-test.us-east-1.aoss.amazonaws.com",
        "MNEMO_OPENSEARCH_SERVICE": "aoss",
        "MNEMO_QUEUE_URL": queue,
        "MNEMO_TOPIC_ARN": topic,
        "MNEMO_PROFILE_QUEUE_URL": profiles,
        "MNEMO_EMBEDDER_PROVIDER": "bedrock",
        "MNEMO_EMBEDDER_CONFIG": '{"model": "amazon.titan-embed-text-v2:0", "embedding_dims": 1024}',
        "MNEMO_JWT_SECRET_PARAMETER": "/mnemo/test/jwt-secret",
        "MNEMO_ADMIN_API_KEY_PARAMETER": "/mnemo/test/admin-api-key",
        "MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER": "/mnemo/test/config-encryption-key",
        # Cheap password hashes: these tests are about the handlers, not argon2's cost.
        "MNEMO_ARGON2_TIME_COST": "1",
        "MNEMO_ARGON2_MEMORY_KIB": "64",
        "MNEMO_ARGON2_PARALLELISM": "1",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "mnemo-test",
        "POWERTOOLS_SERVICE_NAME": "mnemo-test",
    }
    return replace(
        stack,
        queue_url=queue,
        dead_letter_url=dead,
        topic_arn=topic,
        events_url=events,
        profile_queue_url=profiles,
        env=env,
    )


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in values.items():
            patch.setenv(name, value)
        yield


def load_event(name: str, **fill: str) -> dict[str, Any]:
    """events/<name>.json with each named placeholder (PLACEHOLDERS) replaced by the given value."""
    text = (EVENTS / f"{name}.json").read_text()
    for placeholder, value in fill.items():
        text = text.replace(PLACEHOLDERS[placeholder], value)
    event: dict[str, Any] = json.loads(text)
    return event


INGEST_QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:mnemo-test-ingest.fifo"  # the queues create_stack makes
PROFILE_QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:mnemo-test-profiles"


def sqs_record(message: Mapping[str, Any], queue_arn: str = INGEST_QUEUE_ARN) -> dict[str, Any]:
    """A message received from the queue, as Lambda's SQS event source hands it to a function."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": message["Attributes"],
        "messageAttributes": {},
        "md5OfBody": message["MD5OfBody"],
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": moto_aws.REGION,
    }


@dataclass(frozen=True)
class FakeLambdaContext:
    """What Powertools reads from the Lambda context object."""

    function_name: str = "mnemo-test"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:mnemo-test"
    aws_request_id: str = "52fdfc07-2182-154f-163f-5f0f9a621d72"
    log_group_name: str = "/aws/lambda/mnemo-test"
    log_stream_name: str = "2025/03/12/[$LATEST]0123456789abcdef"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: Any

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> HttpResponse:
        headers = {k.lower(): v for k, v in (raw.get("headers") or {}).items()}
        text = raw.get("body") or ""
        is_json = headers.get("content-type", "").startswith("application/json")
        body: Any = (json.loads(text) if text else None) if is_json else text
        return cls(int(raw["statusCode"]), headers, body)


class BedrockAsLocalCatalog(ProviderRegistry):
    """The real catalogue (each config validated as deployed), except that the `bedrock` embedder is the local
    MiniLM model already loaded by the test session: there is no Bedrock here. Records each config it was asked."""

    def __init__(self, local: Embedder) -> None:
        self._local = local
        self.asked: list[dict[str, Any] | None] = []

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        if provider != "bedrock":
            return super().build_embedder(provider, config)
        validate("embedder", provider, config)
        self.asked.append(config)
        return self._local
