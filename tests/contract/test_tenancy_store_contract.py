"""The TenancyStore contract: every adapter of the port must pass this one suite.

To add an adapter (e.g. DynamoDB), write a context manager that builds it on a fresh, empty backend and
register it in ADAPTERS. The per-project records (keys, events, exports, feedback, counters) must never be
answered across projects.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.erasure import Erasure
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import new_id
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
from mnemo.ports.tenancy_store import TenancyStore
from tests.support.store_backends import Backend, adapter_fixture, on_accounts_table, on_sqlite

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


# DynamoDB in pages of 2 items, so that every query below runs over several pages.
ADAPTERS: dict[str, Backend[TenancyStore]] = {
    "sqlite": on_sqlite(SqliteTenancyStore),
    "dynamodb": on_accounts_table(lambda client, table: DynamoTenancyStore(client, table, page_size=2)),
}
store = adapter_fixture(ADAPTERS)


def user(store: TenancyStore, email: str) -> PlatformUser:
    return store.add_user(PlatformUser(new_id(), email, T0))


def project(store: TenancyStore, org: Organization, owner: PlatformUser, name: str = "p") -> Project:
    made = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name=name, created_at=T0, updated_at=T0)
    store.add_project(made, owner)
    return made


def org(store: TenancyStore, owner: PlatformUser, name: str = "o") -> Organization:
    made = Organization(f"org_{new_id()[:8]}", name, T0, T0)
    store.add_org(made, owner)
    return made


def event(project_id: str, status: EventStatus = EventStatus.PENDING) -> PlatformEvent:
    return PlatformEvent(new_id(), project_id, "ADD", status, {"messages": []}, T0, T0)


def test_users_are_unique_by_email(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    again = store.add_user(PlatformUser(new_id(), "alice@example.com", T0))
    assert again.id == alice.id
    assert store.user_by_email("alice@example.com") == alice
    assert store.user_by_id(alice.id) == alice
    assert store.user_by_email("nobody@example.com") is None


def test_orgs_projects_and_members(store: TenancyStore) -> None:
    alice, bob = user(store, "alice@example.com"), user(store, "bob@example.com")
    acme = org(store, alice, "Acme")
    assert store.get_org(acme.id) == acme
    assert [m.role for m in store.org_members(acme.id)] == [Role.OWNER]
    assert store.orgs_of(alice.id) == [acme]
    assert store.orgs_of(bob.id) == []
    store.set_org_member(acme.id, bob, Role.READER)
    store.set_org_member(acme.id, bob, Role.OWNER)  # a role change, not a second membership
    assert [(m.user.email, m.role) for m in store.org_members(acme.id)] == [
        ("alice@example.com", Role.OWNER),
        ("bob@example.com", Role.OWNER),
    ]
    first = project(store, acme, alice, "first")
    assert store.get_project(first.id) == first
    assert store.projects_of_org(acme.id) == [first]
    store.save_project(first.changed(decay=True, custom_categories=({"food": "what they eat"},)))
    saved = store.get_project(first.id)
    assert saved is not None and saved.decay and saved.custom_categories == ({"food": "what they eat"},)
    settings = {
        "agent_custom_instructions": "Remember the agent's tools.",
        "memory_depth": "deep",
        "usecase_setting": "a travel assistant",
        "version": "v2",
    }
    store.save_project(saved.changed(**settings))
    assert store.get_project(first.id) == saved.changed(**settings)
    store.save_project(saved)  # cleared again
    assert store.get_project(first.id) == saved
    store.set_project_member(first.id, bob, Role.READER)
    assert [(m.user.id, m.role) for m in store.project_members(first.id)] == [
        (alice.id, Role.OWNER),
        (bob.id, Role.READER),
    ]
    assert store.remove_project_member(first.id, bob.id)
    assert not store.remove_project_member(first.id, bob.id)
    assert store.remove_org_member(acme.id, bob.id)
    store.delete_org(acme.id)
    assert store.get_org(acme.id) is None and store.orgs_of(alice.id) == []


def test_a_saved_organization_replaces_the_stored_one_and_a_deleted_one_stays_deleted(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    acme, other = org(store, alice, "Acme"), org(store, alice, "Other")
    renamed = Organization(acme.id, "Acme Labs", acme.created_at, T0 + timedelta(days=1))
    store.save_org(renamed)
    assert store.get_org(acme.id) == renamed and store.get_org(other.id) == other
    assert {o.name for o in store.orgs_of(alice.id)} == {"Acme Labs", "Other"}  # created together: either order
    store.delete_org(other.id)
    store.save_org(Organization(other.id, "Back", other.created_at, T0))
    assert store.get_org(other.id) is None and store.orgs_of(alice.id) == [renamed]


def test_the_projects_of_a_member_are_those_they_belong_to_directly_until_removed_or_deleted(
    store: TenancyStore,
) -> None:
    alice, bob = user(store, "alice@example.com"), user(store, "bob@example.com")
    acme, globex = org(store, alice, "Acme"), org(store, alice, "Globex")
    first, second, third = (project(store, acme, alice), project(store, globex, alice), project(store, acme, alice))

    def oldest_first(*projects: Project) -> list[Project]:  # created at the same time: by id
        return sorted(projects, key=lambda p: (p.created_at, p.id))

    assert store.projects_of_member(alice.id) == oldest_first(first, second, third)  # a project's creator is a member
    assert store.projects_of_member(bob.id) == []
    store.set_org_member(acme.id, bob, Role.OWNER)
    assert store.projects_of_member(bob.id) == []  # an organization's member is no project's
    store.set_project_member(second.id, bob, Role.READER)
    store.set_project_member(first.id, bob, Role.READER)
    store.set_project_member(first.id, bob, Role.OWNER)  # a role change, not a second membership
    assert store.projects_of_member(bob.id) == oldest_first(first, second)
    assert store.remove_project_member(first.id, bob.id)
    assert store.projects_of_member(bob.id) == [second]
    store.delete_project(second.id)
    assert store.projects_of_member(bob.id) == [] and store.projects_of_member(alice.id) == oldest_first(first, third)


def test_keys_are_found_by_hash_until_revoked_and_only_within_their_project(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    acme = org(store, alice)
    one, two = project(store, acme, alice), project(store, acme, alice)
    key = ProjectKey(new_id(), one.id, alice.id, "ci", "m0-abcdefg", "hash-1", T0)
    store.add_key(key)
    assert store.key_by_hash("hash-1") == key
    assert store.keys_of_project(two.id) == []
    assert not store.revoke_key(two.id, key.id, T0)  # another project cannot revoke it
    assert store.key_by_hash("hash-1") is not None
    store.touch_key(key.id, T0 + timedelta(minutes=1))
    assert store.keys_of_project(one.id)[0].last_used_at == T0 + timedelta(minutes=1)
    assert store.revoke_key(one.id, key.id, T0)
    assert store.key_by_hash("hash-1") is None
    assert store.keys_of_project(one.id)[0].revoked_at == T0


def test_events_exports_feedback_and_counters_stay_in_their_project(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    acme = org(store, alice)
    one, two = project(store, acme, alice), project(store, acme, alice)
    pending = event(one.id)
    store.save_event(pending)
    assert store.get_event(one.id, pending.id) == pending
    assert store.get_event(two.id, pending.id) is None
    assert store.unfinished_events() == [pending]
    done = pending.changed(status=EventStatus.SUCCEEDED, results=[{"id": "m"}], completed_at=T0)
    store.save_event(done)
    assert store.get_event(one.id, pending.id) == done
    assert store.unfinished_events() == []
    second = event(one.id, EventStatus.SUCCEEDED)
    store.save_event(second)
    assert [e.id for e in store.events_of_project(one.id, 10, 0)] == [second.id, pending.id]
    assert [e.id for e in store.events_of_project(one.id, 1, 1)] == [pending.id]
    assert store.count_events(one.id) == 2 and store.count_events(two.id) == 0
    store.save_event(event(one.id, EventStatus.SUCCEEDED).changed(event_type="DELETE"))
    assert [store.count_events(one.id, kind) for kind in ("ADD", "DELETE", "UPDATE")] == [2, 1, 0]
    assert store.count_events(one.id) == 3  # saving an event again (PENDING, then done) counts it once

    export = MemoryExport(new_id(), one.id, {"type": "object"}, {"user_id": "u"}, None, {"memories": ["x"]}, T0)
    store.save_export(export)
    assert store.get_export(one.id, export.id) == export
    assert store.get_export(two.id, export.id) is None
    assert store.latest_export(two.id) is None

    store.save_feedback(Feedback("m1", one.id, "POSITIVE", "good", T0))
    assert store.get_feedback(two.id, "m1") is None
    store.save_feedback(Feedback("m1", one.id, None, None, T0))
    stored = store.get_feedback(one.id, "m1")
    assert stored is not None and stored.feedback is None

    store.bump_counter(one.id, "search_events")
    store.bump_counter(one.id, "search_events", 2)
    assert store.counters(one.id) == {"search_events": 3}
    assert store.counters(two.id) == {}


def test_deleting_a_project_deletes_all_its_records_and_no_other(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    acme = org(store, alice)
    gone, kept = project(store, acme, alice), project(store, acme, alice)
    for target in (gone, kept):
        store.add_key(ProjectKey(new_id(), target.id, alice.id, "", "m0-x", f"hash-{target.id}", T0))
        store.save_event(event(target.id))
        store.save_export(MemoryExport(new_id(), target.id, {}, {}, None, {}, T0))
        store.save_feedback(Feedback("m", target.id, "POSITIVE", None, T0))
        store.bump_counter(target.id, "add_events")
        store.add_entity(ProjectEntity(target.id, "user", "u1", "U", {}, T0, T0))
    store.delete_project(gone.id)
    assert store.get_project(gone.id) is None
    assert store.project_members(gone.id) == []
    assert store.key_by_hash(f"hash-{gone.id}") is None
    assert store.events_of_project(gone.id, 10, 0) == []
    assert store.latest_export(gone.id) is None
    assert store.get_feedback(gone.id, "m") is None
    assert store.counters(gone.id) == {}
    assert store.key_by_hash(f"hash-{kept.id}") is not None
    assert len(store.events_of_project(kept.id, 10, 0)) == 1
    assert store.counters(kept.id) == {"add_events": 1}
    assert store.entities_of_project(gone.id) == []
    assert [e.entity_id for e in store.entities_of_project(kept.id)] == ["u1"]


def test_entities_are_created_once_listed_by_type_and_id_and_deleted_within_their_project(
    store: TenancyStore,
) -> None:
    alice = user(store, "alice@example.com")
    acme = org(store, alice)
    first, second = project(store, acme, alice), project(store, acme, alice)
    bob = ProjectEntity(first.id, "user", "bob", "Bob B.", {"tier": "gold", "n": 2}, T0, T0)
    assert store.add_entity(bob)
    assert store.add_entity(ProjectEntity(first.id, "agent", "chef", "Chef", {}, T0, T0))
    assert store.add_entity(ProjectEntity(first.id, "user", "ana", "Ana", {}, T0, T0))
    assert store.add_entity(ProjectEntity(second.id, "user", "bob", "Other Bob", {}, T0, T0))  # another project
    assert not store.add_entity(ProjectEntity(first.id, "user", "bob", "Impostor", {}, T0, T0))

    listed = store.entities_of_project(first.id)
    assert [(e.type, e.entity_id) for e in listed] == [("agent", "chef"), ("user", "ana"), ("user", "bob")]
    assert listed[2] == bob
    assert not store.delete_entity(second.id, "agent", "chef")
    assert store.delete_entity(first.id, "user", "bob")
    assert not store.delete_entity(first.id, "user", "bob")
    assert [e.entity_id for e in store.entities_of_project(first.id)] == ["chef", "ana"]
    assert [e.name for e in store.entities_of_project(second.id)] == ["Other Bob"]


def large_text(n_bytes: int) -> str:
    """Random URL-safe text: it compresses poorly, as a worst case should."""
    return secrets.token_urlsafe(n_bytes * 3 // 4)[:n_bytes]


def test_an_event_of_the_largest_add_is_kept_whole(store: TenancyStore) -> None:
    """The payload of an add at the size limit, and thousands of results: together far over what one DynamoDB item
    holds as plain JSON."""
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    payload = {"messages": [{"role": "user", "content": large_text(95_000), "name": None}], "user_id": "alice"}
    results = [{"id": new_id(), "data": {"memory": f"fact {i} about bees"}, "event": "ADD"} for i in range(3000)]
    running = event(one.id, EventStatus.RUNNING).changed(payload=payload)
    store.save_event(running)
    assert store.get_event(one.id, running.id) == running
    done = running.changed(status=EventStatus.SUCCEEDED, results=results, completed_at=T0)
    store.save_event(done)
    assert store.get_event(one.id, done.id) == done
    assert store.events_of_project(one.id, 10, 0) == [done]
    assert store.unfinished_events() == []


def test_an_add_events_llm_usage_is_kept_and_updated(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    pending = event(one.id, EventStatus.PENDING)
    store.save_event(pending)
    got = store.get_event(one.id, pending.id)
    assert got is not None and got.llm_usage is None  # not run yet
    failed_once = pending.changed(llm_usage=LLMUsage(1, 900, 0))
    assert store.update_event(failed_once)
    done = failed_once.changed(status=EventStatus.SUCCEEDED, llm_usage=LLMUsage(3, 2_500, 180), completed_at=T0)
    assert store.update_event(done)
    assert store.get_event(one.id, done.id) == done
    verbatim = event(one.id, EventStatus.SUCCEEDED).changed(llm_usage=LLMUsage())
    store.save_event(verbatim)
    got = store.get_event(one.id, verbatim.id)
    assert got is not None and got.llm_usage == LLMUsage(0, 0, 0)  # zero calls, not "unknown"


def test_an_event_too_large_for_any_record_keeps_every_result_id_and_event(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    results = [{"id": new_id(), "data": {"memory": large_text(120)}, "event": "ADD"} for _ in range(5000)]
    done = event(one.id, EventStatus.SUCCEEDED).changed(payload={"messages": [], "user_id": "a"}, results=results)
    store.save_event(done)
    got = store.get_event(one.id, done.id)
    assert got is not None and got.status is EventStatus.SUCCEEDED and got.payload == done.payload
    assert [(r["id"], r["event"]) for r in got.results] == [(r["id"], r["event"]) for r in results]


def test_a_large_export_is_kept_whole_and_deleted_with_its_project(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    acme = org(store, alice)
    gone, kept = project(store, acme, alice), project(store, acme, alice)
    result = {"memories": [{"id": new_id(), "text": large_text(1000)} for _ in range(1500)]}  # 1.5 MB
    export = MemoryExport(new_id(), gone.id, {"type": "object"}, {"user_id": "u"}, None, result, T0)
    store.save_export(export)
    store.save_export(MemoryExport(new_id(), kept.id, {}, {}, None, result, T0))
    assert store.get_export(gone.id, export.id) == export
    assert store.latest_export(gone.id) == export == store.latest_export(gone.id, {"user_id": "u"})
    assert store.latest_export(gone.id, {"user_id": "v"}) is None
    store.delete_project(gone.id)
    assert store.get_export(gone.id, export.id) is None and store.latest_export(gone.id) is None
    kept_export = store.latest_export(kept.id)
    assert kept_export is not None and kept_export.result == result
    if isinstance(store, DynamoTenancyStore):  # no part of the export is left behind, in any partition
        items = store._ops.items("scan", ConsistentRead=True)
        assert not [i["pk"]["S"] for i in items if gone.id in i["pk"]["S"]]


def test_updating_an_event_of_a_deleted_project_writes_nothing_back(store: TenancyStore) -> None:
    """A worker finishing an add after its project was deleted must not bring the event (or its marker, or its
    count) back: nothing could ever delete them again."""
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    never_saved = event(one.id, EventStatus.RUNNING)
    assert store.update_event(never_saved) is False
    assert store.events_of_project(one.id, 10, 0) == []

    running = event(one.id, EventStatus.RUNNING).changed(attempts=1)
    store.save_event(running)
    done = running.changed(status=EventStatus.SUCCEEDED, results=[{"id": "m"}], attempts=2)
    assert store.update_event(done) is True
    assert store.get_event(one.id, running.id) == done
    store.delete_project(one.id)
    assert store.update_event(running.changed(status=EventStatus.PENDING)) is False
    assert store.get_event(one.id, running.id) is None and store.events_of_project(one.id, 10, 0) == []
    assert store.unfinished_events() == [] and store.count_events(one.id) == 0


def test_an_ended_event_never_goes_back_to_running_nor_to_another_end(store: TenancyStore) -> None:
    """The status rule: an unfinished event takes any status; an ended one only its own again (more results). A
    worker's progress write that lands after a cancel is refused, and the cancel stands."""
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    running = event(one.id).changed(status=EventStatus.RUNNING, attempts=1)
    store.save_event(running)
    assert store.update_event(running.changed(status=EventStatus.PENDING))  # an error that passes: back to PENDING
    assert store.update_event(running)  # and RUNNING again
    cancelled = running.changed(status=EventStatus.CANCELLED, error="Cancelled.", completed_at=T0)
    assert store.update_event(cancelled)
    for status in (EventStatus.RUNNING, EventStatus.PENDING, EventStatus.SUCCEEDED, EventStatus.FAILED):
        assert store.update_event(running.changed(status=status, results=[{"index": 0}])) is False, status
    assert store.get_event(one.id, running.id) == cancelled
    kept = cancelled.changed(results=[{"index": 0, "status": "ADDED"}])
    assert store.update_event(kept)  # the cancel keeps what the worker did
    assert store.get_event(one.id, running.id) == kept
    assert store.unfinished_events() == []


