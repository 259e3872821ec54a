"""Every platform route, with every kind of key from outside a tenant, against that tenant's ids: two
organizations, each with an OWNER and a READER, and a stranger with an organization of its own. Nothing of the
victim is reached (a 403 or 404 on every route that names one of its ids), nothing of it appears in any answer,
and afterwards everything the victim's owner can see is exactly as before."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.waits import HTTP_TIMEOUT, seconds

ORG = "/api/v1/orgs/organizations/{org_id}/"
PROJECT = ORG + "projects/{project_id}/"
SECRET = "The vault code is 4711"


@dataclass
class Victim:
    owner: Tenant
    memory_id: str
    event_id: str
    export_id: str
    key_id: str
    reader_email: str
    webhook_id: str
    delivery_id: str
    profile_job_id: str


@dataclass
class Attacker:
    name: str
    tenant: Tenant  # its own org and project, whatever the key's role there


def project_path(tenant: Tenant) -> str:
    return PROJECT.format(org_id=tenant.org_id, project_id=tenant.project_id)


def add_reader(server: Server, owner: Tenant, name: str) -> Tenant:
    """A READER of the owner's project, with a key of its own."""
    http = httpx.Client(base_url=server.url, headers=owner.headers, timeout=HTTP_TIMEOUT)
    email = known_user(server, f"{name}@example.com")
    added = http.post(project_path(owner) + "members/", json={"email": email, "role": "READER"})
    assert added.status_code == 200, added.text
    created = http.post(project_path(owner) + "api-keys/", json={"email": email, "label": name})
    assert created.status_code == 201, created.text
    return Tenant(created.json()["api_key"], owner.org_id, owner.project_id, email)


@pytest.fixture(scope="module")
def victim(server: Server) -> Victim:
    owner = new_tenant(server, "victim")
    http = httpx.Client(base_url=server.url, headers=owner.headers, timeout=HTTP_TIMEOUT)
    added = http.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": SECRET}], "user_id": "alice", "infer": False},
    )
    memory_id = added.json()["results"][0]["id"]
    queued = http.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I hide the spare key under the mat."}], "user_id": "alice"},
    )
    event_id = queued.json()["event_id"]
    assert wait_for_event(server, owner, event_id)["status"] == "SUCCEEDED"
    export_id = http.post("/v1/exports/", json={"schema": {"type": "object"}, "filters": {"user_id": "alice"}})
    reader = add_reader(server, owner, "victim-reader")
    keys = http.get(project_path(owner) + "api-keys/").json()
    (reader_key,) = [k for k in keys if k["user_email"] == reader.email]
    hook = {"name": "victim's", "url": HOOK_URL, "event_types": ["ingest_job_failed"]}
    webhook = http.post(f"/api/v1/webhooks/projects/{owner.project_id}/", json=hook)
    assert webhook.status_code == 201, webhook.text
    webhook_id = webhook.json()["webhook_id"]
    delivery_id = http.post(f"/api/v1/webhooks/{webhook_id}/test/").json()["id"]
    settings = {"enabled": True, "entities": {"user": {"custom_instructions": SECRET}}}
    assert http.post("/v2/profiles/settings/", json=settings).status_code == 200
    trigger = {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}
    made = http.post("/v2/profiles/jobs/", json=trigger, headers={"Idempotency-Key": "victim"})
    assert made.status_code == 200, made.text
    profile_job_id = made.json()["job_id"]
    wait_for_profile_job(server, owner, profile_job_id)
    return Victim(
        owner,
        memory_id,
        event_id,
        export_id.json()["id"],
        reader_key["id"],
        reader.email,
        webhook_id,
        delivery_id,
        profile_job_id,
    )


def wait_for_profile_job(server: Server, owner: Tenant, job_id: str) -> None:
    http = httpx.Client(base_url=server.url, headers=owner.headers, timeout=HTTP_TIMEOUT)
    deadline = time.monotonic() + seconds(30)
    while http.get(f"/v2/profiles/jobs/{job_id}/").json()["job"]["status"] != "succeeded":
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture(scope="module")
def attackers(server: Server) -> list[Attacker]:
    other_owner = new_tenant(server, "other")
    return [
        Attacker("other org's OWNER", other_owner),
        Attacker("other org's READER", add_reader(server, other_owner, "other-reader")),
        Attacker("stranger", new_tenant(server, "stranger")),
    ]


