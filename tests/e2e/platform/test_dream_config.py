"""Dream's configuration routes (issue 15), on both backends: the project's config beside the deployment's
entitlements; PATCH by an OWNER, read by any member; Synthesis cannot be turned on where it cannot run — no LLM
configured, or a plan that does not offer it (a 400 that says so, never a silent no-op); an unknown mode is a 400
listing the known ones."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from mem0 import MemoryClient

from mnemo.services.platform.dream.runs import NO_LLM
from mnemo.services.platform.dream.service import NOT_ON_PLAN, Entitlements
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT


def dream_url(server: Server, tenant: Tenant) -> str:
    return f"{server.url}/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/dream/config/"


@pytest.fixture
def plan_without_synthesis(server: Server) -> Iterator[None]:
    dream = server.platform.dream
    before = dream.entitlements
    dream.entitlements = Entitlements(before.plan, before.reflection_interval_days, synthesis=False)
    try:
        yield
    finally:
        dream.entitlements = before


def test_the_config_and_the_entitlements(server: Server) -> None:
    tenant = new_tenant(server, "dream")
    got = httpx.get(dream_url(server, tenant), headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert got.status_code == 200, got.text
    assert got.json() == {
        "config": {"reflection_enabled": False, "reflection_enabled_at": None, "reflection_mode": "batch"},
        "entitlements": {
            "plan": "self-hosted",
            "reflection_interval_days": 7,
            "features": {
                "supersede": True,
                "merge": True,
                "synthesis": False,
                "reflection_modes": ["batch", "manual"],
                "synthesis_min_memories": 20,
                "synthesis_unavailable": NO_LLM,
            },
        },
    }


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"reflection_enabled": True}, 400, "Synthesis cannot be turned on: Synthesis needs an LLM"),
        ({"reflection_mode": "stream"}, 400, "one of batch, manual"),
        ({}, 400, "at least one of"),
        ({"reflection_enabled": "maybe"}, 422, "reflection_enabled"),
        ({"reflection_mode": "batch", "schedule": "daily"}, 400, "schedule"),  # an option it does not take
    ],
)
def test_what_cannot_be_set(server: Server, body: dict[str, object], status: int, message: str) -> None:
    tenant = new_tenant(server, "dream-bad")
    answer = httpx.patch(dream_url(server, tenant), json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == status, answer.text
    assert message in answer.text
    assert (
        httpx.get(dream_url(server, tenant), headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["config"][
            "reflection_enabled"
        ]
        is False
    )


def test_turned_on_where_offered_it_says_since_when(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "dream-on")
    url = dream_url(server, tenant)
    on = httpx.patch(
        url, json={"reflection_enabled": True, "reflection_mode": "batch"}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert on.status_code == 200, on.text
    config = on.json()["config"]
    assert config["reflection_enabled"] is True and config["reflection_enabled_at"]
    assert on.json()["entitlements"]["features"]["synthesis"] is True
    assert "synthesis_unavailable" not in on.json()["entitlements"]["features"]
    assert httpx.get(url, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["config"] == config  # stored
    assert tenant.project_id in server.platform.dream_reflections.enabled_projects()  # what the schedule reads
    again = httpx.patch(url, json={"reflection_enabled": True}, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()[
        "config"
    ]
    assert again["reflection_enabled_at"] == config["reflection_enabled_at"]  # already on: the same moment
    manual = httpx.patch(url, json={"reflection_mode": "manual"}, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()[
        "config"
    ]
    assert manual == {**config, "reflection_mode": "manual"}
    off = httpx.patch(url, json={"reflection_enabled": False}, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()[
        "config"
    ]
    assert off["reflection_enabled"] is False and off["reflection_enabled_at"] == config["reflection_enabled_at"]
    assert tenant.project_id not in server.platform.dream_reflections.enabled_projects()


def test_a_plan_without_synthesis_refuses_it_even_with_an_llm(
    server: Server, llm: OpenAIServer, plan_without_synthesis: None
) -> None:
    tenant = new_tenant(server, "dream-plan")
    url = dream_url(server, tenant)
    features = httpx.get(url, headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["entitlements"]["features"]
    assert features["synthesis"] is False and features["synthesis_unavailable"] == NOT_ON_PLAN
    refused = httpx.patch(url, json={"reflection_enabled": True}, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert refused.status_code == 400 and NOT_ON_PLAN in refused.text


def test_a_reader_reads_it_and_another_organization_never_finds_it(server: Server) -> None:
    owner = new_tenant(server, "dream-owner")
    known_user(server, "dream-reader@example.com")
    MemoryClient(api_key=owner.key, host=server.url).project.add_member("dream-reader@example.com", "READER")
    keys = f"{server.url}/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/api-keys/"
    made = httpx.post(
        keys, json={"email": "dream-reader@example.com", "label": "reader"}, headers=owner.headers, timeout=HTTP_TIMEOUT
    )
    assert made.status_code == 201, made.text
    reader = {"Authorization": f"Token {made.json()['api_key']}"}
    url = dream_url(server, owner)
    assert httpx.get(url, headers=reader, timeout=HTTP_TIMEOUT).status_code == 200
    assert httpx.patch(url, json={"reflection_mode": "batch"}, headers=reader, timeout=HTTP_TIMEOUT).status_code == 403
    stranger = new_tenant(server, "dream-stranger")
    assert httpx.get(url, headers=stranger.headers, timeout=HTTP_TIMEOUT).status_code == 404
    assert (
        httpx.patch(url, json={"reflection_mode": "batch"}, headers=stranger.headers, timeout=HTTP_TIMEOUT).status_code
        == 404
    )
