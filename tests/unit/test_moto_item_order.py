"""The order tests/support/moto_aws.py gives moto's tables (`order_items_by_value`, installed for the whole run) is
moto's own: every query and scan sees the items as moto would hand them, only sorted faster."""

from __future__ import annotations

import random
from typing import Any

import pytest
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
