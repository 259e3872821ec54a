"""The speed-ups of moto that tests/support/moto_aws.py installs for the whole run change nothing moto
answers: a table's order (`order_items_by_value`) is moto's own, so every query and scan sees the items as moto
would hand them; a transaction (`one_table_copy_per_transaction`) copies each table once, and a cancelled one still
puts everything back; the actions of a service (`look_up_actions_once`) are the ones moto would find."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.table import Table

from tests.support import moto_aws


def table(client: Any, name: str, hash_type: str, range_type: str | None) -> None:
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": hash_type}]
    if range_type is not None:
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": range_type})
    client.create_table(TableName=name, KeySchema=keys, AttributeDefinitions=attributes, BillingMode="PAY_PER_REQUEST")


def value(kind: str, rng: random.Random) -> dict[str, str]:
    if kind == "N":  # equal numbers written apart ("2", "2.0") and negatives, as moto casts them
        return {"N": rng.choice(["2", "2.0", "-3", "10", "1.5", "0", str(rng.randint(-50, 50))])}
    return {"S": rng.choice(["a", "B", "b#1", "b#10", "b#2", "é"]) + str(rng.randint(0, 40))}


@pytest.mark.parametrize(("hash_type", "range_type"), [("S", "S"), ("S", "N"), ("N", "S"), ("S", None), ("N", None)])
def test_the_faster_order_is_motos_own(hash_type: str, range_type: str | None) -> None:
    rng = random.Random(7)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        table(client, "order", hash_type, range_type)
        for _ in range(300):
            item = {"pk": value(hash_type, rng), "text": {"S": "x"}}
            if range_type is not None:
                item["sk"] = value(range_type, rng)
            client.put_item(TableName="order", Item=item)
        moto_table: Table = dynamodb_backends[DEFAULT_ACCOUNT_ID][moto_aws.REGION].tables["order"]
        motos_own = moto_aws.order_items_by_value()
        assert Table.all_items is not motos_own  # the faster order is the one installed
        expected = motos_own(moto_table)
        assert len(expected) > 30
        assert [id(item) for item in moto_table.all_items()] == [id(item) for item in expected]
        scanned = client.scan(TableName="order")["Items"]
        assert scanned == [item.to_json()["Attributes"] for item in expected]


def transaction(item: int, *, fail: bool = False) -> list[dict[str, Any]]:
    """Three writes to one table: puts of two new items and an update of `item` (made to fail on purpose)."""
    condition = "attribute_not_exists(pk)" if fail else "attribute_exists(pk)"
    return [
        {"Put": {"TableName": "tx", "Item": {"pk": {"S": f"new-{item}-a"}, "sk": {"S": "1"}}}},
        {"Put": {"TableName": "tx", "Item": {"pk": {"S": f"new-{item}-b"}, "sk": {"S": "1"}}}},
        {
            "Update": {
                "TableName": "tx",
                "Key": {"pk": {"S": f"item-{item}"}, "sk": {"S": "1"}},
                "UpdateExpression": "SET n = :n",
                "ConditionExpression": condition,
                "ExpressionAttributeValues": {":n": {"N": "1"}},
            }
        },
    ]


class CountingCopies:
    """The copy module, counting the deep copies of whole tables."""

    def __init__(self) -> None:
        self.tables = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        self.tables += isinstance(value, Table)
        return copy.deepcopy(value, memo)


def test_a_transaction_copies_its_table_once_and_a_cancelled_one_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = CountingCopies()
    monkeypatch.setattr(moto_aws, "copy", counting)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        table(client, "tx", "S", "S")
        for item in range(5):
            client.put_item(TableName="tx", Item={"pk": {"S": f"item-{item}"}, "sk": {"S": "1"}})
        motos_own = moto_aws.one_table_copy_per_transaction()

        client.transact_write_items(TransactItems=transaction(0))
        assert counting.tables == 1  # moto's own copies the table for each of the three writes
        before = client.scan(TableName="tx")["Items"]
        assert len(before) == 7

        with pytest.raises(ClientError, match="TransactionCanceled") as ours:
            client.transact_write_items(TransactItems=transaction(1, fail=True))
        assert client.scan(TableName="tx")["Items"] == before
        assert counting.tables == 2

        backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][moto_aws.REGION]
        with pytest.raises(Exception, match="Transaction cancelled") as motos:
            motos_own(backend, transaction(1, fail=True))
        assert client.scan(TableName="tx")["Items"] == before
        assert str(ours.value.response["Error"]["Message"]) == str(motos.value.message)  # type: ignore[attr-defined]


def test_a_response_class_lists_the_actions_moto_finds_by_inspecting_it_and_calls_are_answered_as_before() -> None:
    import inspect

    from moto.core import responses
    from moto.sqs.responses import SQSResponse

    moto_aws.look_up_actions_once()  # as tests/conftest.py does: a second call changes nothing
    listed = responses.method_names_from_class  # type: ignore[attr-defined]
    assert listed(SQSResponse) == [name for name, _ in inspect.getmembers(SQSResponse, inspect.isfunction)]
    assert listed(SQSResponse) is listed(SQSResponse)
    with mock_aws():
        sqs = moto_aws.client("sqs")
        url = sqs.create_queue(QueueName="actions")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="hello")
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["hello"]
        with pytest.raises(ClientError):
            sqs.get_queue_url(QueueName="no-such-queue")
