"""Every AWS adapter built from settings. boto3 is imported here, on call, so the
local process never imports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemo.adapters.aws.namespaces import namespace_index_name
from mnemo.adapters.aws.publisher import SnsPublisher
from mnemo.adapters.aws.queue import SqsQueue
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.adapters.opensearch.transport import AwsSigV4, HttpTransport
from mnemo.composition.lazy_client import LazyClient
from mnemo.composition.lazy_transport import ClosableTransport, LazyTransport
from mnemo.errors import ConfigurationError
from mnemo.language.en import english
from mnemo.settings import Settings


@dataclass
class AwsAdapters:
    store: DynamoMemoryStore
    index: OpenSearchMemoryIndex
    queue: SqsQueue | None  # None when no queue URL is configured
    transport: ClosableTransport  # the index's HTTP client, made on its first request (lazy_transport.py)
    namespace_index: Callable[[str], OpenSearchMemoryIndex] | None = None  # a project's own index (`<index>-<id>`)
    publisher: SnsPublisher | None = None  # the events topic, when MNEMO_TOPIC_ARN names one
    profile_queue: SqsQueue | None = None  # the profile queue, when MNEMO_PROFILE_QUEUE_URL names one

    def close(self) -> None:
        self.transport.close()


def build_aws_adapters(settings: Settings, session: Any | None = None) -> AwsAdapters:
    """Clients for the configured region and credentials (the default AWS chain, or `session`); the queues' and
    the topic's are made on their first call (lazy_client.py)."""
    from botocore.config import Config

    from mnemo.composition.aws_session import aws_session

    session = session or aws_session(settings.aws_region)
    region = settings.aws_region or session.region_name
    if not region:
        raise ConfigurationError("The AWS backend needs a region: set MNEMO_AWS_REGION (or AWS_REGION).")
    if not settings.opensearch_endpoint:
        raise ConfigurationError("The AWS backend needs MNEMO_OPENSEARCH_ENDPOINT (the domain or collection URL).")
    credentials = session.get_credentials()
    if credentials is None:
        raise ConfigurationError("No AWS credentials found for signing OpenSearch requests.")
    config = Config(region_name=region, retries={"mode": "standard", "max_attempts": 5})
    endpoint, auth = settings.opensearch_endpoint, AwsSigV4(credentials, region, settings.opensearch_service)
    transport = LazyTransport(lambda: HttpTransport(endpoint, auth=auth))

    def index_named(name: str) -> OpenSearchMemoryIndex:
        return OpenSearchMemoryIndex(
            transport,
            name,
            document_ids="generated" if settings.opensearch_service == "aoss" else "memory",
            refresh="false" if settings.opensearch_service == "aoss" else settings.opensearch_refresh,
            facets=english(),
        )

    index = index_named(settings.opensearch_index)

    def client(service: str) -> LazyClient:
        return LazyClient(lambda: session.client(service, config=config))

    sqs = client("sqs")  # one for both queues
    queue = SqsQueue(sqs, settings.queue_url) if settings.queue_url else None
    store = DynamoMemoryStore(session.client("dynamodb", config=config), settings.dynamodb_table)
    publisher = SnsPublisher(client("sns"), settings.topic_arn) if settings.topic_arn else None
    profile_queue = SqsQueue(sqs, settings.profile_queue_url) if settings.profile_queue_url else None
    return AwsAdapters(
        store=store,
        index=index,
        queue=queue,
        transport=transport,
        namespace_index=lambda namespace: index_named(namespace_index_name(settings.opensearch_index, namespace)),
        publisher=publisher,
        profile_queue=profile_queue,
    )