def test_a_finished_job_cannot_be_cancelled_afterwards(store: TenancyStore) -> None:
    alice = user(store, "alice@example.com")
    one = project(store, org(store, alice), alice)
    done = event(one.id).changed(status=EventStatus.SUCCEEDED, results=[{"id": "m"}], completed_at=T0)
    store.save_event(event(one.id).changed(id=done.id))
    assert store.update_event(done)
    assert store.update_event(done.changed(status=EventStatus.CANCELLED)) is False
    assert store.get_event(one.id, done.id) == done


# ---- a delete erases ------------------------------------------------------------------------------------------


def test_erasing_scrubs_the_events_that_name_a_memory_and_no_other(store: TenancyStore) -> None:
    owner = user(store, "eraser@example.com")
    one, two = project(store, org(store, owner), owner, "one"), project(store, org(store, owner, "o2"), owner, "two")
    doomed, kept = new_id(), new_id()
    message = "I moved to Lisbon. I like tea."
    add = PlatformEvent(
        new_id(),
        one.id,
        "ADD",
        EventStatus.SUCCEEDED,
        {"messages": [{"role": "user", "content": message, "name": None}], "user_id": "alice"},
        T0,
        T0,
        results=[
            {"id": doomed, "data": {"memory": "I moved to Lisbon."}, "event": "ADD"},
            {"id": kept, "data": {"memory": "I like tea."}, "event": "ADD"},
        ],
    )
    unrelated = PlatformEvent(
        new_id(),
        one.id,
        "ADD",
        EventStatus.SUCCEEDED,
        {"messages": [{"role": "user", "content": message}]},
        T0,
        T0,
        results=[{"id": kept, "data": {"memory": "I like tea."}, "event": "ADD"}],
    )
    elsewhere = add.changed(id=new_id(), project_id=two.id)
    for made in (add, unrelated, elsewhere):
        store.save_event(made)
    erasure = Erasure(frozenset({doomed}), (message, "I moved to Lisbon."))

    assert store.erase_from_events(one.id, erasure) == 1

    scrubbed = store.get_event(one.id, add.id)
    assert scrubbed is not None
    assert scrubbed.payload["messages"][0]["content"] == ""
    assert scrubbed.results == [
        {"id": doomed, "data": {"memory": ""}, "event": "ADD"},
        {"id": kept, "data": {"memory": "I like tea."}, "event": "ADD"},
    ]
    assert scrubbed.status is EventStatus.SUCCEEDED
    assert store.get_event(one.id, unrelated.id) == unrelated  # names no erased memory
    assert store.get_event(two.id, elsewhere.id) == elsewhere
    assert store.erase_from_events(one.id, erasure) == 0


