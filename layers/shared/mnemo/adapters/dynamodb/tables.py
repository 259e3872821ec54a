"""Idempotent creation of a table from its CreateTable request, with its TTL attribute, for tests and local tools.

In the cloud SAM creates the tables (template.yaml declares the same keys); the adapters never create them.
"""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.operations import error_code

TTL_ATTRIBUTE = "ttl"  # epoch seconds: DynamoDB deletes the item some time after it


def ensure_table(
    client: Any, definition: dict[str, Any], *, ttl_attribute: str | None = None, wait_seconds: float = 300.0
) -> bool:
    """Create the table unless it exists, wait until it is active, then turn its TTL on. True when created."""
    created = True
    try:
        client.create_table(**definition)
    except ClientError as exc:
        if error_code(exc) != "ResourceInUseException":
            raise
        created = False
    name = definition["TableName"]
    deadline = time.monotonic() + wait_seconds
    while True:
        table = client.describe_table(TableName=name)["Table"]
        indexes = table.get("GlobalSecondaryIndexes", [])
        if table.get("TableStatus") == "ACTIVE" and all(i.get("IndexStatus", "ACTIVE") == "ACTIVE" for i in indexes):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"DynamoDB table {name} is not active after {wait_seconds:.0f} s.")
        time.sleep(1.0)
    if ttl_attribute is not None and created:
        client.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl_attribute}
        )
    return created


def create_key_table(client: Any, table_name: str) -> bool:
    """For tests and local tools: a table keyed by (pk, sk), on-demand, with its TTL on `ttl`, as template.yaml
    declares the accounts table and the request-log table."""
    return ensure_table(client, key_table(table_name), ttl_attribute=TTL_ATTRIBUTE)


def key_table(table_name: str) -> dict[str, Any]:
    """A table keyed by (pk, sk) strings, on-demand, with no secondary index."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk")],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    }
