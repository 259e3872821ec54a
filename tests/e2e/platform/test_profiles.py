"""Per-user profiles end to end (issue 14, embedded backend): the six profile methods of the real `mem0ai` clients
(sync and async), every status reached on purpose, idempotent job creation (replay and 409), schema validation,
regeneration after memory changes (debounced), deletion with the user and the project, isolation and roles.

The generator is scripted here (`Scripted`): what a real generator makes is the generators' own tests' business;
these tests hold the service to what it does with a draft. test_profiles_aws.py collects the scenarios that are
not about the local worker thread again, on the AWS backend."""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from mem0 import AsyncMemoryClient, MemoryClient
from pydantic import SecretStr

from mnemo.composition.container import Container, build_container
from mnemo.domain.memory import MemoryRecord
from mnemo.services.platform.profiles.generation import ProfileDraft
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, serving
from tests.support.waits import HTTP_TIMEOUT, seconds

SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": {"type": "string"}, "description": "What the user said."},
        "name": {"type": "string", "description": "The user's name."},
    },
}


class Scripted:
    """A generator that says what the memories say: none → insufficient_data, a memory "FAIL" → failed, else
    succeeded with "My name is X" under `name` (from the newest such memory) and every other memory's text under
    `facts` (newest first). `gate`, when set, holds each generation until
    it is opened; `calls` counts the generations per user."""

    def __init__(self) -> None:
        self.gate: threading.Event | None = None
        self.entered = threading.Event()  # set as a generation starts (it has read the memories)
        self.calls: dict[str, int] = {}
        self.seen: list[tuple[Mapping[str, Any], str | None]] = []

    def generate(
        self, schema: Mapping[str, Any], instructions: str | None, memories: Sequence[MemoryRecord]
    ) -> ProfileDraft:
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(timeout=seconds(30))
        user = memories[0].scope.user_id if memories else "?"
        self.calls[str(user)] = self.calls.get(str(user), 0) + 1
        self.seen.append((schema, instructions))
        if not memories:
            return ProfileDraft("insufficient_data", reason="No memories to read.")
        if any(m.text == "FAIL" for m in memories):
            return ProfileDraft("failed", reason="The scripted generator failed.")
        named = [m for m in memories if m.text.startswith("My name is ")]
        facts = [m for m in memories if m not in named]
        profile: dict[str, Any] = {"facts": [m.text for m in facts]} if facts else {}
        sources = {"facts": [m.id for m in facts]} if facts else {}
        if named:
            profile["name"], sources["name"] = named[0].text.removeprefix("My name is "), [named[0].id]
        return ProfileDraft("succeeded", profile, sources)


@pytest.fixture(scope="module")
def server(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root: Path = tmp_path_factory.mktemp("profiles")
    container: Container = build_container(
        Settings(data_dir=root / "data", jwt_secret=SecretStr("x" * 40), argon2_memory_kib=64, argon2_time_cost=1),
        CachedModelRegistry(embedder),
    )
    try:
        profiles = container.platform.profiles
        assert isinstance(profiles, ProfileService)
        profiles.debounce = 0.3
        with serving(container) as url:
            yield Server(url, container)
    finally:
        container.close()


@pytest.fixture
def scripted(server: Server) -> Iterator[Scripted]:
    generator = Scripted()
    profiles = generating(server)
    before = profiles.generator
    profiles.generator = lambda: generator
    try:
        yield generator
    finally:
        if generator.gate is not None:
            generator.gate.set()
        profiles.generator = before


@pytest.fixture
def tenant(server: Server) -> Tenant:
    return new_tenant(server, "profiles")


def generating(server: Server) -> ProfileService:
    """The profile service that runs the generations: the server's own (its worker thread) on the embedded backend,
    the ingest worker function's on AWS (tests/support/aws_backend.py builds it in this process)."""
    if server.backend != "aws":
        return service(server)
    worker = importlib.import_module("functions.ingest_worker.app")
    profiles = worker.entry.container.get().platform.profiles
    assert isinstance(profiles, ProfileService)
    return profiles


def service(server: Server) -> ProfileService:
    profiles = server.container.platform.profiles
    assert isinstance(profiles, ProfileService)
    return profiles


def http(server: Server, tenant: Tenant) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)


