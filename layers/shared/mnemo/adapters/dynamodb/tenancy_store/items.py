"""The tenancy records as accounts-table items and back: users, organizations, projects, members, project keys,
events, exports, feedback and entities (keys in keys.py, values by the shared codec)."""

from __future__ import annotations

from typing import Any

from mnemo.adapters.dynamodb.codec import (
    Item,
    json_attribute,
    json_of,
    json_string,
    json_value,
    moment,
    moment_of,
    moment_or_none,
    number,
    optional,
    string,
    text_or_none,
)
from mnemo.adapters.dynamodb.operations import MAX_ITEM_BYTES, item_size
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    feedback_key,
    key_item_key,
    member_key,
    org_item_key,
    org_of_user_key,
    platform_user_key,
    project_entity_key,
    project_item_key,
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
    return {
        **platform_user_key(user.id),
        "id": string(user.id),
        "email": string(user.email),
        "created_at": moment(user.created_at),
    }


def platform_user_of(item: Item) -> PlatformUser:
    return PlatformUser(item["id"]["S"], item["email"]["S"], moment_of(item, "created_at"))


def org_item(org: Organization) -> Item:
    return {
        **org_item_key(org.id),
        "id": string(org.id),
        "name": string(org.name),
        "created_at": moment(org.created_at),
        "updated_at": moment(org.updated_at),
    }


def org_of(item: Item) -> Organization:
    return Organization(
        item["id"]["S"], item["name"]["S"], moment_of(item, "created_at"), moment_of(item, "updated_at")
    )


def org_of_user_item(user_id: str, org_id: str) -> Item:
    """The pointer that lists an organization among its member's."""
    return {**org_of_user_key(user_id, org_id), "org_id": string(org_id)}


def project_item(p: Project) -> Item:
    return {
        **project_item_key(p.id),
        "id": string(p.id),
        "org_id": string(p.org_id),
        "name": string(p.name),
        "description": string(p.description),
        "custom_categories": json_string(list(p.custom_categories)),
        "multilingual": {"BOOL": p.multilingual},
        "decay": {"BOOL": p.decay},
        "is_default": {"BOOL": p.is_default},
        "created_at": moment(p.created_at),
        "updated_at": moment(p.updated_at),
        "reflection_enabled": {"BOOL": p.reflection_enabled},
        "reflection_mode": string(p.reflection_mode),
        **optional(
            custom_instructions=p.custom_instructions,
            reflection_enabled_at=p.reflection_enabled_at,
            agent_custom_instructions=p.agent_custom_instructions,
            memory_depth=p.memory_depth,
            usecase_setting=p.usecase_setting,
            version=p.version,
        ),
    }


def project_of(item: Item) -> Project:
    return Project(
        id=item["id"]["S"],
        org_id=item["org_id"]["S"],
        name=item["name"]["S"],
        description=item["description"]["S"],
        custom_instructions=text_or_none(item, "custom_instructions"),
        custom_categories=tuple(json_of(item, "custom_categories")),
        multilingual=bool(item["multilingual"]["BOOL"]),
        decay=bool(item["decay"]["BOOL"]),
        is_default=bool(item["is_default"]["BOOL"]),
        created_at=moment_of(item, "created_at"),
        updated_at=moment_of(item, "updated_at"),
        # absent on a project stored before Dream's configuration
        reflection_enabled=bool(item.get("reflection_enabled", {}).get("BOOL", False)),
        reflection_enabled_at=moment_or_none(item, "reflection_enabled_at"),
        reflection_mode=item.get("reflection_mode", {}).get("S", "batch"),
        agent_custom_instructions=text_or_none(item, "agent_custom_instructions"),
        memory_depth=text_or_none(item, "memory_depth"),
        usecase_setting=text_or_none(item, "usecase_setting"),
        version=text_or_none(item, "version"),
    )


def member_item(pk: str, user_id: str, role: Role, seq: int) -> Item:
    """A member of the organization or project whose partition is `pk`; `seq` orders members as they joined."""
    return {**member_key(pk, user_id), "user_id": string(user_id), "role": string(role.value), "seq": number(seq)}


def project_key_item(k: ProjectKey) -> Item:
    return {
        **key_item_key(k.id),
        "id": string(k.id),
        "project_id": string(k.project_id),
        "user_id": string(k.user_id),
        "label": string(k.label),
        "key_prefix": string(k.key_prefix),
        "key_hash": string(k.key_hash),
        "created_at": moment(k.created_at),
        **optional(last_used_at=k.last_used_at, revoked_at=k.revoked_at),
    }


