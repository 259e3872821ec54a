"""The memories table: its keys and indexes (see README.md beside this file), and its CreateTable request.

The adapter never creates tables itself: SAM creates them in the cloud (tests/handlers/test_template.py checks that
template.yaml declares `table_definition`), the tests through tests/support/dynamodb_tables.py.
"""

from __future__ import annotations

from typing import Any

BY_USER = "by_user"
BY_AGENT = "by_agent"
BY_RUN = "by_run"
BY_TIME = "by_time"
ENTITIES = "entities"
BY_NAMESPACE = "by_namespace"
TIME_SHARDS = 8  # partitions of the by_time index: unscoped listing reads all of them, newest first
ENTITY_SHARDS = 8  # partitions per entity type in the entities index
NAMESPACE_SHARDS = 8  # partitions per namespace in the by_namespace index (keys of every item of a namespace)

# Every attribute of a memory item except its embedding (`vec`) and its dedup claim (`guard`): what listing
# reads. The scope and time indexes project exactly these, so listing never reads embeddings.
RECORD_ATTRIBUTES = (
    "id",
    "text",
    "hash",
    "user_id",
    "agent_id",
    "run_id",
    "app_id",
    "actor_id",
    "role",
    "attributed_to",
    "metadata",
    "categories",
    "sources",
    "created_at",
    "updated_at",
    "expiration_date",
    "state",
    "replaced_by",
    "created_sk",
)
STATE_ATTRIBUTES = (*RECORD_ATTRIBUTES, "guard")  # a memory without its embedding, with its dedup claim


def _index(name: str, partition: str, sort: str, projected: tuple[str, ...] | None) -> dict[str, Any]:
    projection: dict[str, Any] = {"ProjectionType": "ALL"}
    if projected is not None:
        keys = {"pk", "sk", partition, sort}
        projection = {"ProjectionType": "INCLUDE", "NonKeyAttributes": [a for a in projected if a not in keys]}
    return {
        "IndexName": name,
        "KeySchema": [{"AttributeName": partition, "KeyType": "HASH"}, {"AttributeName": sort, "KeyType": "RANGE"}],
        "Projection": projection,
    }


def table_definition(table_name: str) -> dict[str, Any]:
    """The CreateTable request (on-demand billing). The SAM template declares the same keys and indexes."""
    string_attributes = (
        "pk",
        "sk",
        "user_pk",
        "agent_pk",
        "run_pk",
        "time_pk",
        "created_sk",
        "ent_pk",
        "entity_id",
        "ns_pk",
    )
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in string_attributes],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [
            _index(BY_USER, "user_pk", "created_sk", RECORD_ATTRIBUTES),
            _index(BY_AGENT, "agent_pk", "created_sk", RECORD_ATTRIBUTES),
            _index(BY_RUN, "run_pk", "created_sk", RECORD_ATTRIBUTES),
            _index(BY_TIME, "time_pk", "created_sk", RECORD_ATTRIBUTES),
            _index(ENTITIES, "ent_pk", "entity_id", None),
            {
                "IndexName": BY_NAMESPACE,
                "KeySchema": [{"AttributeName": "ns_pk", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ],
    }