def add(server: Server, tenant: Tenant, text: str, user_id: str = "alice") -> str:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user_id, "infer": False}
    answer = http(server, tenant).post("/v3/memories/add/", json=body).json()
    assert answer["status"] == "SUCCEEDED", answer
    return str(answer["results"][0]["id"])


def enable(server: Server, tenant: Tenant, **user: Any) -> None:
    body: dict[str, Any] = {"enabled": True}
    if user:
        body["entities"] = {"user": user}
    answer = http(server, tenant).post("/v2/profiles/settings/", json=body)
    assert answer.status_code == 200, answer.text


def until(
    read: Callable[[], dict[str, Any]], done: Callable[[dict[str, Any]], bool], timeout: float = 20
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds(timeout)
    while True:
        got = read()
        if done(got):
            return got
        assert time.monotonic() < deadline, f"still {got}"
        time.sleep(0.05)


def profile_of(server: Server, tenant: Tenant, user_id: str = "alice") -> dict[str, Any]:
    answer = http(server, tenant).get(f"/v2/entities/user/{user_id}/profile/")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def settled(server: Server, tenant: Tenant, user_id: str = "alice") -> dict[str, Any]:
    """The profile once no generation is pending any more."""
    return until(lambda: profile_of(server, tenant, user_id), lambda p: p["status"] != "pending")


def job(server: Server, tenant: Tenant, body: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = {"Idempotency-Key": key or uuid.uuid4().hex}
    return http(server, tenant).post("/v2/profiles/jobs/", json=body, headers=headers)


# ---- the clients --------------------------------------------------------------------------------------


def test_the_sync_clients_profile_methods(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    add(server, tenant, "My name is Alice")
    assert client.get_profile("alice")["status"] == "not_enabled"
    settings = client.get_profile_settings()
    assert settings["enabled"] is False
    assert settings["capabilities"] == {"jobs": True, "estimates": False, "samples": True, "full_rebuild": False}
    assert all(p["description"] for p in settings["entities"]["user"]["schema"]["properties"].values())
    updated = client.update_profile_settings(enabled=True, schema=SCHEMA, custom_instructions="Be brief.")
    assert updated["enabled"] is True
    assert updated["entities"]["user"] == {"schema": SCHEMA, "custom_instructions": "Be brief.", "min_memories": 1}
    assert client.get_profile_settings() == updated

    made = client.generate_profile("alice")
    assert made["operation"] == "trigger" and made["entity_type"] == "user" and made["replayed"] is False
    assert made["entity_count_reserved"] == 1 and made["status_url"] == f"/v2/profiles/jobs/{made['job_id']}/"
    done = until(lambda: client.get_profile_job(made["status_url"]), lambda j: j["job"]["status"] == "succeeded")
    assert done["job"] | {} == done["job"] and done["job"]["total"] == 1 and done["job"]["completed"] == 1
    assert done["job"]["succeeded"] == 1 and done["job"]["failed"] == 0 and done["job"]["skipped"] == 0
    assert client.get_profile_job(made["job_id"]) == client.get_profile_job(made["status_url"])

    profile = until(lambda: client.get_profile("alice"), lambda p: p["status"] == "succeeded")
    assert profile["profile"] == {"name": "Alice"}
    assert profile["entity_type"] == "user" and profile["entity_id"] == "alice"
    assert profile["generation_count"] >= 1 and profile["updated_at"]
    assert set(profile["sources"]) == {"name"}
    assert (SCHEMA, "Be brief.") in scripted.seen

    add(server, tenant, "I am Bob", user_id="bob")
    sampled = client.sample_profiles(limit=5)
    assert sampled["sampled"] == 2 and sampled["entity_ids"] == ["alice", "bob"]
    finished = until(lambda: client.get_profile_job(sampled["status_url"]), lambda j: j["job"]["status"] == "succeeded")
    assert finished["job"]["total"] == 2 and finished["job"]["succeeded"] == 2

    cleared = client.update_profile_settings(schema=None, custom_instructions=None)
    assert cleared["enabled"] is True and cleared["entities"]["user"]["custom_instructions"] is None
    assert cleared["entities"]["user"]["schema"] == settings["entities"]["user"]["schema"]  # the default again
    assert client.update_profile_settings(enabled=False)["enabled"] is False


def test_the_async_clients_profile_methods(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    add(server, tenant, "I live in Lisbon")

    async def scenario() -> None:
        client = AsyncMemoryClient(api_key=tenant.key, host=server.url)
        assert (await client.get_profile("alice"))["status"] == "not_enabled"
        assert (await client.get_profile_settings())["enabled"] is False
        updated = await client.update_profile_settings(enabled=True, schema=SCHEMA)
        assert updated["entities"]["user"]["schema"] == SCHEMA
        made = await client.generate_profile("alice", idempotency_key="async-1")
        again = await client.generate_profile("alice", idempotency_key="async-1")
        assert again == made | {"replayed": True}
        for _ in range(400):
            job_status = (await client.get_profile_job(made["job_id"]))["job"]["status"]
            if job_status == "succeeded":
                break
            await asyncio.sleep(0.05)
        assert job_status == "succeeded"
        sampled = await client.sample_profiles()
        assert sampled["entity_ids"] == ["alice"]
        profile = await client.get_profile("alice")
        assert profile["status"] in ("succeeded", "pending") and profile["profile"] == {"facts": ["I live in Lisbon"]}

    asyncio.run(scenario())


# ---- statuses --------------------------------------------------------------------------------------


def test_every_status_on_purpose(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    client = http(server, tenant)
    add(server, tenant, "Alice likes tea")
    assert profile_of(server, tenant)["status"] == "not_enabled"

    scripted.gate = threading.Event()  # held: the generation stays pending
    enable(server, tenant, schema=SCHEMA)
    assert job(server, tenant, {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}).status_code == 200
    pending = profile_of(server, tenant)
    assert pending["status"] == "pending" and pending["profile"] == {}
    scripted.gate.set()
    succeeded = settled(server, tenant)
    assert succeeded["status"] == "succeeded" and succeeded["profile"] == {"facts": ["Alice likes tea"]}

    # while the next one is pending, the last good profile is served
    scripted.gate = threading.Event()
    add(server, tenant, "Alice likes coffee too")
    again = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "pending")
    assert (
        again["profile"] == {"facts": ["Alice likes tea"]}
        and again["generation_count"] == succeeded["generation_count"]
    )
    scripted.gate.set()
    newer = until(
        lambda: profile_of(server, tenant), lambda p: p["profile"].get("facts", [None])[0] == "Alice likes coffee too"
    )
    assert newer["generation_count"] == succeeded["generation_count"] + 1
    scripted.gate = None

    add(server, tenant, "FAIL", user_id="carol")
    failed = settled(server, tenant, "carol")
    assert (
        failed["status"] == "failed"
        and failed["reason"] == "The scripted generator failed."
        and failed["profile"] == {}
    )

    created = client.post("/v1/users/", json={"user_id": "dave"})
    assert created.status_code in (200, 201), created.text
    empty = settled(server, tenant, "dave")  # known (created), no memories
    assert empty["status"] == "insufficient_data" and empty["reason"] == "The user has no memories left."

    assert client.get("/v2/entities/user/nobody/profile/").status_code == 404
    assert client.get("/v2/entities/agent/alice/profile/").status_code == 400


def test_without_a_generator_a_generation_fails_with_the_reason(server: Server, tenant: Tenant) -> None:
    profiles = generating(server)
    before = profiles.generator
    profiles.generator = lambda: None
    try:
        add(server, tenant, "Alice")
        enable(server, tenant)
        failed = settled(server, tenant)
        assert failed["status"] == "failed" and failed["reason"] == "No profile generator is configured on this server."
    finally:
        profiles.generator = before


# ---- jobs --------------------------------------------------------------------------------------


def test_an_idempotency_key_replays_or_conflicts(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    add(server, tenant, "Alice")
    trigger = {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}
    refused = job(server, tenant, trigger)
    assert refused.status_code == 400 and "not enabled" in refused.json()["detail"]
    enable(server, tenant)
    first = job(server, tenant, trigger, key="k-1")
    assert first.status_code == 200 and first.json()["replayed"] is False
    replay = job(server, tenant, trigger, key="k-1")
    assert replay.status_code == 200 and replay.json() == first.json() | {"replayed": True}
    conflict = job(server, tenant, {"operation": "sample", "entity_type": "user"}, key="k-1")
    assert conflict.status_code == 409
    other = job(server, tenant, trigger, key="k-2")
    assert other.json()["job_id"] != first.json()["job_id"]


def test_bad_job_requests(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    add(server, tenant, "Alice")
    enable(server, tenant)
    assert (
        job(server, tenant, {"operation": "trigger", "entity_type": "user", "entity_id": "nobody"}).status_code == 404
    )
    assert (
        job(server, tenant, {"operation": "trigger", "entity_type": "agent", "entity_id": "alice"}).status_code == 400
    )
    assert job(server, tenant, {"operation": "trigger", "entity_type": "user"}).status_code == 400
    assert job(server, tenant, {"operation": "sample", "entity_type": "user", "limit": 11}).status_code == 422
    assert job(server, tenant, {"operation": "rebuild", "entity_type": "user"}).status_code == 422
    assert http(server, tenant).get(f"/v2/profiles/jobs/{uuid.uuid4()}/").status_code == 404


# ---- settings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"schema": SCHEMA}, "Unsupported settings"),
        ({"custom_instructions": "x"}, "Unsupported settings"),
        ({"entities": {"agent": {"schema": SCHEMA}}}, "Unsupported settings"),
        ({"entities": {"user": {"schema": {"type": "object", "properties": {"age": {"type": "integer"}}}}}}, "'age'"),
        (
            {
                "entities": {
                    "user": {"schema": {"type": "object", "properties": {"a": {"type": 12, "description": "x"}}}}
                }
            },
            "Invalid schema",
        ),
        ({"entities": {"user": {"schema": {"type": "array", "items": {}}}}}, "object"),
        ({"entities": {"user": {"schema": {"type": "object", "properties": {}}}}}, "properties"),
    ],
)
def test_settings_that_cannot_be(server: Server, tenant: Tenant, body: dict[str, Any], message: str) -> None:
    answer = http(server, tenant).post("/v2/profiles/settings/", json=body)
    assert answer.status_code == 400, answer.text
    assert message in str(answer.json()["detail"])


@pytest.mark.parametrize("value", [0.0, 1, "false", "on"])
def test_enabled_is_true_or_false_and_nothing_that_reads_as_one(server: Server, tenant: Tenant, value: Any) -> None:
    answer = http(server, tenant).post("/v2/profiles/settings/", json={"enabled": value})
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == ["body", "enabled"]
    assert http(server, tenant).get("/v2/profiles/settings/").json()["enabled"] is False


def test_min_memories_is_a_setting_and_the_answer_says_what_is_missing(
    server: Server, tenant: Tenant, scripted: Scripted
) -> None:
    client = http(server, tenant)
    for bad in (0, 1_001, "3", True, 2.5):
        body = {"entities": {"user": {"min_memories": bad}}}
        assert client.post("/v2/profiles/settings/", json=body).status_code in (400, 422), bad
    enable(server, tenant, min_memories=3)
    assert client.get("/v2/profiles/settings/").json()["entities"]["user"]["min_memories"] == 3
    add(server, tenant, "Alice likes tea")
    add(server, tenant, "Alice likes jazz")
    short = settled(server, tenant)
    assert short["status"] == "insufficient_data" and short["profile"] == {}
    assert short["reason"] == "2 of the 3 memories a profile needs (min_memories).", short
    assert scripted.calls.get("alice") is None  # the generator was not asked
    add(server, tenant, "Alice likes chess")
    enough = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "succeeded")
    assert len(enough["profile"]["facts"]) == 3
    enable(server, tenant, min_memories=None)  # null: back to the default
    assert client.get("/v2/profiles/settings/").json()["entities"]["user"]["min_memories"] == 1


def test_custom_instructions_are_bounded(server: Server, tenant: Tenant) -> None:
    body = {"entities": {"user": {"custom_instructions": "x" * 20_001}}}
    assert http(server, tenant).post("/v2/profiles/settings/", json=body).status_code == 422
    body = {"entities": {"user": {"custom_instructions": "x" * 20_000}}}
    assert http(server, tenant).post("/v2/profiles/settings/", json=body).status_code == 200


# ---- regeneration, deletion --------------------------------------------------------------------------------


def test_a_burst_of_adds_costs_one_regeneration(
    server: Server, tenant: Tenant, scripted: Scripted, request: pytest.FixtureRequest
) -> None:
    profiles = service(server)
    profiles.debounce = 1.0  # wide enough for five adds on a slow machine
    request.addfinalizer(lambda: setattr(profiles, "debounce", 0.3))
    enable(server, tenant)
    add(server, tenant, "first")
    first = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "succeeded")
    time.sleep(2.5)  # the debounced generation the first add queued has come and gone
    count = profile_of(server, tenant)["generation_count"]
    for n in range(5):
        add(server, tenant, f"burst {n}")
    expected = ["burst 4", "burst 3", "burst 2", "burst 1", "burst 0", "first"]

    # no read meanwhile: the worker regenerates on its own, once the burst is over
    def stored_facts() -> dict[str, Any]:
        stored = service(server)._store.get_profile(tenant.project_id, "user", "alice")
        return {"facts": stored.profile.get("facts") if stored else None}

    until(stored_facts, lambda got: got["facts"] == expected)
    time.sleep(2.0)  # nothing more comes
    after = profile_of(server, tenant)
    assert after["status"] == "succeeded" and after["profile"]["facts"] == expected
    assert after["generation_count"] == count + 1 and first["generation_count"] <= count


def test_deleting_the_user_or_the_project_deletes_profiles(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    add(server, tenant, "Alice")
    enable(server, tenant)
    assert settled(server, tenant)["status"] == "succeeded"
    store = service(server)._store
    assert http(server, tenant).delete("/v2/entities/user/alice/").status_code in (200, 204)
    until(lambda: {"gone": store.get_profile(tenant.project_id, "user", "alice") is None}, lambda g: g["gone"])
    assert http(server, tenant).get("/v2/entities/user/alice/profile/").status_code == 404

    add(server, tenant, "Bob", user_id="bob")
    assert settled(server, tenant, "bob")["status"] == "succeeded"
    client.project.delete()
    assert store.get_profile(tenant.project_id, "user", "bob") is None
    assert store.get_settings(tenant.project_id) is None


def test_a_deleted_memory_leaves_the_profile_at_once(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    """A read never shows a property drawn from a deleted memory, even while the regeneration is still held."""
    name = add(server, tenant, "My name is Alice Martin")
    add(server, tenant, "Alice keeps bees")
    enable(server, tenant)
    first = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "succeeded")
    assert first["profile"] == {"name": "Alice Martin", "facts": ["Alice keeps bees"]}
    scripted.gate = threading.Event()  # the regeneration the delete queues cannot finish
    assert http(server, tenant).delete(f"/v1/memories/{name}/").status_code in (200, 204)
    at_once = profile_of(server, tenant)
    assert "name" not in at_once["profile"] and "name" not in at_once["sources"], at_once
    assert at_once["profile"] == {"facts": ["Alice keeps bees"]}
    scripted.gate.set()
    regenerated = until(
        lambda: profile_of(server, tenant),
        lambda p: p["status"] == "succeeded" and p["generation_count"] > first["generation_count"],
    )
    assert regenerated["profile"] == {"facts": ["Alice keeps bees"]}
    stored = service(server)._store.get_profile(tenant.project_id, "user", "alice")
    assert stored is not None and "Alice Martin" not in str(stored.profile)  # erased in the store too


def test_a_change_during_a_generation_is_read_by_one_more(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    add(server, tenant, "Alice keeps bees")
    enable(server, tenant)
    first = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "succeeded")
    scripted.gate = threading.Event()
    scripted.entered.clear()
    add(server, tenant, "Alice sails")  # a regeneration starts, and is held after reading the memories...
    assert scripted.entered.wait(timeout=seconds(20))
    add(server, tenant, "Alice paints")  # ...while this comes
    scripted.gate.set()
    last = until(
        lambda: profile_of(server, tenant),
        lambda p: p["status"] == "succeeded" and "Alice paints" in p["profile"].get("facts", []),
    )
    assert last["profile"]["facts"] == ["Alice paints", "Alice sails", "Alice keeps bees"]
    assert last["generation_count"] >= first["generation_count"] + 1


# ---- isolation and roles --------------------------------------------------------------------------------


def test_another_projects_key_never_reaches_a_profile_job_or_setting(
    server: Server, tenant: Tenant, scripted: Scripted
) -> None:
    add(server, tenant, "Alice")
    enable(server, tenant, custom_instructions="secret instructions")
    made = job(server, tenant, {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}, key="shared")
    assert settled(server, tenant)["status"] == "succeeded"

    stranger = new_tenant(server, "stranger")
    other = http(server, stranger)
    assert other.get("/v2/entities/user/alice/profile/").status_code == 404
    assert other.get(made.json()["status_url"]).status_code == 404
    theirs = other.get("/v2/profiles/settings/").json()
    assert theirs["enabled"] is False and theirs["entities"]["user"]["custom_instructions"] is None
    trigger = {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}
    assert job(server, stranger, trigger, key="shared").status_code == 400  # their own key space: not enabled
    assert other.post("/v2/profiles/settings/", json={"enabled": True}).status_code == 200
    assert job(server, stranger, trigger, key="shared").status_code == 404  # alice is not theirs
    assert http(server, tenant).get("/v2/profiles/settings/").json()["entities"]["user"]["custom_instructions"] == (
        "secret instructions"
    )


def test_a_reader_reads_profiles_and_settings_but_changes_nothing(
    server: Server, tenant: Tenant, scripted: Scripted
) -> None:
    owner = http(server, tenant)
    add(server, tenant, "Alice")
    enable(server, tenant)
    assert settled(server, tenant)["status"] == "succeeded"
    known_user(server, "reader@example.com")
    MemoryClient(api_key=tenant.key, host=server.url).project.add_member("reader@example.com", "READER")
    project = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    created = owner.post(project + "api-keys/", json={"email": "reader@example.com", "label": "reader"})
    assert created.status_code == 201, created.text
    reader = httpx.Client(
        base_url=server.url, headers={"Authorization": f"Token {created.json()['api_key']}"}, timeout=HTTP_TIMEOUT
    )
    assert reader.get("/v2/entities/user/alice/profile/").json()["status"] == "succeeded"
    assert reader.get("/v2/profiles/settings/").json()["enabled"] is True
    assert reader.post("/v2/profiles/settings/", json={"enabled": False}).status_code == 403
    trigger = {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}
    assert reader.post("/v2/profiles/jobs/", json=trigger, headers={"Idempotency-Key": "r"}).status_code == 403
    assert owner.get("/v2/profiles/settings/").json()["enabled"] is True


def test_a_job_a_stop_left_queued_runs_at_the_next_start(server: Server, tenant: Tenant, scripted: Scripted) -> None:
    add(server, tenant, "Alice")
    enable(server, tenant)
    assert settled(server, tenant)["status"] == "succeeded"
    worker = server.container.workers.worker("profile-worker")
    worker.stop()  # the stop came before the worker ran it: the job's task is dropped
    made = job(server, tenant, {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}).json()

    def read() -> dict[str, Any]:
        answer: dict[str, Any] = http(server, tenant).get(made["status_url"]).json()["job"]
        return answer

    assert read()["status"] == "queued"
    worker.start()
    done = until(read, lambda j: j["status"] == "succeeded")
    assert done["completed"] == done["succeeded"] == done["total"] == 1


def test_the_composed_generator_is_the_similarity_one_without_an_llm(server: Server, tenant: Tenant) -> None:
    """No scripted generator: what `mnemo serve` wires (no LLM configured here). What it fills is its own tests'
    business; here, that it runs and every source is one of the user's memories."""
    ids = {add(server, tenant, text) for text in ("My name is Alice Martin", "I work as a nurse in Porto")}
    enable(server, tenant)
    profile = settled(server, tenant)
    assert profile["status"] in ("succeeded", "insufficient_data"), profile
    assert profile["generation_count"] >= 1 and profile["updated_at"]
    assert {source for sources in profile["sources"].values() for source in sources} <= ids
