"""The items the DynamoDB stores write, attribute by attribute: a table written by an earlier version must keep
reading, and one written now must read in an earlier version, so no mapping may change an item's layout. Each
record's item is compared with its layout on disk, and the layout is read back as the record."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.api_key_store import api_key_item, api_key_of
from mnemo.adapters.dynamodb.outbox import event_of, outbox_item
from mnemo.adapters.dynamodb.profile_items import job_item, job_of, profile_item, profile_of
from mnemo.adapters.dynamodb.refresh_token_store import token_item, token_of
from mnemo.adapters.dynamodb.request_log_store import entry_item, entry_of
from mnemo.adapters.dynamodb.tenancy_store import items as tenancy
from mnemo.adapters.dynamodb.user_store import user_item, user_of
from mnemo.adapters.dynamodb.webhook_items import delivery_item, delivery_of, new_queue_item, webhook_item, webhook_of
from mnemo.domain.accounts import Role, User
from mnemo.domain.api_keys import ApiKey
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope, SourceMessage
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileStatus
from mnemo.domain.request_log import RequestLogEntry
from mnemo.domain.sessions import RefreshTokenRecord
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState, OutboundEvent, Webhook

AT = datetime(2024, 5, 8, 14, 30, 0, 123456, tzinfo=UTC)
LATER = AT + timedelta(hours=1)

RECORD = MemoryRecord(
    id="m1",
    text="likes tea",
    hash="h1",
    scope=Scope(user_id="alice", app_id="app"),
    created_at=AT,
    updated_at=LATER,
    metadata={"k": "é"},
    categories=("food",),
    sources=(SourceMessage("user", "I like tea", 0),),
    role="user",
    expiration_date=date(2030, 1, 2),
)
HISTORY = HistoryEntry("h1", "m1", Event.UPDATE, "likes tea", None, AT, LATER, actor_id="a")
USER = User("u1", "Ana", "ana@x.io", Role.ADMIN, "hash", AT)
API_KEY = ApiKey("k1", "u1", "lbl", "mk-ab", "kh", AT, revoked_at=LATER)
TOKEN = RefreshTokenRecord("t1", "u1", "f1", AT, LATER, used_at=AT)
REQUEST = RequestLogEntry("r1", "GET", "/v1/x", 200, 12, "api_key", AT, user_id="u1")  # a whole latency: a float
OUTBOUND = OutboundEvent("e1", "memory_add", "p1", {"id": "m1", "memory": "é"}, AT, 42)
PROJECT = Project("p1", "o1", "Proj", AT, LATER, custom_categories=({"food": "eating"},), decay=True, version="v2")
EVENT = PlatformEvent(
    "e1",
    "p1",
    "ADD",
    EventStatus.SUCCEEDED,
    {"a": 1},
    AT,
    LATER,
    results=[{"id": "m1"}],
    attempts=2,
    completed_at=LATER,
    llm_usage=LLMUsage(1, 10, 2),
)
WEBHOOK = Webhook(
    "w1",
    "p1",
    "hook",
    "https://h.io",
    ("memory_add", "ü"),
    "a@x.io",
    "s",
    AT,
    AT,
    is_active=False,
    deactivated_reason="gone",
)
DELIVERY = Delivery(
    "d1",
    "w1",
    "p1",
    3,
    OutboundEvent("e1", "memory_add", "p1", {"id": "m1"}, AT, 4),
    AT,
    LATER,
    DeliveryState.PENDING,
    (Attempt(AT, 500, "boom", 12.5),),
)
PROFILE = Profile(
    "p1",
    "user",
    "alice",
    ProfileStatus.PENDING,
    {"likes": ["tea"]},
    {"likes": ["m1"]},
    generation_count=2,
    changed_at=AT,
    queued_at=LATER,
)
JOB = ProfileJob(
    "j1", "p1", "generate", "user", ("alice", "é"), JobStatus.QUEUED, AT, LATER, idempotency_key="key", total=2
)

# Each record as its store writes it, and what reads it back (None: the store never reads the item whole).
WRITTEN: dict[str, tuple[Any, Callable[[], dict[str, Any]], Callable[[dict[str, Any]], Any] | None]] = {
    "memory": (
        RECORD,
        lambda: it.memory_item(RECORD, np.array([1.0, 0.5], dtype=np.float32), 7, ns=it.namespace_prefix("p1")),
        it.record_of,
    ),
    "history": (HISTORY, lambda: it.history_item(HISTORY, 8), it.history_of),
    "user": (USER, lambda: user_item(USER, "sk1"), user_of),
    "api_key": (API_KEY, lambda: api_key_item(API_KEY, "sk2"), api_key_of),
    "token": (TOKEN, lambda: token_item(TOKEN), token_of),
    "request": (REQUEST, lambda: entry_item(REQUEST, 9, timedelta(days=1)), entry_of),
    "outbox": (OUTBOUND, lambda: outbox_item("OUTBOX", OUTBOUND), event_of),
    "project": (PROJECT, lambda: tenancy.project_item(PROJECT), tenancy.project_of),
    "event": (EVENT, lambda: tenancy.event_attributes(EVENT), tenancy.event_of),
    "webhook": (WEBHOOK, lambda: webhook_item(WEBHOOK, "lsk"), webhook_of),
    "queue": (None, lambda: new_queue_item(replace(WEBHOOK, is_active=True)), None),
    "delivery": (DELIVERY, lambda: delivery_item(DELIVERY), delivery_of),
    "profile": (PROFILE, lambda: profile_item(PROFILE), profile_of),
    "job": (JOB, lambda: job_item(JOB), job_of),
}

# The items as they are on disk (the memory's `vec` is the float32 bytes of [1.0, 0.5]).
LAYOUTS: dict[str, dict[str, Any]] = {
    "api_key": {
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "created_sk": {"S": "sk2"},
        "id": {"S": "k1"},
        "key_hash": {"S": "kh"},
        "key_prefix": {"S": "mk-ab"},
        "label": {"S": "lbl"},
        "pk": {"S": "APIKEY#k1"},
        "revoked_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "sk": {"S": "APIKEY"},
        "user_id": {"S": "u1"},
    },
    "delivery": {
        "attempts": {
            "S": '[{"at": "2024-05-08T14:30:00.123456+00:00", "status_code": 500, "error": "boom", "latency_ms": 12.5, '
            '"response": null}]'
        },
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "event": {
            "S": '{"id": "e1", "type": "memory_add", "namespace": "p1", "payload": {"id": "m1"}, '
            '"occurred_at": "2024-05-08T14:30:00.123456+00:00", "position": 4}'
        },
        "id": {"S": "d1"},
        "next_attempt_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "pk": {"S": "T#WHD#w1"},
        "project_id": {"S": "p1"},
        "sequence": {"N": "3"},
        "sk": {"S": "D#000000000003"},
        "state": {"S": "pending"},
        "webhook_id": {"S": "w1"},
    },
    "event": {
        "attempts": {"N": "2"},
        "completed_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "event_type": {"S": "ADD"},
        "id": {"S": "e1"},
        "llm_usage": {"S": '{"calls": 1, "input_tokens": 10, "output_tokens": 2}'},
        "payload": {"S": '{"a": 1}'},
        "project_id": {"S": "p1"},
        "results": {"S": '[{"id": "m1"}]'},
        "status": {"S": "SUCCEEDED"},
        "updated_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
    },
    "history": {
        "actor_id": {"S": "a"},
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "event": {"S": "UPDATE"},
        "id": {"S": "h1"},
        "is_deleted": {"BOOL": False},
        "memory_id": {"S": "m1"},
        "old_memory": {"S": "likes tea"},
        "pk": {"S": "MEM#m1"},
        "sk": {"S": "HIST#2024-05-08T15:30:00.123456+00:00#00000000000000000008#h1"},
        "updated_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
    },
    "job": {
        "answer": {"S": "{}"},
        "completed": {"N": "0"},
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "entity_ids": {"S": '["alice", "é"]'},
        "entity_type": {"S": "user"},
        "failed": {"N": "0"},
        "id": {"S": "j1"},
        "idempotency_key": {"S": "key"},
        "operation": {"S": "generate"},
        "pk": {"S": "T#PROFILES#p1"},
        "project_id": {"S": "p1"},
        "sk": {"S": "J#j1"},
        "skipped": {"N": "0"},
        "status": {"S": "queued"},
        "succeeded": {"N": "0"},
        "total": {"N": "2"},
        "updated_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
    },
    "memory": {
        "app_id": {"S": "app"},
        "categories": {"S": '["food"]'},
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "created_sk": {"S": "2024-05-08T14:30:00.123456+00:00#00000000000000000007"},
        "expiration_date": {"S": "2030-01-02"},
        "guard": {"S": 'NS#p1#HASH#["alice",null,null]#h1'},
        "hash": {"S": "h1"},
        "id": {"S": "m1"},
        "metadata": {"S": '{"k": "é"}'},
        "ns_pk": {"S": "NS#p1#PART#2"},
        "pk": {"S": "NS#p1#MEM#m1"},
        "role": {"S": "user"},
        "sk": {"S": "MEM"},
        "sources": {"S": '[{"index": 0, "role": "user", "content": "I like tea"}]'},
        "state": {"S": "active"},
        "text": {"S": "likes tea"},
        "time_pk": {"S": "NS#p1#ALL#7"},
        "updated_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "user_id": {"S": "alice"},
        "user_pk": {"S": "NS#p1#U#alice"},
        "vec": {"B": b"\x00\x00\x80?\x00\x00\x00?"},
    },
    "outbox": {
        "id": {"S": "e1"},
        "namespace": {"S": "p1"},
        "occurred_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "payload": {"S": '{"id": "m1", "memory": "é"}'},
        "pk": {"S": "OUTBOX"},
        "sk": {"S": "00000000000000000042#e1"},
        "type": {"S": "memory_add"},
    },
    "profile": {
        "changed_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "entity_id": {"S": "alice"},
        "entity_type": {"S": "user"},
        "generation_count": {"N": "2"},
        "pk": {"S": "T#PROFILES#p1"},
        "profile": {"S": '{"likes": ["tea"]}'},
        "project_id": {"S": "p1"},
        "queued_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "sk": {"S": "P#user#alice"},
        "sources": {"S": '{"likes": ["m1"]}'},
        "status": {"S": "pending"},
    },
    "project": {
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "custom_categories": {"S": '[{"food": "eating"}]'},
        "decay": {"BOOL": True},
        "description": {"S": ""},
        "id": {"S": "p1"},
        "is_default": {"BOOL": False},
        "multilingual": {"BOOL": False},
        "name": {"S": "Proj"},
        "org_id": {"S": "o1"},
        "pk": {"S": "T#PROJ#p1"},
        "reflection_enabled": {"BOOL": False},
        "reflection_mode": {"S": "batch"},
        "sk": {"S": "PROJ"},
        "updated_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "version": {"S": "v2"},
    },
    "queue": {
        "active": {"BOOL": True},
        "n_cancelled": {"N": "0"},
        "n_dead": {"N": "0"},
        "n_delivered": {"N": "0"},
        "n_pending": {"N": "0"},
        "pk": {"S": "T#WH#w1"},
        "seq": {"N": "0"},
        "sk": {"S": "QUEUE"},
        "version": {"N": "0"},
        "webhook_id": {"S": "w1"},
    },
    "request": {
        "auth_type": {"S": "api_key"},
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "id": {"S": "r1"},
        "latency_ms": {"N": "12.0"},
        "method": {"S": "GET"},
        "path": {"S": "/v1/x"},
        "pk": {"S": "LOG#1"},
        "sk": {"S": "2024-05-08T14:30:00.123456+00:00#00000000000000000009#r1"},
        "status_code": {"N": "200"},
        "ttl": {"N": "1715265001"},
        "user_id": {"S": "u1"},
    },
    "token": {
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "expires_at": {"S": "2024-05-08T15:30:00.123456+00:00"},
        "family_id": {"S": "f1"},
        "pk": {"S": "RT#t1"},
        "sk": {"S": "RT"},
        "token_hash": {"S": "t1"},
        "ttl": {"N": "1715182201"},
        "used_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "user_id": {"S": "u1"},
    },
    "user": {
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "created_sk": {"S": "sk1"},
        "email": {"S": "ana@x.io"},
        "id": {"S": "u1"},
        "name": {"S": "Ana"},
        "password_hash": {"S": "hash"},
        "pk": {"S": "USERS"},
        "role": {"S": "admin"},
        "sk": {"S": "USER#u1"},
    },
    "webhook": {
        "created_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "deactivated_reason": {"S": "gone"},
        "event_types": {"S": '["memory_add", "\\u00fc"]'},
        "id": {"S": "w1"},
        "is_active": {"BOOL": False},
        "list_sk": {"S": "lsk"},
        "name": {"S": "hook"},
        "owner": {"S": "a@x.io"},
        "pk": {"S": "T#WH#w1"},
        "project_id": {"S": "p1"},
        "secret": {"S": "s"},
        "sk": {"S": "WH"},
        "updated_at": {"S": "2024-05-08T14:30:00.123456+00:00"},
        "url": {"S": "https://h.io"},
    },
}


@pytest.mark.parametrize("name", sorted(WRITTEN))
def test_given_a_record_then_its_item_has_the_layout_on_disk(name: str) -> None:
    _, write, _ = WRITTEN[name]

    assert write() == LAYOUTS[name]


@pytest.mark.parametrize("name", sorted(n for n, (_, _, read) in WRITTEN.items() if read is not None))
def test_given_an_item_on_disk_then_it_reads_as_the_record_written(name: str) -> None:
    record, _, read = WRITTEN[name]
    assert read is not None

    assert read(LAYOUTS[name]) == record


def test_given_a_delivery_written_before_attempts_kept_the_answer_then_it_reads_with_none() -> None:
    item = copy.deepcopy(LAYOUTS["delivery"])
    old = '[{"at": "2024-05-08T14:30:00.123456+00:00", "status_code": 500, "error": "boom", "latency_ms": 12.5}]'
    item["attempts"] = {"S": old}
    _, _, read = WRITTEN["delivery"]
    assert read is not None

    assert read(item) == WRITTEN["delivery"][0]
