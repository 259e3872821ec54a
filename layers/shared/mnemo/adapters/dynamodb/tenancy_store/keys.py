"""The keys of the platform's tenancy items in the accounts table: every partition key starts with `T#`, so no
account item is ever touched. The table of items is "Platform tenancy" in README.md beside the package.
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.attributes import Item, attributes, text
from mnemo.adapters.dynamodb.codec import key, shard_of

# A marker per PENDING or RUNNING event of every project, in UNFINISHED_SHARDS partitions by project (three writes
# per asynchronous add: one partition would cap the whole service at a few hundred adds a second).
UNFINISHED = "T#UNFINISHED"
UNFINISHED_SHARDS = 16
# The outbox of the ingest jobs' ends (webhook events), until published: one partition (mnemo.adapters.dynamodb.outbox).
OUTBOX = "T#OUTBOX"

# Sort-key prefixes of the items that sit in an organization's or a project's partition.
MEMBER = "MEMBER#"
ORG_OF_USER = "ORG#"
PROJECT_OF_USER = "PROJ#"  # in the user's partition: a project they are a member of directly
PROJECT_OF_ORG = "PROJ#"
KEY_OF_PROJECT = "KEY#"
EVENT_ID = "EVENTID#"
EVENT_COUNT = "EVENTCOUNT#"
EXPORT_ID = "EXPORTID#"
COUNTER = "COUNTER#"
ENTITY = "ENTITY#"


# ---- the directory ------------------------------------------------------------------------------------------


def platform_user_key(user_id: str) -> Item:
    return key(f"T#USER#{user_id}", "USER")


def platform_email_key(email: str) -> Item:
    return key(f"T#EMAIL#{email}", "EMAIL")


def org_pk(org_id: str) -> str:
    return f"T#ORG#{org_id}"


def org_item_key(org_id: str) -> Item:
    return key(org_pk(org_id), "ORG")


def org_of_user_key(user_id: str, org_id: str) -> Item:
    return key(text(platform_user_key(user_id), "pk"), ORG_OF_USER + org_id)


def project_of_user_key(user_id: str, project_id: str) -> Item:
    return key(text(platform_user_key(user_id), "pk"), PROJECT_OF_USER + project_id)


def project_pk(project_id: str) -> str:
    return f"T#PROJ#{project_id}"


def project_item_key(project_id: str) -> Item:
    return key(project_pk(project_id), "PROJ")


def project_of_org_key(org_id: str, project_id: str) -> Item:
    return key(org_pk(org_id), PROJECT_OF_ORG + project_id)


def member_key(pk: str, user_id: str) -> Item:
    """A member of the organization or project whose partition is `pk`."""
    return key(pk, MEMBER + user_id)


def key_item_key(key_id: str) -> Item:
    """The key of a project key's item."""
    return key(f"T#KEY#{key_id}", "KEY")


def key_of_project_key(project_id: str, key_id: str) -> Item:
    return key(project_pk(project_id), KEY_OF_PROJECT + key_id)


def hash_key(key_hash: str) -> Item:
    return key(f"T#KEYHASH#{key_hash}", "KEYHASH")


# ---- events -------------------------------------------------------------------------------------------------


def events_pk(project_id: str) -> str:
    return f"T#EVENTS#{project_id}"


def event_pointer_key(project_id: str, event_id: str) -> Item:
    """Finds an event by id: holds its sort key."""
    return key(project_pk(project_id), EVENT_ID + event_id)


def event_count_key(project_id: str, event_type: str) -> Item:
    return key(project_pk(project_id), EVENT_COUNT + event_type)


def unfinished_shard_pk(shard: int) -> str:
    return f"{UNFINISHED}#{shard}"


def unfinished_pk(project_id: str) -> str:
    """The marker shard of a project's unfinished events."""
    return unfinished_shard_pk(shard_of(project_id, UNFINISHED_SHARDS))


def unfinished_marker(project_id: str, event_sk: str) -> Item:
    """The marker of a PENDING or RUNNING event, in its project's shard."""
    return {**key(unfinished_pk(project_id), event_sk), **attributes(project_id=project_id)}


# ---- a project's other records ------------------------------------------------------------------------------


def exports_pk(project_id: str) -> str:
    return f"T#EXPORTS#{project_id}"


def export_parts_pk(project_id: str) -> str:
    return f"T#EXPORTPARTS#{project_id}"


def export_part_key(project_id: str, export_sk: str, n: int) -> Item:
    """Part `n` of a large export's compressed result."""
    return key(export_parts_pk(project_id), f"{export_sk}#{n:05d}")


def export_pointer_key(project_id: str, export_id: str) -> Item:
    """Finds an export by id: holds its sort key."""
    return key(project_pk(project_id), EXPORT_ID + export_id)


def feedback_key(project_id: str, memory_id: str) -> Item:
    return key(project_pk(project_id), f"FEEDBACK#{memory_id}")


def counter_key(project_id: str, name: str) -> Item:
    return key(project_pk(project_id), COUNTER + name)


def project_entity_key(project_id: str, entity_type: str, entity_id: str) -> Item:
    """An entity the project created explicitly: sorted by type, then id."""
    return key(project_pk(project_id), f"{ENTITY}{entity_type}#{entity_id}")
