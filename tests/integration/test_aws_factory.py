"""build_aws_adapters: every AWS adapter from typed settings, under moto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.composition.aws_adapters import build_aws_adapters
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import ConfigurationError
from mnemo.settings import Settings
from tests.support.dynamodb_tables import create_memory_table
from tests.support.moto_aws import REGION


@pytest.fixture
def session() -> Iterator[Any]:
    with mock_aws():
        yield boto3.Session(aws_access_key_id="moto", aws_secret_access_key="moto", region_name=REGION)


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "backend": "aws",
        "aws_region": REGION,
        "dynamodb_table": "mnemo-test",
        "opensearch_endpoint": "https://search-mnemo.us-east-1.es.amazonaws.com",
        "opensearch_service": "es",
    }
    return Settings(**{**values, **overrides})


def test_given_aws_settings_when_built_then_the_store_and_queue_talk_to_their_services(session: Any):
    create_memory_table(session.client("dynamodb"), "mnemo-test")
    sqs = session.client("sqs")
    queue_url = sqs.create_queue(QueueName="mnemo-jobs")["QueueUrl"]

    adapters = build_aws_adapters(settings(queue_url=queue_url), session)
    try:
        memory = MemoryRecord.create("I like tea.", Scope(user_id="alice"))
        adapters.store.insert([memory], np.ones((1, 4), dtype=np.float32), [])
        assert adapters.queue is not None
        adapters.queue.send({"job": "extract"})

        assert adapters.store.get(memory.id) == memory
        assert isinstance(adapters.index, OpenSearchMemoryIndex)
        job = sqs.receive_message(QueueUrl=queue_url)["Messages"][0]
        assert json.loads(job["Body"]) == {"job": "extract"}
    finally:
        adapters.close()


def test_given_no_queue_when_built_then_there_is_no_queue_adapter(session: Any):
    adapters = build_aws_adapters(settings(opensearch_service="aoss"), session)

    assert adapters.queue is None
    adapters.close()


def test_given_no_opensearch_endpoint_when_built_then_a_configuration_error(session: Any):
    with pytest.raises(ConfigurationError, match="MNEMO_OPENSEARCH_ENDPOINT"):
        build_aws_adapters(settings(opensearch_endpoint=None), session)


def test_given_no_region_anywhere_when_built_then_a_configuration_error(monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    bare = boto3.Session(aws_access_key_id="a", aws_secret_access_key="b")

    with pytest.raises(ConfigurationError, match="MNEMO_AWS_REGION"):
        build_aws_adapters(settings(aws_region=None), bare)