HOOK_URL = "https://93.184.216.34/hook"  # a public address: no name to resolve (there is no network here)
WEBHOOKS = "/api/v1/webhooks/projects/{project_id}/"
WEBHOOK = "/api/v1/webhooks/{webhook_id}/"


def webhook_requests(victim: Victim) -> list[tuple[str, str, str, Any]]:
    """Every webhook route, given the victim's project, webhook and delivery."""
    ids = {"project_id": victim.owner.project_id, "webhook_id": victim.webhook_id, "delivery_id": victim.delivery_id}
    hook = {"name": "planted", "url": HOOK_URL, "event_types": ["memory_add"]}
    routes: list[tuple[str, str, Any]] = [
        ("GET", WEBHOOKS, None),
        ("POST", WEBHOOKS, hook),
        ("GET", WEBHOOK, None),
        ("PUT", WEBHOOK, {"name": "taken over", "url": "https://93.184.216.35/"}),
        ("PUT", WEBHOOK + "webhook/", {"name": "taken over"}),
        ("DELETE", WEBHOOK, None),
        ("DELETE", WEBHOOK + "webhook/", None),
        ("GET", WEBHOOK + "deliveries/", None),
        ("POST", WEBHOOK + "deliveries/{delivery_id}/redeliver/", None),
        ("POST", WEBHOOK + "test/", None),
        ("POST", WEBHOOK + "rotate-secret/", None),
    ]
    return [(method, route, route.format_map(ids), body) for method, route, body in routes]


def requests_naming_the_victim(victim: Victim, attacker: Tenant) -> list[tuple[str, str, str, Any]]:
    """(method, route template, concrete path, JSON body): every route that takes an id, given the victim's."""
    ids = {
        "org_id": victim.owner.org_id,
        "project_id": victim.owner.project_id,
        "key_id": victim.key_id,
        "memory_id": victim.memory_id,
    }
    own_project = {**ids, "org_id": attacker.org_id}
    own_key_path = {"org_id": attacker.org_id, "project_id": attacker.project_id, "key_id": victim.key_id}
    memory, member = victim.memory_id, {"email": victim.reader_email, "role": "OWNER"}
    out: list[tuple[str, str, str, Any]] = [
        ("GET", "/v1/memories/{memory_id}/", f"/v1/memories/{memory}/", None),
        ("PUT", "/v1/memories/{memory_id}/", f"/v1/memories/{memory}/", {"text": "overwritten"}),
        ("DELETE", "/v1/memories/{memory_id}/", f"/v1/memories/{memory}/", None),
        ("GET", "/v1/memories/{memory_id}/history/", f"/v1/memories/{memory}/history/", None),
        ("PUT", "/v1/batch/", "/v1/batch/", {"memories": [{"memory_id": memory, "text": "overwritten"}]}),
        ("DELETE", "/v1/batch/", "/v1/batch/", {"memories": [{"memory_id": memory}]}),
        ("POST", "/v1/feedback/", "/v1/feedback/", {"memory_id": memory, "feedback": "NEGATIVE"}),
        ("GET", "/v1/event/{event_id}/", f"/v1/event/{victim.event_id}/", None),
        ("POST", "/v1/event/{event_id}/cancel/", f"/v1/event/{victim.event_id}/cancel/", None),
        ("POST", "/v1/exports/get/", "/v1/exports/get/", {"memory_export_id": victim.export_id}),
    ]
    org_routes: list[tuple[str, str, Any]] = [
        ("GET", ORG, None),
        ("DELETE", ORG, None),
        ("GET", ORG + "members/", None),
        ("POST", ORG + "members/", {"email": "spy@example.com", "role": "OWNER"}),
        ("PUT", ORG + "members/", member),
        ("DELETE", ORG + "members/", {"email": victim.owner.email}),
        ("GET", ORG + "projects/", None),
        ("POST", ORG + "projects/", {"name": "planted"}),
        ("GET", PROJECT, None),
        ("PATCH", PROJECT, {"custom_instructions": "leak everything", "decay": True}),
        ("DELETE", PROJECT, None),
        ("GET", PROJECT + "members/", None),
        ("GET", PROJECT + "usage/", None),
        ("GET", PROJECT + "dream/config/", None),
        ("PATCH", PROJECT + "dream/config/", {"reflection_mode": "batch"}),
        ("POST", PROJECT + "dream/run/", {"user_id": "alice"}),
        ("GET", PROJECT + "dream/memory/{memory_id}/sources/", None),
        ("POST", PROJECT + "members/", {"email": "spy@example.com", "role": "OWNER"}),
        ("PUT", PROJECT + "members/", member),
        ("DELETE", PROJECT + "members/?email=" + victim.reader_email, None),
        ("GET", PROJECT + "api-keys/", None),
        ("POST", PROJECT + "api-keys/", {"label": "planted"}),
        ("DELETE", PROJECT + "api-keys/{key_id}/", None),
    ]
    for method, template, body in org_routes:
        route = template.split("?")[0]
        out.append((method, route, template.format_map(ids), body))
        if "{project_id}" in template:  # the attacker's own org in the path, the victim's project
            out.append((method, route, template.format_map(own_project), body))
    # the attacker's own org and project in the path, the victim's key id
    out.append(
        ("DELETE", PROJECT + "api-keys/{key_id}/", (PROJECT + "api-keys/{key_id}/").format_map(own_key_path), None)
    )
    job = "/v2/profiles/jobs/{job_id}/"
    out.append(("GET", job, job.format(job_id=victim.profile_job_id), None))
    return out + webhook_requests(victim)