def project_key_of(item: Item) -> ProjectKey:
    return ProjectKey(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        user_id=item["user_id"]["S"],
        label=item["label"]["S"],
        key_prefix=item["key_prefix"]["S"],
        key_hash=item["key_hash"]["S"],
        created_at=moment_of(item, "created_at"),
        last_used_at=moment_or_none(item, "last_used_at"),
        revoked_at=moment_or_none(item, "revoked_at"),
    )


# ---- events -------------------------------------------------------------------------------------------------


def event_attributes(e: PlatformEvent) -> Item:
    """The event's attributes; its payload and results compressed when large. Should they still not fit an item
    (an add of thousands of tiny messages), the results keep each memory's id and event without its text: the
    memories are stored by then, and an event that cannot be saved would fail an add that succeeded."""
    fixed: Item = {
        "id": string(e.id),
        "project_id": string(e.project_id),
        "event_type": string(e.event_type),
        "status": string(e.status.value),
        "created_at": moment(e.created_at),
        "updated_at": moment(e.updated_at),
        "attempts": number(e.attempts),
        **optional(error=e.error, started_at=e.started_at, completed_at=e.completed_at),
        **json_attribute("payload", e.payload),
        **(json_attribute("llm_usage", e.llm_usage.to_json()) if e.llm_usage is not None else {}),
    }
    attributes = {**fixed, **json_attribute("results", e.results)}
    if item_size(attributes) > EVENT_BYTES:
        slim = [{k: r[k] for k in ("id", "event") if k in r} for r in e.results]
        attributes = {**fixed, **json_attribute("results", slim)}
    return attributes


def event_of(item: Item) -> PlatformEvent:
    return PlatformEvent(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        event_type=item["event_type"]["S"],
        status=EventStatus(item["status"]["S"]),
        payload=json_value(item, "payload"),
        results=json_value(item, "results"),
        error=text_or_none(item, "error"),
        created_at=moment_of(item, "created_at"),
        updated_at=moment_of(item, "updated_at"),
        started_at=moment_or_none(item, "started_at"),
        completed_at=moment_or_none(item, "completed_at"),
        attempts=int(item.get("attempts", {}).get("N", "0")),
        llm_usage=LLMUsage.from_json(json_value(item, "llm_usage")) if "llm_usage" in item else None,
    )


# ---- a project's other records ------------------------------------------------------------------------------


def export_attributes(x: MemoryExport) -> Item:
    """Everything but the result (inline or in parts: see DynamoProjectRecordStore.save_export)."""
    return {
        "id": string(x.id),
        "project_id": string(x.project_id),
        "schema": json_string(x.schema),
        "filters": json_string(x.filters),
        "created_at": moment(x.created_at),
        **optional(instructions=x.instructions),
    }


def export_of(item: Item, result: Any) -> MemoryExport:
    return MemoryExport(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        schema=json_of(item, "schema"),
        filters=json_of(item, "filters"),
        instructions=text_or_none(item, "instructions"),
        result=result,
        created_at=moment_of(item, "created_at"),
    )


def feedback_item(feedback: Feedback) -> Item:
    return {
        **feedback_key(feedback.project_id, feedback.memory_id),
        "memory_id": string(feedback.memory_id),
        "project_id": string(feedback.project_id),
        "updated_at": moment(feedback.updated_at),
        **optional(feedback=feedback.feedback, reason=feedback.reason),
    }


def feedback_of(item: Item) -> Feedback:
    return Feedback(
        item["memory_id"]["S"],
        item["project_id"]["S"],
        text_or_none(item, "feedback"),
        text_or_none(item, "reason"),
        moment_of(item, "updated_at"),
    )


def entity_item(entity: ProjectEntity) -> Item:
    return {
        **project_entity_key(entity.project_id, entity.type, entity.entity_id),
        "project_id": string(entity.project_id),
        "type": string(entity.type),
        "entity_id": string(entity.entity_id),
        "name": string(entity.name),
        "metadata": json_string(entity.metadata, ensure_ascii=True),
        "created_at": moment(entity.created_at),
        "updated_at": moment(entity.updated_at),
    }


def entity_of(item: Item) -> ProjectEntity:
    return ProjectEntity(
        item["project_id"]["S"],
        item["type"]["S"],
        item["entity_id"]["S"],
        item["name"]["S"],
        json_of(item, "metadata"),
        moment_of(item, "created_at"),
        moment_of(item, "updated_at"),
    )
