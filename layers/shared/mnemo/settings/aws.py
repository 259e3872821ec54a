"""The AWS backend: where the records, the index, the queues and the secrets are."""

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class AwsSettings(BaseSettings):
    """DynamoDB records, OpenSearch index, SQS jobs, SNS events, SSM secrets."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    # ---- AWS backend: DynamoDB records, OpenSearch index, SQS jobs, SNS events (mnemo.adapters.aws.factory) ----
    backend: Literal["local", "aws"] = Field(default="local", description="Embedded SQLite, or the AWS services.")
    aws_region: str | None = Field(
        default=None, description="The AWS region; unset: the AWS SDK's default region chain."
    )
    dynamodb_table: str = Field(
        default="mnemo-memories",
        description="The DynamoDB table of memories, history, entity counts and settings (the source of truth).",
    )
    opensearch_endpoint: str | None = Field(
        default=None, description="The https://… endpoint of the OpenSearch domain or Serverless collection."
    )
    opensearch_index: str = Field(
        default="mnemo-memories",
        description="The search index (created with its mapping on first use); each platform project has its own, "
        "named <index>-<project id>.",
    )
    opensearch_service: Literal["es", "aoss"] = Field(
        default="es", description="SigV4 service name: es for a domain, aoss for a Serverless collection."
    )
    opensearch_refresh: Literal["false", "true", "wait_for"] = Field(
        default="false",
        description="The refresh parameter of OpenSearch writes: wait_for makes a write searchable before it returns.",
    )
    queue_url: str | None = Field(default=None, description="The SQS queue of slow work (FIFO when it ends .fifo).")
    topic_arn: str | None = Field(default=None, description="The SNS topic events are published to.")
    accounts_table: str = Field(default="mnemo-accounts", description="Users, API keys and refresh tokens.")
    jobs_table: str = Field(default="mnemo-jobs", description="Finished queue jobs (the ingest worker's idempotency).")
    # Attempts of a platform add failing for a reason that passes, counted in its event (not in the message's
    # receive count: a message skipped behind a failed one of its group is received without running). The queue's
    # maxReceiveCount is twice this, so such a message is never dead-lettered before it has run.
    job_attempts: int = Field(
        default=5,
        ge=1,
        description="Attempts of a queued platform add failing for a reason that passes, before its event is FAILED.",
    )
    job_retry_seconds: float = Field(
        default=30.0, ge=0, description="A failed job's first retry delay on SQS, doubled per attempt (15 min at most)."
    )
    request_log_table: str = Field(default="mnemo-request-log", description="The API call log (TTL).")
    # Secrets on AWS: the NAMES of SSM Parameter Store SecureString parameters, read once at cold start.
    # A secret given directly (JWT_SECRET, ...) wins over its parameter.
    jwt_secret_parameter: str | None = Field(
        default=None, description="The SSM SecureString parameter holding JWT_SECRET (its name)."
    )
    admin_api_key_parameter: str | None = Field(
        default=None, description="The SSM SecureString parameter holding ADMIN_API_KEY (its name)."
    )
    config_encryption_key_parameter: str | None = Field(
        default=None,
        description="The SSM SecureString parameter holding MNEMO_CONFIG_ENCRYPTION_KEY (its name): needed to store a "
        "provider key through POST /configure.",
    )
    llm_api_key_parameter: str | None = Field(default=None, description="Becomes llm_config.api_key.")
    embedder_api_key_parameter: str | None = Field(default=None, description="Becomes embedder_config.api_key.")
