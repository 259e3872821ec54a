"""Per-user profiles end to end on the AWS backend, under moto: settings, profiles and jobs in the accounts table
(DynamoProfileStore); generations and jobs as messages of the standard profile queue, run by the ingest worker's
Lambda handler; memory changes reaching the profiles through the events topic and the webhook delivery function,
which claims a debounced generation (tests/support/webhook_aws.py pumps both functions).

The scenarios of test_profiles.py that are not about the local worker thread are collected here again with this
module's fixtures (their scripted generator is put into the ingest worker's container, where generations run). The
tests of this module's own run the real LLM generator, the OpenAI LLM on a loopback server with scripted replies:
a profile with its sources, an invalid reply sent back once then failed, and a burst of adds that costs one
generation."""

from __future__ import annotations

import itertools
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mnemo.adapters.dynamodb.profile_store import DynamoProfileStore
from tests.e2e.platform import test_profiles as embedded
from tests.e2e.platform.conftest import Server, Tenant, new_tenant, serving
from tests.e2e.platform.test_profiles import add, enable, http, job, profile_of, settled, until
from tests.support import moto_aws
from tests.support.openai_server import OpenAIServer
from tests.support.webhook_aws import aws_webhook_backend

# The embedded backend's scenarios, collected again here with this module's fixtures (the AWS backend).
test_the_sync_clients_profile_methods = embedded.test_the_sync_clients_profile_methods
test_the_async_clients_profile_methods = embedded.test_the_async_clients_profile_methods
test_every_status_on_purpose = embedded.test_every_status_on_purpose
test_without_a_generator_a_generation_fails_with_the_reason = (
    embedded.test_without_a_generator_a_generation_fails_with_the_reason
)
test_an_idempotency_key_replays_or_conflicts = embedded.test_an_idempotency_key_replays_or_conflicts
test_bad_job_requests = embedded.test_bad_job_requests
test_settings_that_cannot_be = embedded.test_settings_that_cannot_be
test_min_memories_is_a_setting_and_the_answer_says_what_is_missing = (
    embedded.test_min_memories_is_a_setting_and_the_answer_says_what_is_missing
)
test_deleting_the_user_or_the_project_deletes_profiles = embedded.test_deleting_the_user_or_the_project_deletes_profiles
test_a_deleted_memory_leaves_the_profile_at_once = embedded.test_a_deleted_memory_leaves_the_profile_at_once
test_a_change_during_a_generation_is_read_by_one_more = embedded.test_a_change_during_a_generation_is_read_by_one_more
test_another_projects_key_never_reaches_a_profile_job_or_setting = (
    embedded.test_another_projects_key_never_reaches_a_profile_job_or_setting
)
test_a_reader_reads_profiles_and_settings_but_changes_nothing = (
    embedded.test_a_reader_reads_profiles_and_settings_but_changes_nothing
)
scripted = embedded.scripted

SCHEMA = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "Where the user lives"},
        "occupation": {"type": "string", "description": "The user's job"},
        "hobbies": {"type": "array", "items": {"type": "string"}, "description": "What the user does for fun"},
        "age": {"type": "integer", "minimum": 0, "description": "The user's age in years"},
    },
    "additionalProperties": False,
}
DEBOUNCE_SECONDS = 1
_LISTED = re.compile(r'^(\d+): (".*")$', re.MULTILINE)


