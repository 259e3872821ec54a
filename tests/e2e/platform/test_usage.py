"""A project's usage per day (GET /api/v1/orgs/organizations/{org}/projects/{project}/usage/) on both backends: what
its adds, searches and reads counted today, with the LLM tokens its adds spent, beside every other day of the range
at zero, the memories now and the totals the statistics count; readers may read it, other projects' keys may not;
`days` is bounded; deleting the project deletes its counters per day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest

from mnemo.composition.platform import open_tenancy_store
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT


def usage_path(tenant: Tenant) -> str:
    return f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/usage/"


def call(server: Server, tenant: Tenant, method: str, path: str, **kwargs: Any) -> Any:
    response = httpx.request(method, f"{server.url}{path}", headers=tenant.headers, timeout=HTTP_TIMEOUT, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def test_todays_adds_searches_reads_and_tokens_are_in_the_report(server: Server, llm: OpenAIServer) -> None:
    # Given a project that made a verbatim add, an inferred one (two LLM calls: a memory to decide against), two
    # searches and a list today
    started = datetime.now(UTC).date()
    tenant, other = new_tenant(server), new_tenant(server)
    call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "Likes tea.", "user_id": "a", "infer": False})
    llm.reply(
        '{"facts": [{"text": "Lives in Oslo", "sources": [0]}]}',
        '{"memory": [{"id": "new", "text": "Lives in Oslo", "event": "ADD"}]}',
    )
    queued = call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "I live in Oslo.", "user_id": "a"})
    spent = wait_for_event(server, tenant, queued["event_id"])["llm_usage"]
    for query in ("where does a live", "what does a drink"):
        call(server, tenant, "POST", "/v2/memories/search/", json={"query": query, "filters": {"user_id": "a"}})
    call(server, tenant, "POST", "/v2/memories/", json={"filters": {"user_id": "a"}})
    call(server, other, "POST", "/v2/memories/search/", json={"query": "x", "filters": {"user_id": "a"}})
    # When its usage over the last week is read
    report = call(server, tenant, "GET", usage_path(tenant), params={"days": 7})
    # Then every day of the week is listed, today last
    today = datetime.now(UTC).date()
    assert report["project_id"] == tenant.project_id
    assert date.fromisoformat(report["last_day"]) == today
    assert [date.fromisoformat(d["day"]) for d in report["days"]] == [today - timedelta(days=6 - n) for n in range(7)]
    # And today counted them (all of them fell on it, unless the test ran across midnight), other days nothing
    counted = {"adds": 2, "searches": 2, "gets": 1, "llm_usage": spent}
    assert spent["calls"] == 2 and spent["input_tokens"] > 0
    counts = [{k: v for k, v in d.items() if k != "day"} for d in report["days"]]
    zero = {"adds": 0, "searches": 0, "gets": 0, "llm_usage": {"calls": 0, "input_tokens": 0, "output_tokens": 0}}
    if started == today:
        assert counts == [zero] * 6 + [counted]
    else:
        assert counts[:5] == [zero] * 5
        assert sum(c["searches"] for c in counts) == 2 and sum(c["adds"] for c in counts) == 2
    # And beside them the memories now and the totals, which agree with the statistics
    assert report["total_memories"] == 2
    assert report["totals"] == counted
    stats = call(server, tenant, "GET", "/v1/stats/")
    assert stats["total_add_events"] == 2 and stats["llm_usage"] == spent


def test_a_reader_may_read_the_usage_and_another_projects_key_may_not(server: Server, tenant: Tenant) -> None:
    owner = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    project_path = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    ruth = known_user(server, f"ruth-{tenant.project_id}@example.com")
    owner.post(project_path + "members/", json={"email": ruth, "role": "READER"})
    key = owner.post(project_path + "api-keys/", json={"email": ruth}).json()["api_key"]
    reader = httpx.get(
        f"{server.url}{usage_path(tenant)}", headers={"Authorization": f"Token {key}"}, timeout=HTTP_TIMEOUT
    )
    assert reader.status_code == 200, reader.text
    assert len(reader.json()["days"]) == 30  # the default range
    stranger = new_tenant(server)
    refused = httpx.get(f"{server.url}{usage_path(tenant)}", headers=stranger.headers, timeout=HTTP_TIMEOUT)
    assert refused.status_code == 404
    assert tenant.project_id not in refused.text


@pytest.mark.parametrize("days", ["0", "367", "-3", "thirty", "1e3"])
def test_days_out_of_bounds_are_refused_with_a_clear_answer(server: Server, tenant: Tenant, days: str) -> None:
    response = httpx.get(
        f"{server.url}{usage_path(tenant)}", params={"days": days}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert response.status_code == 422, response.text
    assert "days" in response.text


def test_a_year_and_a_day_is_answered(server: Server, tenant: Tenant) -> None:
    report = call(server, tenant, "GET", usage_path(tenant), params={"days": 366})
    assert len(report["days"]) == 366


def test_deleting_the_project_deletes_its_counters_per_day(server: Server) -> None:
    # Given a second project that searched today
    tenant = new_tenant(server)
    project_path = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/"
    second = call(server, tenant, "POST", project_path, json={"name": "short-lived"})["project_id"]
    key = call(server, tenant, "POST", project_path + f"{second}/api-keys/", json={"label": "x"})["api_key"]
    other = Tenant(key, tenant.org_id, second, tenant.email)
    call(server, other, "POST", "/v2/memories/search/", json={"query": "x", "filters": {"user_id": "a"}})
    assert call(server, other, "GET", usage_path(other), params={"days": 2})["totals"]["searches"] == 1
    assert stored_days(server, second) != {}
    # When it is deleted, its counters per day go with it
    call(server, tenant, "DELETE", project_path + f"{second}/")
    assert stored_days(server, second) == {}


def stored_days(server: Server, project_id: str) -> dict[date, dict[str, int]]:
    today = datetime.now(UTC).date()
    with open_tenancy_store(server.container.settings) as store:
        return store.daily_counters(project_id, today - timedelta(days=1), today + timedelta(days=1))
