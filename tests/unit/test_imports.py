"""What an import reads (a list of items, our export, Mem0's), what it refuses and why, how its payload keeps the
adds, how it ends; and the webhook event of an ingest job's end, for imports and cancelled jobs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.domain.webhooks import job_event
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand
from mnemo.services.platform.jobs.import_request import import_payload, items_of, parse_import
from mnemo.services.platform.jobs.import_results import merged, outcome, progress

T0 = datetime(2025, 3, 12, 19, 3, 58, tzinfo=UTC)


def test_every_unfinished_status_is_pending_or_running() -> None:
    assert [s.value for s in EventStatus if not s.finished] == ["PENDING", "RUNNING"]


def test_a_list_of_conversations_and_memories() -> None:
    read = parse_import(
        [
            {"messages": "I moved to Lisbon.", "user_id": "alice", "metadata": {"k": 1}, "timestamp": 1_700_000_000},
            {"messages": [{"role": "user", "content": "hi", "name": "Al"}], "agent_id": "bot", "infer": False},
            {"memory": "Is vegetarian", "user_id": "alice", "categories": ["food"], "created_at": "2024-07-20"},
            {"data": {"memory": "Likes jazz"}, "user_id": "bob", "expiration_date": "2030-01-01"},
            "Plays chess",
        ],
        ids={"run_id": "r1"},
        infer=True,
    )

    assert (read.format, read.total, read.refused) == ("items", 5, [])
    first, second, third, fourth, fifth = (item.command for item in read.items)
    assert (first.infer, first.metadata, first.timestamp) == (
        True,
        {"k": 1},
        datetime.fromtimestamp(1_700_000_000, UTC),
    )
    assert first.scope.as_filter() == {"user_id": "alice"}  # an item's own ids: the import's are for the others
    assert (second.infer, second.messages[0].name, second.scope.as_filter()) == (False, "Al", {"agent_id": "bot"})
    assert (third.infer, third.messages[0].content, third.timestamp) == (
        False,
        "Is vegetarian",
        datetime(2024, 7, 20, tzinfo=UTC),
    )
    assert (third.categories, third.custom_categories) == (("food",), ())  # exactly these, nothing filed anew
    assert (fourth.messages[0].content, str(fourth.expiration_date)) == ("Likes jazz", "2030-01-01")
    assert (fifth.messages[0].content, fifth.scope.as_filter()) == ("Plays chess", {"run_id": "r1"})


def test_our_export_and_mem0s() -> None:
    ours = {"memories": [{"id": "x", "memory": "Is vegetarian", "user_id": None, "categories": []}], "user_id": "al"}
    read = parse_import(ours)
    assert read.format == "mnemo" and read.items[0].command.scope.as_filter() == {"user_id": "al"}

    page = {"count": 1, "next": None, "results": [{"id": "x", "memory": "Likes jazz", "user_id": "bo", "hash": "h"}]}
    read = parse_import(page)
    assert read.format == "mem0" and read.items[0].command.messages[0].content == "Likes jazz"
    assert parse_import({"facts": ["a fact"]}, "mem0", {"user_id": "u"}).format == "mem0"
    assert parse_import([{"memory": "m", "user_id": "u"}], "mem0").format == "mem0"


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (3, "must be an object"),
        ({"user_id": "u"}, "give one of them"),
        ({"memory": "m", "messages": "m", "user_id": "u"}, "not both"),
        ({"memory": 3, "user_id": "u"}, "must be a string"),
        ({"memory": "m"}, "user_id, agent_id, run_id or app_id is required"),
        ({"memory": "m", "user_id": "has space"}, "user_id must not contain whitespace"),
        ({"memory": "m", "user_id": "u" * 300}, "user_id is too long"),
        ({"memory": "m", "user_id": "u", "metadata": [1]}, "metadata must be an object"),
        ({"memory": "m", "user_id": "u", "metadata": {"k" * 300: 1}}, "A key in metadata has 300 characters"),
        ({"memory": "m", "user_id": "u", "categories": "food"}, "categories must be a list of names"),
        ({"memory": "m", "user_id": "u", "categories": [str(i) for i in range(101)]}, "at most 100 categories"),
        ({"memory": "m", "user_id": "u", "created_at": "soon"}, "created_at must be a date"),
        ({"memory": "m", "user_id": "u", "expiration_date": "2030-1-1"}, "YYYY-MM-DD"),
        ({"messages": [], "user_id": "u"}, "messages must not be empty"),
        ({"messages": [{"content": "no role"}], "user_id": "u"}, "messages[0] must be an object with a role"),
        ({"messages": [{"role": "user", "content": "x"}] * 1001, "user_id": "u"}, "at most 1,000 messages"),
        ({"messages": 5, "user_id": "u"}, "messages must be a list"),
        ({"messages": "m", "user_id": "u", "infer": "yes"}, "infer must be true or false"),
        ({"memory": "x" * 100_001, "user_id": "u"}, "at most 100,000 are accepted"),
    ],
)
def test_an_item_that_cannot_be_added_is_refused_with_the_reason(item: Any, reason: str) -> None:
    read = parse_import([{"memory": "fine", "user_id": "u"}, item])
    assert len(read.items) == 1
    assert read.refused[0]["index"] == 1 and read.refused[0]["status"] == "REFUSED"
    assert reason in read.refused[0]["reason"]


@pytest.mark.parametrize(
    ("raw", "fmt", "ids", "message"),
    [
        ([], "auto", {}, "Nothing to import"),
        ({"count": 3}, "auto", {}, "Nothing to import"),
        (["m"] * 1001, "auto", {"user_id": "u"}, "at most 1,000 items"),
        ("m", "auto", {}, "items must be a list"),
        (["m"], "mnemo", {}, "format mnemo"),
        ({"memories": ["m"]}, "items", {}, "format items"),
        (["m"], "csv", {}, "format must be one of"),
        (["m"], "auto", {"user_id": " "}, "the import's user_id must not contain whitespace"),
        ({"memories": ["m"], "user_id": "a b"}, "auto", {}, "the export's user_id must not contain whitespace"),
    ],
)
def test_what_is_no_import_is_a_validation_error(raw: Any, fmt: str, ids: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_import(raw, fmt, ids)


def test_the_payload_keeps_the_adds_compactly_and_gives_them_back() -> None:
    read = parse_import([{"memory": "Is vegetarian", "user_id": "al"}, 3, {"messages": "hi", "agent_id": "b"}])
    payload = import_payload(read.format, read.total, read.items)

    assert payload["total"] == 3 and [i["index"] for i in payload["items"]] == [0, 2]
    assert payload["items"][0]["add"] == {
        "messages": [{"role": "user", "content": "Is vegetarian"}],
        "user_id": "al",
        "infer": False,
        "multilingual": False,
        "categories": [],  # a memory imported without categories keeps none
    }
    assert [(i.index, i.command) for i in items_of(payload)] == [(i.index, i.command) for i in read.items]
    with pytest.raises(ValidationError, match="Not an import"):
        items_of({"items": [{"add": {}}]})
    assert isinstance(items_of(payload)[0].command, AddCommand)


def event(status: EventStatus, results: list[dict[str, Any]], event_type: str = "IMPORT") -> PlatformEvent:
    payload = {"format": "items", "total": 3, "items": []} if event_type == "IMPORT" else {}
    return PlatformEvent(new_id(), "proj_a", event_type, status, payload, T0, T0, results=results, started_at=T0)


def test_an_import_ends_by_what_its_items_did() -> None:
    added = {"status": "ADDED"}
    assert outcome([added] * 3, 3) == (EventStatus.SUCCEEDED, None)
    status, error = outcome([added, {"status": "REFUSED"}, {"status": "FAILED"}], 3)
    assert status is EventStatus.PARTIALLY_COMPLETED and error == (
        "2 of 3 items were not imported (1 refused, 1 failed; the results say why)."
    )
    assert outcome([{"status": "REFUSED"}] * 3, 3)[0] is EventStatus.FAILED
    assert merged(
        [{"index": 2, "status": "REFUSED"}, {"index": 0}], [{"index": 1}, {"index": 0, "status": "ADDED"}]
    ) == [
        {"index": 0, "status": "ADDED"},
        {"index": 1},
        {"index": 2, "status": "REFUSED"},
    ]
    assert progress(event(EventStatus.RUNNING, [added])) == (1, 3)
    assert progress(event(EventStatus.RUNNING, [], "ADD")) is None


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (EventStatus.SUCCEEDED, "ingest_job_completed"),
        (EventStatus.PARTIALLY_COMPLETED, "ingest_job_partially_completed"),
        (EventStatus.FAILED, "ingest_job_failed"),
        (EventStatus.CANCELLED, "ingest_job_cancelled"),
    ],
)
def test_an_import_that_ends_makes_its_webhook_event(status: EventStatus, kind: str) -> None:
    results = [{"index": 0, "status": "ADDED", "memory_ids": ["m"]}, {"index": 1, "status": "REFUSED", "reason": "r"}]
    ended = event(status, results).changed(completed_at=T0)

    outbound = job_event(ended)

    assert outbound is not None and outbound.type == kind and outbound.namespace == "proj_a"
    details = outbound.payload["event_details"]
    assert (details["job_type"], details["status"], details["total"]) == ("IMPORT", status.value, 3)
    assert details["results"] == {"ADDED": 1, "REFUSED": 1}
    assert job_event(ended) == outbound  # the same end twice: the same event


def test_an_add_cancelled_makes_ingest_job_cancelled_and_unfinished_jobs_none() -> None:
    cancelled = job_event(event(EventStatus.CANCELLED, [{"id": "m", "event": "ADD"}], "ADD"))
    assert cancelled is not None and cancelled.type == "ingest_job_cancelled"
    assert (
        cancelled.payload["event_details"]["results"] == {"ADD": 1}
        and "total" not in cancelled.payload["event_details"]
    )
    assert job_event(event(EventStatus.RUNNING, [])) is None
    assert job_event(event(EventStatus.PENDING, [])) is None