@pytest.fixture(scope="module")
def server(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("profiles-aws")
    quick = {"MNEMO_PROFILE_DEBOUNCE_SECONDS": str(DEBOUNCE_SECONDS), "MNEMO_PROFILE_MAX_WAIT_SECONDS": "5"}
    with aws_webhook_backend(embedder, root, quick) as container, serving(container) as url:
        yield Server(url, container, "aws")


@pytest.fixture
def tenant(server: Server) -> Tenant:
    return new_tenant(server, "profiles")


class Scripted:
    """The deployment's LLM, answering by what each prompt lists (so that a generation still on its way from an
    earlier test gets its own answer and takes nothing from this one): `answer(body)`, by default
    `reads_the_memories`; `calls(marker)` are the requests whose memories include `marker`."""

    def __init__(self, server: OpenAIServer) -> None:
        self.server = server
        self.answer: Callable[[dict[str, Any]], str] = reads_the_memories

    def reply(self, body: dict[str, Any]) -> str:
        return self.answer(body)

    def calls(self, marker: str) -> list[dict[str, Any]]:
        return [r.body for r in self.server.chat_requests if any(marker in t for t in listed(r.body).values())]


@pytest.fixture(scope="module")
def deployed_llm(server: Server) -> Iterator[Scripted]:
    """The LLM of the deployment (the worker follows the provider settings at each invocation)."""
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        server.container.configuration.update({"llm": config})
        scripted_llm = Scripted(fake)
        fake.reply(*[scripted_llm.reply] * 1_000)
        yield scripted_llm


@pytest.fixture
def llm(deployed_llm: Scripted) -> Iterator[Scripted]:
    deployed_llm.answer = reads_the_memories
    yield deployed_llm
    deployed_llm.answer = reads_the_memories


def listed(body: dict[str, Any]) -> dict[int, str]:
    """The memories a profile prompt lists: number → text."""
    content = body["messages"][0]["content"]
    return {int(n): json.loads(text) for n, text in _LISTED.findall(content)}


def reads_the_memories(body: dict[str, Any]) -> str:
    """A scripted LLM that fills the schema as a good one would: "Lives in X" → location, "Works as X" →
    occupation, anything else → hobbies; each value with the numbers of its memories."""
    profile: dict[str, Any] = {}
    sources: dict[str, list[int]] = {}
    for number, text in sorted(listed(body).items()):
        if text.startswith("Lives in "):
            profile.setdefault("location", text.removeprefix("Lives in "))
            sources.setdefault("location", [number])
        elif text.startswith("Works as "):
            profile.setdefault("occupation", text.removeprefix("Works as "))
            sources.setdefault("occupation", [number])
        else:
            profile.setdefault("hobbies", []).append(text)
            sources.setdefault("hobbies", []).append(number)
    return json.dumps({"profile": profile, "sources": sources})


def store() -> DynamoProfileStore:
    return DynamoProfileStore(moto_aws.client("dynamodb"), os.environ["MNEMO_ACCOUNTS_TABLE"])


def test_a_memory_change_generates_the_profile_with_the_llm_and_its_sources(
    server: Server, tenant: Tenant, llm: Scripted
) -> None:
    enable(server, tenant, schema=SCHEMA, custom_instructions="Keep the user's words.")
    ids = {
        text: add(server, tenant, text)
        for text in ("Lives in Lisbon", "Works as a nurse", "Loves hiking", "Moved here in 2019")
    }
    # no read meanwhile: the delivery function notes the changes, the worker generates once they are quiet (a
    # slow add may let a generation run between two adds: the next change queues one more, which reads all four)
    stored = until(
        lambda: {"p": store().get_profile(tenant.project_id, "user", "alice")},
        lambda got: (
            got["p"] is not None
            and got["p"].status.value == "succeeded"
            and {i for cited in got["p"].sources.values() for i in cited} == set(ids.values())
        ),
    )["p"]
    assert stored.profile["location"] == "Lisbon" and stored.profile["occupation"] == "a nurse"
    assert sorted(stored.profile["hobbies"]) == ["Loves hiking", "Moved here in 2019"]
    assert stored.sources["location"] == [ids["Lives in Lisbon"]]
    assert stored.sources["occupation"] == [ids["Works as a nurse"]]
    assert sorted(stored.sources["hobbies"]) == sorted([ids["Loves hiking"], ids["Moved here in 2019"]])
    prompt = llm.calls("Works as a nurse")[-1]["messages"][0]["content"]
    assert "Keep the user's words." in prompt and '"Where the user lives"' in prompt
    answer = profile_of(server, tenant)
    assert answer["status"] == "succeeded" and answer["profile"] == stored.profile
    assert answer["sources"] == stored.sources


def test_an_invalid_llm_reply_is_sent_back_once_then_the_profile_fails(
    server: Server, tenant: Tenant, llm: Scripted
) -> None:
    invalid = json.dumps({"profile": {"age": "thirty"}, "sources": {"age": [0]}})
    valid = json.dumps({"profile": {"location": "Porto"}, "sources": {"location": [0]}})
    fixed = {"second try": False}

    def never_valid_then_valid_on_retry(body: dict[str, Any]) -> str:
        if not any("Porto" in t for t in listed(body).values()):
            return reads_the_memories(body)  # another test's generation
        retry = "could not be used" in body["messages"][-1]["content"]
        return valid if retry and fixed["second try"] else invalid

    llm.answer = never_valid_then_valid_on_retry
    enable(server, tenant, schema=SCHEMA)
    add(server, tenant, "Lives in Porto")
    failed = until(lambda: profile_of(server, tenant), lambda p: p["status"] == "failed")
    assert failed["profile"] == {}
    assert "rejected twice" in failed["reason"] and "thirty" in failed["reason"], failed
    first, retried = llm.calls("Porto")[:2]
    assert len(first["messages"]) == 1 and "could not be used" in retried["messages"][-1]["content"]

    fixed["second try"] = True
    again = job(server, tenant, {"operation": "trigger", "entity_type": "user", "entity_id": "alice"})
    assert again.status_code == 200, again.text
    done = until(
        lambda: http(server, tenant).get(again.json()["status_url"]).json()["job"], lambda j: j["status"] == "succeeded"
    )
    assert done["succeeded"] == 1 and done["total"] == 1
    assert settled(server, tenant)["profile"] == {"location": "Porto"}


def test_a_burst_of_adds_costs_one_generation(server: Server, tenant: Tenant, llm: Scripted) -> None:
    enable(server, tenant, schema=SCHEMA)
    added: list[float] = []
    for n in range(5):
        add(server, tenant, f"Plays game {n}")
        added.append(time.monotonic())
    until(
        lambda: {"p": store().get_profile(tenant.project_id, "user", "alice")},
        lambda got: (
            got["p"] is not None
            and got["p"].status.value == "succeeded"
            and len(got["p"].profile.get("hobbies", [])) == 5
        ),
    )
    time.sleep(3.0)  # nothing more comes
    # Read after the quiet time: a generation due after a pause (below) may end after the first complete profile.
    final = store().get_profile(tenant.project_id, "user", "alice")
    assert final is not None and final.status.value == "succeeded" and len(final.profile["hobbies"]) == 5
    # One generation for the burst; a loaded machine may leave a pause near a debounce (1 s) between two adds (the
    # changes are noted a moment after each add), after which a generation was due: one more per such pause.
    pauses = sum(later - earlier >= DEBOUNCE_SECONDS / 2 for earlier, later in itertools.pairwise(added))
    calls = llm.calls("Plays game")
    assert 1 <= len(calls) <= 1 + pauses, (pauses, [listed(body) for body in calls])
    assert final.generation_count == len(calls)
