"""Dream's Synthesis (issue 15), on both backends, with a scripted LLM on the loopback OpenAI-compatible server:
POST …/dream/run/ queues a run whose event lists every change; a synthesized memory is marked and links to its
sources (also GET …/dream/memory/{id}/sources/); duplicates are merged and outdated facts superseded, with history
rows; the run's rules (enough memories, one run at a time, an answer checked and sent back once) and its errors."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from mem0 import MemoryClient

from mnemo.services.platform.dream.runs import NO_LLM, SYNTHESIS_OFF
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT

PARIS = "Lives in Paris"
LISBON = "Moved to Lisbon in May"
RUNS = "Goes running at 6 am every day"
MEETINGS = "Books meetings before 8 am"
ESPRESSO = "Drinks an espresso at dawn"
VEGETARIAN = "Is vegetarian"
NO_MEAT = "Does not eat meat"  # says what VEGETARIAN says (the add-time rule keeps negations apart)
FILLER = [
    "Plays the cello in an amateur orchestra",
    "Has a golden retriever named Biscuit",
    "Works as a structural engineer",
    "Reads science fiction before bed",
    "Grows tomatoes on the balcony",
    "Speaks Portuguese and German",
    "Supports Benfica",
    "Learned to sail last summer",
    "Prefers window seats on planes",
    "Keeps a paper journal",
    "Collects vintage maps",
    "Bakes sourdough on Sundays",
    "Volunteers at the food bank",
]
TEXTS = [PARIS, LISBON, RUNS, MEETINGS, ESPRESSO, VEGETARIAN, NO_MEAT, *FILLER]  # 20: the default minimum
EARLY_RISER = "Is an early riser: runs, meetings and coffee all happen before 8 am"
LISTED = re.compile(r'^(m\d+) \[\d{4}-\d\d-\d\d\](?: \[synthesized\])? (".*")$', re.MULTILINE)


def project_url(server: Server, tenant: Tenant) -> str:
    return f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}"


def add_all(server: Server, tenant: Tenant, texts: list[str], user_id: str = "alice") -> dict[str, str]:
    """The texts stored verbatim for the user (one add), by text → memory id; each stored as a memory of its own."""
    body = {
        "messages": [{"role": "user", "content": t} for t in texts],
        "user_id": user_id,
        "infer": False,
        "timestamp": int(datetime(2025, 1, 1, tzinfo=UTC).timestamp()),
    }
    answer = httpx.post(f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200, answer.text
    results = answer.json()["results"]
    assert [r["event"] for r in results] == ["ADD"] * len(texts), results  # none merged at add time
    return {r["data"]["memory"]: r["id"] for r in results}


def turn_on(server: Server, tenant: Tenant, **extra: Any) -> None:
    on = httpx.patch(
        f"{project_url(server, tenant)}/dream/config/",
        json={"reflection_enabled": True, **extra},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert on.status_code == 200, on.text


def run(server: Server, tenant: Tenant, **body: Any) -> dict[str, Any]:
    """POST …/dream/run/, then the run's event once it has ended."""
    queued = httpx.post(
        f"{project_url(server, tenant)}/dream/run/", json=body or None, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert queued.status_code == 200, queued.text
    assert queued.json()["status"] == "PENDING"
    return wait_for_event(server, tenant, queued.json()["event_id"], timeout=60)


def refs(request: dict[str, Any]) -> dict[str, str]:
    """The prompt's references by memory text (m1, m2, …)."""
    prompt = request["messages"][0]["content"]
    return {json.loads(text): ref for ref, text in LISTED.findall(prompt)}


def plan(request: dict[str, Any]) -> str:
    """The LLM's answer: a pattern from three memories, a merge, a supersede, and items breaking the rules."""
    r = refs(request)
    return json.dumps(
        {
            "synthesized": [
                {"text": EARLY_RISER, "sources": [r[RUNS], r[MEETINGS], r[ESPRESSO]]},
                {"text": "Likes the cello", "sources": [r[FILLER[0]]]},  # one source: left out
            ],
            "merge": [{"keep": r[VEGETARIAN], "duplicates": [r[NO_MEAT]], "text": None}],
            "supersede": [{"outdated": r[PARIS], "current": r[LISBON]}, {"outdated": "m999", "current": r[LISBON]}],
        }
    )


def memory(server: Server, tenant: Tenant, memory_id: str) -> dict[str, Any]:
    got = httpx.get(f"{server.url}/v1/memories/{memory_id}/", headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert got.status_code == 200, got.text
    found: dict[str, Any] = got.json()
    return found


def test_a_run_synthesizes_merges_and_supersedes_and_says_what_it_changed(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "dream-run")
    ids = add_all(server, tenant, TEXTS)
    add_all(server, tenant, FILLER[:3], user_id="bob")  # too few: not reflected on
    turn_on(server, tenant)
    llm.reply(plan)

    event = run(server, tenant)

    assert event["event_type"] == "DREAM" and event["status"] == "SUCCEEDED", event
    assert event["payload"] == {"trigger": "request", "user_ids": None}
    (alice,) = event["results"]  # bob has 3 memories: not among the users with enough
    assert alice["user_id"] == "alice" and alice["status"] == "DONE" and alice["memories_read"] == 20
    assert len(alice["ignored"]) == 2 and "fewer than two" in alice["ignored"][1] + alice["ignored"][0]
    by_action = {(c["action"], c["event"]): c for c in alice["changes"]}
    assert sorted(by_action) == [("MERGE", "DELETE"), ("SUPERSEDE", "DELETE"), ("SYNTHESIZE", "ADD")]
    merged, superseded, synthesized = (
        by_action["MERGE", "DELETE"],
        by_action["SUPERSEDE", "DELETE"],
        by_action["SYNTHESIZE", "ADD"],
    )
    assert merged["id"] == ids[NO_MEAT] and merged["replaced_by"] == ids[VEGETARIAN]
    assert superseded["id"] == ids[PARIS] and superseded["replaced_by"] == ids[LISBON]
    assert synthesized["data"] == {"memory": EARLY_RISER}
    assert synthesized["source_memory_ids"] == [ids[RUNS], ids[MEETINGS], ids[ESPRESSO]]

    pattern = memory(server, tenant, synthesized["id"])
    assert pattern["synthesized"] is True and pattern["user_id"] == "alice"
    assert pattern["source_memory_ids"] == synthesized["source_memory_ids"] and pattern["categories"]
    sources = httpx.get(
        f"{project_url(server, tenant)}/dream/memory/{synthesized['id']}/sources/",
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert sources.status_code == 200, sources.text
    assert sources.json()["synthesized"] is True
    assert [s["memory"] for s in sources.json()["sources"]] == [RUNS, MEETINGS, ESPRESSO]
    plain = httpx.get(
        f"{project_url(server, tenant)}/dream/memory/{ids[RUNS]}/sources/", headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert plain.json() == {"memory_id": ids[RUNS], "synthesized": False, "sources": []}

    paris = memory(server, tenant, ids[PARIS])
    assert paris["lifecycle_state"] == "superseded" and paris["replaced_by"] == ids[LISBON]
    assert memory(server, tenant, ids[NO_MEAT])["lifecycle_state"] == "merged"
    history = httpx.get(
        f"{server.url}/v1/memories/{ids[PARIS]}/history/", headers=tenant.headers, timeout=HTTP_TIMEOUT
    ).json()
    assert [h["event"] for h in history] == ["ADD", "DELETE"]

    # Reads follow the states: latest_only hides the superseded fact; the merged one is hidden unless asked for.
    listed = httpx.post(
        f"{server.url}/v3/memories/",
        json={"filters": {"user_id": "alice"}, "latest_only": True},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    ).json()["results"]
    listed_ids = {m["id"] for m in listed}
    assert synthesized["id"] in listed_ids and ids[PARIS] not in listed_ids and ids[NO_MEAT] not in listed_ids
    found = httpx.post(
        f"{server.url}/v3/memories/search/",
        json={"query": "When does she wake up?", "filters": {"user_id": "alice"}},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    ).json()["results"]
    assert synthesized["id"] in [h["id"] for h in found[:3]]

    # The LLM read alice's 20 memories, newest first, once.
    (asked,) = llm.chat_requests
    assert len(refs(asked.body)) == 20


def test_a_second_run_skips_what_it_did_and_a_held_user_waits(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "dream-again")
    ids = add_all(server, tenant, TEXTS)
    turn_on(server, tenant)
    llm.reply(plan, json.dumps({"synthesized": [], "merge": [], "supersede": []}))
    first = run(server, tenant, user_id="alice")
    assert first["payload"]["user_ids"] == ["alice"] and first["results"][0]["status"] == "DONE"

    # Two retired, one synthesized: 19 active, under the minimum of 20, so not among the users a run picks.
    assert run(server, tenant)["results"] == []
    add_all(server, tenant, ["Swims in the sea in winter"])
    second = run(server, tenant)  # 20 again: an empty answer changes nothing
    assert second["results"][0]["status"] == "DONE" and second["results"][0]["changes"] == []
    assert memory(server, tenant, ids[RUNS])["lifecycle_state"] == "active"

    # A run holding the user (claimed, its lease running): another run skips them, without asking the LLM.
    reflections = server.platform.dream_reflections
    now = datetime.now(UTC)
    lease = server.platform.dream_scheduler.policy.lease if server.platform.dream_scheduler else None
    assert lease is not None and reflections.claim(tenant.project_id, "alice", now, lease=lease)
    try:
        held = run(server, tenant, user_id="alice")
    finally:
        reflections.release(tenant.project_id, "alice", now, ran=False)
    assert held["status"] == "SUCCEEDED"
    (skipped,) = held["results"]
    assert (skipped["user_id"], skipped["status"]) == ("alice", "SKIPPED")
    assert skipped["reason"].startswith("Another Dream run is reflecting on this user, or is queued to (held until ")
    assert len(llm.chat_requests) == 2


def test_an_answer_that_cannot_be_used_is_sent_back_once(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "dream-bad-llm")
    add_all(server, tenant, TEXTS)
    turn_on(server, tenant)
    llm.reply("I think she is an early riser.", json.dumps({"synthesized": "not a list"}))

    event = run(server, tenant)

    assert event["status"] == "FAILED" and "could not be reflected on" in event["error"]
    (alice,) = event["results"]
    assert alice["status"] == "FAILED" and '"synthesized" must be a list' in alice["reason"]
    retry = llm.chat_requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["user", "assistant", "user"] and "could not be used" in retry[2]["content"]


def test_a_user_with_too_few_memories_of_their_own_is_skipped(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "dream-few")
    add_all(server, tenant, TEXTS[:5])
    turn_on(server, tenant)

    event = run(server, tenant, user_id="alice")

    assert event["status"] == "SUCCEEDED"
    assert event["results"] == [
        {
            "user_id": "alice",
            "status": "SKIPPED",
            "reason": "5 memories of their own (no agent or run); Synthesis needs at least 20.",
        }
    ]
    assert llm.chat_requests == []


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"user_id": "x" * 256}, 422, "user_id"),
        ({"user_id": ""}, 422, "user_id"),
        ({"user_id": "a\nb"}, 400, "whitespace"),
        ({"user_id": "a\x01b"}, 400, "control characters"),
        ({"users": ["alice"]}, 400, "users"),  # an option it does not take
    ],
)
def test_what_a_run_does_not_take(
    server: Server, llm: OpenAIServer, body: dict[str, Any], status: int, message: str
) -> None:
    tenant = new_tenant(server, "dream-body")
    turn_on(server, tenant)
    answer = httpx.post(
        f"{project_url(server, tenant)}/dream/run/", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert answer.status_code == status, answer.text
    assert message in answer.text


def test_no_run_without_an_llm_or_with_synthesis_off(server: Server) -> None:
    tenant = new_tenant(server, "dream-off")
    url = f"{project_url(server, tenant)}/dream/run/"
    no_llm = httpx.post(url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert no_llm.status_code == 400 and NO_LLM in no_llm.json()["detail"]


def test_a_run_needs_synthesis_on_an_owner_and_the_project(server: Server, llm: OpenAIServer) -> None:
    owner = new_tenant(server, "dream-owner")
    url = f"{project_url(server, owner)}/dream/run/"
    off = httpx.post(url, headers=owner.headers, timeout=HTTP_TIMEOUT)
    assert off.status_code == 400 and off.json()["detail"] == SYNTHESIS_OFF
    turn_on(server, owner)
    keys = f"{project_url(server, owner)}/api-keys/"
    known_user(server, "dream-run-reader@example.com")
    MemoryClient(api_key=owner.key, host=server.url).project.add_member("dream-run-reader@example.com", "READER")
    made = httpx.post(
        keys,
        json={"email": "dream-run-reader@example.com", "label": "reader"},
        headers=owner.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert made.status_code == 201, made.text
    reader = {"Authorization": f"Token {made.json()['api_key']}"}
    assert httpx.post(url, headers=reader, timeout=HTTP_TIMEOUT).status_code == 403
    stranger = new_tenant(server, "dream-stranger")
    assert httpx.post(url, headers=stranger.headers, timeout=HTTP_TIMEOUT).status_code == 404
    sources = f"{project_url(server, owner)}/dream/memory/not-a-uuid/sources/"
    assert httpx.get(sources, headers=owner.headers, timeout=HTTP_TIMEOUT).status_code == 400
    missing = f"{project_url(server, owner)}/dream/memory/00000000-0000-4000-8000-000000000000/sources/"
    assert httpx.get(missing, headers=owner.headers, timeout=HTTP_TIMEOUT).status_code == 404


def test_the_schedule_picks_due_users_once_per_interval(server: Server, llm: OpenAIServer) -> None:
    scheduler = server.platform.dream_scheduler
    assert scheduler is not None
    tenant = new_tenant(server, "dream-schedule")
    add_all(server, tenant, TEXTS)
    add_all(server, tenant, [f"{t} (bob)" for t in TEXTS], user_id="bob")
    add_all(server, tenant, TEXTS[:3], user_id="carol")  # too few
    manual = new_tenant(server, "dream-manual")  # on, but only on demand
    add_all(server, manual, TEXTS)
    turn_on(server, manual, reflection_mode="manual")
    assert scheduler.due_users(tenant.project_id, datetime.now(UTC)) == ["alice", "bob"]  # due, were it on
    assert [e.project_id for e in scheduler.tick()] == []  # neither project is on the schedule
    turn_on(server, tenant)
    empty = json.dumps({"synthesized": [], "merge": [], "supersede": []})
    llm.reply(empty, empty)

    (submitted,) = [e for e in scheduler.tick() if e.project_id in (tenant.project_id, manual.project_id)]
    assert [e for e in scheduler.tick() if e.project_id == tenant.project_id] == []  # held for the run queued

    event = wait_for_event(server, tenant, submitted.id, timeout=60)
    assert (event["payload"]["trigger"], event["payload"]["user_ids"]) == ("schedule", ["alice", "bob"])
    assert event["payload"]["claimed_at"] == submitted.payload["claimed_at"]
    assert [(r["user_id"], r["status"]) for r in event["results"]] == [("alice", "DONE"), ("bob", "DONE")]
    assert scheduler.due_users(tenant.project_id, datetime.now(UTC)) == []  # both ran: not due for 7 days
    assert [e for e in scheduler.tick() if e.project_id == tenant.project_id] == []
    assert len(llm.chat_requests) == 2
