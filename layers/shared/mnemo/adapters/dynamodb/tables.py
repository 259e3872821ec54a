"""The layout of the tables keyed by (pk, sk) strings alone, the accounts table and the request-log table: what
template.yaml declares for them (tests/handlers/test_template.py checks it), and their TTL attribute.

The adapters never create tables: SAM does in the cloud, and the tests through tests/support/dynamodb_tables.py.
"""

from __future__ import annotations

from typing import Any

TTL_ATTRIBUTE = "ttl"  # epoch seconds: DynamoDB deletes the item some time after it


def key_table(table_name: str) -> dict[str, Any]:
    """The CreateTable request of a table keyed by (pk, sk) strings, on-demand, with no secondary index."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk")],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    }
