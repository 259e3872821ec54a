"""A boto3 client made on its first call (mnemo.composition.lazy_client), and the AWS adapters that use it: building
them reaches no queue or topic until work is queued or an event published."""

from __future__ import annotations

from typing import Any

import pytest
from moto import mock_aws

from mnemo.composition.aws_adapters import build_aws_adapters
from mnemo.composition.lazy_client import LazyClient
from mnemo.settings import Settings


class Client:
    def send(self, body: str) -> str:
        return f"sent {body}"


def test_given_a_lazy_client_when_first_called_then_it_is_made_once_and_answers_as_the_client() -> None:
    made: list[Client] = []

    def make() -> Client:
        made.append(Client())
        return made[-1]

    client: Any = LazyClient(make)
    assert not client.made and made == []

    assert client.send("a") == "sent a" and client.send("b") == "sent b"

    assert client.made and len(made) == 1


def test_a_lazy_client_has_no_private_attributes_of_its_client() -> None:
    client: Any = LazyClient(Client)
    with pytest.raises(AttributeError, match="_private"):
        _ = client._private
    assert not hasattr(client, "__deepcopy__")  # copy.deepcopy then copies the wrapper, not a client it makes
    assert not client.made


class CountingSession:
    """A boto3 session that counts the clients made of it, by service."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.region_name = session.region_name
        self.made: list[str] = []

    def client(self, service: str, **kwargs: Any) -> Any:
        self.made.append(service)
        return self.session.client(service, **kwargs)

    def get_credentials(self) -> Any:
        return self.session.get_credentials()


def test_given_the_aws_adapters_when_built_then_the_queues_and_topic_clients_wait_for_their_first_call() -> None:
    import boto3

    with mock_aws():
        session = CountingSession(boto3.Session(region_name="us-east-1"))
        sqs = session.session.client("sqs")
        url = sqs.create_queue(QueueName="jobs.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        profiles = sqs.create_queue(QueueName="profiles")["QueueUrl"]
        topic = session.session.client("sns").create_topic(Name="events")["TopicArn"]
        settings = Settings(
            backend="aws",
            opensearch_endpoint="https://search.example",
            queue_url=url,
            profile_queue_url=profiles,
            topic_arn=topic,
        )

        adapters = build_aws_adapters(settings, session)

        assert session.made == ["dynamodb"]
        assert adapters.queue is not None and adapters.profile_queue is not None and adapters.publisher is not None
        adapters.profile_queue.send({"kind": "profile"})
        assert session.made == ["dynamodb", "sqs"]  # one client for both queues