def requests_scoped_by_the_key(victim: Victim) -> list[tuple[str, str, Any]]:
    """Routes that name no id: the key's own project answers, with the victim's user id and words in the call."""
    alice = {"user_id": "alice"}
    return [
        ("GET", "/v1/ping/", None),
        ("GET", "/v1/entities/", None),
        ("GET", "/v2/entities/{entity_type}/{entity_id}/".format(entity_type="user", entity_id="alice"), None),
        ("GET", "/v1/events/", None),
        ("GET", "/v1/memories/events/", None),
        ("POST", "/v1/exports/", {"schema": {"type": "object"}, "filters": alice}),
        ("POST", "/v1/summary/", {"filters": alice}),
        ("GET", "/v1/stats/", None),
        ("POST", "/v3/memories/search/", {"query": "vault code", "filters": alice, "threshold": 0.0}),
        ("POST", "/v2/memories/search/", {"query": "vault code", "filters": alice, "threshold": 0.0}),
        ("POST", "/v1/memories/search/", {"query": "vault code", "user_id": "alice", "threshold": 0.0}),
        ("POST", "/v3/memories/", {"filters": alice}),
        ("POST", "/v2/memories/", {"filters": alice}),
        ("GET", "/v1/memories/?user_id=alice", None),
        ("GET", "/api/v1/orgs/organizations/", None),
        ("POST", "/v3/memories/add/", {"messages": [{"role": "user", "content": "mine"}], **alice, "infer": False}),
        ("POST", "/v1/memories/", {"messages": [{"role": "user", "content": "mine too"}], **alice, "infer": False}),
        ("POST", "/v1/memories/import/", {"items": [{"memory": "mine as well", **alice}]}),
        ("POST", "/api/v1/orgs/organizations/", {"name": "attacker's second org"}),
        ("DELETE", "/v2/entities/{entity_type}/{entity_id}/".format(entity_type="user", entity_id="alice"), None),
        ("POST", "/v1/users/", {"user_id": "alice", "name": "the attacker's alice"}),
        ("POST", "/v1/agents/", {"agent_id": "helper"}),
        ("POST", "/v1/apps/", {"app_id": "mobile"}),
        ("POST", "/v1/runs/", {"run_id": "r1"}),
        ("GET", "/v1/memories/user/alice/", None),
        ("GET", "/v1/entities/filters/", None),
        ("DELETE", "/v1/entities/user/alice/", None),
        ("DELETE", "/v1/memories/?user_id=*&agent_id=*&app_id=*&run_id=*", None),
        ("GET", "/v2/entities/user/alice/profile/", None),
        ("GET", "/v2/profiles/settings/", None),
        ("POST", "/v2/profiles/settings/", {"enabled": True, "entities": {"user": {"custom_instructions": "mine"}}}),
        ("POST", "/v2/profiles/jobs/", {"operation": "trigger", "entity_type": "user", "entity_id": "alice"}),
        ("POST", "/v2/profiles/jobs/", {"operation": "sample", "entity_type": "user"}),
    ]


