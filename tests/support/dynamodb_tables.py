"""The DynamoDB tables as template.yaml declares them, created for tests (under moto) and waited for until
active. The adapters never create tables: SAM does in the cloud."""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.operations import error_code
from mnemo.adapters.dynamodb.schema import table_definition
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE, key_table


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


def create_memory_table(client: Any, table_name: str, *, wait_seconds: float = 300.0) -> bool:
    """The memories table (mnemo.adapters.dynamodb.schema); True when this call created it."""
    return ensure_table(client, table_definition(table_name), wait_seconds=wait_seconds)


def create_accounts_table(client: Any, table_name: str) -> bool:
    """The accounts table: dashboard accounts, platform tenancy, webhooks, profiles, Dream (TTL on `ttl`)."""
    return ensure_table(client, key_table(table_name), ttl_attribute=TTL_ATTRIBUTE)


def create_request_log_table(client: Any, table_name: str) -> bool:
    """The request-log table: keyed like the accounts table, TTL on `ttl`."""
    return ensure_table(client, key_table(table_name), ttl_attribute=TTL_ATTRIBUTE)