def test_erasing_drops_a_memory_from_the_exports_and_cuts_its_text(store: TenancyStore) -> None:
    owner = user(store, "exporter@example.com")
    one = project(store, org(store, owner), owner)
    doomed, kept = new_id(), new_id()
    result = {
        "memories": [{"id": doomed, "memory": "I moved to Lisbon."}, {"id": kept, "memory": "I like tea."}],
        "texts": "I moved to Lisbon. I like tea.",
    }
    export = MemoryExport(new_id(), one.id, {"type": "object"}, {"user_id": "alice"}, None, result, T0)
    big = MemoryExport(
        new_id(),
        one.id,
        {},
        {},
        None,
        {"texts": ["I moved to Lisbon."] + [secrets.token_hex(64) for _ in range(9000)]},
        T0,
    )  # stored in parts on DynamoDB
    store.save_export(export)
    store.save_export(big)

    assert store.erase_from_exports(one.id, Erasure(frozenset({doomed}), ("I moved to Lisbon.",))) == 2

    clean = store.get_export(one.id, export.id)
    assert clean is not None
    assert clean.result == {"memories": [{"id": kept, "memory": "I like tea."}], "texts": " I like tea."}
    large = store.get_export(one.id, big.id)
    assert large is not None and large.result["texts"][0] == "" and large.result["texts"][1:] == big.result["texts"][1:]
