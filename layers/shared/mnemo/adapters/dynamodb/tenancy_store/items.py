"""The tenancy records as accounts-table items and back: users, organizations, projects, members, project keys,
events, exports, feedback and entities (keys in keys.py, values by the shared codec)."""

from __future__ import annotations

from typing import Any

from mnemo.adapters.dynamodb.attributes import (
    Item,
    attributes,
)
from mnemo.adapters.dynamodb.codec import json_attribute, json_of, json_string, json_value
from mnemo.adapters.dynamodb.operations import MAX_ITEM_BYTES, item_size
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    feedback_key,
    key_item_key,
    member_key,
    org_item_key,
    org_of_user_key,
    platform_user_key,
    project_entity_key,
    project_item_key,
    project_of_user_key,
)
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.tenancy import (
    EventStatus,
    Feedback,
    MemoryExport,
    Organization,
    PlatformEvent,
    PlatformUser,
    Project,
    ProjectEntity,
    ProjectKey,
    Role,
)

EVENT_BYTES = MAX_ITEM_BYTES - 4096  # an event's attributes, with room for its keys
UNFINISHED_STATES = (EventStatus.PENDING, EventStatus.RUNNING)  # the events that have an unfinished marker


# ---- the directory ------------------------------------------------------------------------------------------


def platform_user_item(user: PlatformUser) -> Item:
    return {**platform_user_key(user.id), **as_attributes(user)}


def platform_user_of(item: Item) -> PlatformUser:
    return from_item(PlatformUser, item)


def org_item(org: Organization) -> Item:
    return {**org_item_key(org.id), **as_attributes(org)}


def org_of(item: Item) -> Organization:
    return from_item(Organization, item)


def org_of_user_item(user_id: str, org_id: str) -> Item:
    """The pointer that lists an organization among its member's."""
    return {**org_of_user_key(user_id, org_id), **attributes(org_id=org_id)}


def project_of_user_item(user_id: str, project_id: str) -> Item:
    """The pointer that lists a project among those its member belongs to directly."""
    return {**project_of_user_key(user_id, project_id), **attributes(project_id=project_id)}


def project_item(p: Project) -> Item:
    """The project; its custom categories as JSON text."""
    categories = json_string(list(p.custom_categories))
    return {**project_item_key(p.id), **as_attributes(p, omit=("custom_categories",)), "custom_categories": categories}


def project_of(item: Item) -> Project:
    """The fields of Dream's configuration are absent from a project stored before it: their defaults."""
    return from_item(Project, item, custom_categories=tuple(json_of(item, "custom_categories")))


def member_item(pk: str, user_id: str, role: Role, seq: int) -> Item:
    """A member of the organization or project whose partition is `pk`; `seq` orders members as they joined."""
    return {**member_key(pk, user_id), **attributes(user_id=user_id, role=role, seq=seq)}


def project_key_item(k: ProjectKey) -> Item:
    return {**key_item_key(k.id), **as_attributes(k)}


def project_key_of(item: Item) -> ProjectKey:
    return from_item(ProjectKey, item)


# ---- events -------------------------------------------------------------------------------------------------


def event_attributes(e: PlatformEvent) -> Item:
    """The event's attributes; its payload and results compressed when large. Should they still not fit an item
    (an add of thousands of tiny messages), the results keep each memory's id and event without its text: the
    memories are stored by then, and an event that cannot be saved would fail an add that succeeded."""
    fixed: Item = {
        **as_attributes(e, omit=("payload", "results", "llm_usage")),
        **json_attribute("payload", e.payload),
        **(json_attribute("llm_usage", e.llm_usage.to_json()) if e.llm_usage is not None else {}),
    }
    whole = {**fixed, **json_attribute("results", e.results)}
    if item_size(whole) <= EVENT_BYTES:
        return whole
    slim = [{k: r[k] for k in ("id", "event") if k in r} for r in e.results]
    return {**fixed, **json_attribute("results", slim)}


def event_of(item: Item) -> PlatformEvent:
    usage = LLMUsage.from_json(json_value(item, "llm_usage")) if "llm_usage" in item else None
    payload, results = json_value(item, "payload"), json_value(item, "results")
    return from_item(PlatformEvent, item, payload=payload, results=results, llm_usage=usage)


# ---- a project's other records ------------------------------------------------------------------------------


def export_attributes(x: MemoryExport) -> Item:
    """Everything but the result (inline or in parts: see DynamoProjectRecordStore.save_export)."""
    return {
        **as_attributes(x, omit=("schema", "filters", "result")),
        "schema": json_string(x.schema),
        "filters": json_string(x.filters),
    }


def export_of(item: Item, result: Any) -> MemoryExport:
    return from_item(
        MemoryExport, item, schema=json_of(item, "schema"), filters=json_of(item, "filters"), result=result
    )


def feedback_item(feedback: Feedback) -> Item:
    return {**feedback_key(feedback.project_id, feedback.memory_id), **as_attributes(feedback)}


def feedback_of(item: Item) -> Feedback:
    return from_item(Feedback, item)


def entity_item(entity: ProjectEntity) -> Item:
    return {
        **project_entity_key(entity.project_id, entity.type, entity.entity_id),
        **as_attributes(entity, omit=("metadata",)),
        "metadata": json_string(entity.metadata, ensure_ascii=True),
    }


def entity_of(item: Item) -> ProjectEntity:
    return from_item(ProjectEntity, item, metadata=json_of(item, "metadata"))