def snapshot(server: Server, victim: Victim) -> dict[str, Any]:
    """Everything the victim's owner can read that an attack could change."""
    http = httpx.Client(base_url=server.url, headers=victim.owner.headers, timeout=HTTP_TIMEOUT)
    project = project_path(victim.owner)
    keys = [{k: v for k, v in key.items() if k != "last_used_at"} for key in http.get(project + "api-keys/").json()]
    event = http.get(f"/v1/event/{victim.event_id}/").json()
    return {
        "org": http.get(ORG.format(org_id=victim.owner.org_id)).json(),
        "org members": http.get(ORG.format(org_id=victim.owner.org_id) + "members/").json(),
        "projects": http.get(ORG.format(org_id=victim.owner.org_id) + "projects/").json(),
        "project": http.get(project).json(),
        "project members": http.get(project + "members/").json(),
        "dream config": http.get(project + "dream/config/").json(),
        "keys": keys,
        "memories": http.post("/v3/memories/", json={"filters": {"user_id": "alice"}}).json(),
        "history": http.get(f"/v1/memories/{victim.memory_id}/history/").json(),
        "event": {k: event[k] for k in ("status", "results")},
        "export": http.post("/v1/exports/get/", json={"memory_export_id": victim.export_id}).json(),
        "entities": http.get("/v1/entities/").json()["results"],
        "profile settings": http.get("/v2/profiles/settings/").json(),
        "profile": http.get("/v2/entities/user/alice/profile/").json(),
        "profile job": http.get(f"/v2/profiles/jobs/{victim.profile_job_id}/").json(),
        "webhooks": http.get(WEBHOOKS.format(project_id=victim.owner.project_id)).json(),
        "deliveries": [
            {k: v for k, v in delivery.items() if k not in ("attempts", "next_attempt_at", "state", "finished_at")}
            for delivery in http.get(WEBHOOK.format(webhook_id=victim.webhook_id) + "deliveries/").json()["results"]
        ],
    }


def test_every_platform_route_is_covered_here(server: Server, victim: Victim, attackers: list[Attacker]) -> None:
    spec = httpx.get(f"{server.url}/openapi.json", timeout=HTTP_TIMEOUT).json()
    platform = {
        (method.upper(), path)
        for path, methods in spec["paths"].items()
        if path.startswith(("/v1/", "/v2/", "/v3/", "/api/v1/"))
        for method in methods
    }
    named = {(m, route) for m, route, _, _ in requests_naming_the_victim(victim, attackers[0].tenant)}
    scoped = {(m, path.split("?")[0]) for m, path, _ in requests_scoped_by_the_key(victim)}
    scoped |= {
        ("GET", "/v2/entities/{entity_type}/{entity_id}/"),
        ("DELETE", "/v2/entities/{entity_type}/{entity_id}/"),
        ("GET", "/v1/memories/{entity_type}/{entity_id}/"),
        ("DELETE", "/v1/entities/{entity_type}/{entity_id}/"),
        ("GET", "/v2/entities/{entity_type}/{entity_id}/profile/"),
    }
    assert platform <= named | scoped, sorted(platform - named - scoped)


def test_no_key_from_outside_reaches_changes_or_sees_the_victim(
    server: Server, victim: Victim, attackers: list[Attacker]
) -> None:
    before = snapshot(server, victim)
    assert SECRET in str(before["memories"]) and before["keys"]
    victim_ids = [victim.memory_id, victim.event_id, victim.export_id, victim.key_id, victim.owner.project_id]
    victim_ids += [victim.webhook_id, victim.delivery_id, victim.profile_job_id]
    for attacker in attackers:
        http = httpx.Client(base_url=server.url, headers=attacker.tenant.headers, timeout=HTTP_TIMEOUT)
        for method, _route, path, body in requests_naming_the_victim(victim, attacker.tenant):
            response = http.request(method, path, json=body)
            where = (attacker.name, method, path, response.status_code, response.text)
            assert response.status_code in (403, 404), where
            assert SECRET not in response.text and victim.reader_email not in response.text, where
        for method, path, body in requests_scoped_by_the_key(victim):
            response = http.request(method, path, json=body, headers={"Idempotency-Key": uuid.uuid4().hex})
            where = (attacker.name, method, path, response.status_code, response.text)
            assert response.status_code < 500, where
            assert SECRET not in response.text, where
            assert not any(victim_id in response.text for victim_id in victim_ids), where
            assert victim.owner.org_id not in response.text, where

    assert snapshot(server, victim) == before
    assert httpx.get(f"{server.url}/v1/ping/", headers=victim.owner.headers, timeout=HTTP_TIMEOUT).json()[
        "project_id"
    ] == (victim.owner.project_id)
